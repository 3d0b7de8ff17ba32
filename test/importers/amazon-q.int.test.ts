// Amazon Q Developer CLI's and Kiro CLI's chats imported through the CLI (the import runs in a worker
// thread, on the compiled code): found by --apps in XDG's data folder; a chat /compact shortened keeps
// what an earlier import stored of it; a chat without times keeps its date when the file's time moves.
import { copyFileSync, cpSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { fixtures } from "./collect.js";

const entry = (id: string, prompt: string, answer: string, timestamp: string) => ({
  user: { additional_context: "", env_context: { env_state: null }, content: { Prompt: { prompt } }, timestamp, images: null },
  assistant: { Response: { message_id: id, content: answer } },
  request_metadata: null,
});

// The Kiro fixture's compacted chat as /chat save wrote it before /compact: its first exchange still in the history.
const beforeCompact = {
  conversation_id: "4d6e8f10-7a9b-4c2d-b3e4-5f6a7b8c9d06",
  next_message: null,
  history: [
    entry(
      "0c1d2e3f-3333-4c5d-9e0f-000000000004",
      "Let monthly passes cover the Montijo line.",
      "Monthly passes now cover Montijo; its ferries count as zone 2 crossings.",
      "2026-01-20T10:10:00.000+00:00",
    ),
    entry(
      "0c1d2e3f-3333-4c5d-9e0f-000000000005",
      "Now let monthly passes cover the Seixal line.",
      "Monthly passes now include Seixal, at the Navegante fare.",
      "2026-01-20T10:31:00.000+00:00",
    ),
  ],
  valid_history_range: [0, 2],
  transcript: [],
  tools: {},
  user_turn_metadata: { continuation_id: "a0a0a0a0-0000-4000-8000-000000000002", requests: [], usage_info: [] },
};

describe("mnemo import of Amazon Q Developer CLI's and Kiro CLI's chats", () => {
  it("--apps finds both databases; a chat /compact shortened keeps the messages stored before", async () => {
    const home = tempDir("mnemo-amazon-q-home-");
    const data = join(home, ".local", "share");
    cpSync(join(fixtures, "amazon-q", "amazon-q"), join(data, "amazon-q"), { recursive: true });
    cpSync(join(fixtures, "amazon-q", "kiro-cli"), join(data, "kiro-cli"), { recursive: true });
    const saved = join(tempDir("mnemo-amazon-q-"), "passes.json");
    writeFileSync(saved, JSON.stringify(beforeCompact, null, 2));
    const env = isolatedEnv({ HOME: home, XDG_DATA_HOME: data });
    const first = await runCli(["import", saved], { env });
    expect(first.code, first.stderr).toBe(0);
    const apps = await runCli(["import", "--apps"], { env });
    expect(apps.code, apps.stderr).toBe(0);
    expect(apps.stderr).toContain("Imported 3 new conversations");
    const found = await runCli(["search", "Montijo ferries zone 2 crossings", "--json"], { env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain("its ferries count as zone 2 crossings");
  });

  // Seconds: four runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("a chat in both Amazon Q's database and Kiro CLI's copy of it is counted once, on the first import and again", async () => {
    const home = tempDir("mnemo-amazon-q-home-");
    const data = join(home, ".local", "share");
    cpSync(join(fixtures, "amazon-q", "amazon-q"), join(data, "amazon-q"), { recursive: true });
    cpSync(join(fixtures, "amazon-q", "kiro-cli"), join(data, "kiro-cli"), { recursive: true });
    const env = isolatedEnv({ HOME: home, XDG_DATA_HOME: data });
    const dryRun = await runCli(["--json", "import", "--apps", "--dry-run"], { env });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const first = await runCli(["--json", "import", "--no-wait", "--apps"], { env });
    expect(first.code, first.stderr).toBe(0);
    const counts = JSON.parse(first.stdout) as { new: number; updated: number; unchanged: number };
    const listed = await runCli(["chats", "list", "--json"], { env });
    const stored = (JSON.parse(listed.stdout) as { items: unknown[] }).items.length;
    expect(counts).toMatchObject({ new: stored, updated: 0, unchanged: 0 });
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ new: stored, updated: 0, unchanged: 0 });
    const again = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(again.stderr).toContain(`Nothing new: all ${stored} conversations were already imported`);
  });

  // Seconds: three runs of the CLI on a store of its own. --no-wait: what is stored, not its indexing, is the subject.
  it("a chat of the old table, without times, is not updated by a write elsewhere in the database (its `state`)", async () => {
    const database = join(tempDir("mnemo-amazon-q-"), "data.sqlite3");
    copyFileSync(join(fixtures, "amazon-q", "amazon-q", "data.sqlite3"), database);
    const env = isolatedEnv();
    expect((await runCli(["import", "--no-wait", database], { env })).stderr).toContain("Imported 2 new conversations");
    // The CLI writes its `state` table often: the file's time moves, its chats do not.
    utimesSync(database, new Date("2026-11-01T12:00:00Z"), new Date("2026-11-01T12:00:00Z"));
    const again = await runCli(["import", "--no-wait", database], { env });
    expect(again.stderr).toContain("Nothing new: all 2 conversations were already imported");
    const listed = JSON.parse((await runCli(["--json", "chats", "list", "--title", "tide table for Porto"], { env })).stdout) as {
      items: { createdAt: string; updatedAt: string }[];
    };
    // Dated as Kiro CLI's migration dates it: by the time the table was made (migration 007), which no chat in it precedes.
    expect(listed.items).toMatchObject([{ createdAt: "2025-05-11T21:46:47.000Z", updatedAt: "2025-05-11T21:46:47.000Z" }]);
  });
});
