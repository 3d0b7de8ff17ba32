// Cherry Studio 2 databases with rows no Cherry Studio wrote (its constraints dropped): a row costs
// itself, counted, and never another topic its messages.
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dirs.js";
import { alteredFolder, cherryStudio2Folder } from "./cherry-studio-2-folder.js";
import { collectWithSkips } from "./collect.js";

const folder = cherryStudio2Folder;
const tmp = tempDir("mnemo-hostile-cherry-studio-");
const ESPRESSO = "cherry-studio-0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b";
const SOURDOUGH_TOPIC = "5b1c7e2a-0d4f-4a8e-9c3b-6f2e1d0a9b81";
const NO_ID = "topics and messages without an id (damaged rows, left out)";
/** The message table again without its constraints (a primary key, NOT NULLs), as a crafted file may have it. */
const UNCONSTRAINED = "CREATE TABLE loose AS SELECT * FROM message; DROP TABLE message; ALTER TABLE loose RENAME TO message;";

const said = (conversations: Awaited<ReturnType<typeof collectWithSkips>>["conversations"]) =>
  Object.fromEntries(
    conversations.map(({ conversation }) => [conversation.id, conversation.messages.map(({ id, content }) => [id, content])]),
  );

describe("hostile Cherry Studio 2 databases", () => {
  it("a message of another topic repeating an id on a topic's path leaves that topic as it was, where its path went on into the other topic's chat", async () => {
    const dir = await alteredFolder(
      tmp,
      "repeated-id",
      `${UNCONSTRAINED} INSERT INTO message (id, parent_id, topic_id, role, data, status, siblings_group_id, created_at)
       VALUES ('e-u2', 'm1-a3', '${SOURDOUGH_TOPIC}', 'user', '{"parts":[{"type":"text","text":"Not espresso"}]}', 'success', 0, 1746864500000)`,
    );
    const read = said((await collectWithSkips(dir)).conversations);
    expect(read[ESPRESSO]).toEqual(said((await collectWithSkips(folder)).conversations)[ESPRESSO]);
  });

  it("topics and messages whose id is empty or NULL are counted, not dropped without a word", async () => {
    const dir = await alteredFolder(
      tmp,
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
