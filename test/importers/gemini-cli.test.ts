import { mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importExports } from "../../src/core/jobs/import-file.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const tmp = join(fixtures, "gemini-cli", "tmp");
const chats = join(tmp, "7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b", "chats");
const scratch = tempDir("mnemo-gemini-cli-");

const SESSION = "0c1d2e3f-0000-4000-8000-000000000001";
const start = {
  sessionId: SESSION,
  projectHash: "ab".repeat(32),
  startTime: "2026-06-01T08:00:00.000Z",
  lastUpdated: "2026-06-01T08:00:00.000Z",
};
const said = (id: string, type: string, content: unknown, extra: object = {}) => ({
  id,
  timestamp: "2026-06-01T08:01:00.000Z",
  type,
  content,
  ...extra,
});

/** A .jsonl session of these records, one a line, in a chats folder of its own. */
async function sessionFile(name: string, records: object[]): Promise<string> {
  const folder = join(scratch, name, "chats");
  await mkdir(folder, { recursive: true });
  const file = join(folder, "session-2026-06-01T08-00-0c1d2e3f.jsonl");
  await writeFile(file, `${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
  return file;
}

const contents = async (file: string) => (await collect(file))[0]?.conversation.messages.map((message) => message.content);

describe("Gemini CLI sessions", () => {
  it("~/.gemini/tmp: a conversation per session, .json and .jsonl alike; a subagent's counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(tmp);
    expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.length])).toEqual([
      ["Fix Brest tide CSV parsing", 4],
      ["Add a --json flag to `tides`, as @README.md promises", 4],
      ["brest csv", 2], // the chats saved with /chat save, beside the project's chats folder
      ["tides", 4],
    ]);
    expect(conversations.slice(0, 2).map((c) => c.conversation.id)).toEqual([
      "5f0c2a1e-7d3b-4c6a-9e71-2b4d6f8a0c13",
      "8b7e6d5c-1a2b-4c3d-9e8f-0a1b2c3d4e5f",
    ]);
    expect(skipped).toMatchObject({ "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["gemini-cli", "Gemini CLI", true]);
    }
  });

  it("a .jsonl session as /resume shows it: the last writing of each message, nothing after a rewind, a prompt and the whole answer to it as two messages", async () => {
    const [session] = await collect(join(chats, "session-2026-05-02T10-00-8b7e6d5c.jsonl"));
    expect(session?.conversation).toMatchObject({ createdAt: "2026-05-02T10:00:00.000Z", updatedAt: "2026-05-02T10:03:20.000Z" });
    expect(session?.conversation.messages).toEqual([
      {
        // What was typed (displayContent), not the README the @path added; the CLI's <session_context> before it left out.
        id: "3d9a7b10-2222-4c2d-9e2f-000000000002",
        role: "human",
        content: "Add a --json flag to `tides`, as @README.md promises",
        createdAt: "2026-05-02T10:00:10.000Z",
      },
      {
        // Three messages of the CLI, the first written twice; the tools' results (user messages) and a thought left out.
        id: "3d9a7b10-2222-4c2d-9e2f-000000000003",
        role: "assistant",
        content:
          'I\'ll look at the command\'s entry point first.\n\n[tool: read_file] [tool: replace]\n\nDone: `tides brest --json` now prints a list of `{"time", "height_m"}` objects, high tide at 06:41 with 7.1 m first.',
        createdAt: "2026-05-02T10:00:20.000Z",
      },
      // The prompt about feet and its answer were rewound; the CLI's notices are no one's message.
      {
        id: "3d9a7b10-2222-4c2d-9e2f-000000000011",
        role: "human",
        content: "Make the plain output look like this board\n\n[image]",
        createdAt: "2026-05-02T10:03:00.000Z",
      },
      {
        id: "3d9a7b10-2222-4c2d-9e2f-000000000012",
        role: "assistant",
        content: "Now each tide is one line, `06:41  HW  7.1 m`, as on the harbour's board.",
        createdAt: "2026-05-02T10:03:12.000Z",
      },
    ]);
  });

  it("a .json session (before April 2026): the prompt without the files an @path added, the tools of toolCalls, its summary the title", async () => {
    const [session] = await collect(join(chats, "session-2026-03-14T09-12-5f0c2a1e.json"));
    expect(session?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Why does @src/tides.py return nothing for Brest?"],
      [
        "assistant",
        '[tool: read_file] [tool: run_shell_command]\n\nThe file is semicolon-separated (a French locale), so every row has one column and none passes `len(row) == 3`. Read it with `csv.reader(f, delimiter=";")`.',
      ],
      ["human", "Does the tide table also need the time zone?"],
      ["assistant", 'Yes: the times are Europe/Paris local time, as on the harbour\'s board; read them with `ZoneInfo("Europe/Paris")`.'],
    ]);
  });

  it("messages a $set replaced are read as replaced, and a summary set later titles the session", async () => {
    const file = await sessionFile("set", [
      start,
      said("u1", "user", "Compress the logs before upload?"),
      said("g1", "gemini", "Yes, with zstd."),
      {
        $set: { messages: [said("u1", "user", "Compress the logs before upload?"), said("g2", "gemini", "Yes: gzip -9 is enough here.")] },
      },
      { $set: { summary: "Log compression", lastUpdated: "2026-06-01T08:05:00.000Z" } },
    ]);
    const [session] = await collect(file);
    expect(session?.conversation).toMatchObject({ title: "Log compression", updatedAt: "2026-06-01T08:05:00.000Z" });
    expect(session?.conversation.messages.map((message) => message.content)).toEqual([
      "Compress the logs before upload?",
      "Yes: gzip -9 is enough here.",
    ]);
  });

  it("a rewind to a message the file no longer holds empties the session, as in the CLI; an empty session is counted, not imported", async () => {
    const file = await sessionFile("rewound", [start, said("u1", "user", "Hello"), said("g1", "gemini", "Hi."), { $rewindTo: "gone" }]);
    expect(await collectWithSkips(file)).toEqual({ conversations: [], skipped: { "sessions without any message text": 1 } });
    expect(await contents(await sessionFile("kept", [start, said("u1", "user", "Hello"), said("g1", "gemini", "Hi.")]))).toEqual([
      "Hello",
      "Hi.",
    ]);
  });

  it("a .json session resumed into a .jsonl beside it is one conversation: same id, the newer file last, which the store keeps", async () => {
    const folder = join(scratch, "resumed", "chats");
    await mkdir(folder, { recursive: true });
    const old = { ...start, messages: [said("u1", "user", "Why is CI red?"), said("g1", "gemini", "A flaky test.")] };
    await writeFile(join(folder, "session-2026-06-01T08-00-0c1d2e3f.json"), JSON.stringify(old, null, 2));
    const resumed = [
      { ...start, lastUpdated: "2026-06-02T09:00:00.000Z" },
      ...old.messages,
      said("u2", "user", "Which one?", { timestamp: "2026-06-02T09:00:00.000Z" }),
      said("g2", "gemini", "test_upload_retry.", { timestamp: "2026-06-02T09:00:05.000Z" }),
    ];
    await writeFile(join(folder, "session-2026-06-01T08-00-0c1d2e3f.jsonl"), resumed.map((r) => JSON.stringify(r)).join("\n"));
    const conversations = await collect(folder);
    expect(new Set(conversations.map((c) => c.conversation.id))).toEqual(new Set([SESSION]));
    expect(conversations.at(-1)?.conversation.messages.map((message) => message.content)).toEqual([
      "Why is CI red?",
      "A flaky test.",
      "Which one?",
      "test_upload_retry.",
    ]);
  });
});

describe("Gemini CLI's saved chats (/chat save <tag>)", () => {
  const project = join(tmp, "7c4e1f0a9b2d3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b");
  const context = {
    role: "user",
    parts: [{ text: "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>" }],
  };
  const prompt = (text: string) => ({ role: "user", parts: [{ text }] });
  const answer = (text: string) => ({ role: "model", parts: [{ text }] });

  /** A checkpoint file of this history in a project folder of ~/.gemini/tmp, as saveCheckpoint writes it. */
  async function savedChat(folder: string, name: string, history: object[]): Promise<string> {
    await mkdir(join(scratch, folder), { recursive: true });
    const file = join(scratch, folder, name);
    await writeFile(file, JSON.stringify({ history, authType: "oauth-personal" }, null, 2));
    return file;
  }

  it("the chat as /chat resume shows it: the CLI's context left out, a prompt without the files an @path added, the tools run, no thoughts; the tag its title, the file's time its date", async () => {
    const file = join(project, "checkpoint-tides.json");
    const [saved] = await collect(file);
    expect(UploadConversation.parse(saved)).toEqual(saved);
    expect(saved).toMatchObject({ platform: "gemini-cli", complete: true, conversation: { title: "tides" } });
    expect(saved?.conversation.createdAt).toBe((await stat(file)).mtime.toISOString());
    expect(saved?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Why are the spring tides in @data/brest-2026.csv a day late?"],
      [
        "assistant",
        'Let me see how the dates are parsed.\n\n[tool: read_file]\n\nThe dates are read as naive UTC midnight, so every tide after 23:00 Paris time lands on the next day. Parse them with `ZoneInfo("Europe/Paris")`.',
      ],
      ["human", "And this chart from the harbour office?\n\n[image]"],
      ["assistant", "The chart agrees once the times are local: the spring tide peaks on 3 January at 06:41."],
    ]);
    // The project the context message names: the same id passed alone or with ~/.gemini/tmp.
    const inFolder = (await collect(tmp)).find((c) => c.conversation.title === "tides");
    expect(inFolder?.conversation.id).toBe(saved?.conversation.id);
  });

  it("a chat saved in 2025, the history alone: its two context messages left out, the tag decoded as the CLI decodes it", async () => {
    const [saved] = await collect(join(project, "checkpoint-brest%20csv.json"));
    expect(saved?.conversation.title).toBe("brest csv");
    // The project named by the folder the context message says the CLI ran in: the same id alone or in ~/.gemini/tmp.
    expect((await collect(tmp)).find((c) => c.conversation.title === "brest csv")?.conversation.id).toBe(saved?.conversation.id);
    expect(saved?.conversation.messages.map((message) => message.content)).toEqual([
      "Which delimiter does the Brest tide table use?",
      'A semicolon: SHOM exports its tables with a French locale, so read them with `delimiter=";"`.',
    ]);
  });

  it("saved again under its tag, the chat keeps its id, so the import replaces it; another project's chat of that tag is another", async () => {
    const first = await savedChat("a1/tmp/p1", "checkpoint-wip.json", [context, prompt("Is 7.1 m a spring tide?"), answer("Yes.")]);
    const [before] = await collect(join(scratch, "a1"));
    await savedChat("a1/tmp/p1", "checkpoint-wip.json", [
      context,
      prompt("Is 7.1 m a spring tide?"),
      answer("Yes."),
      prompt("And 4 m?"),
      answer("A neap tide."),
    ]);
    await utimes(first, new Date("2026-07-01T10:00:00Z"), new Date("2026-07-01T10:00:00Z"));
    const [after] = await collect(join(scratch, "a1"));
    expect(after?.conversation.id).toBe(before?.conversation.id);
    expect(after).toMatchObject({ complete: true, conversation: { createdAt: "2026-07-01T10:00:00.000Z" } });
    expect(after?.conversation.messages).toHaveLength(4);
    await savedChat("a1/tmp/p2", "checkpoint-wip.json", [context, prompt("Is 7.1 m a spring tide?"), answer("Yes.")]);
    expect(new Set((await collect(join(scratch, "a1"))).map((c) => c.conversation.id)).size).toBe(2);
  });

  it("a saved chat under another name is titled by its first prompt; one without any message text is counted, not imported", async () => {
    const renamed = await savedChat("renamed", "tides-backup.json", [
      context,
      prompt("Why is the 06:41 tide listed twice?\nSee below."),
      answer("A DST overlap."),
    ]);
    expect((await collect(renamed))[0]?.conversation.title).toBe("Why is the 06:41 tide listed twice?");
    const empty = await savedChat("empty", "checkpoint-empty.json", [context]);
    expect(await collectWithSkips(empty)).toEqual({ conversations: [], skipped: { "saved chats without any message text": 1 } });
  });
});

describe("Qwen Code's sessions of 2025, Gemini CLI's files", () => {
  const qwenTmp = join(fixtures, "qwen-code", "tmp");
  const qwenSession = join(
    qwenTmp,
    "3e9a1c7b5d2f4a6e8c0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c",
    "chats",
    "session-2025-10-20T08-30-4f2d9c1e.json",
  );

  it("~/.qwen/tmp: stored as Qwen Code's, its answers (typed qwen) read as Gemini's are", async () => {
    const [session] = await collect(qwenTmp);
    expect(UploadConversation.parse(session)).toEqual(session);
    expect([session?.platform, session?.platformDisplayName, session?.conversation.id]).toEqual([
      "qwen-code",
      "Qwen Code",
      "4f2d9c1e-7a3b-4c5d-9e8f-1a2b3c4d5e6f",
    ]);
    expect(session?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Why does the Alfama tram stop list show stop 28 twice?"],
      [
        "assistant",
        "The stops are read from two GTFS feeds and merged without removing the stop both list; they are now keyed by stop_id, so Largo das Portas do Sol appears once.\n\n[tool: read_file]",
      ],
      ["human", "Add a test for it."],
      ["assistant", "Added test_merged_stops_are_unique in tests/test_stops.py."],
    ]);
  });

  it("~/.qwen/tmp is reported as the format it is stored as, Qwen Code's, not Gemini CLI's it is read as", async () => {
    const summary = await importExports(undefined, [qwenTmp, join(fixtures, "gemini-cli", "tmp")], { dryRun: true });
    expect(summary.files.map((file) => [file.format, file.formats])).toEqual([
      ["qwen-code", ["qwen-code"]],
      ["gemini-cli", ["gemini-cli"]],
    ]);
  });

  it("is told by its answers outside ~/.qwen too, and by its folder when it has none yet", async () => {
    const moved = join(scratch, "moved", "session-2025-10-20T08-30-4f2d9c1e.json");
    await mkdir(join(scratch, "moved"), { recursive: true });
    await writeFile(moved, await readFile(qwenSession));
    expect((await collect(moved))[0]?.platform).toBe("qwen-code");
    const prompted = join(scratch, ".qwen", "tmp", "ab".repeat(32), "chats", "session-2026-06-01T08-00-0c1d2e3f.json");
    await mkdir(join(prompted, ".."), { recursive: true });
    await writeFile(prompted, JSON.stringify({ ...start, messages: [said("u1", "user", "Rename the tram module.")] }));
    expect((await collect(prompted))[0]?.platform).toBe("qwen-code");
    expect((await collect(join(chats, "session-2026-03-14T09-12-5f0c2a1e.json")))[0]?.platform).toBe("gemini-cli");
  });
});
