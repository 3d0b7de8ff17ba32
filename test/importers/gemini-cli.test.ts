import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["5f0c2a1e-7d3b-4c6a-9e71-2b4d6f8a0c13", "Fix Brest tide CSV parsing", 4],
      ["8b7e6d5c-1a2b-4c3d-9e8f-0a1b2c3d4e5f", "Add a --json flag to `tides`, as @README.md promises", 4],
    ]);
    expect(skipped).toMatchObject({ "subagents' sessions (the assistant's side work, left out as its thinking is)": 1 });
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
