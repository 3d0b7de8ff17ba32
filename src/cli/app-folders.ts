import path from "node:path";
import { AppError } from "../shared/errors.js";
import type { AppsFound, FoundApp } from "../core/index.js";
import type { Session } from "./session.js";

/**
 * The folders of the chat apps found on this machine (`mnemo import --apps`), each said with its app,
 * and the folders (or databases) of those a watch keeps, as it keys their files, with their format:
 * the apps looked for once, for both (the import keeps the watched files as it read them).
 * None found is the caller's error, naming `flag`.
 */
export async function appFolders(
  session: Session,
  flag: string,
): Promise<{ folders: string[]; watched: { folder: string; format: string }[] }> {
  const found = await appsOnThisMachine(session);
  return {
    folders: (await saidFound(session, flag, { watching: false }, found.imported)).map((app) => app.folder),
    watched: found.watched.map((app) => ({ folder: path.resolve(app.folder), format: app.format })),
  };
}

/** A folder a watch keeps, with the app whose sessions it holds when it is the folder of one found on this machine (for its log). */
export interface WatchedFolder {
  folder: string;
  /** The app's name, as watchFolder's option of that name takes it. */
  sessionsOf: string | undefined;
  /** The app's format: a database found for it is read as that format's, whatever its name (watchFolder's `format`). */
  format: string | undefined;
}

/**
 * The folders given and, with `apps`, the folders of the apps whose sessions are watched (appFolders),
 * each once, each named by its app: the apps looked up once, for both (`watch`, `serve --watch`).
 */
export async function foldersToWatch(
  session: Session,
  given: string[],
  how: { apps: boolean; flag: string; optional?: boolean },
): Promise<WatchedFolder[]> {
  if (given.length === 0 && !how.apps) return [];
  const { watched: found, notWatched } = await appsOnThisMachine(session);
  const apps = how.apps ? await saidFound(session, how.flag, { watching: true, optional: how.optional }, found) : [];
  if (how.apps) saidNotWatched(session, notWatched);
  const folders = [...new Set([...given, ...apps.map((app) => app.folder)])];
  return folders.map((folder) => {
    const app = found.find((app) => path.resolve(app.folder) === path.resolve(folder));
    return { folder, sessionsOf: app?.name, format: app?.format };
  });
}

async function appsOnThisMachine(session: Session): Promise<AppsFound> {
  const { appsOn } = await import("../core/index.js");
  return appsOn({ platform: process.platform, env: session.io.env });
}

/** The apps' folders found that a watch does not follow, each with why: `mnemo import --apps` imports them. */
function saidNotWatched(session: Session, apps: AppsFound["notWatched"]): void {
  if (apps.length === 0) return;
  const list = apps.map((app) => `\n  ${app.name} (${shownPaths(app.folder, session)}): ${app.why}`).join("");
  session.out.notice(`Not watched, imported by \`mnemo import --apps\`:${list}`);
}

/** The apps found, said; none found an error naming `flag` unless `optional`. */
async function saidFound(
  session: Session,
  flag: string,
  how: { watching: boolean; optional?: boolean | undefined },
  apps: FoundApp[],
): Promise<FoundApp[]> {
  const { appsLookedFor } = await import("../core/index.js");
  if (apps.length === 0 && how.optional) {
    session.out.notice(`No chat app's folder to watch on this machine (looked for ${appsLookedFor({ watching: true })}).`);
  } else if (apps.length === 0) {
    throw AppError.invalid(
      flag,
      `found no chat app's folder on this machine (looked for ${appsLookedFor({ watching: how.watching })})`,
      how.watching
        ? "Name the folder to watch instead (`mnemo import --help` says where each app keeps its chats), or an export's, such as ~/Downloads."
        : "Pass an export file, zip or folder instead: `mnemo import --help` says where each app keeps its chats.",
    );
  } else {
    // A line each: a machine with a dozen apps made one line of 1,500 characters.
    const list = apps.map((app) => `\n  ${app.name} (${shownPaths(app.folder, session)})`).join("");
    session.out.notice(`${how.watching ? "Watching the chats of these apps:" : "Found on this machine:"}${list}`);
  }
  return apps;
}

/** A text's paths under the user's home as they would type them, `~/…`. */
export function shownPaths(text: string, session: Session): string {
  const home = session.io.env["HOME"] || session.io.env["USERPROFILE"];
  if (!home || home === "/" || home === "\\") return text;
  return text.replaceAll(`${home}/`, "~/").replaceAll(`${home}\\`, "~\\");
}
