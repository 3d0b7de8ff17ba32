// OpenCode 2.x databases with rows no OpenCode wrote: one row costs itself, never the database.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const migrated = join(fixtures, "opencode-v2", "migrated", "opencode.db");
const NO_PLACE = "messages without their session or their place in it (seq): damaged rows, left out";
/** session_message again without its constraints (NOT NULLs, its key), as a crafted file may have it. */
const UNCONSTRAINED =
  "CREATE TABLE loose AS SELECT * FROM session_message; DROP TABLE session_message; ALTER TABLE loose RENAME TO session_message;";
const scratch = tempDir("mnemo-hostile-opencode-");

/** A copy of the migrated fixture with `sql` run on it. */
async function altered(name: string, sql: string): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(migrated));
  db.exec(sql);
  mkdirSync(join(scratch, name), { recursive: true });
  const path = join(scratch, name, "opencode.db");
  writeFileSync(path, Buffer.from(db.export()));
  db.close();
  return path;
}

describe("hostile OpenCode databases", () => {
  it("a migration row updated at SQLite's infinity reads the sessions, where it made the whole database unreadable (no such column: Infinity)", async () => {
    const path = await altered("infinite", "UPDATE kv SET time_updated = 9e999 WHERE key = 'migration.v1-v2'");
    const sessions = (await collect(path)).map(({ conversation }) => conversation.id);
    expect(sessions).toEqual(expect.arrayContaining((await collect(migrated)).map(({ conversation }) => conversation.id)));
  });

  it("a message row named like a session (ses_…) is no session beside the one it names; rows without a session or a seq are counted", async () => {
    const [first] = await collect(migrated);
    const session = first!.conversation.id;
    const row = (id: string, sessionId: string | null, seq: string) =>
      `('${id}', ${sessionId === null ? "NULL" : `'${sessionId}'`}, 'user', ${seq}, 1, 1, '{"text":"crafted"}')`;
    const path = await altered(
      "message-rows",
      `${UNCONSTRAINED} INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES
       ${row(session, session, "99")}, ${row("msg_a", session, "NULL")}, ${row("msg_b", session, "'seven'")}, ${row("msg_c", null, "5")}`,
    );
    const { conversations, skipped } = await collectWithSkips(path);
    const read = conversations.find(({ conversation }) => conversation.id === session);
    expect(read?.conversation.title).toBe(first!.conversation.title);
    expect(read?.conversation.messages.at(-1)?.content).toBe("crafted");
    expect(skipped[NO_PLACE]).toBe(3);
  });
});
