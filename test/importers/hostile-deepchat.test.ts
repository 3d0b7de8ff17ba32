// DeepChat databases and exports crafted or damaged: each must be read in bounded time and memory,
// costing only the damaged record (counted). The databases are built in memory with sql.js, with loose
// columns (no types, no indexes) so that any value can go anywhere; those that fail on the old code by
// the test's time limit say so, with what the old code took (from the commits that fixed it).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips } from "./collect.js";

const SQL = await initSqlJs();
type Database = InstanceType<typeof SQL.Database>;
type Value = string | number | Uint8Array | null;

const AGENT = `CREATE TABLE new_sessions (id, title, created_at, updated_at, session_kind);
  CREATE TABLE deepchat_messages (id, session_id, order_seq, role, content, status, metadata, created_at, updated_at);`;
const STRUCTURED = `CREATE TABLE deepchat_user_messages (message_id, text);
  CREATE TABLE deepchat_user_message_files (message_id, ordinal, name, mime_type);
  CREATE TABLE deepchat_assistant_blocks (message_id, block_index, block_type, text_content, tool_name);`;
const LEGACY = `CREATE TABLE conversations (conv_id, title, created_at, updated_at, context_chain);
  CREATE TABLE messages (msg_id, conversation_id, parent_id, role, content, created_at, order_seq, is_variant);`;

/** The rows (each of the table's every column) in one transaction, through one statement prepared once. */
function insert(db: Database, table: string, rows: Iterable<Value[]>): void {
  db.run("BEGIN");
  let statement: ReturnType<Database["prepare"]> | undefined;
  for (const row of rows) {
    statement ??= db.prepare(`INSERT INTO ${table} VALUES (${row.map(() => "?").join(", ")})`);
    statement.run(row);
  }
  statement?.free();
  db.run("COMMIT");
}

/** The database `schema` and `fill` make, written as `name` in a folder of its own. */
async function database(name: "agent.db" | "chat.db", schema: string, fill: (db: Database) => void): Promise<string> {
  const db = new SQL.Database();
  db.run(schema);
  fill(db);
  const path = join(tempDir("mnemo-hostile-deepchat-"), name);
  await writeFile(path, db.export());
  db.close();
  return path;
}

function* times<T>(count: number, row: (index: number) => T): Generator<T> {
  for (let index = 0; index < count; index++) yield row(index);
}

const T = 1_776_000_000_000;

describe("hostile DeepChat databases", () => {
  // A scan of the whole table for each message's blocks and files took 70 s for 20,000 messages: 30,000
  // fail by the test's limit (60 s) with room to spare.
  it("agent.db whose structured tables have no index (as CREATE TABLE … AS SELECT copies them): 30,000 answers read at once, blocks and files in order", async () => {
    const path = await database("agent.db", AGENT + STRUCTURED, (db) => {
      insert(db, "new_sessions", [["s", "Blocks", T, T, "regular"]]);
      insert(
        db,
        "deepchat_messages",
        times(30_000, (i) => [i, "s", i, i % 2 ? "assistant" : "user", "[]", "sent", "{}", T + i, T + i]),
      );
      insert(
        db,
        "deepchat_user_messages",
        times(15_000, (i) => [2 * i, `q${i}`]),
      );
      insert(db, "deepchat_user_message_files", [
        [0, 1, "b.pdf", "application/pdf"],
        [0, 0, "a.pdf", "application/pdf"],
      ]);
      insert(db, "deepchat_assistant_blocks", [
        ...times(15_000, (i) => [2 * i + 1, 1, "content", `a${i}`, null]),
        [1, 0, "tool_call", null, "read_file"],
      ]);
    });
    const { conversations, skipped } = await collectWithSkips(path);
    const messages = conversations[0]?.conversation.messages ?? [];
    expect(messages.length).toBe(30_000);
    expect(messages.slice(0, 2).map((message) => message.content)).toEqual([
      "q0\n\n[file: a.pdf]\n\n[file: b.pdf]",
      "[tool: read_file]\n\na0",
    ]);
    expect(skipped).toEqual({});
  });

  // Each variant copying the list of those before it, 40,000 and 20,000 took 77 s: these fail by the limit.
  it("chat.db: 60,000 variants of one answer, and 30,000 answers to one prompt with a context_chain that picks none, are read at once", async () => {
    const path = await database("chat.db", LEGACY, (db) => {
      insert(db, "conversations", [["c", "Variants", T, T, JSON.stringify({ a0: "v7", a1: "nowhere", v7: "a0" })]]);
      insert(db, "messages", [
        ["q", "c", "", "user", '{"text":"Which one?"}', T, 0, 0],
        ...times(30_000, (i) => [`a${i}`, "c", "q", "assistant", `[{"type":"content","content":"answer ${i}"}]`, T, 1, 0]),
        ...times(60_000, (i) => [`v${i}`, "c", "q", "assistant", `[{"type":"content","content":"variant ${i}"}]`, T, 1, 1]),
      ]);
    });
    const { conversations } = await collectWithSkips(path);
    const messages = conversations[0]?.conversation.messages ?? [];
    expect(messages.map((message) => message.content).slice(0, 2)).toEqual([
      "Which one?",
      expect.stringMatching(/^variant 7\n\nanswer 1\n\nanswer 10\n/),
    ]);
  });
  // Each repeat of an id trying every number from its count on, 20,000 took 44 s and 30,000 over the limit.
  it("agent.db: 30,000 messages with the id `a` after messages `a-2` … `a-30000` are numbered at once, each kept", async () => {
    const prompt = (id: string, order: number): Value[] => [id, "s", order, "user", `{"text":"q${order}"}`, "sent", "{}", T, T];
    const path = await database("agent.db", AGENT, (db) => {
      insert(db, "new_sessions", [["s", "Ids", T, T, "regular"]]);
      insert(db, "deepchat_messages", [...times(29_999, (i) => prompt(`a-${i + 2}`, i)), ...times(30_000, (i) => prompt("a", 30_000 + i))]);
    });
    const [read] = await collect(path);
    const ids = read?.conversation.messages.map((message) => message.id) ?? [];
    expect(new Set(ids).size).toBe(59_999);
    expect(ids.slice(29_999, 30_002)).toEqual(["a", "a-30001", "a-30002"]);
  });
  it("agent.db: a session and messages whose ids are NULL, BLOBs, numbers and times of no date cost only their own rows", async () => {
    const path = await database("agent.db", AGENT, (db) => {
      insert(db, "new_sessions", [
        [null, "Ghost", T, T, "regular"],
        ["s", new TextEncoder().encode("Bytes"), "NaN", -1, null],
      ]);
      insert(db, "deepchat_messages", [
        [null, null, null, "user", '{"text":"whose?"}', null, null, null, null],
        ["m1", "s", "x", "user", new TextEncoder().encode('{"text":"hi"}'), null, "{bad", 1e20, "tomorrow"],
        ["m2", "s", 2, "assistant", 42, null, null, T, T],
        ["m3", "s", 3, "assistant", `${"[".repeat(100_000)}${"]".repeat(100_000)}`, null, null, T, T],
      ]);
    });
    const { conversations, skipped } = await collectWithSkips(path);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.map((m) => m.content)])).toEqual([
      ["s", "Bytes", ["hi"]],
    ]);
    expect(skipped).toEqual({
      "messages of sessions no longer in the database (the app never shows them)": 1,
      "messages whose stored JSON is damaged (left out)": 1,
    });
  });
});

describe("hostile DeepChat Markdown exports", () => {
  const header = (id: string) =>
    `# Tram\n\n**Conversation ID:** ${id}\n\n---\n\n## 👤 用户 (2026/4/14 18:00:00)\n\nWhen is the first tram?\n\n---\n\n`;
  async function exported(text: string): Promise<string> {
    const path = join(tempDir("mnemo-hostile-deepchat-"), "export_deepchat_2026-04-14_18-20-00.md");
    await writeFile(path, text);
    return path;
  }

  // Each heading copying the list of its style, 40,000 took 33 s and 100,000 would take minutes.
  it("an export of 100,000 empty answer headings is read at once", async () => {
    const path = await exported(`${header("s1")}${"## 🤖 助手 (2026/4/14 18:00:05)\n\n".repeat(100_000)}At six.\n`);
    const [read] = await collect(path);
    expect(read?.conversation.messages.map((message) => message.content)).toEqual(["When is the first tram?", "At six."]);
  });
});
