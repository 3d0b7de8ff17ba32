import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const user = join(fixtures, "vscode-chat", "User");
const sessions = join(user, "workspaceStorage", "3f9b2c1d8e7a6b5c4d3e2f1a0b9c8d7e", "chatSessions");
const scratch = tempDir("mnemo-vscode-chat-");

const SESSION = "1a2b3c4d-0000-4000-8000-000000000001";
const empty = {
  version: 3,
  creationDate: 1780000000000,
  initialLocation: "panel",
  responderUsername: "GitHub Copilot",
  sessionId: SESSION,
  requests: [],
};
const request = (n: string, text: string, response: unknown[] = []) => ({
  requestId: `request_${n}`,
  timestamp: 1780000010000,
  message: { text, parts: [{ kind: "text", text }] },
  variableData: { variables: [] },
  response,
  responseId: `response_${n}`,
});

/** A .jsonl log of these entries, one a line. */
async function logFile(name: string, entries: object[]): Promise<string> {
  const folder = join(scratch, name, "chatSessions");
  await mkdir(folder, { recursive: true });
  const file = join(folder, `${SESSION}.jsonl`);
  await writeFile(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
  return file;
}

describe("VS Code chat sessions", () => {
  it("workspaceStorage: a conversation per session, .json and .jsonl alike, titled with its custom title", async () => {
    const { conversations, skipped } = await collectWithSkips(join(user, "workspaceStorage"));
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["5d2e8f14-6a3b-4c9d-8e1f-2a3b4c5d6e7f", "Brest tides CSV", 4],
      ["9e4a7c21-3b5d-4f6e-8a9b-0c1d2e3f4a5b", "Flaky upload retry test", 4],
    ]);
    expect(skipped).toEqual({});
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "vscode-chat",
        "VS Code chat",
        true,
      ]);
    }
  });

  it("a .json session: the prompt as typed, the answer's markdown with the file it names inline; a cancelled request without text left out", async () => {
    const [session] = await collect(join(sessions, "5d2e8f14-6a3b-4c9d-8e1f-2a3b4c5d6e7f.json"));
    expect(session?.conversation).toMatchObject({ createdAt: "2025-03-14T07:59:50.000Z", updatedAt: "2025-03-14T08:03:00.000Z" });
    expect(session?.conversation.messages.slice(0, 2)).toEqual([
      {
        id: "request_6f1c2a3b-1d4e-4f5a-8b6c-7d8e9f0a1b2c",
        role: "human",
        content: "#file:tides.py why does parse_tides return [] for Brest?",
        createdAt: "2025-03-14T08:00:00.000Z",
      },
      {
        id: "response_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        role: "assistant",
        content:
          'The CSV from the harbour is semicolon-separated, so tides.py reads one column per row and drops every row. Pass `delimiter=";"` to `csv.reader`.',
        createdAt: "2025-03-14T08:00:00.000Z",
      },
    ]);
  });

  it("a .jsonl log replayed as VS Code does: parts appended, a response rewritten, a request cut off again; tools named on one line, thinking and progress left out", async () => {
    const [session] = await collect(join(sessions, "9e4a7c21-3b5d-4f6e-8a9b-0c1d2e3f4a5b.jsonl"));
    expect(session?.conversation.messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ["request_a1f0", "human", "Why does test_upload_retry fail one run in ten?"],
      [
        "response_a1f0",
        "assistant",
        "Let me look at the test and run it a few times.\n\n[tool: copilot_readFile] [tool: run_in_terminal]\n\nIt fails when the retry fires before the mock server has bound its port: wait for the `ready` event before the first upload.",
      ],
      ["request_b2e1", "human", "Use a fixture for that instead"],
      ["response_b2e1", "assistant", "Done: a `server` fixture now yields once the port is bound; the test takes it as an argument."],
    ]);
  });

  it("an image attached to a prompt is written into it as [image]; a file attached is not repeated", async () => {
    const attached = {
      ...request("1", "Make the table look like this"),
      variableData: {
        variables: [
          { id: "image", name: "board.png", kind: "image", value: {}, mimeType: "image/png", isPasted: true },
          { id: "file", name: "tides.py", kind: "file", value: { $mid: 1, path: "/home/ana/tides.py", scheme: "file" } },
        ],
      },
      response: [{ value: "Done." }],
    };
    const file = await logFile("image", [{ kind: 0, v: { ...empty, requests: [attached] } }]);
    expect((await collect(file))[0]?.conversation.messages.map((message) => message.content)).toEqual([
      "Make the table look like this\n\n[image]",
      "Done.",
    ]);
  });

  it("sessions of versions 1 and 2 (no `version`; `computedTitle`) are read as VS Code reads them", async () => {
    const folder = join(scratch, "old", "chatSessions");
    await mkdir(folder, { recursive: true });
    const asked = request("1", "Explain this regex", ["It matches UK postcodes."]);
    const { version: _version, ...v1 } = { ...empty, requesterUsername: "ana", requests: [asked] };
    await writeFile(join(folder, "v1.json"), JSON.stringify({ ...v1, sessionId: "v1" }, undefined, 2));
    const v2 = { ...empty, version: 2, requesterUsername: "ana", computedTitle: "UK postcode regex", requests: [asked] };
    await writeFile(join(folder, "v2.json"), JSON.stringify({ ...v2, sessionId: "v2" }, undefined, 2));
    const conversations = await collect(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.map((m) => m.content)])).toEqual([
      ["v1", "Explain this regex", ["Explain this regex", "It matches UK postcodes."]],
      ["v2", "UK postcode regex", ["Explain this regex", "It matches UK postcodes."]],
    ]);
  });

  it("a log whose paths lead through __proto__ or constructor changes nothing beyond its session (no prototype is polluted)", async () => {
    const file = await logFile("polluting", [
      { kind: 0, v: empty },
      { kind: 1, k: ["__proto__", "pollutedBySet"], v: "yes" },
      { kind: 1, k: ["constructor", "prototype", "pollutedByConstructor"], v: "yes" },
      { kind: 2, k: ["__proto__", "pollutedByPush"], v: ["yes"] },
      { kind: 1, k: ["__proto__"], v: { requests: [request("9", "injected through the prototype")] } },
      { kind: 2, k: ["requests"], v: [request("1", "Rename the build job", [{ value: "Renamed." }])] },
    ]);
    const [session] = await collect(file);
    const probe: Record<string, unknown> = {};
    expect([probe["pollutedBySet"], probe["pollutedByConstructor"], probe["pollutedByPush"]]).toEqual([undefined, undefined, undefined]);
    expect(session?.conversation.messages.map((message) => message.content)).toEqual(["Rename the build job", "Renamed."]);
  });

  it("a title set and then deleted falls back to the first prompt; a session of no request is counted, not imported", async () => {
    const file = await logFile("untitled", [
      { kind: 0, v: { ...empty, customTitle: "Old name" } },
      { kind: 2, k: ["requests"], v: [request("1", "Rename the build job\nto ci", [{ value: "Renamed in .github/workflows/ci.yml." }])] },
      { kind: 3, k: ["customTitle"] },
    ]);
    const [session] = await collect(file);
    expect(session?.conversation.title).toBe("Rename the build job");
    expect(await collectWithSkips(await logFile("empty", [{ kind: 0, v: empty }]))).toEqual({
      conversations: [],
      skipped: { "sessions without any message text": 1 },
    });
  });

  it("a session begun before 1.109 keeps its .json beside the .jsonl VS Code reads since: same id, the log last, which the store keeps", async () => {
    const folder = join(scratch, "both", "chatSessions");
    await mkdir(folder, { recursive: true });
    const first = request("1", "Why is CI red?", [{ value: "A flaky test." }]);
    await writeFile(join(folder, `${SESSION}.json`), JSON.stringify({ ...empty, requests: [first] }, undefined, 2));
    const later = { ...request("2", "Which one?", [{ value: "test_upload_retry." }]), timestamp: 1780000090000 };
    const log = [
      { kind: 0, v: { ...empty, requests: [first] } },
      { kind: 2, k: ["requests"], v: [later] },
    ];
    await writeFile(join(folder, `${SESSION}.jsonl`), log.map((entry) => JSON.stringify(entry)).join("\n"));
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
