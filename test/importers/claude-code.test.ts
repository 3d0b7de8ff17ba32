import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { sessionLine, sessions } from "../../src/importers/claude-code/session.js";
import { groupedPerFile } from "../../src/importers/importer.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const projects = join(fixtures, "claude-code", "projects");
const tideSession = join(projects, "-home-ana-src-tideapp", "5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13.jsonl");

const tmp = tempDir("mnemo-claude-code-");

/** A session file of these records, one a line, in a project folder of its own. */
async function sessionFile(name: string, records: object[]): Promise<string> {
  const folder = join(tmp, name);
  await mkdir(folder, { recursive: true });
  const file = join(folder, "7d1c0b2a-0000-4000-8000-000000000001.jsonl");
  await writeFile(file, `${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
  return file;
}

const SESSION = "7d1c0b2a-0000-4000-8000-000000000001";
const said = (type: "user" | "assistant", uuid: string, parentUuid: string | null, content: unknown, extra: object = {}) => ({
  parentUuid,
  isSidechain: false,
  userType: "external",
  cwd: "/home/ana/src/app",
  sessionId: SESSION,
  version: "2.1.59",
  type,
  message: type === "user" ? { role: "user", content } : { id: `msg_${uuid}`, role: "assistant", model: "claude-sonnet-4-5", content },
  uuid,
  timestamp: "2026-04-02T10:00:00.000Z",
  ...extra,
});
const text = (value: string) => [{ type: "text", text: value }];

describe("Claude Code sessions", () => {
  it("~/.claude/projects: a conversation per session, titled as Claude Code shows it; subagents and title files counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(projects);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["9c3e7b21-44d0-4f5e-8b6a-7d1e2f3a4b5c", "Sourdough hydration calculator", 4],
      ["5f0c2a1e-8d3b-4c6a-9e71-2b4d6f8a0c13", "Brest tides parser", 5],
    ]);
    expect(skipped).toEqual({
      "files of session titles alone (older versions wrote them apart)": 1,
      "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "claude-code",
        "Claude Code",
        true,
      ]);
    }
  });

  it("keeps the branch on screen, a prompt and the assistant's whole answer to it as two messages, tools named on one line", async () => {
    const [tides] = await collect(tideSession);
    expect(tides?.conversation).toMatchObject({ createdAt: "2026-03-02T09:00:00.000Z", updatedAt: "2026-03-02T09:07:09.000Z" });
    expect(tides?.conversation.messages).toEqual([
      {
        // The IDE's note of the file open beside it left out.
        id: "11a0e7c2-0001-4d1e-8a10-000000000001",
        role: "human",
        content: "Why does parse_tides() return an empty list for Brest? The CSV has 700 rows.",
        createdAt: "2026-03-02T09:00:00.000Z",
      },
      {
        // Thinking left out; the tools it ran between its words, without what they returned.
        id: "11a0e7c2-0003-4d1e-8a10-000000000003",
        role: "assistant",
        content:
          'Let me look at the parser.\n\n[tool: Read] [tool: Bash] [tool: Edit]\n\nThe file is semicolon-separated (a French locale), so `csv.reader` saw one column per row and every row was dropped. With `delimiter=";"` the 700 rows parse: high tide in Brest on 2 March is at 06:41 (7.1 m).',
        createdAt: "2026-03-02T09:00:05.000Z",
      },
      // A slash command as typed; Claude Code's caveat and the command's output left out.
      { id: "11a0e7c2-0014-4d1e-8a10-000000000014", role: "human", content: "/model opus", createdAt: "2026-03-02T09:05:00.000Z" },
      {
        // The prompt after the rewind, not the one rewound from; the IDE's reminder left out.
        id: "11a0e7c2-0018-4d1e-8a10-000000000018",
        role: "human",
        content: "Also make the times timezone-aware: they are Europe/Paris local time, as on the harbour's board 🌊\n\n[image]",
        createdAt: "2026-03-02T09:07:00.000Z",
      },
      {
        // After it: an interruption and an API error notice, neither of them said by anyone.
        id: "11a0e7c2-0020-4d1e-8a10-000000000020",
        role: "assistant",
        content: 'Done: each time is read with `ZoneInfo("Europe/Paris")` and stored in UTC, so 06:41 in Brest on 2 March is 05:41Z.',
        createdAt: "2026-03-02T09:07:09.000Z",
      },
    ]);
  });

  it("reads across a compaction, without Claude Code's summary of what it compacted", async () => {
    const file = await sessionFile("compacted", [
      said("user", "u1", null, "Plan the migration of the orders table to Postgres."),
      said("assistant", "a1", "u1", text("Step 1: dump with pgloader.")),
      { type: "system", subtype: "compact_boundary", parentUuid: null, logicalParentUuid: "a1", uuid: "s1", sessionId: SESSION },
      said("user", "u2", "s1", "This session is being continued from a previous conversation that ran out of context.", {
        isCompactSummary: true,
      }),
      said("user", "u3", "u2", "Now step 2: the foreign keys."),
      said("assistant", "a3", "u3", text("Add them after the copy, NOT VALID, then VALIDATE.")),
    ]);
    const [migration] = await collect(file);
    expect(migration?.conversation.messages.map((message) => message.content)).toEqual([
      "Plan the migration of the orders table to Postgres.",
      "Step 1: dump with pgloader.",
      "Now step 2: the foreign keys.",
      "Add them after the copy, NOT VALID, then VALIDATE.",
    ]);
    // No title of Claude Code's: the first prompt names it.
    expect(migration?.conversation.title).toBe("Plan the migration of the orders table to Postgres.");
  });

  it("keeps the messages before a record the file lacks (a damaged or lost line) rather than only those after it", async () => {
    const file = await sessionFile("damaged", [
      said("user", "u1", null, "Why is the build slow?"),
      said("assistant", "a1", "u1", text("The tests run serially.")),
      said("user", "u2", "gone", "Can they run in parallel?"),
      said("assistant", "a2", "u2", text("Yes: pass --parallel.")),
      { type: "ai-title", aiTitle: "Slow build", sessionId: SESSION },
    ]);
    const [build] = await collect(file);
    expect(build?.conversation.title).toBe("Slow build");
    expect(build?.conversation.messages.map((message) => message.content)).toEqual([
      "Why is the build slow?",
      "The tests run serially.",
      "Can they run in parallel?",
      "Yes: pass --parallel.",
    ]);
  });

  it("a session with nothing said (a prompt interrupted at once) is counted, not imported", async () => {
    const file = await sessionFile("empty", [
      { type: "file-history-snapshot", messageId: "m1", snapshot: { messageId: "m1", trackedFileBackups: {} }, isSnapshotUpdate: false },
      said("user", "u1", null, text("[Request interrupted by user]")),
    ]);
    expect(await collectWithSkips(file)).toEqual({ conversations: [], skipped: { "sessions without any message text": 1 } });
  });

  it("reads each session's lines into its conversation once its file is read, before reading the next file: a folder's lines are not held whole", async () => {
    const context = (file: string, index: number) => ({
      label: file,
      path: file,
      index,
      byte: 0,
      fallbackDate: new Date("2026-04-02T00:00:00Z"),
      skip: () => {},
      unreadable: () => {},
    });
    let read = 0;
    async function* records() {
      for (const file of ["a.jsonl", "b.jsonl"]) {
        for (const [index, value] of [
          said("user", `${file}-1`, null, `A question in ${file}`),
          said("assistant", `${file}-2`, `${file}-1`, text("An answer")),
        ].entries()) {
          read += 1;
          yield { value, context: context(file, index) };
        }
      }
    }
    const seen: [string, number][] = [];
    for await (const { upload } of groupedPerFile(sessionLine, sessions)(records())) seen.push([upload.conversation.title, read]);
    // The first session comes as soon as the next file's first record shows it has ended.
    expect(seen).toEqual([
      ["A question in a.jsonl", 3],
      ["A question in b.jsonl", 4],
    ]);
  });

  it("imports a session resumed into a new file once, from that file: the old file is its beginning, whose passages came twice", async () => {
    const folder = join(tmp, "resumed");
    await mkdir(folder, { recursive: true });
    const first = [
      said("user", "r1", null, "How do I rotate the API keys?"),
      said("assistant", "r2", "r1", text("Write a script that calls the rotate endpoint.")),
    ];
    const later = [
      said("user", "r3", "r2", "Now schedule it weekly.", { sessionId: "resumed-2" }),
      said("assistant", "r4", "r3", text("Add a cron entry."), { sessionId: "resumed-2" }),
    ];
    const lines = (records: object[]) => `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;
    // The new file's name sorts first: which file is read first does not matter.
    await writeFile(join(folder, "b-old.jsonl"), lines(first));
    await writeFile(join(folder, "a-new.jsonl"), lines([...first.map((record) => ({ ...record, sessionId: "resumed-2" })), ...later]));
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.content)])).toEqual([
      [
        "resumed-2",
        ["How do I rotate the API keys?", "Write a script that calls the rotate endpoint.", "Now schedule it weekly.", "Add a cron entry."],
      ],
    ]);
    expect(skipped).toEqual({ "sessions resumed in another file (imported there, with what came after)": 1 });
  });
});
