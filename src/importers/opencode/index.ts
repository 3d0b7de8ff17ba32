// OpenCode's sessions (sst/opencode, the terminal coding agent): before 1.2 (February 2026) each
// session is many JSON files under ~/.local/share/opencode/storage: session/<project id>/<session id>.json
// (its title and times), message/<session id>/<message id>.json (who spoke, when) and
// part/<message id>/<part id>.json (what was said: text, a tool call, reasoning…); versions before
// mid-2025 kept them under storage/session/{info,message,part}/, the oldest messages with their parts
// inside. Every file names its session, so they are read together (`grouped`), whatever the folders.
// 1.2 and later keep the same records in ~/.local/share/opencode/opencode.db (database.ts), 2.x its
// own tables beside them (v2.ts). Where OPENCODE_DB names another file, OpenCode uses that one instead
// (packages/core/src/database/database.ts: an absolute path as it is; a relative one, under the data
// folder), whatever its name: --apps finds it, and watching reads it as OpenCode's. Kilo CLI (Kilo-Org/kilocode, an OpenCode fork installed on its own)
// keeps the same 1.x tables in ~/.local/share/kilo/kilo.db (its packages/opencode/src/storage/db.ts,
// global/index.ts `app = "kilo"`, session/session.sql.ts).
import { grouped, loaded, type Importer, type Sample, hasTables } from "../importer.js";
import { DATABASE_COLUMNS, V2_COLUMNS } from "./tables.js";

export const opencode: Importer = {
  id: "opencode",
  name: "OpenCode",
  chatApp: true,
  accepts:
    "~/.local/share/opencode, its opencode.db database (1.2 and later, 2.x too), or its storage folder (every session's session, message and part files, before 1.2), or a zip of it",
  howToGet:
    "OpenCode keeps every session on disk, in ~/.local/share/opencode/opencode.db since 1.2 (or the file OPENCODE_DB names) and as JSON files in ~/.local/share/opencode/storage before it: pass ~/.local/share/opencode (on Windows, .local\\share\\opencode in your user folder); what OpenCode has not yet written into the database, in the opencode.db-wal beside it, is read too. Kilo CLI's are in ~/.local/share/kilo/kilo.db.",
  extensions: [".json", "opencode.db", "kilo.db"],
  appFolders: [
    { xdgData: "opencode" },
    { xdgData: "opencode/opencode.db", file: true, moved: { env: "OPENCODE_DB", path: "", besideDefault: true } },
    { xdgData: "kilo", app: "Kilo CLI" },
    // Kilo's fork of OpenCode's database path reads KILO_DB as OpenCode reads OPENCODE_DB (its tests set it).
    { xdgData: "kilo/kilo.db", file: true, app: "Kilo CLI", moved: { env: "KILO_DB", path: "", besideDefault: true } },
  ],
  watchedDatabase: true, // OpenCode writes only there since 1.2
  detect: (sample) => (isSession(sample) || isMessage(sample) || isPart(sample) || isDatabase(sample) ? {} : undefined),
  // Its texts and tool calls without the tools' output (state), all mnemo reads of them: 2.x's tables,
  // then 1.x's (the second command fails, harmlessly, on a database without them).
  smallerDatabase:
    `sqlite3 opencode.db "ATTACH 'opencode-chats.db' AS chats; CREATE TABLE chats.session_v2 AS SELECT * FROM session_v2; ` +
    "CREATE TABLE chats.session_message AS SELECT id, session_id, type, seq, time_created, time_updated, json_set(data, '$.content', " +
    "(SELECT json_group_array(json_remove(value, '$.state')) FROM json_each(data, '$.content'))) AS data FROM session_message " +
    "WHERE type IN ('user', 'assistant', 'shell') AND json_valid(data); CREATE TABLE chats.kv AS SELECT * FROM kv WHERE key = 'migration.v1-v2'\"; " +
    `sqlite3 opencode.db "ATTACH 'opencode-chats.db' AS chats; CREATE TABLE chats.session AS SELECT * FROM session; ` +
    "CREATE TABLE chats.message AS SELECT * FROM message; CREATE TABLE chats.part AS SELECT id, message_id, session_id, time_created, " +
    `time_updated, json_remove(data, '$.state') AS data FROM part WHERE json_extract(data, '$.type') IN ('text', 'tool')"`,
  database: async function* (db) {
    yield* (await import("./database.js")).opencodeRows(db);
  },
  convert: loaded(async () => {
    const { opencodeRecord, opencodeSessions } = await import("./storage.js");
    return grouped(opencodeRecord, opencodeSessions);
  }),
};

/** opencode.db: 1.x's tables or 2.x's, with the columns database.ts reads. */
function isDatabase(sample: Sample): boolean {
  return hasTables(sample, DATABASE_COLUMNS) || hasTables(sample, V2_COLUMNS);
}

/** OpenCode's ids: a prefix naming what they are, then time and random characters (id/id.ts). */
function idsStartWith(sample: Sample, prefix: string): boolean {
  const ids = sample.strings("id");
  return ids.length > 0 && ids.every((id) => id.startsWith(prefix));
}

/** Session.Info: `{ id: "ses_…", title, version, time, projectID?, directory?, parentID? }`. */
function isSession(sample: Sample): boolean {
  return ["id", "title", "time"].every((key) => sample.keys.has(key)) && idsStartWith(sample, "ses_");
}

/** MessageV2.Info `{ id: "msg_…", sessionID, role, time }`, or a first-version message `{ id, role, parts, metadata }`. */
function isMessage(sample: Sample): boolean {
  const { keys } = sample;
  const v2 = keys.has("sessionID") && keys.has("time");
  const v1 = keys.has("parts") && keys.has("metadata");
  return keys.has("id") && keys.has("role") && (v2 || v1) && idsStartWith(sample, "msg_");
}

/** MessageV2.Part: `{ id: "prt_…", sessionID, messageID, type, … }`. */
function isPart(sample: Sample): boolean {
  return ["id", "sessionID", "messageID", "type"].every((key) => sample.keys.has(key)) && idsStartWith(sample, "prt_");
}
