import path from "node:path";
import { AppError } from "../shared/errors.js";
import type { Session } from "./session.js";

/**
 * The folders of the chat apps found on this machine (`--apps`), each said with its app; those whose
 * sessions a watch keeps as they go on when `watching` (Cursor's databases are imported, not watched).
 * None found is the caller's error, naming `flag`, unless `optional` (a service started at login).
 */
export async function appFolders(session: Session, flag: string, how: { watching: boolean; optional?: boolean }): Promise<string[]> {
  const { foundApps, appsLookedFor } = await import("../core/index.js");
  const apps = foundApps({ platform: process.platform, env: session.io.env }, { watching: how.watching });
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
    const list = apps.map((app) => `${app.name} (${shownPaths(app.folder, session)})`).join(", ");
    session.out.notice(`${how.watching ? "Watching the sessions of" : "Found on this machine:"} ${list}`);
  }
  return apps.map((app) => app.folder);
}

/** A text's paths under the user's home as they would type them, `~/…`. */
export function shownPaths(text: string, session: Session): string {
  const home = session.io.env["HOME"] || session.io.env["USERPROFILE"];
  if (!home || home === "/" || home === "\\") return text;
  return text.replaceAll(`${home}/`, "~/").replaceAll(`${home}\\`, "~\\");
}

/** The app whose sessions are kept in a folder found on this machine (~/.continue/sessions: Continue), for a watch's log. */
export async function sessionsAppOf(session: Session): Promise<(folder: string) => string | undefined> {
  const { foundApps } = await import("../core/index.js");
  const apps = foundApps({ platform: process.platform, env: session.io.env }, { watching: true });
  return (folder) => apps.find((app) => path.resolve(app.folder) === path.resolve(folder))?.name;
}
