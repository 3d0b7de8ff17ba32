// Zed's threads.db (fixtures/exports/zed/build-database.mjs: db.rs's table, a thread of today's agent
// compressed with zstd, one of the agent before it and one of the oldest as JSON).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { fileSource } from "../../src/importers/source.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const database = join(fixtures, "zed", "threads", "threads.db");
const scratch = tempDir("mnemo-zed-");
const CURRENT = "a3f1c9e2-5b7d-4e8a-9c0f-1d2e3f4a5b6c";

/** A copy of the fixture database with `sql` run on it (`?` bound when given), as threads.db in a folder named `name`. */
async function changedCopy(name: string, sql: string, data?: Uint8Array): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(database));
  db.run(sql, data === undefined ? [] : [data]);
  mkdirSync(join(scratch, name), { recursive: true });
  const path = join(scratch, name, "threads.db");
  writeFileSync(path, db.export());
  db.close();
  return path;
}

const zstd = (value: unknown) => execFileSync("zstd", ["-3", "-q", "-c"], { input: Buffer.from(JSON.stringify(value)) });

describe("Zed's threads.db", () => {
  it("is known by its table, and gives each thread as the agent panel shows it, whatever version wrote it", async () => {
    expect(await detect(await fileSource(database))).toMatchObject({ format: "zed", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      ["Rust lifetimes in a struct", 2], // the oldest: a message's text
      ["Flaky date test in CI", 4], // the agent before: segments, a hidden message left out
      ["Debounce the search box", 4], // today's agent, zstd; "Resume" left out; the thread never written in too
    ]);
    // A subagent's thread is shown inside the one that started it.
    expect(skipped).toEqual({ "subagents' threads (shown inside the thread that started them: left out)": 1 });
    const current = conversations[2]!;
    expect(current).toMatchObject({ platform: "zed", complete: true });
    expect(current.conversation).toMatchObject({
      id: CURRENT,
      createdAt: "2026-03-14T10:31:47.502Z",
      updatedAt: "2026-03-14T10:42:05.118Z",
    });
    expect(current.conversation.messages.slice(0, 2)).toEqual([
      { id: "0", role: "human", content: "Every keystroke in @search-box.tsx fires a request. Can you debounce it by 300 ms?" },
      {
        id: "1",
        role: "assistant",
        content:
          "Let me look at the component first.\n\n[tool: read_file]\n\nWrap the fetch in a timeout that the effect's cleanup clears: `const t = setTimeout(() => fetchResults(q), 300); return () => clearTimeout(t);`",
      },
    ]);
    expect(conversations[1]?.conversation.messages[1]?.content).toBe(
      "I'll search for where the test builds its expected date.\n\n[tool: grep]",
    );
    // Thinking, tool results and the files the model was sent are not what the panel shows as said.
    const text = JSON.stringify(conversations);
    for (const hidden of ["a timeout cleared on cleanup will do", "CI runs in UTC", "Local::now", "useState", "ENCRYPTED"])
      expect(text).not.toContain(hidden);
  });

  it("read again after Zed saved a thread anew, keeps its id and its messages' ids: it is updated", async () => {
    const before = await collect(database);
    const stored = execFileSync("sqlite3", [database, `SELECT hex(data) FROM threads WHERE id = '${CURRENT}'`])
      .toString()
      .trim();
    const saved = JSON.parse(execFileSync("zstd", ["-d", "-q", "-c"], { input: Buffer.from(stored, "hex") }).toString());
    saved.title = "Debounce and abort the search";
    saved.messages.push({ User: { id: "u3", content: [{ Text: "Thanks, that works." }] } });
    const after = await collect(
      await changedCopy(
        "saved-again",
        `UPDATE threads SET summary = 'Debounce and abort the search', updated_at = '2026-03-14T11:00:00+00:00', data = ? WHERE id = '${CURRENT}'`,
        zstd(saved),
      ),
    );
    expect(after.map(({ conversation }) => conversation.id)).toEqual(before.map(({ conversation }) => conversation.id));
    expect(after[2]?.conversation.title).toBe("Debounce and abort the search");
    expect(after[2]?.conversation.messages.map(({ id }) => id)).toEqual(["0", "1", "2", "4", "5"]);
  });

  it("a thread whose data is damaged, compressed or not, costs only itself, counted", async () => {
    const torn = zstd({ title: "x", messages: [] }).subarray(0, 12);
    const damaged = await changedCopy("damaged", `UPDATE threads SET data = ? WHERE id = '${CURRENT}'`, torn);
    const first = await collectWithSkips(damaged);
    expect(first.conversations.map(({ conversation }) => conversation.title)).toEqual([
      "Rust lifetimes in a struct",
      "Flaky date test in CI",
    ]);
    expect(first.skipped).toMatchObject({ "threads whose stored data is damaged (left out)": 1 });
    const cut = await changedCopy(
      "cut-json",
      `UPDATE threads SET data = CAST('{"summary":"Flaky date te' AS BLOB) WHERE id = '7c1d9b40-2e6f-4a83-b5d1-0f9e8a7c6b54'`,
    );
    const second = await collectWithSkips(cut);
    expect(second.conversations.map(({ conversation }) => conversation.title)).toEqual([
      "Rust lifetimes in a struct",
      "Debounce the search box",
    ]);
    expect(second.skipped).toMatchObject({ "threads whose stored data is damaged (left out)": 1 });
  });

  it("in its threads folder it is read under its own name only; passed alone, under any", async () => {
    const renamed = join(scratch, "renamed");
    mkdirSync(renamed);
    copyFileSync(database, join(renamed, "threads-backup.db"));
    await expect(openExport(renamed)).rejects.toThrow(/no chat export file found inside/);
    expect((await collect(join(renamed, "threads-backup.db"))).length).toBe(3);
  });

  it("a torn database is said to be one, and what to do", async () => {
    mkdirSync(join(scratch, "torn"));
    const torn = join(scratch, "torn", "threads.db");
    writeFileSync(torn, readFileSync(database).subarray(0, 6_000));
    await expect(openExport(torn)).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("threads.db: a SQLite database that cannot be read"),
      suggestion: expect.stringContaining("Quit the app that writes it and copy the file again"),
    });
  });
});

describe("Zed's text threads (conversations/*.zed.json)", () => {
  const folder = join(fixtures, "zed", "conversations");

  it("are known by their `zed`, and give each message of the buffer as the editor shows it, whatever version wrote it", async () => {
    const current = join(folder, "CSV fields with quoted commas - 1.zed.json");
    expect(await detect(await fileSource(current))).toMatchObject({ format: "zed" });
    const conversations = await collect(folder);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      ["CSV fields with quoted commas", 4], // the empty message Zed keeps at the end left out
      ["git rebase onto", 2], // 0.1.0: the system message left out
    ]);
    expect(conversations[0]).toMatchObject({ platform: "zed", complete: true });
    expect(conversations[0]?.conversation.id).toBe("3e0f6a2c-8d14-4b7e-9a5c-c1d2e3f40516");
    // Offsets count bytes: the café's and Brûlé's accents move every later message's start.
    expect(conversations[0]?.conversation.messages.slice(0, 2)).toEqual([
      {
        id: "0.0",
        role: "human",
        content: '[import.rs]\nHow do I split a CSV line when a field can hold a quoted comma? Café names like "Brûlé, Ltd" break it.',
      },
      {
        id: "0.1",
        role: "assistant",
        content: "Don't split on commas yourself: the csv crate's ReaderBuilder honours quotes, so \"Brûlé, Ltd\" stays one field.",
      },
    ]);
    expect(JSON.stringify(conversations)).not.toContain("line.split"); // the folded /file output
    expect(conversations[1]?.conversation.messages.map(({ id, role }) => [id, role])).toEqual([
      ["1", "human"],
      ["2", "assistant"],
    ]);
  });

  it("a file without an id keeps the one it is given when read again", async () => {
    const old = join(folder, "git rebase onto - 1.zed.json");
    const [first] = await collect(old);
    const [second] = await collect(old);
    expect(first?.conversation.id).toMatch(/^zed-text-thread-/);
    expect(second?.conversation.id).toBe(first?.conversation.id);
  });
});
