// Where chat apps keep their chats on a machine (Importer.appFolders), for `mnemo import --apps` and
// `mnemo watch --apps`: each app's folders, found by the conventions the apps follow, on this system.
import { readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppFolder, Importer, MovedBy } from "./importer.js";
import { databaseEndingsOf, IMPORTERS } from "./registry.js";
import { VS_CODE_AND_FORKS } from "./editors.js";
import { listing } from "./words.js";

/** What a folder's place is read from: the user's home, the system, and its environment (the CLI runs in process in tests). */
export interface Machine {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}

/** An app's folder (or its one database) found on this machine. */
export interface FoundApp {
  /** The format's id (the registry's). */
  format: string;
  /** The app, as people say it. */
  name: string;
  folder: string;
  /** Whether the app writes its sessions as they go on, so that watching the folder keeps them (Importer.sessionLogs). */
  sessionLogs: boolean;
}

/**
 * The folder on this machine: where the variable that moves it names, when set (AppFolder.moved);
 * else under the home folder; under the apps' settings folder (Electron's appData); under XDG's data
 * folder; under Windows' local application data (%LOCALAPPDATA%).
 */
export function appFolderPath(folder: AppFolder, machine: Machine): string {
  const home = homeOf(machine);
  const usual = usualPath(folder, home, machine);
  return movedTo(folder.moved, usual, home, machine) ?? usual;
}

/** Where the app keeps the folder when no variable moves it. */
function usualPath(folder: AppFolder, home: string, machine: Machine): string {
  if ("home" in folder) return path.join(home, ...folder.home.split("/"));
  if ("xdgData" in folder)
    return path.join(machine.env["XDG_DATA_HOME"] || path.join(home, ".local", "share"), ...folder.xdgData.split("/"));
  // As Windows keeps it: a profile moved to another disk moves the variable, not ~/AppData/Local.
  if ("localAppData" in folder)
    return path.join(machine.env["LOCALAPPDATA"] || path.join(home, "AppData", "Local"), ...folder.localAppData.split("/"));
  return path.join(appDataFolder(home, machine), ...folder.appData.split("/"));
}

function homeOf(machine: Machine): string {
  return machine.env["HOME"] || machine.env["USERPROFILE"] || os.homedir();
}

/**
 * Where the variable that moves an app's folder puts it, read as the app reads it: the first of its
 * variables set, ~ as the home folder where the app expands it, a relative path from the working
 * folder (or from the folder the usual path is in, MovedBy.besideDefault); none when none is set (or
 * the app ignores the value).
 */
function movedTo(moved: MovedBy | undefined, usual: string, home: string, machine: Machine): string | undefined {
  const value = variablesOf(moved)
    .map((name) => machine.env[name])
    .find((value) => value);
  if (moved === undefined || value === undefined) return undefined;
  if (moved.absolute && !path.isAbsolute(value)) return undefined;
  const base = moved.tilde && /^~($|[/\\])/.test(value) ? path.join(home, value.slice(1)) : value;
  const from = moved.besideDefault ? path.dirname(usual) : process.cwd();
  return path.resolve(from, base, ...moved.path.split("/"));
}

function variablesOf(moved: MovedBy | undefined): readonly string[] {
  return moved === undefined ? [] : typeof moved.env === "string" ? [moved.env] : moved.env;
}

/** Where Electron apps (VS Code, Cursor) keep their settings and data: app.getPath("appData"). */
function appDataFolder(home: string, machine: Machine): string {
  if (machine.platform === "win32") return machine.env["APPDATA"] || path.join(home, "AppData", "Roaming");
  if (machine.platform === "darwin") return path.join(home, "Library", "Application Support");
  return machine.env["XDG_CONFIG_HOME"] || path.join(home, ".config");
}

/** What `--apps` finds on this machine, in one look: what an import reads, what a watch follows, and what it does not. */
export interface AppsFound {
  /** Each app's folder (or database) there, one inside another left to it (Cline's tasks in Cursor's User folder). */
  imported: FoundApp[];
  /** What watching follows: session folders, and of an app that writes a database its database alone (watchedIn). */
  watched: FoundApp[];
  /** The folders imported that a watch does not follow, each with why (AppFolder.notWatched, Importer.notWatched, no database there). */
  notWatched: (FoundApp & { why: string })[];
}

/**
 * Every app's folder that is on this machine, in the registry's order, looked for once. A folder
 * inside another found is left out: importing the outer one reads it; to watch, the same among what
 * is watched (Cline's tasks in Cursor's User folder are watched, Cursor's globalStorage/state.vscdb beside them).
 */
export function appsOn(machine: Machine = { platform: process.platform, env: process.env }): AppsFound {
  const places = IMPORTERS.flatMap((importer) =>
    foldersOn(importer, machine).flatMap((folder) => placesOf(folder, machine).map((place) => ({ importer, folder, place }))),
  );
  const app = (importer: Importer, folder: AppFolder, place: string): FoundApp => ({
    format: importer.id,
    name: folder.app ?? importer.name,
    folder: place,
    sessionLogs: importer.sessionLogs === true,
  });
  const followed = places.map((found) => {
    const why = whyNotWatched(found.importer, found.folder);
    return { ...found, why, watched: why === undefined ? watchedIn(found.importer, found.folder, found.place) : [] };
  });
  return {
    imported: outermost(places.map(({ importer, folder, place }) => app(importer, folder, place))),
    watched: outermost(followed.flatMap(({ importer, folder, watched }) => watched.map((place) => app(importer, folder, place)))),
    notWatched: once(
      followed
        .filter(({ why, watched }) => why !== undefined || watched.length === 0)
        .map(({ importer, folder, place, why }) => ({ ...app(importer, folder, place), why: why ?? noDatabaseIn(importer, folder) })),
    ),
  };
}

/**
 * Every app's folder that is on this machine, in the registry's order; those whose sessions are
 * watched when `watching` (session logs, or a database written as they go on) (appsOn).
 */
export function foundApps(
  machine: Machine = { platform: process.platform, env: process.env },
  how: { watching?: boolean } = {},
): FoundApp[] {
  const found = appsOn(machine);
  return how.watching ? found.watched : found.imported;
}

/** The same folder found twice (two lists naming it: Jan's settings.json before and after its move) once; one inside another left to it. */
function outermost(found: FoundApp[]): FoundApp[] {
  const each = once(found);
  return each.filter((app) => !each.some((outer) => outer !== app && isInside(app.folder, outer.folder)));
}

function once<App extends FoundApp>(found: App[]): App[] {
  return found.filter((app, n) => found.findIndex((other) => other.folder === app.folder) === n);
}

/** Whether watching an app's folder keeps its chats as they go on: its session logs, or its database (Importer.watchedDatabase, AppFolder.watchedDatabase). */
function isWatched(importer: Importer): boolean {
  return importer.sessionLogs === true || watchesDatabase(importer);
}

/** Whether watching imports the app's database again as it changes (Importer.watchedDatabase, AppFolder.watchedDatabase). */
function watchesDatabase(importer: Importer): boolean {
  return importer.watchedDatabase === true || (importer.appFolders ?? []).some((folder) => folder.watchedDatabase !== undefined);
}

/** Why a watch does not follow an app's folder; undefined when it does. */
function whyNotWatched(importer: Importer, folder: AppFolder): string | undefined {
  return folder.notWatched ?? importer.notWatched ?? (isWatched(importer) ? undefined : "its chats are imported, not watched");
}

/** Why a folder of an app whose database is watched is not: the database is not in it (Cherry Studio before 2.0, OpenCode before 1.2). */
function noDatabaseIn(importer: Importer, folder: AppFolder): string {
  const names = folder.watchedDatabase ?? databaseEndingsOf(importer).filter((ending) => !ending.startsWith("."));
  return `no ${listing([...names], "or")} in it, the database watched as the app writes it`;
}

/**
 * What watching an app's folder follows: the databases the folder entry names under it (AppFolder.watchedDatabase);
 * the folder, for an app that writes session logs; else its database alone (the folder's file named as
 * the format names it: OpenCode's opencode.db, not the thousands of storage files of before 1.2 beside
 * it, each detected at every start).
 */
function watchedIn(importer: Importer, folder: AppFolder, place: string): string[] {
  if (folder.watchedDatabase !== undefined)
    return folder.watchedDatabase.map((database) => path.join(place, ...database.split("/"))).filter((file) => isThere(file, true));
  if (importer.sessionLogs === true || folder.file === true || folder.listed !== undefined) return [place];
  return databaseEndingsOf(importer)
    .filter((ending) => !ending.startsWith(".")) // a file's whole name, not an extension
    .map((name) => path.join(place, name))
    .filter((file) => isThere(file, true));
}

/** The app's folders that are kept on this machine's system; to watch, those not only imported (AppFolder.notWatched). */
function foldersOn(importer: Importer, machine: Machine, how: { watching?: boolean } = {}): AppFolder[] {
  return (importer.appFolders ?? []).filter(
    (folder) => (folder.only === undefined || folder.only === machine.platform) && !(how.watching && folder.notWatched !== undefined),
  );
}

/** Where an app's folder is on this machine, when it is there; for a list (AppFolder.listed), each file or folder it names that is there. */
function placesOf(folder: AppFolder, machine: Machine): string[] {
  const place = appFolderPath(folder, machine);
  if (folder.listed === undefined) return isThere(place, folder.file === true) ? [place] : [];
  return listedIn(place, folder.listed).filter((named) => isThere(named, true) || isThere(named, false));
}

/** The files a list names; none when there is no list (the app never ran) or it cannot be read. */
function listedIn(list: string, listed: NonNullable<AppFolder["listed"]>): readonly string[] {
  try {
    // A name with a NUL (an INI's `\x0000`, JSON's `\u0000`) is no path: the file system calls throw on it.
    return listed(readFileSync(list, "utf8"), list).filter((named) => !named.includes("\0"));
  } catch {
    return [];
  }
}

function isThere(path: string, file: boolean): boolean {
  const info = statSync(path, { throwIfNoEntry: false });
  return (file ? info?.isFile() : info?.isDirectory()) === true;
}

function isInside(folder: string, outer: string): boolean {
  const relative = path.relative(outer, folder);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** The apps `--apps` looks for, in the registry's order; to watch, those whose chats watching keeps (isWatched). */
function appsLookedForBy(how: { watching?: boolean }): Importer[] {
  return IMPORTERS.filter((importer) => (importer.appFolders ?? []).length > 0 && (!how.watching || isWatched(importer)));
}

/** The apps whose folders `--apps` looks for (to watch: those whose sessions are watched), for the message when none is found. */
export function appsLookedFor(how: { watching?: boolean } = {}): string {
  return appsLookedForBy(how)
    .map((importer) => importer.name)
    .join(", ");
}

/** The apps whose databases watching imports again as they change (Importer.watchedDatabase, AppFolder.watchedDatabase), for `mnemo watch --help`. */
export function databasesWatched(): string {
  return listing(
    IMPORTERS.filter(watchesDatabase).map((importer) => importer.name),
    "and",
  );
}

/** The apps (or their folders) `--apps` imports and does not watch, each with why (Importer.notWatched, AppFolder.notWatched), for `mnemo watch --help`. */
export function appsNotWatched(): string {
  return IMPORTERS.flatMap((importer) => {
    const reasons = [importer.notWatched, ...(importer.appFolders ?? []).map((folder) => folder.notWatched)];
    return [...new Set(reasons.filter((why) => why !== undefined))].map((why) => `  ${importer.name}: ${why}`);
  }).join("\n");
}

/** Where a help line's folders go on a line of their own each, rather than side by side. */
const HELP_WIDTH = 100;
/** How help names the folder of any of VS Code and its forks, said once below the list. */
const EDITOR = "<editor>";

/**
 * Each app `--apps` looks for (to watch: those `mnemo watch --apps` watches) and where on this
 * machine, home as `~`: one line an app, its folders that differ in one part said once, the part's
 * names in braces (~/.qwen/{projects,tmp}), VS Code's forks as <editor> (`mnemo import --help`, `mnemo watch --help`).
 */
export function appFolderLines(
  machine: Machine = { platform: process.platform, env: process.env },
  how: { watching?: boolean } = {},
): string {
  const home = homeOf(machine);
  const shown = (folder: string) => (folder.startsWith(home + path.sep) ? `~${folder.slice(home.length)}` : folder);
  const apps = appsLookedForBy(how).filter((importer) => foldersOn(importer, machine, how).length > 0); // none of Ollama's app on Linux
  const column = Math.max(...apps.map((importer) => importer.name.length)) + 4;
  let editors = false;
  let moved = false;
  const lines = apps.map((importer) => {
    // Each folder's parts, and last what is said of it: merged() joins folders whose notes are the same.
    const folders = foldersOn(importer, machine, how).flatMap((folder) =>
      helpPaths(folder, machine, how).map((place) => [
        ...shown(place)
          .split(path.sep)
          .map((part) => [part]),
        [noteOn(folder, how)],
      ]),
    );
    const patterns = merged(folders).map((parts) => {
      const note = parts.at(-1)![0]!;
      const folder = parts.slice(0, -1).map((names) => (isEditors(names) ? EDITOR : braced(names)));
      return folder.join(path.sep) + (note === "" ? "" : ` (${note})`);
    });
    editors ||= patterns.some((pattern) => pattern.includes(EDITOR));
    moved ||= foldersOn(importer, machine).some((folder) => folder.moved !== undefined);
    const name = `  ${importer.name.padEnd(column - 2)}`;
    const together = name + patterns.join(", ");
    return together.length <= HELP_WIDTH
      ? together
      : patterns.map((pattern, n) => (n === 0 ? name : " ".repeat(column)) + pattern).join("\n");
  });
  if (editors) lines.push(`  ${EDITOR} is the folder of VS Code or of an editor built on it: ${VS_CODE_AND_FORKS.join(", ")}`);
  if (moved) lines.push("  ($NAME) after a folder is the variable that moves it: where it is set, --apps looks under it instead");
  return lines.join("\n");
}

/** The paths a help line shows: to watch, the databases under the folder that are followed (AppFolder.watchedDatabase), where not a list's. */
function helpPaths(folder: AppFolder, machine: Machine, how: { watching?: boolean }): string[] {
  const place = appFolderPath(folder, machine);
  const databases = how.watching && folder.listed === undefined ? folder.watchedDatabase : undefined;
  return databases === undefined ? [place] : databases.map((database) => path.join(place, ...database.split("/")));
}

/** What a help line says of a folder after it: that it is a list of databases (to watch, the database followed in each), the variables that move it. */
function noteOn(folder: AppFolder, how: { watching?: boolean }): string {
  const variables = variablesOf(folder.moved).map((name) => `$${name}`);
  const inEach = how.watching && folder.watchedDatabase !== undefined ? `: the ${listing([...folder.watchedDatabase], "or")} in each` : "";
  return [
    ...(folder.listed === undefined ? [] : [(folder.listNames ?? "the databases it lists") + inEach]),
    ...(variables.length > 0 ? [variables.join(" or ")] : []),
  ].join("; ");
}

/**
 * Paths (each a list of parts, each part its names) merged while two differ in one part only:
 * ~/.qwen/projects and ~/.qwen/tmp become ~/.qwen/{projects,tmp}.
 */
function merged(paths: string[][][]): string[][][] {
  const key = (parts: string[][], skip: number) => parts.map((names, at) => (at === skip ? "*" : names.join("\u0000"))).join("/");
  for (;;) {
    const pair = pairDifferingInOnePart(paths, key);
    if (pair === undefined) return paths;
    const [first, second, at] = pair;
    const joined = first.map((names, n) => (n === at ? [...names, ...second[n]!] : names));
    paths = paths.filter((parts) => parts !== second).map((parts) => (parts === first ? joined : parts));
  }
}

function pairDifferingInOnePart(
  paths: string[][][],
  key: (parts: string[][], skip: number) => string,
): [string[][], string[][], number] | undefined {
  for (const [n, first] of paths.entries()) {
    for (const second of paths.slice(n + 1)) {
      if (second.length !== first.length) continue;
      // The last part is what is said of the folder (appFolderLines): never merged.
      const at = first.slice(0, -1).findIndex((_, part) => key(first, part) === key(second, part));
      if (at >= 0) return [first, second, at];
    }
  }
  return undefined;
}

function isEditors(names: string[]): boolean {
  return names.length === VS_CODE_AND_FORKS.length && VS_CODE_AND_FORKS.every((editor) => names.includes(editor));
}

function braced(names: string[]): string {
  return names.length === 1 ? names[0]! : `{${names.join(",")}}`;
}

/**
 * The paths given and the apps' folders, each file read once: a folder given that is an app's or
 * inside one is read with the app's, an app's folder inside one given with that one (the same
 * conversations read twice were counted twice, "33 new; 2 unchanged" for 33 stored).
 */
export function withAppFolders(given: string[], apps: string[]): string[] {
  const covers = (outer: string, inner: string) =>
    path.resolve(outer) === path.resolve(inner) || isInside(path.resolve(inner), path.resolve(outer));
  const paths = given.filter((given) => !apps.some((app) => covers(app, given)));
  return [...paths, ...apps.filter((app) => !paths.some((given) => covers(given, app)))];
}
