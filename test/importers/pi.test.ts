import { appendFile, copyFile, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderLines, appFolderPath } from "../../src/importers/app-folders.js";
import { pi } from "../../src/importers/pi/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "pi", "sessions");
const tides = join(sessions, "--home-ana-src-tide-tables--");
const branched = join(tides, "2026-02-10T09-15-00-000Z_6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f.jsonl");
const first = join(tides, "2025-12-03T14-00-00-000Z_9d8c7b6a-5f4e-4d3c-8b2a-190817263544.jsonl");
const bread = join(sessions, "--home-ana-bread--", "2025-12-27T18-40-00-000Z_2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d.jsonl");

/** The messages of a session file as [id, role, content]. */
async function said(file: string): Promise<string[][]> {
  const [session] = await collect(file);
  return (session?.conversation.messages ?? []).map((message) => [message.id, message.role, message.content]);
}

describe("Pi sessions", () => {
  it("~/.pi/agent/sessions: a conversation per session file of each version, in every project's folder", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", "Why is this dough so slack at 75% hydration?", 4], // the words typed, not the @file before them
      ["9d8c7b6a-5f4e-4d3c-8b2a-190817263544", "Which harbours does the almanac cover?", 6],
      ["6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f", "Porto tide times past midnight", 6], // its /name
    ]);
    expect(skipped).toEqual({});
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["pi", "Pi coding agent", true]);
    }
  });

  it("a branched session: the branch of its last entry, whole across a compaction; the branch left, summaries and extensions' messages out", async () => {
    const [session] = await collect(branched);
    expect(session?.conversation).toMatchObject({ createdAt: "2026-02-10T09:15:10.000Z", updatedAt: "2026-02-10T09:18:50.000Z" });
    expect(await said(branched)).toEqual([
      ["line-4", "human", "The tide table for Porto shows high water at 25:10. Why?"],
      [
        "line-5",
        "assistant",
        "Let me look at the parser.\n\n[tool: read] [tool: edit]\n\nThe parser added 24 hours to times after midnight twice; they now roll over to the next day once.",
      ],
      // Lines 8 and 9, the test asked for and written, are the branch the user went back from.
      ["line-11", "human", "Instead, make the parser reject hours past 24."],
      ["line-12", "assistant", "parse_time now raises ValueError for an hour past 24, naming the line of the table."],
      ["line-16", "human", "/skill:commit name the bug in the message"], // as typed, not the skill's text
      ["line-17", "assistant", '[tool: bash]\n\nCommitted as 4f2a1c9, "Reject tide hours past 24".'],
    ]);
    const text = JSON.stringify(session);
    for (const left of ["parametrized", "Fix Porto's tide times", "Working tree", "day offset", "def parse_time"])
      expect(text).not.toContain(left);
  });

  it("reads the branch the file ends on, as Pi reopens it, not the longest", async () => {
    const file = join(tempDir("mnemo-pi-"), "2026-02-10T09-15-00-000Z_6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f.jsonl");
    await copyFile(branched, file);
    const back = { type: "message", id: "c1d2e3f4", parentId: "f6a7b8c9", timestamp: "2026-02-10T10:00:00.000Z" };
    await appendFile(
      file,
      `${JSON.stringify({ ...back, message: { role: "user", content: "Which other harbours have the bug?", timestamp: 1770717600000 } })}\n`,
    );
    expect((await said(file)).map(([id]) => id)).toEqual(["line-4", "line-5", "line-22"]);
  });

  it("a version 1 file (no ids): every entry after the one before, a ! command as typed, a failed answer left out", async () => {
    expect(await said(first)).toEqual([
      ["line-2", "human", "Which harbours does the almanac cover?"],
      ["line-3", "assistant", "[tool: bash]\n\nTwo harbours so far: Cascais and Porto, a CSV file each."],
      ["line-7", "human", "! wc -l data/*.csv"], // its output left out
      ["line-8", "human", "Add Aveiro from the hydrographic institute's feed."],
      ["line-9", "assistant", "Aveiro is in: data/aveiro.csv, 730 rows from the institute's feed."],
      ["line-11", "human", "Thanks."], // then an answer that failed (529) with no word
    ]);
  });

  it("a version 2 file: an @file by its path, an image as [image]; an extension's hookMessage left out", async () => {
    expect(await said(bread)).toEqual([
      ["line-2", "human", "[file: /home/ana/bread/hydration.csv]\nWhy is this dough so slack at 75% hydration?\n\n[image]"],
      ["line-3", "assistant", "Your rye share is high: rye holds less water, so 75% feels slacker than with wheat alone."],
      ["line-5", "human", "Plan a 70% rye loaf."],
      ["line-6", "assistant", "Mix 350 g rye and 150 g wheat with 400 g water, and proof it in a basket for 90 minutes."],
    ]);
  });

  it("a damaged line costs only itself, even one the branch runs through; a session of a header alone is said, not failed", async () => {
    const folder = tempDir("mnemo-pi-");
    const lines = (await readFile(branched, "utf8")).split("\n");
    lines[11] = lines[11]!.slice(0, 40); // line 12, the answer the compaction's parent names
    await writeFile(join(folder, "2026-02-10T09-15-00-000Z_6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f.jsonl"), lines.join("\n"));
    await writeFile(
      join(folder, "2026-03-01T08-00-00-000Z_0e1f2a3b-4c5d-4e6f-8a7b-8c9d0e1f2a3b.jsonl"),
      `${lines[0]!.replace("6f1c2d3e", "0e1f2a3b")}\n`,
    );
    const { conversations, problems } = await collectReporting(folder);
    expect(problems).toHaveLength(1);
    expect(conversations.map((c) => c.conversation.messages.map((message) => message.id))).toEqual([
      ["line-4", "line-5", "line-11", "line-16", "line-17"],
    ]);
    const { skipped } = await collectWithSkips(join(folder, "2026-03-01T08-00-00-000Z_0e1f2a3b-4c5d-4e6f-8a7b-8c9d0e1f2a3b.jsonl"));
    expect(skipped).toEqual({ "sessions without any message text": 1 });
  });

  it("a fork whose header and entries Pi wrote twice (before 0.55.2, its issue #1672): each message once, as Pi reads it by ids", async () => {
    const file = join(tempDir("mnemo-pi-"), basename(bread));
    const text = await readFile(bread, "utf8");
    await writeFile(file, text + text);
    const once = (await said(bread)).map(([, role, content]) => [role, content]);
    expect((await said(file)).map(([, role, content]) => [role, content])).toEqual(once);
  });

  it("is looked for in .pi/agent/sessions under the home folder, on Windows too, and watched", () => {
    const [folder] = pi.appFolders!;
    expect(appFolderPath(folder!, { platform: "linux", env: { HOME: "/home/ana" } })).toBe("/home/ana/.pi/agent/sessions");
    expect(appFolderPath(folder!, { platform: "win32", env: { USERPROFILE: "/Users/ana" } })).toBe(
      join("/Users/ana", ".pi", "agent", "sessions"),
    );
    // PI_CODING_AGENT_DIR moves the agent's folder, ~ read as home (config.ts getAgentDir).
    expect(appFolderPath(folder!, { platform: "linux", env: { HOME: "/home/ana", PI_CODING_AGENT_DIR: "~/pi" } })).toBe(
      join("/home/ana", "pi", "sessions"),
    );
    expect(pi.sessionLogs).toBe(true);
    expect(appFolderLines({ platform: "darwin", env: { HOME: "/Users/ana" } })).toMatch(
      /^ {2}Pi coding agent +~\/\.pi\/agent\/sessions \(\$PI_CODING_AGENT_DIR\)$/m,
    );
  });
});
