import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { fileSource } from "../../src/importers/source.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const user = join(fixtures, "cursor", "User");
const globalDb = join(user, "globalStorage", "state.vscdb");
const workspaceDb = join(user, "workspaceStorage", "a1b2c3d4e5f60718293a4b5c6d7e8f90", "state.vscdb");
const vscodeDb = join(fixtures, "cursor", "vscode-User", "globalStorage", "state.vscdb");
const walDb = join(fixtures, "cursor", "wal", "state.vscdb");
const scratch = tempDir("mnemo-cursor-");

const AGENT = "8f2d6c1a-4b7e-4e1f-9a3c-5d6e7f8a9b0c";
const INLINE = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";

/** A copy of the global fixture database with `change` made to its cursorDiskKV (key → JSON text, or null to delete). */
async function changedCopy(name: string, change: Record<string, string | null>): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(globalDb));
  for (const [key, value] of Object.entries(change)) {
    if (value === null) db.run("DELETE FROM cursorDiskKV WHERE key = ?", [key]);
    else db.run("INSERT INTO cursorDiskKV VALUES (?, ?)", [key, value]);
  }
  const path = join(scratch, name, "state.vscdb");
  mkdirSync(join(scratch, name), { recursive: true });
  writeFileSync(path, db.export());
  db.close();
  return path;
}

/** A value of the global fixture database's cursorDiskKV, parsed. */
async function stored(key: string): Promise<Record<string, unknown>> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(globalDb));
  const [row] = db.exec("SELECT value FROM cursorDiskKV WHERE key = ?", [key])[0]?.values ?? [];
  db.close();
  return JSON.parse(String(row?.[0])) as Record<string, unknown>;
}

describe("Cursor's databases", () => {
  it("its User folder: a conversation per composer and chat tab, from the global database and a workspace's", async () => {
    const { conversations, skipped } = await collectWithSkips(user);
    expect(conversations.map(({ conversation: c }) => [c.id, c.title, c.messages.length, c.createdAt, c.updatedAt])).toEqual([
      [INLINE, "Why does the CSV import skip the header row twice?", 2, "2025-01-20T16:01:55.000Z", "2025-01-20T16:02:30.000Z"],
      [AGENT, "Gateway rate limiter", 4, "2025-06-02T09:13:50.000Z", "2025-06-02T09:20:31.000Z"],
      ["tab-1", "Flaky checkout test", 2, "2024-09-12T11:05:00.000Z", undefined],
      ["tab-2", "Explain what git rebase --onto does", 2, "2024-09-13T08:30:00.000Z", undefined],
    ]);
    expect(skipped).toEqual({
      "thinking (the model's reasoning, left out)": 1,
      "tools' output (what the model read, left out)": 2,
      "chats without any message text (a composer opened and left)": 2, // the empty composer, the empty tab
      "subagents' chats (the agent's side work, left out as its thinking is)": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["cursor", "Cursor", true]);
    }
  });

  it("an agent's run: the prompt as typed, then its words, code blocks and tools on one line, no thinking, no tool output", async () => {
    const [, agent] = await collect(globalDb);
    expect(agent?.conversation.messages).toEqual([
      {
        id: "b1-user",
        role: "human",
        content: "Add a token-bucket rate limiter in front of the gateway routes in src/gateway/router.ts\n\n[image]",
        createdAt: "2025-06-02T09:14:05.000Z",
      },
      {
        id: "b3-read",
        role: "assistant",
        content:
          "[tool: read_file] [tool: codebase_search]\n\nI added a limiter middleware that refills each client's bucket at 10 tokens a second and answers 429 when it is empty.\n\n" +
          "```typescript\nexport function rateLimit(capacity: number, refillPerSecond: number) {\n  const buckets = new Map<string, number>();\n}\n```",
        createdAt: "2025-06-02T09:14:11.000Z",
      },
      { id: "b6-user", role: "human", content: "Can the limit be set per route?", createdAt: "2025-06-02T09:20:00.000Z" },
      {
        id: "b7-edit",
        role: "assistant",
        content:
          "[tool: edit_file]\n\nYes: `rateLimit` now takes the route's own capacity, and the router passes 100 for /search and 20 for /upload.",
        createdAt: "2025-06-02T09:20:04.000Z",
      },
    ]);
  });

  it("older layouts: a composer's inline conversation, a prompt only in its Lexical text, the chat panel's tabs", async () => {
    const [inline] = await collect(globalDb);
    expect(inline?.conversation.messages.map((message) => [message.role, message.content, message.createdAt])).toEqual([
      ["human", "Why does the CSV import skip the header row twice?", undefined],
      [
        "assistant",
        "`parseCsv` drops the first line, and `importRows` slices it off again. Remove the slice:\n\n```ts\nreturn rows.map(toRecord);\n```", // the code block the text holds, once
        "2025-01-20T16:02:10.000Z",
      ],
    ]);
    const tabs = await collect(workspaceDb);
    expect(tabs.map(({ conversation }) => conversation.messages.map((message) => [message.id, message.role, message.content]))).toEqual([
      [
        ["u1", "human", "The checkout test fails one run in ten with a timeout. Why?"],
        ["a1", "assistant", "The test awaits the payment mock's promise, which resolves only after a real 5 s timer: use fake timers."],
      ],
      [
        ["u2", "human", "Explain what git rebase --onto does"], // its initText
        ["a2", "assistant", "It replays the commits after one base onto another, leaving out those before it."],
      ],
    ]);
  });

  it("is known by its keys: Cursor's databases are, VS Code's own is not and says where VS Code's chats are", async () => {
    for (const db of [globalDb, workspaceDb])
      expect(await detect(await fileSource(db))).toMatchObject({ format: "cursor", layout: "database" });
    expect(await detect(await fileSource(vscodeDb))).toBeUndefined();
    await expect(openExport(vscodeDb)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/a SQLite database of none of the apps whose databases mnemo reads, .*Cursor, OpenCode/),
      suggestion: expect.stringContaining("VS Code's chats are read from its chatSessions folders"),
    });
    // Beside Cursor's in a folder, it is passed over: the User folder's 4, the WAL fixture's 2.
    expect((await collect(join(fixtures, "cursor"))).length).toBe(6);
  });

  it("what Cursor has not checkpointed yet is read from the -wal beside the database", async () => {
    const titles = async (path: string) =>
      (await collectWithSkips(path)).conversations.map(({ conversation }) => [conversation.title, conversation.messages.length]);
    expect(await titles(walDb)).toEqual([
      ["Dev and preview server ports", 3], // renamed and grown in the WAL
      ["Lockfile conflict", 2], // written to the WAL alone
    ]);
    const alone = join(scratch, "without-wal", "state.vscdb");
    mkdirSync(join(scratch, "without-wal"));
    copyFileSync(walDb, alone);
    expect(await titles(alone)).toEqual([["Dev server port", 2]]);
    // Zipped with its -wal (a folder zipped to move it to another machine): read as on disk.
    const zip = join(scratch, "wal.zip");
    execFileSync("zip", ["-q", "-r", "-X", zip, "wal"], { cwd: join(fixtures, "cursor") });
    expect(await titles(zip)).toEqual(await titles(walDb));
    // A WAL cut within its last frame: what was committed before it (the last message lost, and counted).
    const cut = join(scratch, "cut-wal", "state.vscdb");
    mkdirSync(join(scratch, "cut-wal"));
    copyFileSync(walDb, cut);
    const wal = readFileSync(`${walDb}-wal`);
    writeFileSync(`${cut}-wal`, wal.subarray(0, wal.length - 100));
    const { conversations, skipped } = await collectWithSkips(cut);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      ["Dev and preview server ports", 3],
      ["Lockfile conflict", 1],
    ]);
    expect(skipped).toEqual({ "messages the database no longer holds (a composer's header without its bubble)": 1 });
  });

  it("the backup Cursor keeps beside a database is set aside in its folder, and read when passed alone", async () => {
    const copy = join(scratch, "with-backup");
    cpSync(user, copy, { recursive: true });
    copyFileSync(join(copy, "globalStorage", "state.vscdb"), join(copy, "globalStorage", "state.vscdb.backup"));
    const { conversations, skipped } = await collectWithSkips(copy);
    expect(conversations.length).toBe(4);
    expect(skipped["copies of a database kept beside it (Cursor's state.vscdb.backup), not read: the database itself is"]).toBe(1);
    expect((await collect(join(copy, "globalStorage", "state.vscdb.backup"))).length).toBe(2);
  });

  it("ids are the composers' and bubbles': a composer that grew is the same conversation with more messages", async () => {
    const composer = await stored(`composerData:${AGENT}`);
    const headers = [...(composer.fullConversationHeadersOnly as object[]), { bubbleId: "b9-user", type: 1 }];
    const grown = await changedCopy("grown", {
      [`composerData:${AGENT}`]: JSON.stringify({ ...composer, fullConversationHeadersOnly: headers }),
      [`bubbleId:${AGENT}:b9-user`]: JSON.stringify({ _v: 3, bubbleId: "b9-user", type: 1, text: "And for websockets?" }),
    });
    const [, before] = await collect(globalDb);
    const [, after] = await collect(grown);
    expect(after?.conversation.id).toBe(before?.conversation.id);
    expect(after?.conversation.messages.slice(0, 4)).toEqual(before?.conversation.messages);
    expect(after?.conversation.messages.at(-1)).toMatchObject({ id: "b9-user", content: "And for websockets?" });
  });

  it("a damaged value costs only its composer, a damaged bubble only itself, a lost one is counted", async () => {
    const damaged = await changedCopy("damaged", {
      [`composerData:${INLINE}`]: '{"_v":2,"composerId":"3c4d', // cut short
      [`bubbleId:${AGENT}:b6-user`]: "{not json",
      [`bubbleId:${AGENT}:b8-answer`]: null,
    });
    const problems: string[] = [];
    const reader = await openExport(damaged, { onUnreadable: (problem) => problems.push(problem.message) });
    const conversations: UploadConversation[] = [];
    for await (const conversation of reader.conversations()) conversations.push(conversation);
    expect(conversations.map(({ conversation }) => conversation.id)).toEqual([AGENT]);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^.*state\\.vscdb, composerData:${INLINE}: its JSON is damaged`))]);
    expect(conversations[0]?.conversation.messages.map((message) => message.id)).toEqual(["b1-user", "b3-read"]); // b7's tool joins b3's answer
    const skipped = Object.fromEntries(reader.skipped().map(({ reason, count }) => [reason, count]));
    expect(skipped).toMatchObject({
      "messages whose stored JSON is damaged (left out)": 1,
      "messages the database no longer holds (a composer's header without its bubble)": 1,
    });
  });

  it("a torn database is said to be one, and what to pass instead", async () => {
    const torn = join(scratch, "torn.vscdb");
    writeFileSync(torn, readFileSync(globalDb).subarray(0, 20_000));
    await expect(openExport(torn)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("torn.vscdb: a SQLite database that cannot be read (database disk image is malformed)"),
      suggestion: expect.stringContaining("state.vscdb.backup"),
    });
  });

  it("a database over the limit is refused before it is read, saying how large it is and how to make it smaller", async () => {
    const path = join(scratch, "huge.vscdb");
    copyFileSync(vscodeDb, path);
    const file = openSync(path, "r+");
    ftruncateSync(file, 1.5 * 1024 ** 3); // sparse: no disk used
    writeSync(file, Buffer.from("SQLite format 3\0", "latin1"), 0, 16, 0);
    closeSync(file);
    await expect(openExport(path)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("huge.vscdb: the database is 1.5 GB, over the 1.0 GB mnemo reads"),
      suggestion: expect.stringContaining("CREATE TABLE chats.cursorDiskKV AS SELECT"),
    });
  });
});
