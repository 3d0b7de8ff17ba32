import { appendFile, cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportFormat } from "../../src/core/jobs/watch-sessions.js";
import { appFolderPath } from "../../src/importers/app-folders.js";
import { sameSessionFiles } from "../../src/importers/index.js";
import { kiroCli } from "../../src/importers/kiro-cli/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "kiro-cli", "sessions", "cli");
const LIGHTHOUSE = "3f9a1c7e-2b4d-4e6f-8a0b-1c2d3e4f5a61";
const BUOYS = "8c2e4a6b-1d3f-4a5b-9c7d-0e1f2a3b4c72";
const REFUNDS = "e7c3a915-6b2d-4c8f-a1e0-4d5f6a7b8c05";
/** A session of the user's that calls an MCP tool named summary (the sub-agents' test). */
const MCP_SUMMARY = "0a1b2c3d-0000-4000-8000-000000000003";

const tmp = tempDir("mnemo-kiro-cli-");

describe("Kiro CLI's terminal-UI sessions", () => {
  it("~/.kiro/sessions/cli: a conversation per session, by its id, titled by its first prompt; tool results, the CLI's retries and an empty session counted", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      [LIGHTHOUSE, "Why does the lamp schedule skip the night of the 29th of March?", 8],
      [BUOYS, "List the buoys that stopped reporting this week.", 2],
      [REFUNDS, "Why do refunds for cancelled crossings fail?", 4],
    ]);
    expect(skipped).toEqual({
      "tool results (left out)": 5,
      "prompts the CLI sent itself to retry a cut answer (left out)": 1,
      "sessions without any message text": 1, // opened and left: its .jsonl empty
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.complete]).toEqual(["kiro-cli", true]);
    }
  });

  it("reads the log as a resumed session shows it: whole across a compaction, /clear and a cancel; images as [image], tools by name, no thinking", async () => {
    const [session] = await collect(join(sessions, `${LIGHTHOUSE}.jsonl`));
    expect(session?.conversation).toMatchObject({ createdAt: "2026-04-20T09:00:05.000Z", updatedAt: "2026-04-20T09:20:00.000Z" });
    expect(session?.conversation.messages).toEqual([
      {
        id: "a-1-prompt",
        role: "human",
        content: "Why does the lamp schedule skip the night of the 29th of March?\n\n[image]",
        createdAt: "2026-04-20T09:00:05.000Z",
      },
      {
        id: "a-1",
        role: "assistant",
        content:
          "Let me read the schedule code.\n\n[tool: fs_read]\n\nThe schedule adds 24 hours per night, and the 29th of March is 23 hours long (summer time), so the next night is skipped.",
      },
      { id: "a-3-prompt", role: "human", content: "Fix it and run the tests.", createdAt: "2026-04-20T09:05:00.000Z" },
      {
        id: "a-3",
        role: "assistant",
        content:
          "[tool: fs_write] [tool: execute_bash]\n\nResponse timed out - message took too long to generate\n\nFixed: nights are counted by calendar date, and the 14 tests pass.",
      },
      { id: "a-6-prompt", role: "human", content: "Does the fog horn use the same schedule?", createdAt: "2026-04-20T09:12:00.000Z" },
      { id: "a-6", role: "assistant", content: "No: the fog horn runs on the visibility sensor, not the schedule." },
      { id: "a-7-prompt", role: "human", content: "Turn the lamp test into a nightly job.", createdAt: "2026-04-20T09:20:00.000Z" },
      { id: "a-7", role: "assistant", content: "I'll add a cron entry.\n\n[tool: fs_write]" },
    ]);
  });

  it("a session of 1.28, without times in its log, is dated by its .json", async () => {
    const [session] = await collect(join(sessions, `${BUOYS}.jsonl`));
    expect(session?.conversation).toMatchObject({ createdAt: "2026-03-26T14:00:00.000Z", updatedAt: "2026-03-26T14:03:10.500Z" });
  });

  it("either file of a session passed alone (as the watcher imports the one that changed) gives the folder's conversation, and is watched with the other", async () => {
    const whole = (await collect(sessions)).find((c) => c.conversation.id === LIGHTHOUSE);
    for (const file of [`${LIGHTHOUSE}.jsonl`, `${LIGHTHOUSE}.json`]) {
      expect(await exportFormat(join(sessions, file)), file).toBe("kiro-cli");
      expect(await collect(join(sessions, file)), file).toEqual([whole]);
    }
    expect(sameSessionFiles(join(sessions, `${LIGHTHOUSE}.json`), "kiro-cli")).toEqual([join(sessions, `${LIGHTHOUSE}.jsonl`)]);
    expect(sameSessionFiles(join(sessions, `${LIGHTHOUSE}.jsonl`), "kiro-cli")).toEqual([join(sessions, `${LIGHTHOUSE}.json`)]);
  });

  it("a classic chat Kiro copied into a session when resumed in the TUI keeps the ids data.sqlite3 gives it, so the two are one conversation", async () => {
    const [copy] = await collect(join(sessions, `${REFUNDS}.jsonl`));
    const [original] = (await collect(join(fixtures, "amazon-q", "kiro-cli", "data.sqlite3"))).filter((c) => c.conversation.id === REFUNDS);
    expect(original?.platform).toBe("kiro-cli");
    const said = (c: UploadConversation | undefined) => c?.conversation.messages.map(({ id, role, content }) => ({ id, role, content }));
    expect(said(copy)?.slice(0, 2)).toEqual(said(original)); // the answer's time is data.sqlite3's alone: the copy drops request_metadata
  });

  it("a damaged line costs only itself, and the session is then added to, not replaced; a .json that is no JSON leaves the log's times", async () => {
    const folder = join(tmp, "damaged");
    await cp(sessions, folder, { recursive: true });
    await appendFile(join(folder, `${BUOYS}.jsonl`), '{"version":"v1","kind":"Prompt","data":{"message_id":"7a1b2c3d-0000-\n');
    await writeFile(join(folder, `${LIGHTHOUSE}.json`), "{ torn");
    const { conversations, problems } = await collectReporting(folder);
    expect(problems).toHaveLength(1);
    const buoys = conversations.find((c) => c.conversation.id === BUOYS);
    expect([buoys?.complete, buoys?.conversation.messages.length]).toEqual([false, 2]);
    expect(conversations.find((c) => c.conversation.id === LIGHTHOUSE)?.conversation.createdAt).toBe("2026-04-20T09:00:05.000Z");
  });

  it("unknown entry and block kinds are passed over; a log of a later version is not taken for this one", async () => {
    const folder = join(tmp, "later");
    await cp(sessions, folder, { recursive: true });
    const log = join(folder, `${BUOYS}.jsonl`);
    const lines = (await readFile(log, "utf8")).trimEnd().split("\n");
    lines.unshift(JSON.stringify({ version: "v1", kind: "Rewind", data: { to: 0 } }));
    lines.push(
      JSON.stringify({
        version: "v1",
        kind: "AssistantMessage",
        data: {
          message_id: "x",
          content: [
            { kind: "video", data: {} },
            { kind: "text", data: "And B-30." },
          ],
        },
      }),
    );
    await writeFile(log, `${lines.join("\n")}\n`);
    const [session] = await collect(log);
    expect(session?.conversation.messages.at(-1)?.content).toBe("[tool: execute_bash]\n\nTwo buoys stopped: B-14 and B-22.\n\nAnd B-30.");
    await writeFile(join(tmp, "v2.jsonl"), `${JSON.stringify({ version: "v2", kind: "Prompt", data: {} })}\n`);
    await expect(exportFormat(join(tmp, "v2.jsonl"))).resolves.not.toBe("kiro-cli");
  });

  it("a sub-agent's session, saved beside the user's, is left out and counted: it calls the summary tool, or was reminded to", async () => {
    const folder = join(tmp, "subagents");
    await cp(sessions, folder, { recursive: true });
    const line = (kind: string, data: object) => JSON.stringify({ version: "v1", kind, data });
    const task = (id: string) =>
      line("Prompt", {
        message_id: id,
        content: [{ kind: "text", data: "Find which buoys stopped reporting." }],
        meta: { timestamp: 1774533700 },
      });
    const done = [
      task("p-1"),
      line("AssistantMessage", {
        message_id: "s-1",
        content: [
          { kind: "toolUse", data: { toolUseId: "tu-9", name: "summary", input: { taskDescription: "Find…", taskResult: "B-14, B-22" } } },
        ],
      }),
    ];
    const reminded = [
      task("p-2"),
      line("AssistantMessage", { message_id: "s-2", content: [{ kind: "text", data: "B-14 and B-22." }] }),
      line("Prompt", {
        message_id: "p-3",
        content: [
          {
            kind: "text",
            data: "You have not called the summary tool yet. Please call the summary tool now to provide your findings to the main agent before ending your task.",
          },
        ],
      }),
    ];
    // The user's own session calling an MCP tool that happens to be named summary: theirs, kept.
    const mcpSummary = [
      task("p-4"),
      line("AssistantMessage", {
        message_id: "s-4",
        content: [{ kind: "toolUse", data: { toolUseId: "tu-4", name: "summary", input: { url: "https://example.org/buoys" } } }],
      }),
      line("AssistantMessage", { message_id: "s-5", content: [{ kind: "text", data: "The page lists B-14 and B-22." }] }),
    ];
    const data = JSON.parse(await readFile(join(sessions, `${BUOYS}.json`), "utf8")) as Record<string, unknown>;
    for (const [id, lines] of [
      ["0a1b2c3d-0000-4000-8000-000000000001", done],
      ["0a1b2c3d-0000-4000-8000-000000000002", reminded],
      [MCP_SUMMARY, mcpSummary],
    ] as const) {
      await writeFile(join(folder, `${id}.jsonl`), `${lines.join("\n")}\n`);
      await writeFile(join(folder, `${id}.json`), JSON.stringify({ ...data, session_id: id }));
    }
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.id)).toEqual([MCP_SUMMARY, LIGHTHOUSE, BUOYS, REFUNDS]);
    expect(skipped).toMatchObject({ "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 2 });
  });

  it("is looked for in ~/.kiro/sessions/cli on every system", () => {
    expect(kiroCli.appFolders?.map((folder) => appFolderPath(folder, { platform: "linux", env: { HOME: "/home/ines" } }))).toEqual([
      "/home/ines/.kiro/sessions/cli",
    ]);
    expect(kiroCli.appFolders?.map((folder) => appFolderPath(folder, { platform: "win32", env: { USERPROFILE: "/Users/ines" } }))).toEqual([
      join("/Users/ines", ".kiro", "sessions", "cli"),
    ]);
    expect(kiroCli.sessionLogs).toBe(true);
  });
});
