// What to tell the user when a zip or folder holds no chat export file that can be read: the
// files it does hold often say what went wrong (an archive of archives, pages that are no export,
// a ChatGPT export missing its data, one part of an export downloaded in parts). Names are looked at here only to word the message; the
// format itself is always recognised from content (detect.ts).
import { AppError } from "../shared/errors.js";
import { isJunkPath, type ByteSource } from "./source.js";
import { PART_ARCHIVE, ZIP_NAME } from "./zip.js";

export const HTML_NAME = /\.html?$/i;
/** Takeout's index page, in every Takeout whatever was chosen: it says nothing of the format. */
const TAKEOUT_INDEX = /^archive_browser\.html$/i;
const CHATGPT_PAGE = /^chat\.html$/i;
const MAX_LISTED = 3;

/** An error naming what the container holds instead of an export, or undefined when nothing tells. */
export function noExportInside(sources: ByteSource[], containerLabel: string): AppError | undefined {
  const names = sources
    .filter((source) => !isJunkPath(source.path))
    .map((source) => ({ path: source.path, base: source.path.split(/[\\/]/).at(-1) ?? source.path }));
  const archives = names.filter(({ base }) => ZIP_NAME.test(base)).map(({ path }) => path);
  const isPart = PART_ARCHIVE.test(containerLabel.split(/[\\/]/).at(-1) ?? containerLabel);
  if (archives.length > 0 && !isPart) {
    return new AppError("invalid_input", `${containerLabel}: holds zip archives (${listing(archives)}), not an export's own files`, {
      suggestion: "Import each archive on its own (mnemo import <archive>.zip), or unzip them and pass the folder of each.",
    });
  }
  if (names.some(({ base }) => CHATGPT_PAGE.test(base))) {
    return new AppError("invalid_input", `${containerLabel}: holds ChatGPT's chat.html but no conversations.json (the export's data)`, {
      suggestion:
        "The export is incomplete: download it again from ChatGPT (Settings → Data controls → Export data) and pass the zip as downloaded.",
    });
  }
  const pages = names.filter(({ base }) => HTML_NAME.test(base) && !TAKEOUT_INDEX.test(base)).map(({ path }) => path);
  if (pages.length > 0) {
    return new AppError("invalid_input", `${containerLabel}: holds HTML pages (${listing(pages)}), none of them a chat export`, {
      suggestion:
        "Of HTML, mnemo reads Google Takeout's My Activity page of Gemini Apps; of other apps, the data their export holds (conversations.json, or the zip as downloaded).",
    });
  }
  if (isPart) {
    return new AppError(
      "invalid_input",
      `${containerLabel}: one part of an export downloaded in parts, holding no chats (${listing(names.map(({ path }) => path))})`,
      {
        suggestion:
          "Save every part of the export in one folder (the archives Claude's manifest links to, conversations-000.zip among them; each takeout-…-NNN.zip) and import the folder.",
      },
    );
  }
  return undefined;
}

function listing(paths: string[]): string {
  const shown = paths.slice(0, MAX_LISTED).join(", ");
  return paths.length > MAX_LISTED ? `${shown} and ${paths.length - MAX_LISTED} more` : shown;
}

/**
 * Claude's export as it comes since 2026: a manifest (manifest-<ids>-<date>.json) whose one-time
 * links download the export's part archives. Its name is all that tells it: it holds no chats.
 */
const PARTS_MANIFEST = /^manifest-[\w-]+\.json$/i;

/** The error for a lone file that is such a manifest, or undefined when it is not one. */
export function partsManifestError(label: string, path: string): AppError | undefined {
  if (!PARTS_MANIFEST.test(path.split(/[\\/]/).at(-1) ?? path)) return undefined;
  return new AppError(
    "invalid_input",
    `${label}: this is the manifest of an export downloaded in parts (its download links), not the chats`,
    {
      suggestion: "Download every archive it links to (conversations-000.zip and the others) into one folder and import the folder.",
    },
  );
}
