// Cherry Studio 2 databases with rows no Cherry Studio wrote (its constraints dropped): a row costs
// itself, counted, and never another topic its messages.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";
import { collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "cherry-studio-2");
const tmp = tempDir("mnemo-hostile-cherry-studio-");
const ESPRESSO = "cherry-studio-0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b";
const SOURDOUGH_TOPIC = "5b1c7e2a-0d4f-4a8e-9c3b-6f2e1d0a9b81";
const NO_ID = "topics and messages without an id (damaged rows, left out)";
/** The message table again without its constraints (a primary key, NOT NULLs), as a crafted file may have it. */
const UNCONSTRAINED = "CREATE TABLE loose AS SELECT * FROM message; DROP TABLE message; ALTER TABLE loose RENAME TO message;";

async function alteredFolder(name: string, sql: string): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(join(folder, "Data", "cherrystudio.sqlite")));
  db.exec(sql);
  const dir = join(tmp, name);
  mkdirSync(join(dir, "Data"), { recursive: true });
  writeFileSync(join(dir, "Data", "cherrystudio.sqlite"), Buffer.from(db.export()));
  db.close();
  return dir;
}

const said = (conversations: Awaited<ReturnType<typeof collectWithSkips>>["conversations"]) =>
  Object.fromEntries(
    conversations.map(({ conversation }) => [conversation.id, conversation.messages.map(({ id, content }) => [id, content])]),
  );

describe("hostile Cherry Studio 2 databases", () => {
  it("a message of another topic repeating an id on a topic's path leaves that topic as it was, where its path went on into the other topic's chat", async () => {
    const dir = await alteredFolder(
      "repeated-id",
      `${UNCONSTRAINED} INSERT INTO message (id, parent_id, topic_id, role, data, status, siblings_group_id, created_at)
       VALUES ('e-u2', 'm1-a3', '${SOURDOUGH_TOPIC}', 'user', '{"parts":[{"type":"text","text":"Not espresso"}]}', 'success', 0, 1746864500000)`,
    );
    const read = said((await collectWithSkips(dir)).conversations);
    expect(read[ESPRESSO]).toEqual(said((await collectWithSkips(folder)).conversations)[ESPRESSO]);
  });

  it("topics and messages whose id is empty or NULL are counted, not dropped without a word", async () => {
    const dir = await alteredFolder(
      "no-id",
      `${UNCONSTRAINED} CREATE TABLE t AS SELECT * FROM topic; DROP TABLE topic; ALTER TABLE t RENAME TO topic;
       INSERT INTO message (id, parent_id, topic_id, role, data, status, siblings_group_id, created_at)
         VALUES (NULL, 'm1-a3', '${SOURDOUGH_TOPIC}', 'user', '{"parts":[]}', 'success', 0, 1), ('', NULL, 'x', 'user', '{}', 'success', 0, 1);
       INSERT INTO topic (id, name, created_at, updated_at, order_key) VALUES (NULL, 'n', 1, 1, 'a'), ('', 'n', 1, 1, 'a')`,
    );
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(skipped[NO_ID]).toBe(4);
    expect(conversations).toHaveLength((await collectWithSkips(folder)).conversations.length);
  });
});
