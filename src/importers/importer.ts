// What an importer is: one entry per export format, holding everything said and done about it (its
// detection, its converter, its name and the words about it). registry.ts lists them; every list of
// formats a user reads (help, errors, the web app, MCP, the README) is generated from that list
// (words.ts). src/README.md, "How to add an importer", shows the steps.
import type { AppError } from "../shared/errors.js";
import type { UploadConversation } from "../schemas/chat-history.js";
import { unreadableRecord } from "./record-errors.js";
import type { DatabaseReader } from "./sqlite.js";
import type { ByteSource } from "./source.js";
import type { ExportMemory, RecordContext, SkippedCount, SourcedRecord } from "./types.js";

/**
 * A folder where an app keeps its chats, "/"-separated: under the user's home folder on every system;
 * under the apps' settings folder (~/.config on Linux, ~/Library/Application Support on macOS,
 * %APPDATA% on Windows: Electron's appData); under XDG's data folder ($XDG_DATA_HOME, else
 * ~/.local/share, on every system, as apps built on xdg-basedir keep it); or under Windows' local
 * application data, %LOCALAPPDATA% (~/AppData/Local where it is not set), for a folder kept on Windows alone.
 */
export type AppFolder = ({ home: string } | { appData: string } | { xdgData: string } | { localAppData: string }) & {
  /** The path is the app's database file, not a folder (its folder holds much else). */
  file?: true;
  /** The one system the app keeps it there on (Zed's data folder is named and placed per system). */
  only?: NodeJS.Platform;
  /**
   * The path is a file listing where the app keeps its chats (Crush's projects.json, each project it
   * ran in): what is found is each database file (or folder: Jan's threads) these read from the list's text, not the list.
   * `list` is the list's own path, for names it gives relative to its folder (Chromium's Local State, its profiles).
   */
  listed?: (text: string, list: string) => readonly string[];
  /** What help says the list names, when not databases (Jan's settings.json: "the data folder it names"). */
  listNames?: string;
  /**
   * The environment variable the app reads its folder from instead, when set: the path is then
   * `path` under the variable's folder, and the default place is not looked in (the app writes
   * nothing there). Codex's `{ env: "CODEX_HOME", path: "sessions" }` is $CODEX_HOME/sessions.
   */
  moved?: MovedBy;
  /** The app whose folder it is, where not the format's (Kiro CLI's, read as Amazon Q Developer CLI's): named so when found. */
  app?: string;
  /**
   * Imported, not watched, and why (`mnemo watch --apps` says it of a folder found): what the app no
   * longer writes as it goes on (Zed's text threads, of the assistant before its agent panel).
   */
  notWatched?: string;
  /**
   * The databases under the folder ("/"-separated) the app writes its chats into as they go on:
   * watching follows those files alone (each that is there), not the folder, whose caches change
   * constantly (Cherry Studio 2's Data/cherrystudio.sqlite, its alphas' cherrystudio.sqlite; Cursor's
   * globalStorage/state.vscdb); an import reads the folder whole.
   */
  watchedDatabase?: readonly string[];
};

/** What moves an app's folder (AppFolder.moved), as the app reads it. */
export interface MovedBy {
  /** The variable, or the variables, the first set winning (Qwen Code's QWEN_RUNTIME_DIR before QWEN_HOME). */
  env: string | readonly string[];
  /** The folder's path under the variable's, "/"-separated. */
  path: string;
  /** The app reads a leading ~ in the variable as the home folder (Pi, Qwen Code). */
  tilde?: true;
  /** The app ignores a value that is not an absolute path (Goose's GOOSE_PATH_ROOT). */
  absolute?: true;
  /** The app reads a relative value from the folder its default path is in, not the working folder (OpenCode's OPENCODE_DB, under its data folder). */
  besideDefault?: true;
}

/** Reads records of a file into what they hold: conversations, or memories. */
export type Converter<Out> = (records: AsyncIterable<SourcedRecord>) => AsyncIterable<Out>;

export interface Importer {
  /** The format's id, as the import summary and `--json` give it: "chatgpt". */
  id: string;
  /** Its name as people say it: "ChatGPT". */
  name: string;
  /**
   * A chat app's export: its conversations are that app's (platform `id`, shown as `name`), and it is
   * named wherever mnemo says which apps it imports from. Otherwise (mnemo's upload shape) each record
   * names its own platform.
   */
  chatApp: boolean;
  /** What to pass, after the name in help and errors: "the export zip, or its conversations.json". */
  accepts: string;
  /** How to get the export from the app, one sentence (the README's table). */
  howToGet: string;
  /**
   * The endings of the files it reads: files inside a zip or folder are looked at by them, and the web's
   * file picker offers them. "" is a name without one (Google Drive's files). An ending may be a whole
   * name (OpenCode's "opencode.db"): a folder's databases are each loaded whole to be told apart, so
   * only those named as the app names its own are (a `.db` of another app may be a gigabyte); a file
   * passed alone is read whatever its name.
   */
  extensions: readonly string[];
  /**
   * Where a top-level object holds the format's records, when not in a list under `conversations`:
   * the keys down to the list (`[["data", "chats"]]`). Each record is then read on its own, as in a list.
   */
  wrappers?: readonly (readonly string[])[];
  /**
   * Whether a file is of this format, from a sample of it (its first records); undefined when it is not.
   * Never true of another format's file, whatever the registry's order: test/importers/registry.test.ts
   * runs every fixture through every detector.
   */
  detect(sample: Sample): Match | undefined;
  /** The file's records to conversations: `perRecord` or `grouped` below, `loaded` when first used. */
  convert: Converter<UploadConversation>;
  /**
   * Whether a conversation met twice in one read is read each time (mnemo's upload shape: without
   * `complete`, a repeat adds messages). Otherwise the newest is read once (repeats.ts).
   */
  keepsRepeats?: boolean;
  /**
   * The app writes each session to a file of its own as the session goes on (a coding agent's log):
   * a watched folder imports such a file again whenever it has changed and then stayed still.
   */
  sessionLogs?: boolean;
  /**
   * A text format whose file holds a conversation per section, each opening with a line this matches
   * (Aider's session heading): the file is read a section at a time, each its own record, to any size.
   */
  sectionHeading?: RegExp;
  /** The names the app gives its session logs, when no `.json` or `.jsonl` (Aider's `.aider.chat.history.md`, GPT4All's `gpt4all-<id>.chat`): watched by them. */
  sessionFileName?: RegExp;
  /**
   * The folder that holds the whole session a session log is part of, when a file alone is no session
   * (OpenHands' conversation folder, an event a file; Jan's thread folder): a watch imports that folder
   * in the file's place, once for all of its files that changed.
   */
  sessionFolder?: (file: string) => string;
  /**
   * Files a lone file of this format is read with when they sit beside it on disk, as a folder's
   * import reads them (Continue's sessions.json, the only place with its sessions' dates): a watched
   * folder imports one session file at a time. A function names them from the file's name: the other
   * files of its session (Kiro CLI's <id>.json beside <id>.jsonl), read with it and watched as it is.
   */
  companionFiles?: readonly string[] | ((name: string) => readonly string[]);
  /**
   * A binary file of this format, read as the JSON record its converter takes (GPT4All's chats, Qt's
   * binary stream): `starts` tells it by its first bytes; `asJson` is loaded only when one is met.
   */
  binary?: { starts(head: Buffer): boolean; asJson(source: ByteSource): Promise<ByteSource> };
  /**
   * Files this format keeps in another app's layout, read into the files its converter reads before
   * a folder or zip is planned (Cherry Studio's backups since March 2026: Chromium's storage folders
   * into its data.json): `marks` is a path of that layout; `read` is loaded only when one is met.
   * `folders`: the folders of the app's own data folder the layout is (Cherry Studio's userData:
   * IndexedDB, Local Storage); a folder given holding them all is listed in them alone, and read so when
   * `read` finds the app's data there (its caches' thousands of files are never walked).
   */
  foreignLayout?: {
    marks: RegExp;
    folders?: readonly string[];
    /**
     * Files of the app's data folder read with those folders, or alone when the folders are not there
     * (Cherry Studio 2's Data/cherrystudio.sqlite): paths from the folder, "/"-separated.
     */
    files?: readonly string[];
    /** `unreadable`: a backup of its app whose data could not be read at all (said, not taken for "no export"). */
    read(sources: readonly ByteSource[]): Promise<{ sources: ByteSource[]; skipped: SkippedCount[]; unreadable?: AppError[] }>;
  };
  /**
   * For a format kept in a SQLite database (Cursor's state.vscdb, OpenCode's opencode.db): reads the
   * records its converter takes from the database's tables (sqlite.ts). `detect` is then shown the
   * key-value tables' keys as `sample.keys` (a key made of a prefix and an id, `composerData:<id>`, as
   * its prefix `composerData:`) and every table's columns as `sample.tables`.
   */
  database?: DatabaseReader;
  /**
   * For a database format whose app may encrypt its database (DeepChat's agent.db, SQLCipher's): what a
   * file named as one of its `extensions` whole, that is binary but no SQLite database, is said to be,
   * rather than a file of no format. Loaded only when such a file is met.
   */
  encryptedDatabase?: (source: ByteSource) => Promise<AppError>;
  /**
   * For a database format: the app writes its chats into the database as they go on (OpenCode's
   * opencode.db), so a watched folder imports it again once it (or its `-wal`) has changed and then
   * held still, at most once per a time growing with its size (core/jobs/watch-sessions.ts). Its files
   * are those named by its `extensions` that are no session log's (`.json`, `.jsonl`). Not Cursor's:
   * every `.vscdb` (VS Code's own among them) would be loaded whole to be told apart; the one its
   * AppFolder names (`watchedDatabase`) is watched.
   */
  watchedDatabase?: boolean;
  /**
   * For a database format: the sqlite3 command, run with the app closed, that copies the chats alone
   * into a smaller database, said of a database over the size mnemo reads (sqlite.ts).
   */
  smallerDatabase?: string;
  /**
   * Where the app keeps its chats on a machine, when it keeps them there (a coding agent's sessions): a
   * folder, or the one database file of an app whose folder holds much else: `mnemo import --apps` (app-folders.ts).
   */
  appFolders?: readonly AppFolder[];
  /**
   * Why `mnemo watch --apps` does not watch the app's folders, which `mnemo import --apps` imports:
   * said to the user of each found. An app with folders is watched (its session logs, a watched
   * database) or says why not: test/importers/app-folders.test.ts checks the registry.
   */
  notWatched?: string;
  /** The export's other files (the account, feedback…), named when passed alone instead of the conversations. */
  sideFiles?: readonly SideFile[];
  /**
   * The export's files that hold memories (what the app remembers of the user, a project's
   * instructions): read with the conversations, or alone, into mnemo memories (core/jobs/import-memories.ts).
   */
  memories?: MemoryFiles;
}

export interface MemoryFiles {
  /** Whether a file is one of them, from a sample of it; never true of a file of conversations. */
  detect(sample: Sample): boolean;
  /** The records of every memory file of the export, in one read (a file may name what another holds), to memories. */
  read: Converter<ExportMemory>;
}

/**
 * What a detector sees of a file: the shape of its first records, within the first 256 KB (past it,
 * when no format shows there: their fields and the start of their strings), for the JSON formats; its text, for a text format (Markdown). A file is shown each way it may be read, one
 * at a time: as JSON (`text` is "") and as text (no keys, no strings), so each detector looks only
 * at what its format is.
 */
export interface Sample {
  /** The keys of the first record (those within the sample when the record is longer). */
  keys: ReadonlySet<string>;
  /**
   * The keys down to the list the records are in, when a top-level object holds them there (one of
   * an importer's `wrappers`, `["indexedDB", "topics"]`); empty for a file's own records. A record
   * longer than the sample may show only keys too common to tell (Cherry Studio's `id`, `messages`).
   */
  wrapper: readonly string[];
  /** The string values under `key` in the records of the sample (a string, or the strings of an array). */
  strings(key: string): readonly string[];
  /**
   * The keys of the first object in the list the first record holds under `key` (its first message's
   * keys): a record longer than the sample shows only its first keys, and its list may tell it apart.
   */
  listKeys(key: string): ReadonlySet<string>;
  /** The file is an empty list (`[]`). */
  emptyList: boolean;
  /**
   * The record whose keys these are ends within the sample, so its keys are all there: a detector that
   * knows a record by a key it lacks (the upload shape: `conversation` without Grok's `responses`)
   * waits for it, lest a first record longer than the sample be taken for another format's.
   */
  ended: boolean;
  /**
   * The file's first characters (to 256 KB) when it is shown as text: byte-order mark gone, `\n`
   * line ends. A format that matches it is read as one record, the file's whole text (Layout `text`).
   */
  text: string;
  /** A SQLite database's tables and their columns (OpenCode's `session`, `message`, `part`); none for any other file. */
  tables: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The files a lone file of the importer's format is read with (Importer.companionFiles), by their names in its folder. */
export function companionsOf(importer: Importer, name: string): readonly string[] {
  const { companionFiles } = importer;
  if (companionFiles === undefined) return [];
  return typeof companionFiles === "function" ? companionFiles(name) : companionFiles.filter((companion) => companion !== name);
}

/** Whether a sample is a SQLite database holding each of these tables with at least these columns. */
export function hasTables(sample: Sample, columns: Readonly<Record<string, readonly string[]>>): boolean {
  return Object.entries(columns).every(([table, names]) => names.every((column) => sample.tables.get(table)?.has(column)));
}

export interface Match {
  /**
   * The file has the format's shape but none of its data (Takeout's activity of another Google
   * product): inside a zip or folder it is not read, and the summary says so with this reason.
   */
  aside?: string;
  /**
   * Recognised by the records of a list the file's top-level object holds (a `wrappers` path), but the
   * format's record is that whole object: the file is read as one value. For an export whose object
   * opens with a table too long for its other keys to show within the sample (LobeChat's `data`).
   */
  whole?: boolean;
}

export interface SideFile {
  /** Keys the file's first record (or the file's object) has, all of them. */
  keys: readonly string[];
  /** What it is: "ChatGPT's user.json (the account's details)". */
  what: string;
  /** What to pass instead. */
  instead: string;
}

/**
 * A converter loaded when first used, so that what only reads the registry's words (`--help`, the
 * MCP tool list) does not load every format's code: `loaded(async () => perRecord((await import("./x.js")).convert))`.
 */
export function loaded<Out = UploadConversation>(load: () => Promise<Converter<Out>>): Converter<Out> {
  let converter: Promise<Converter<Out>> | undefined;
  return async function* (records) {
    converter ??= load();
    yield* (await converter)(records);
  };
}

/** A converter of formats whose every record is one conversation (undefined: nothing in it to import). */
export function perRecord(convert: (record: unknown, context: RecordContext) => UploadConversation | undefined): Importer["convert"] {
  return async function* (records) {
    for await (const { value, context } of records) {
      const conversation = isolated(convert, value, context);
      if (conversation !== undefined) yield conversation;
    }
  };
}

/**
 * A converter of formats whose conversations (or memories) are made of several records (Gemini's
 * activity): each record is read on its own into an item, then all of them are grouped once the last is read.
 */
export function grouped<Item, Out = UploadConversation>(
  read: (record: unknown, context: RecordContext) => Item | undefined,
  group: (items: Item[]) => Out[],
): Converter<Out> {
  return async function* (records) {
    const items: Item[] = [];
    for await (const { value, context } of records) {
      const item = isolated(read, value, context);
      if (item !== undefined) items.push(item);
    }
    yield* group(items);
  };
}

/**
 * `grouped` for formats whose conversations never span files (Claude Code's sessions): each file's
 * items are grouped once its last record is read, so a folder of a gigabyte of sessions holds one
 * file's items at a time, not the whole folder's. Files end as `perFile` tells. `group` may read a
 * file beside the session's (RecordContext.sibling) before it gives the conversations.
 */
export function groupedPerFile<Item, Out = UploadConversation>(
  read: (record: unknown, context: RecordContext) => Item | undefined,
  group: (items: Item[]) => Out[] | Promise<Out[]>,
): Converter<Out> {
  return async function* (records) {
    let items: Item[] = [];
    let last: RecordContext | undefined;
    for await (const { value, context } of records) {
      if (last !== undefined && (last.label !== context.label || context.index <= last.index)) {
        yield* await group(items);
        items = [];
      }
      last = context;
      const item = isolated(read, value, context);
      if (item !== undefined) items.push(item);
    }
    yield* await group(items);
  };
}

/**
 * A converter of formats whose every file is one conversation, one record a line (SillyTavern's
 * chats): the records of each file, in order, once its last is read. A folder of such files is
 * read as one run of records, so a file ends where the next file's records begin.
 */
export function perFile(convert: (records: readonly SourcedRecord[]) => UploadConversation | undefined): Importer["convert"] {
  return async function* (records) {
    let file: SourcedRecord[] = [];
    const finish = () => {
      const conversation = file.length === 0 ? undefined : isolated(() => convert(file), file, file[0]!.context);
      file = [];
      return conversation;
    };
    for await (const record of records) {
      const last = file.at(-1)?.context;
      if (last !== undefined && (last.label !== record.context.label || record.context.index <= last.index)) {
        const conversation = finish();
        if (conversation !== undefined) yield conversation;
      }
      file.push(record);
    }
    const conversation = finish();
    if (conversation !== undefined) yield conversation;
  };
}

/** A record its converter fails on is skipped and the failure reported: it costs that record, not the file. */
export function isolated<T>(
  convert: (record: unknown, context: RecordContext) => T | undefined,
  value: unknown,
  context: RecordContext,
): T | undefined {
  try {
    return convert(value, context);
  } catch (error) {
    context.unreadable(unreadableRecord(context, error));
    return undefined;
  }
}
