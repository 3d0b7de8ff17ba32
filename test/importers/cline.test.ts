import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_SIDE } from "../../src/importers/cline/model-side.js";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const root = join(fixtures, "cline");
const sessions = join(root, "sessions");
const SUBAGENTS = "sub-agents' sessions (the agent's side work, left out as its reasoning is)";
const clineTasks = join(root, "saoudrizwan.claude-dev", "tasks");
const scratch = tempDir("mnemo-cline-");

const T = 1_750_000_000_000;
const say = (at: number, kind: string, text: string, extra: object = {}) => ({ ts: T + at, type: "say", say: kind, text, ...extra });
const ask = (at: number, kind: string, text: string, extra: object = {}) => ({ ts: T + at, type: "ask", ask: kind, text, ...extra });

/** A task folder holding ui_messages.json of these messages (its text as given, when a string). */
async function task(name: string, messages: object[] | string): Promise<string> {
  const folder = join(scratch, name, "tasks", String(T));
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "ui_messages.json"), typeof messages === "string" ? messages : JSON.stringify(messages));
  return folder;
}

const contents = async (path: string) => (await collect(path))[0]?.conversation.messages.map((message) => message.content);

describe("Cline, Roo Code and Kilo Code tasks", () => {
  it("a tasks folder of each: a conversation per task's ui_messages.json, the model's file beside it counted, not read", async () => {
    const { conversations, skipped } = await collectWithSkips(root);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["1760000000000", "Explain what `set -euo pipefail` does in deploy.sh", 2], // Kilo Code
      ["1752480000000", "Add a --json flag to the `tides` command", 4], // Roo Code
      ["1736942400005", "Write a haiku about cron jobs into notes/haiku.md", 4], // Cline 2.x
      ["1748001234570", "The Brest tide table shows 24:10 for boats after midnight.", 6], // Cline 3.x
      ["1784094124598_rruoq", expect.stringMatching(/^can you update @apps/), 10], // Cline's SDK: the CLI
      ["1784200000000_k3xq9", "Plan a retry with backoff for the tide API client in src/api.ts", 4], // Cline's SDK: VS Code
    ]);
    // Every task's api_conversation_history.json, and Kilo's task whose ui_messages.json is missing; a subagent's session.
    expect(skipped).toEqual({ [MODEL_SIDE]: 4, [SUBAGENTS]: 1 });
    for (const conversation of conversations) expect(UploadConversation.parse(conversation)).toEqual(conversation);
    // Each app's by its extension's folder in globalStorage.
    expect(conversations.map((c) => [c.platform, c.platformDisplayName, c.complete])).toEqual([
      ["kilo-code", "Kilo Code", true],
      ["roo-code", "Roo Code", true],
      ["cline", "Cline", true],
      ["cline", "Cline", true],
      ["cline", "Cline", true],
      ["cline", "Cline", true],
    ]);
  });

  it("Roo Code's task is Roo Code's however it is reached through its folder, Cline's when nothing names the folder (a task zipped alone)", async () => {
    const roo = join(root, "rooveterinaryinc.roo-cline", "tasks");
    const zip = join(scratch, "roo-task.zip");
    execFileSync("zip", ["-q", "-r", "-X", zip, "3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c"], { cwd: roo });
    const platforms = [];
    for (const path of [roo, join(roo, "3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c", "ui_messages.json"), zip])
      platforms.push((await collect(path)).map((c) => [c.conversation.id, c.platform]));
    // `mnemo import .` in the tasks folder.
    const cwd = process.cwd();
    process.chdir(roo);
    try {
      platforms.push((await collect(".")).map((c) => [c.conversation.id, c.platform]));
    } finally {
      process.chdir(cwd);
    }
    expect(platforms).toEqual([
      [["1752480000000", "roo-code"]],
      [["1752480000000", "roo-code"]],
      [["1752480000000", "cline"]],
      [["1752480000000", "roo-code"]],
    ]);
  });

  it("a prompt and all the assistant did until the next one are two messages: its words, its tools on one line, no output, no reasoning", async () => {
    const [task] = await collect(join(clineTasks, "1748001234567"));
    expect(task?.conversation).toMatchObject({ createdAt: "2025-05-23T11:53:54.570Z", updatedAt: "2025-05-23T11:55:07.067Z" });
    expect(task?.conversation.messages).toEqual([
      {
        id: "1748001234570",
        role: "human",
        content:
          "The Brest tide table shows 24:10 for boats after midnight.\nFix the parser in src/tides.ts so it rolls over to the next day.",
        createdAt: "2025-05-23T11:53:54.570Z",
      },
      {
        // The request's JSON, the reasoning, the checkpoint and the command's output left out; HAS_CHANGES cut off the result.
        id: "1748001237667",
        role: "assistant",
        content:
          "I'll start by reading the parser to see how it handles the time column.\n\n[tool: readFile] [tool: editedExistingFile] [tool: execute_command]\n\nThe parser now reads 24:10 as 00:10 on the next day, and the six tide tests pass.",
        createdAt: "2025-05-23T11:53:57.667Z",
      },
      {
        id: "1748001295567",
        role: "human",
        content: "Does the same happen for 24:00 exactly? Here is the row that breaks:\n\n[image]\n\n[file: brest-2025-06.csv]",
        createdAt: "2025-05-23T11:54:55.567Z",
      },
      {
        id: "1748001298567",
        role: "assistant",
        content: "Should 24:00 be midnight of the next day, or the last minute of this one?",
        createdAt: "2025-05-23T11:54:58.567Z",
      },
      // The option clicked: Cline writes no feedback then, only `selected` in the question.
      { id: "1748001298567-selected", role: "human", content: "Midnight of the next day", createdAt: "2025-05-23T11:54:58.567Z" },
      {
        id: "1748001306567",
        role: "assistant",
        content: "24:00 now rolls over like 24:10 does: midnight of the next day.\n\nTimes of 24:00 and later roll over to the next day.",
        createdAt: "2025-05-23T11:55:06.567Z",
      },
    ]);
  });

  it("Roo Code's task is its first 'text'; a subtask's result is left out (the subtask is a task of its own)", async () => {
    expect(await contents(join(root, "rooveterinaryinc.roo-cline", "tasks", "3f2b8c1e-6a4d-4e9b-9c7a-1d2e3f4a5b6c"))).toEqual([
      "Add a --json flag to the `tides` command",
      "I'll look at how the command prints its table first.\n\n[tool: readFile]\n\nShould --json print one object per tide, or one array?",
      "One array",
      "[tool: appliedDiff] [tool: newTask]\n\n`tides --json` now prints the day's tides as one JSON array, with tests.",
    ]);
  });

  it("older Cline: a question as bare text, the result in the ask itself, an MCP server's tool by name", async () => {
    expect(await contents(join(clineTasks, "1736942400000", "ui_messages.json"))).toEqual([
      "Write a haiku about cron jobs into notes/haiku.md",
      "Do you want the haiku in English or in Portuguese?",
      "Portuguese, please",
      "[tool: get_time] [tool: newFileCreated]\n\nÀs três da manhã\no cron acorda sozinho —\nlogs cheios de orvalho",
    ]);
  });

  it("the same conversation whether the tasks folder, the task's folder, its ui_messages.json or a zip is imported", async () => {
    const zip = join(scratch, "tasks.zip");
    execFileSync("zip", ["-q", "-r", "-X", zip, "1748001234567"], { cwd: clineTasks });
    const ids = [];
    for (const path of [root, join(clineTasks, "1748001234567"), join(clineTasks, "1748001234567", "ui_messages.json"), zip]) {
      const found = (await collect(path)).find((c) => c.conversation.title.startsWith("The Brest tide table"));
      ids.push([found?.conversation.id, found?.conversation.messages.map((message) => message.id).join()]);
    }
    expect(new Set(ids.map((pair) => pair.join("|"))).size).toBe(1);
  });

  it("a result said and then asked with the same text is shown once", async () => {
    const folder = await task("repeated-result", [
      say(0, "task", "Rename the README's title"),
      say(10, "completion_result", "Renamed it to mnemo."),
      ask(20, "completion_result", "Renamed it to mnemo."),
    ]);
    expect(await contents(folder)).toEqual(["Rename the README's title", "Renamed it to mnemo."]);
  });

  it("an image Roo Code generated is shown as [image]; a plan-mode answer by its response, the option clicked as the user's", async () => {
    const folder = await task("plan", [
      say(0, "text", "Draw the harbour's logo, then plan the tide widget"),
      say(10, "image", JSON.stringify({ imageUri: "vscode-webview://logo.png", imagePath: "/home/ana/logo.png" })),
      ask(
        20,
        "plan_mode_respond",
        JSON.stringify({ response: "First the API, then the widget.", options: ["Go", "Wait"], selected: "Go" }),
      ),
    ]);
    expect(await contents(folder)).toEqual([
      "Draw the harbour's logo, then plan the tide widget",
      "[image]\n\nFirst the API, then the widget.",
      "Go",
    ]);
  });

  it("a damaged message (a quote lost) costs only itself", async () => {
    const good = [say(0, "task", "Why is the build slow?"), say(10, "text", "The tests run serially."), say(30, "text", "Pass --parallel.")]
      .map((message) => JSON.stringify(message))
      .join(",");
    const folder = await task(
      "damaged",
      `[${good.replace(',{"ts"', ',{"ts":1750000000020,"type":"say","say":"text","text":"cut here},{"ts"')}]`,
    );
    const problems: unknown[] = [];
    const reader = await openExport(folder, { onUnreadable: (problem) => problems.push(problem) });
    const conversations = [];
    for await (const conversation of reader.conversations()) conversations.push(conversation);
    expect(problems).toHaveLength(1);
    expect(conversations[0]?.conversation.id).toBe(String(T));
    expect(conversations[0]?.conversation.messages.map((message) => message.content)).toEqual([
      "Why is the build slow?",
      "The tests run serially.\n\nPass --parallel.",
    ]);
  });

  it("the model's file is known with Cline's newer keys (id, ts, modelInfo, metrics) and a <task> string for content", async () => {
    const folder = await task("model-side", [say(0, "task", "List the tide stations"), say(10, "text", "Brest, Roscoff, Le Conquet.")]);
    const history = [
      { role: "user", content: "<task>\nList the tide stations\n</task>", ts: T + 5 },
      {
        role: "assistant",
        content: [{ type: "text", text: "Brest, Roscoff, Le Conquet." }],
        id: "msg_01",
        ts: T + 9,
        modelInfo: {},
        metrics: {},
      },
    ];
    await writeFile(join(folder, "api_conversation_history.json"), JSON.stringify(history));
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.messages.length)).toEqual([2]);
    expect(skipped).toEqual({ [MODEL_SIDE]: 1 });
  });

  it("a task with nothing said (stopped before any answer, its prompt empty) is counted, not imported", async () => {
    const folder = await task("nothing", [say(0, "task", " "), say(5, "api_req_started", '{"tokensIn":10}'), ask(9, "resume_task", "")]);
    expect(await collectWithSkips(folder)).toEqual({ conversations: [], skipped: { "tasks without any message text": 1 } });
  });

  it("the model's file alone is counted as not read; task_metadata.json and taskHistory.json alone are named, with what to pass", async () => {
    const kilo = join(root, "kilocode.kilo-code", "tasks", "0b9e8d7c-6f5a-4b3c-9d2e-1f0a9b8c7d6e", "api_conversation_history.json");
    expect(await collectWithSkips(kilo)).toEqual({ conversations: [], skipped: { [MODEL_SIDE]: 1 } });
    await expect(openExport(join(clineTasks, "1748001234567", "task_metadata.json"))).rejects.toThrow(
      /Cline's task_metadata\.json \(the files and models a task used\), not the conversations/,
    );
    const index = join(scratch, "taskHistory.json");
    await writeFile(
      index,
      JSON.stringify([{ id: String(T), ts: T + 90_000, task: "Fix the parser", tokensIn: 120, tokensOut: 40, totalCost: 0.01 }]),
    );
    await expect(openExport(index)).rejects.toThrow(/Cline's taskHistory\.json \(the list of tasks, not what was said in them\)/);
  });

  it("a ui_messages.json cut short (read mid-write, or its write never ended) adds what it holds to the stored task, never cuts it", async () => {
    const messages = [
      say(0, "task", "Rename the CLI"),
      say(10, "text", "Renamed it."),
      say(20, "user_feedback", "And the docs"),
      say(30, "text", "Done too."),
    ];
    const whole = JSON.stringify(messages);
    const file = join(await task("cut", whole.slice(0, whole.indexOf('"And the docs"'))), "ui_messages.json");
    const problems: string[] = [];
    const cut: UploadConversation[] = [];
    for await (const upload of (await openExport(file, { onUnreadable: (problem) => problems.push(problem.message) })).conversations())
      cut.push(upload);
    expect(problems).toEqual([expect.stringContaining("the file looks truncated")]);
    expect(cut.map((upload) => [upload.complete, upload.conversation.messages.map((message) => message.content)])).toEqual([
      [false, ["Rename the CLI", "Renamed it."]],
    ]);
    await writeFile(file, whole);
    expect((await collect(file)).map((upload) => upload.complete)).toEqual([true]);
  });
});

describe("Cline's sessions since the SDK (~/.cline/data/sessions/<id>/<id>.messages.json)", () => {
  const cli = join(sessions, "1784094124598_rruoq");
  const vscode = join(sessions, "1784200000000_k3xq9");

  it("the CLI's session: each prompt with its @file as [file: name], then the agent's words and tools until the next, no tool output", async () => {
    const [session] = await collect(join(cli, "1784094124598_rruoq.messages.json"));
    expect(UploadConversation.parse(session)).toEqual(session);
    expect(session).toMatchObject({
      platform: "cline",
      platformDisplayName: "Cline",
      complete: true,
      conversation: { id: "1784094124598_rruoq", createdAt: "2026-07-06T22:27:48.634Z", updatedAt: "2026-07-07T22:24:53.615Z" },
    });
    const messages = session!.conversation.messages;
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ["msg_mr9sjimy_1", "human"],
      ["msg_7mYEbh8N", "assistant"],
      ["msg_mr9soyef_1", "human"],
      ["msg_iGShD_aA", "assistant"],
      ["msg_mr9sqnuq_1", "human"],
      ["msg_2qmXmy0D", "assistant"],
      ["msg_mr9szmu2_2q", "human"],
      ["msg_xQirMok7", "assistant"],
      ["msg_mrb7vknq_4n", "human"],
      ["msg_Fy5COtRH", "assistant"],
    ]);
    expect(messages[0]?.content).toBe(
      "can you update @apps/examples/desktop-app/webview/components/agent-sidebar.tsx so that the filter icon comes after the Sessions text button\n\n[file: agent-sidebar.tsx]",
    );
    expect(messages[3]?.content).toMatch(
      /^I'll make the filter icon smaller\. .*\n\n\[tool: editor\]\n\nDone\. I changed the `Filter` icon/s,
    );
    expect(messages[5]?.content).toContain("[tool: run_commands] [tool: read_files]");
    expect(messages.map((message) => message.content).join()).not.toMatch(/Edited \/Users|"use client"|You are Cline/);
  });

  it("VS Code's: the mode wrappers and notices off, the plan-to-act continuation and thinking left out, an image as [image]; a subagent's file counted", async () => {
    const { conversations, skipped } = await collectWithSkips(vscode);
    expect(skipped).toEqual({ [SUBAGENTS]: 1 });
    expect(conversations.map((c) => c.conversation.messages.map((message) => message.content))).toEqual([
      [
        "Plan a retry with backoff for the tide API client in src/api.ts\n\n[file: api.ts]",
        "I'll wrap fetchTides in a retry loop: three attempts, waiting 250 ms, then 500 ms, then 1 s.\n\n[tool: switch_to_act_mode] [tool: editor] [tool: run_commands]\n\nfetchTides now retries three times with backoff, and the twelve tests pass.",
        "Should the backoff have jitter? Here is the graph of our retries:\n\n[image]",
        "Yes: full jitter spreads the retries of many clients, so they stop hitting the API in waves.",
      ],
    ]);
  });

  it("titled by the manifest beside the messages file (a title the user gave), else by the first prompt; a cut manifest counted", async () => {
    const [fixture] = await collect(join(cli, "1784094124598_rruoq.messages.json"));
    expect(fixture?.conversation.title).toMatch(/^can you update @apps\/.* \(fork\)$/); // the manifest's: the prompt's start and "(fork)"
    const messages = await readFile(join(cli, "1784094124598_rruoq.messages.json"), "utf8");
    const manifest = JSON.parse(await readFile(join(cli, "1784094124598_rruoq.json"), "utf8"));
    const copy = async (name: string, manifestText: string | undefined) => {
      const dir = join(scratch, name, "1784094124598_rruoq");
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "1784094124598_rruoq.messages.json"), messages);
      if (manifestText !== undefined) await writeFile(join(dir, "1784094124598_rruoq.json"), manifestText);
      return join(dir, "..");
    };
    const renamed = JSON.stringify({ ...manifest, metadata: { ...manifest.metadata, title: "Sidebar filter icon" } });
    for (const path of [
      await copy("manifest-renamed", renamed),
      join(await copy("manifest-renamed-file", renamed), "1784094124598_rruoq", "1784094124598_rruoq.messages.json"),
    ])
      expect((await collect(path)).map((c) => c.conversation.title)).toEqual(["Sidebar filter icon"]);
    const { conversations, skipped } = await collectWithSkips(await copy("manifest-cut", renamed.slice(0, 80)));
    expect(conversations.map((c) => c.conversation.title)).toEqual([expect.stringMatching(/^can you update @apps\/(?!.*\(fork\))/)]);
    expect(skipped).toEqual({ "session manifests that could not be read (the session keeps its first prompt as its title)": 1 });
  });

  it("the same id and messages whether the sessions folder, the session's folder or its file is imported", async () => {
    const ids = [];
    for (const path of [sessions, cli, join(cli, "1784094124598_rruoq.messages.json")]) {
      const found = (await collect(path)).find((c) => c.conversation.id === "1784094124598_rruoq");
      ids.push(found?.conversation.messages.map((message) => message.id).join());
    }
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toContain("msg_mr9sjimy_1");
  });

  it("a command as typed, a provider's tool by name; prompts the chat never showed (resumption, hook context, a compaction summary) left out; no ts: the id's time", async () => {
    const file = join(scratch, "1784300000000_a1b2c", "1784300000000_a1b2c.messages.json");
    await mkdir(join(file, ".."), { recursive: true });
    const user = (id: string, text: string, extra: object = {}) => ({ id, role: "user", content: [{ type: "text", text }], ...extra });
    const answer = (id: string, text: string) => ({ id, role: "assistant", content: text, ts: 1_784_300_009_000 });
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        updated_at: "2026-07-17T14:53:30.000Z",
        agent: "lead",
        sessionId: "1784300000000_a1b2c",
        messages: [
          user("m1", '<user_command slash="explain">src/tides.ts</user_command>'),
          answer("m2", "It parses the tide table."),
          user("m2b", '<user_command slash="team">spawn a team of agents for the following task: port it to Rust</user_command>'),
          {
            ...answer("m2c", "Ported."),
            metadata: { modelToolActivities: [{ toolCallId: "ws_1", toolName: "web_search", execution: "provider" }] },
          },
          user("m3", "[TASK RESUMPTION] This task was interrupted 2 minutes ago."),
          user("m4", '<hook_context source="PreToolUse">lint passed</hook_context>'),
          user("m5", "Summary of the conversation so far: the parser was explained.", { metadata: { displayRole: "system" } }),
          answer("m6", "Resuming: nothing was left to do."),
        ],
      }),
    );
    const [session] = await collect(file);
    expect(session?.conversation.createdAt).toBe("2026-07-17T14:53:20.000Z");
    expect(session?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "/explain src/tides.ts"],
      ["assistant", "It parses the tide table."],
      ["human", "/team port it to Rust"],
      ["assistant", "[tool: web_search]\n\nPorted.\n\nResuming: nothing was left to do."],
    ]);
  });

  it("a session just begun (no message yet) is counted, not imported; the manifest beside it alone is named, with what to pass", async () => {
    const file = join(scratch, "empty.messages.json");
    await writeFile(
      file,
      JSON.stringify({ version: 1, updated_at: "2026-07-17T14:00:00.000Z", agent: "lead", sessionId: "s1", messages: [] }),
    );
    expect(await collectWithSkips(file)).toEqual({ conversations: [], skipped: { "sessions without any message text": 1 } });
    await expect(openExport(join(cli, "1784094124598_rruoq.json"))).rejects.toThrow(/Cline's session manifest/);
  });
});
