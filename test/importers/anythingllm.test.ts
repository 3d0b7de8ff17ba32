// AnythingLLM's anythingllm.db (fixtures/exports/anythingllm/build-database.mjs: the tables every
// migration leaves, rows as the app writes them).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { fileSource } from "../../src/importers/source.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const database = join(fixtures, "anythingllm", "anythingllm.db");
const exported = join(fixtures, "anythingllm-export", "anythingllm-chats-4_12_2026.json");
const scratch = tempDir("mnemo-anythingllm-");

/** A copy of the fixture database with `sql` run on it, as anythingllm.db in a folder of its own named `name`. */
async function changedCopy(name: string, ...sql: string[]): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(database));
  for (const statement of sql) db.run(statement);
  mkdirSync(join(scratch, name), { recursive: true });
  const path = join(scratch, name, "anythingllm.db");
  writeFileSync(path, db.export());
  db.close();
  return path;
}

const titles = async (path: string) => (await collect(path)).map(({ conversation }) => [conversation.title, conversation.messages.length]);

describe("AnythingLLM's anythingllm.db", () => {
  it("is known by its tables, and gives each thread and each workspace's default chat as the app shows them", async () => {
    expect(await detect(await fileSource(database))).toMatchObject({ format: "anythingllm", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      ["Garden planning", 4], // the workspace's chat outside threads, without the one cleared with /reset
      ["Tomato blight", 4], // a thread, without the agent's run cut short
      ["Can I deduct my home office as a freelancer?", 2], // a thread still named "Thread": its first prompt
      ["Tax return 2025 (API session zapier-7f3a)", 2],
    ]);
    expect(skipped).toEqual({ "chats AnythingLLM no longer shows (cleared with /reset, deleted, or a refused query: left out)": 2 });
    const blight = conversations[1]!;
    expect(blight).toMatchObject({ platform: "anythingllm", complete: true });
    expect(blight.conversation.messages[0]).toEqual({
      id: "4-prompt",
      role: "human",
      content: "The lower leaves of my tomatoes have brown patches with yellow rings. What is it?\n\n[image]",
      createdAt: "2026-03-05T17:01:00.000Z",
    });
    // The documents' text the answer was given (its sources) is not what was said.
    expect(JSON.stringify(conversations)).not.toContain("Blight spreads in warm, wet weather");
    expect(blight.conversation).toMatchObject({ createdAt: "2026-03-05T17:01:00.000Z", updatedAt: "2026-03-05T17:03:00.000Z" });
  });

  it("read again after the app changed it, each conversation keeps its id: renamed, grown or cleared, it is updated", async () => {
    const before = await collect(database);
    const after = await collect(
      await changedCopy(
        "changed",
        `UPDATE workspace_threads SET name = 'Blight on the tomatoes' WHERE id = 1`,
        `UPDATE workspace_chats SET include = 0 WHERE id = 1`,
        `INSERT INTO workspace_chats (workspaceId, prompt, response, thread_id, createdAt, lastUpdatedAt)
         VALUES (1, 'Which varieties resist it?', '{"text":"Crimson Crush and Mountain Magic.","sources":[],"type":"chat"}', 1, 1772730600000, 1772730600000)`,
      ),
    );
    expect(after.map(({ conversation }) => conversation.id)).toEqual(before.map(({ conversation }) => conversation.id));
    expect(after[0]?.conversation.messages.map(({ id }) => id)).toEqual(["2-prompt", "2-response"]);
    expect(after[1]?.conversation.title).toBe("Blight on the tomatoes");
    expect(after[1]?.conversation.messages.at(-1)).toMatchObject({ id: "9-response", content: "Crimson Crush and Mountain Magic." });
  });

  it("in its storage folder, beside the documents AnythingLLM keeps as JSON, is read; another name of it is not opened there", async () => {
    const storage = join(scratch, "storage");
    mkdirSync(join(storage, "documents", "custom-documents"), { recursive: true });
    copyFileSync(database, join(storage, "anythingllm.db"));
    // A document the collector wrote (collector/utils/files: its text in pageContent).
    writeFileSync(
      join(storage, "documents", "custom-documents", "rhs-tomato-guide.pdf-3b1c.json"),
      JSON.stringify({ id: "3b1c", url: "file://rhs-tomato-guide.pdf", title: "rhs-tomato-guide.pdf", pageContent: "Blight…" }),
    );
    expect(await titles(storage)).toEqual(await titles(database));
    const renamed = join(scratch, "renamed");
    mkdirSync(renamed);
    copyFileSync(database, join(renamed, "chats-backup.db"));
    await expect(openExport(renamed)).rejects.toThrow(/no chat export file found inside/);
    expect(await titles(join(renamed, "chats-backup.db"))).toEqual(await titles(database));
  });

  it("a database from before threads and API sessions (early 2024) gives its workspaces' chats", async () => {
    const old = await changedCopy(
      "before-threads",
      "DROP TABLE workspace_threads",
      "DELETE FROM workspace_chats WHERE thread_id IS NOT NULL OR api_session_id IS NOT NULL",
      "ALTER TABLE workspace_chats DROP COLUMN thread_id",
      "ALTER TABLE workspace_chats DROP COLUMN api_session_id",
      // A row given its time by a migration's default (CURRENT_TIMESTAMP, SQL's text, UTC), not by Prisma (milliseconds).
      "UPDATE workspace_chats SET createdAt = '2026-03-02 08:05:00' WHERE id = 1",
    );
    expect(await titles(old)).toEqual([["Garden planning", 4]]);
    expect((await collect(old))[0]?.conversation.messages[0]?.createdAt).toBe("2026-03-02T08:05:00.000Z");
  });

  it("an answer whose stored JSON is damaged costs only itself, counted: the prompt is kept", async () => {
    const damaged = await changedCopy("damaged", `UPDATE workspace_chats SET response = '{"text":"Sow runn' WHERE id = 1`);
    const { conversations, skipped } = await collectWithSkips(damaged);
    expect(conversations[0]?.conversation.messages.map(({ id }) => id)).toEqual(["1-prompt", "2-prompt", "2-response"]);
    expect(skipped).toMatchObject({ "answers whose stored JSON is damaged (left out)": 1 });
  });

  it("a torn database is said to be one, and what to do", async () => {
    const torn = join(scratch, "torn", "anythingllm.db");
    mkdirSync(join(scratch, "torn"));
    writeFileSync(torn, readFileSync(database).subarray(0, 9_000));
    await expect(openExport(torn)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("anythingllm.db: a SQLite database that cannot be read"),
      suggestion: expect.stringContaining("Quit the app that writes it and copy the file again"),
    });
  });
});

describe("AnythingLLM's chat export as JSON", () => {
  it("gives a conversation per workspace and user, every chat the export holds, threads together", async () => {
    expect(await detect(await fileSource(exported))).toMatchObject({ format: "anythingllm" });
    const conversations = await collect(exported);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      // The export keeps the chat cleared with /reset and the agent's prompt without an answer, and names no thread.
      ["Garden planning", 11],
      ["Tax return 2025", 2],
      ["Tax return 2025 (API)", 2],
    ]);
    const garden = conversations[0]!.conversation;
    expect(garden.messages.find(({ id }) => id === "4-prompt")?.content).toMatch(/What is it\?\n\n\[image\]$/);
    expect(garden.messages.find(({ id }) => id === "6-prompt")).toMatchObject({ content: "@agent look up blight-resistant varieties" });
    expect(garden).toMatchObject({ createdAt: "2026-03-02T08:05:00.000Z", updatedAt: "2026-03-05T17:05:00.000Z" });
    expect((await collect(exported)).map(({ conversation }) => conversation.id)).toEqual(
      conversations.map(({ conversation }) => conversation.id),
    );
  });

  it("the embedded chat widget's export (its website's visitors, no username) is not taken for it", async () => {
    const widget = join(scratch, "embed-chats.json");
    const chats = JSON.parse(readFileSync(exported, "utf8")).map(({ username: _, ...chat }: Record<string, unknown>) => chat);
    writeFileSync(widget, JSON.stringify(chats));
    await expect(openExport(widget)).rejects.toThrow(/no format's structure matches it/);
  });
});
