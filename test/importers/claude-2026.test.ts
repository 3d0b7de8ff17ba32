// The 2026 Claude fixture (fixtures/exports/claude-2026): edits and retries at every depth, the
// first prompt included, against what a plain reading of the raw JSON expects.
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "claude-2026");
type RawMessage = {
  uuid: string;
  parent_message_uuid: string;
  created_at: string;
  text: string;
  content: { type: string; text?: string }[];
};
type RawConversation = { uuid: string; current_leaf_message_uuid?: string; chat_messages: RawMessage[] };
const raw: RawConversation[] = JSON.parse(readFileSync(join(folder, "conversations.json"), "utf8"));

/**
 * What each conversation should hold, read from the raw JSON by the rule the issue states, without
 * the importer: the branch that ends at the named leaf, else at the newest message nothing answers,
 * walked up its parents; then only messages with text (a text block, or `text` beside no blocks
 * that is not the "not supported" placeholder, or a tool-written file).
 */
function expectedIds(conversation: RawConversation): string[] {
  const byId = new Map(conversation.chat_messages.map((m) => [m.uuid, m]));
  const answered = new Set(conversation.chat_messages.map((m) => m.parent_message_uuid));
  const leaves = conversation.chat_messages.filter((m) => !answered.has(m.uuid)).sort((a, b) => a.created_at.localeCompare(b.created_at));
  let at = byId.get(conversation.current_leaf_message_uuid ?? "") ?? leaves.at(-1);
  const branch: RawMessage[] = [];
  for (; at !== undefined; at = byId.get(at.parent_message_uuid)) branch.unshift(at);
  const hasText = (m: RawMessage) =>
    m.content.length > 0
      ? m.content.some((block) => (block.type === "text" && block.text?.trim()) || block.type === "tool_use")
      : m.text.replace(/```\s*This block is not supported on your current device yet\.\s*```/, "").trim() !== "";
  return branch.filter(hasText).map((m) => m.uuid);
}

describe("Claude 2026 export", () => {
  it("keeps exactly the branch the user ended on in every conversation, the root's edits included", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    const expected = raw.map((c) => [c.uuid, expectedIds(c)] as const).filter(([, ids]) => ids.length > 0);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.map((m) => m.id)])).toEqual(expected);
    expect(skipped).toEqual({ "conversations without any message text": raw.length - expected.length });
  });

  it("an edited first prompt and a retried answer leave no trace of the versions abandoned", async () => {
    const [bakery] = await collect(folder);
    const text = bakery!.conversation.messages.map((m) => m.content).join("\n");
    expect(bakery!.conversation.messages[0]!.content).toBe("Suggest a name for my sourdough bakery in Porto, something Portuguese.");
    expect(text).not.toContain("Suggest a name for my bakery.");
    expect(text).not.toContain("Rise & Shine");
    expect(text).not.toContain("Massa Mãe");
    expect(text).toContain("Fermento do Porto");
  });

  it("names an older create_file's document, and reads no placeholder as text", async () => {
    const [, retro] = await collect(folder);
    expect(retro!.conversation.messages.map((m) => m.content)).toEqual([
      "Write a markdown template for a sprint retro board.",
      "I wrote it as a file you can copy:\n\n[file: retro-board.md]\n# Retro\n\n## Went well\n\n## To improve\n\n## Action items",
      "Thanks! Can you add a section for kudos?",
      'Added "## Kudos" after "Went well".',
    ]);
  });

  it("the zip gives what the folder gives", async () => {
    expect(await collect(join(fixtures, "claude-2026-export.zip"))).toEqual(await collect(folder));
  });
});
