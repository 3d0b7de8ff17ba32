// The 2026 ChatGPT fixture (fixtures/exports/chatgpt-2026): writing blocks, citation markers of
// every kind, canvas documents and edits, a code cell and its output, a deep-research report, a
// generated image, an empty chat and a shard the manifest lists that the export lacks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "chatgpt-2026");
type RawNode = { message: { author: { role: string }; content: { parts?: unknown[] } } | null };
const shards = ["conversations-000.json", "conversations-001.json"].map(
  (name) => JSON.parse(readFileSync(join(folder, name), "utf8")) as { conversation_id: string; mapping: Record<string, RawNode> }[],
);

async function byId(): Promise<Map<string, Map<string, { role: string; content: string }>>> {
  const conversations = await collect(folder);
  return new Map(conversations.map((c) => [c.conversation.id, new Map(c.conversation.messages.map((m) => [m.id, m]))]));
}

describe("ChatGPT 2026 export", () => {
  it("imports every conversation with something said in it, and says what it left out", async () => {
    const all = shards.flat();
    // Counted from the raw shards: a conversation with no user message has nothing to import.
    const withWords = all.filter((c) => Object.values(c.mapping).some((node) => node.message?.author.role === "user"));
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => c.conversation.id)).toEqual(withWords.map((c) => c.conversation_id));
    expect(skipped).toEqual({
      "shards it lists that the export lacks (conversations-002.json)": 1,
      "conversations without any message text (an empty New chat)": all.length - withWords.length,
    });
  });

  it("stores a writing block's text (with its subject), not the fence, and keeps the words markers show", async () => {
    const chat = (await byId()).get("69a0f1e2-1111-8000-9000-00000000c001")!;
    expect(chat.get("a1-email")!.content).toBe(
      "Here is a draft you can send:\n\nSubject: Moving Thursday's stand-up\n\nHi all,\n\nCould we move Thursday's stand-up to 10:30? The venue for the offsite is only free in the morning.\n\nThanks,\nMira\n\nIf you want it shorter, see Plain English guide to short emails.",
    );
    expect(chat.get("a1-doc")!.content).toBe(
      "Here is the agenda:\n\n# Offsite agenda\n\n1. Retrospective of the quarter\n2. Roadmap for the hiking app\n3. Dinner at Taberna do Largo",
    );
    const everything = [...(await byId()).values()].flatMap((messages) => [...messages.values()].map((m) => m.content)).join("\n");
    expect(everything).not.toMatch(/:::|[\ue200-\ue202]|writing\{/);
  });

  it("keeps a canvas document written through parts, and the text its edit puts in", async () => {
    const chat = (await byId()).get("69a0f1e2-2222-8000-9000-00000000c002")!;
    expect(chat.get("a1-create")!.content).toBe("[document: packing_list]\n# Packing list\n\n- Rain jacket\n- Hiking boots\n- Power bank");
    expect(chat.get("a2-update")!.content).toBe("[document edit: packing_list]\n- Power bank\n- Headlamp with spare batteries");
    expect([...chat.keys()]).not.toContain("t1-created"); // the tool's acknowledgement is not the conversation
  });

  it("keeps a code cell and its output as code from the assistant, not the memory write beside them", async () => {
    const chat = (await byId()).get("69a0f1e2-3333-8000-9000-00000000c003")!;
    expect([...chat.keys()]).toEqual(["u1", "a1-code", "t1-output", "a1-answer"]);
    expect(chat.get("a1-code")).toMatchObject({ role: "assistant", content: expect.stringMatching(/^```python\nimport pandas as pd\n/) });
    expect(chat.get("t1-output")).toMatchObject({ role: "assistant", content: expect.stringContaining("Sete Cidades      12.4") });
  });

  it("keeps a deep-research report that arrived on a tool message, and a generated image's placeholder", async () => {
    const chats = await byId();
    expect(chats.get("69a0f1e2-4444-8000-9000-00000000c004")!.get("t1-report")).toEqual({
      id: "t1-report",
      role: "assistant",
      content:
        "# Whale watching in the Azores\n\nThe best months are April to October; sperm whales are resident all year, blue whales pass in spring.",
      createdAt: "2026-03-01T10:15:00.000Z",
    });
    expect(chats.get("69a0f1e2-6666-8000-9000-00000000c006")!.get("t1-image")).toMatchObject({ role: "assistant", content: "[image]" });
  });

  it("the zip gives what the folder gives", async () => {
    expect(await collect(join(fixtures, "chatgpt-2026-export.zip"))).toEqual(await collect(folder));
  });
});
