// OpenCode 1.2's opencode.db: the storage fixture's sessions copied into the database as OpenCode
// copies them (fixtures/exports/opencode-db/build-database.mjs), so each is compared with the files.
import { closeSync, copyFileSync, cpSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { fileSource } from "../../src/importers/source.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const storage = join(fixtures, "opencode", "storage");
const database = join(fixtures, "opencode-db", "opencode.db");
const walDb = join(fixtures, "opencode-db", "wal", "opencode.db");
const scratch = tempDir("mnemo-opencode-db-");
const FIX_CSV = "ses_45c1a8e02ffeQm3VtK9pLx2RwN";

const byId = (conversations: UploadConversation[]) => [...conversations].sort((a, b) => a.conversation.id.localeCompare(b.conversation.id));

/** A copy of the fixture database with `sql` run on it, in a folder of its own named `name`. */
async function changedCopy(name: string, ...sql: [string, (string | number)[]][]): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(database));
  for (const [statement, params] of sql) db.run(statement, params);
  mkdirSync(join(scratch, name), { recursive: true });
  const path = join(scratch, name, "opencode.db");
  writeFileSync(path, db.export());
  db.close();
  return path;
}

describe("OpenCode's opencode.db", () => {
  it("in a folder, a database is opened only under the name OpenCode gives it; passed alone, under any", async () => {
    const folder = join(scratch, "renamed-db");
    mkdirSync(folder, { recursive: true });
    copyFileSync(database, join(folder, "other-app.db")); // as another app's database, loaded whole to be told apart, would be
    await expect(openExport(folder)).rejects.toThrow(/no chat export file found inside/);
    expect((await collect(join(folder, "other-app.db"))).length).toBeGreaterThan(0);
  });

  it("is known by its tables, and gives the sessions of the files it was copied from, ids and all", async () => {
    expect(await detect(await fileSource(database))).toMatchObject({ format: "opencode", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations.map(({ conversation }) => conversation.title)).toEqual([
      "what does `git rebase --onto main feature~3 feature` do",
      "Fix CSV import of negative amounts",
    ]);
    // The same conversation ids, titles, times and messages (their ids too): imported both ways, a session is stored once.
    expect(byId(conversations)).toEqual(byId(await collect(storage)));
    expect(skipped).toEqual({ "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1 });
  });

  it("~/.local/share/opencode, the database beside the files it replaced: each session once, as the database has it now", async () => {
    const folder = join(scratch, "share-opencode");
    cpSync(storage, join(folder, "storage"), { recursive: true });
    const grown = await changedCopy(
      "grown",
      ["UPDATE session SET title = ?, time_updated = ? WHERE id = ?", ["Negative amounts in CSV import", 1768209800000, FIX_CSV]],
      [
        "UPDATE part SET data = ? WHERE id = ?",
        ['{"type":"text","text":"Add a test for it too, please."}', "prt_ba3e5b7ca001oP7iLk2MrB4nSg"],
      ],
      [
        "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
        ["msg_ba3e60000005Zz9Yy8Xx7Ww6Vv", FIX_CSV, 1768209800000, 1768209800000, '{"role":"user","time":{"created":1768209800000}}'],
      ],
      [
        "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
        [
          "prt_ba3e60000101Uu5Tt4Ss3Rr2Qq",
          "msg_ba3e60000005Zz9Yy8Xx7Ww6Vv",
          FIX_CSV,
          1768209800000,
          1768209800000,
          '{"type":"text","text":"Now the same for the PDF statements."}',
        ],
      ],
    );
    copyFileSync(grown, join(folder, "opencode.db"));
    const conversations = byId(await collect(folder));
    const files = byId(await collect(storage));
    expect(conversations.map(({ conversation }) => conversation.id)).toEqual(files.map(({ conversation }) => conversation.id));
    const [, fixCsv] = conversations;
    expect(fixCsv?.conversation.title).toBe("Negative amounts in CSV import");
    // Each message once, a part in both as the database has it.
    const changed = (message: UploadConversation["conversation"]["messages"][number]) =>
      message.id === "msg_ba3e5b7c9003Rk4GtW1xZa5LcH" ? { ...message, content: "Add a test for it too, please." } : message;
    expect(fixCsv?.conversation.messages.slice(0, -1)).toEqual(files[1]?.conversation.messages.map(changed));
    expect(fixCsv?.conversation.messages.at(-1)).toMatchObject({
      id: "msg_ba3e60000005Zz9Yy8Xx7Ww6Vv",
      content: "Now the same for the PDF statements.",
    });
  });

  it("what OpenCode has not checkpointed yet is read from the -wal beside the database", async () => {
    const titles = async (path: string) =>
      (await collect(path)).map(({ conversation }) => [conversation.title, conversation.messages.length]);
    expect(await titles(walDb)).toEqual([
      ["Lockfile conflict", 2], // written to the WAL alone
      ["Dev and preview server ports", 3], // renamed and grown in the WAL
    ]);
    mkdirSync(join(scratch, "without-wal"));
    const alone = join(scratch, "without-wal", "opencode.db");
    copyFileSync(walDb, alone);
    expect(await titles(alone)).toEqual([["Dev server port", 2]]);
  });

  it("a damaged row costs only itself, counted", async () => {
    const damaged = await changedCopy("damaged", [
      "UPDATE part SET data = ? WHERE id = ?",
      ['{"type":"text","te', "prt_ba3e5b7ca001oP7iLk2MrB4nSg"],
    ]);
    const { conversations, skipped } = await collectWithSkips(damaged);
    const [, fixCsv] = conversations;
    // The second prompt's only part was damaged: the prompt is gone, and its answer joins the first.
    expect(fixCsv?.conversation.messages.map(({ id }) => id)).toEqual(["msg_ba3e57fe1001Xw2QpL7cTz9KjR", "msg_ba3e58023002Nf8YhB3dVs6MqP"]);
    expect(conversations).toHaveLength(2);
    expect(skipped).toMatchObject({ "message parts whose stored JSON is damaged (left out)": 1 });
  });

  it("a torn database is said to be one, and what to do", async () => {
    const torn = join(scratch, "torn.db");
    writeFileSync(torn, readFileSync(database).subarray(0, 12_000));
    await expect(openExport(torn)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("torn.db: a SQLite database that cannot be read (database disk image is malformed)"),
      suggestion: expect.stringContaining("Quit the app that writes it and copy the file again"),
    });
  });

  it("a database over the limit is refused before it is read, with how to copy the chats alone into a smaller one", async () => {
    mkdirSync(join(scratch, "huge"));
    const path = join(scratch, "huge", "opencode.db");
    copyFileSync(database, path);
    const file = openSync(path, "r+");
    ftruncateSync(file, 1.5 * 1024 ** 3); // sparse: no disk used
    closeSync(file);
    await expect(openExport(path)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("opencode.db: the database is 1.5 GB, over the 1.0 GB mnemo reads"),
      suggestion: expect.stringContaining(
        "sqlite3 opencode.db \"ATTACH 'opencode-chats.db' AS chats; CREATE TABLE chats.session AS SELECT",
      ),
    });
  });
});
