import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { jsonRecords } from "../../src/importers/json-records.js";
import { type ByteSource, ByteTally, fileSource } from "../../src/importers/source.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "continue", "sessions");
const agent = join(sessions, "7c2e9a4f-0b1d-4e6a-8f3c-5d4e3f2a1b0c.json");
const scratch = tempDir("mnemo-continue-");

/** A sessions folder of these files (name → JSON value). */
async function folder(name: string, files: Record<string, unknown>): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir, { recursive: true });
  for (const [file, value] of Object.entries(files)) await writeFile(join(dir, file), JSON.stringify(value));
  return dir;
}

const item = (role: string, content: unknown, extra: object = {}) => ({ message: { role, content }, contextItems: [], ...extra });

describe("Continue sessions", () => {
  it("~/.continue/sessions: a conversation per session, dated by sessions.json, titled as Continue shows it", async () => {
    const { conversations } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["0b9a8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d", "Reading a CSV with a BOM", 4],
      ["3b8f0c1e-6a2d-4f7b-9c5e-1d2a3b4c5d6e", "Parsing the harbour's CSV feed", 4],
      ["7c2e9a4f-0b1d-4e6a-8f3c-5d4e3f2a1b0c", "Fix the DST offset in to_local", 4],
      // "New Session" is Continue's placeholder: the first prompt's first line instead.
      ["a1f0e2d3-c4b5-4a69-8788-796a5b4c3d2e", "What's a good name for a tide-table app?", 2],
    ]);
    expect(conversations.map((c) => c.conversation.createdAt.slice(0, 19))).toEqual([
      "2023-11-14T16:00:00",
      "2024-05-13T09:10:00",
      "2025-05-22T07:45:12",
      expect.any(String), // not listed: the file's time
    ]);
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["continue", "Continue", true]);
    }
  });

  it("an agent session: each prompt, and the answer's words and tools on one message; thinking, tool results and context left out", async () => {
    const [session] = await collect(agent);
    expect(session?.conversation.messages).toEqual([
      {
        id: "0f3c7e2a-1b4d-4c5e-9a8b-7c6d5e4f3a2b",
        role: "human",
        content: "Tide times are an hour late in summer. Find the cause and fix it.",
      },
      {
        id: "5a6b7c8d-0002-4e2f-8a9b-0c1d2e3f4a5b",
        role: "assistant",
        content:
          '[tool: read_file]\n\n`to_local` adds a fixed offset, so daylight saving time is never applied.\n\n[tool: edit_existing_file]\n\nI replaced the offset with `ZoneInfo("Europe/Lisbon")`: the July tides now show in summer time.',
      },
      { id: "0f3c7e2a-2222-4c5e-9a8b-7c6d5e4f3a2b", role: "human", content: "Here is the screenshot of the wrong table.\n\n[image]" },
      { id: "5a6b7c8d-0007-4e2f-8a9b-0c1d2e3f4a5b", role: "assistant", content: "That table is from before the fix; reload it." },
    ]);
  });

  it("a 2024 session (content a string, no message ids): ids by place, the code block put in the prompt kept, its context item not", async () => {
    const [session] = await collect(join(sessions, "3b8f0c1e-6a2d-4f7b-9c5e-1d2a3b4c5d6e.json"));
    const messages = session!.conversation.messages;
    expect(messages.map((message) => message.id)).toEqual(["item-1", "item-2", "item-3", "item-4"]);
    expect(messages[0]?.content.endsWith("```\nWhy does this break on the harbour's new CSV export?")).toBe(true);
    expect(messages.filter((message) => message.content.includes("def parse_feed(text):"))).toHaveLength(2); // the prompt's block, the answer's
  });

  it("a session of Continue's Python server (2023): the input typed, and what each step not hidden showed", async () => {
    const [session] = await collect(join(sessions, "0b9a8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d.json"));
    expect(session?.conversation.messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ["step-2", "human", "How do I read a CSV file with a BOM in Python?"],
      ["step-3", "assistant", 'Open it with `encoding="utf-8-sig"`: Python drops the BOM, and the first column\'s name comes out clean.'],
      ["step-4", "human", "/edit use utf-8-sig in parse_feed"],
      ["step-5", "assistant", "Opened feed.py with utf-8-sig so the BOM is dropped."],
    ]);
    const dir = await folder("timeline", {
      "old.json": {
        active: false,
        session_info: { session_id: "old", title: "Older still", date_created: "1690000000.5", workspace_directory: "/src" },
        history: {
          timeline: [
            { step: { class_name: "UserInputStep", name: "User Input", description: "explain this regex", hide: false }, depth: 0 },
            { step: { class_name: "SimpleChatStep", name: "Chat", description: "It matches UK postcodes.", hide: false }, depth: 1 },
          ],
          current_index: 1,
        },
      },
    });
    const [older] = await collect(dir);
    expect([
      older?.conversation.title,
      older?.conversation.createdAt,
      older?.conversation.messages.map((message) => message.content),
    ]).toEqual(["Older still", "2023-07-22T04:26:40.500Z", ["explain this regex", "It matches UK postcodes."]]);
  });

  it("tools an answer ran are named from its toolCallStates when its message has no toolCalls", async () => {
    const dir = await folder("states", {
      "s1.json": {
        sessionId: "s1",
        title: "Run the tests",
        workspaceDirectory: "",
        history: [
          item("user", "run the tests"),
          item("assistant", "", {
            toolCallStates: [
              { toolCallId: "t", toolCall: { id: "t", type: "function", function: { name: "run_terminal_command" } }, status: "done" },
            ],
          }),
          item("tool", "41 passed", { toolCallId: "t" }),
          item("assistant", "All 41 pass."),
        ],
      },
    });
    const [session] = await collect(dir);
    expect(session?.conversation.messages.map((message) => message.content)).toEqual([
      "run the tests",
      "[tool: run_terminal_command]\n\nAll 41 pass.",
    ]);
  });

  it("sessions.json alone is said to hold no messages; a session not listed takes the file's time; a damaged session costs itself", async () => {
    const { conversations, skipped } = await collectWithSkips(join(sessions, "sessions.json"));
    expect(conversations).toEqual([]);
    expect(skipped).toEqual({
      "lists of sessions without their files (sessions.json holds titles and dates: pass the sessions folder)": 1,
    });
    const dir = await folder("damaged", {
      "a.json": { sessionId: "a", title: "Kept", workspaceDirectory: "", history: [item("user", "hi"), item("assistant", "Hello.")] },
      "sessions.json": [{ sessionId: "a", title: "Kept", dateCreated: "1747899912345", workspaceDirectory: "" }],
    });
    await writeFile(
      join(dir, "b.json"),
      '{"sessionId":"b","title":"Cut","workspaceDirectory":"","history":[{"message":{"role":"user","content":"cut sh',
    );
    const { conversations: read, problems } = await collectReporting(dir);
    expect(read.map((c) => [c.conversation.title, c.conversation.createdAt])).toEqual([["Kept", "2025-05-22T07:45:12.345Z"]]);
    expect(problems.length).toBeGreaterThan(0);
  });

  it("a session file passed alone (as watching imports each) is dated by the sessions.json beside it, even a cut one; without one, by the file", async () => {
    const session = { sessionId: "a", title: "Kept", workspaceDirectory: "", history: [item("user", "hi"), item("assistant", "Hello.")] };
    const listed = await folder("listed", {
      "a.json": session,
      "sessions.json": [{ sessionId: "a", title: "Kept", dateCreated: "1747899912345", workspaceDirectory: "" }],
    });
    const [beside] = await collect(join(listed, "a.json"));
    expect(beside?.conversation.createdAt).toBe("2025-05-22T07:45:12.345Z");

    const cut = await folder("cut-list", { "a.json": session });
    await writeFile(join(cut, "sessions.json"), '[{"sessionId":"a","title":"Kept","dateCreated":"1747899912345"},{"sessionId":"b","ti');
    const { conversations: read } = await collectReporting(join(cut, "a.json"));
    expect(read.map((c) => c.conversation.createdAt)).toEqual(["2025-05-22T07:45:12.345Z"]);

    const alone = await folder("alone", { "a.json": session });
    const [unlisted] = await collect(join(alone, "a.json"));
    expect(Date.parse(unlisted!.conversation.createdAt)).toBeGreaterThan(Date.parse("2026-01-01"));
  });

  it("a session of 10 MB of pasted screenshots reads as ever, the images' base64 not parsed into it (a 114 MB session peaked at 628 MB)", async () => {
    const screenshot = `data:image/png;base64,${Buffer.alloc(2_500_000, 7).toString("base64")}`;
    const pasted = item(
      "user",
      [
        { type: "text", text: "Why is the chart empty?" },
        { type: "imageUrl", imageUrl: { url: screenshot } },
      ],
      {
        editorState: { type: "doc", content: [{ type: "image", attrs: { src: screenshot } }] },
      },
    );
    const answer = item("assistant", `The axis is empty: <img src="${screenshot}"> has no data.`);
    const dir = await folder("screenshots", { "5e6f.json": { sessionId: "5e6f", title: "Chart", history: [pasted, answer] } });
    const file = join(dir, "5e6f.json");
    const records: unknown[] = [];
    for await (const record of jsonRecords(await fileSource(file), "values", new ByteTally(), { isRecord: () => true }))
      records.push(record.value);
    expect(JSON.stringify(records)).not.toContain(screenshot.slice(0, 40));
    expect(JSON.stringify(records)).toContain('<img src=\\"data:image/png;base64,\\">');
    const [session] = await collect(file);
    expect(session?.conversation.messages.map((message) => message.content)).toEqual([
      "Why is the chart empty?\n\n[image]",
      "The axis is empty: [image] has no data.",
    ]);
  });

  it("a large record's data URLs are left out whole wherever the chunks it is read in cut them, its JSON and its words unharmed (escaped slashes, quotes, `;base64,` in a sentence)", async () => {
    const images = Array.from({ length: 40 }, (_, i) => `data:image/png;base64,${Buffer.alloc(250_000 + i, i).toString("base64")}`);
    const history = images.map((url) => item("user", `Look: <img src="${url}"> and ![x](${url}) then more`));
    history.push(item("assistant", "A data URL starts data:image/png;base64,then the bytes, as `;base64,AAAA` says"));
    const session = { sessionId: "7a8b", title: "Pictures; many of them", history };
    const bytes = Buffer.from(JSON.stringify(session).replaceAll("/", "\\/")); // as PHP and some others write JSON
    const chunked: ByteSource = {
      label: "7a8b.json",
      path: "7a8b.json",
      size: bytes.length,
      mtime: new Date(),
      open: async () =>
        Readable.from(Array.from({ length: Math.ceil(bytes.length / 4099) }, (_, i) => bytes.subarray(i * 4099, (i + 1) * 4099))),
    };
    const records: unknown[] = [];
    for await (const record of jsonRecords(chunked, "values", new ByteTally(), { isRecord: () => true })) records.push(record.value);
    const withoutPayloads = JSON.parse(JSON.stringify(session).replace(/;base64,[A-Za-z0-9+/=]{1024,}/g, ";base64,"));
    expect(records).toEqual([withoutPayloads]);
  });
});
