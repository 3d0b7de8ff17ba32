import { beforeAll, describe, expect, it } from "vitest";
import { conversationParts } from "../../../src/core/jobs/conversation-parts.js";
import { messageTokens } from "../../../src/core/chat-history/chunking.js";
import { MAX_CONVERSATION_TOKENS, UploadConversation } from "../../../src/schemas/chat-history.js";
import { loadTokenizer, type Tokenizer } from "../../../src/text/tokens.js";

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer();
});

/** `count` messages of about `tokens` tokens each, numbered words so no two are alike. */
function upload(count: number, tokens: number, options: { complete?: boolean; id?: string; title?: string } = {}): UploadConversation {
  const messages = Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 === 0 ? ("human" as const) : ("assistant" as const),
    content: Array.from({ length: tokens }, (_, w) => `w${(i * 7 + w) % 10}`).join(" "),
    createdAt: new Date(Date.UTC(2025, 0, 2, 10, i)).toISOString(),
  }));
  return {
    platform: "chatgpt",
    complete: options.complete ?? true,
    conversation: {
      id: options.id ?? "conv-1",
      title: options.title ?? "A long day of coding",
      createdAt: "2025-01-02T10:00:00Z",
      messages,
    },
  };
}

const tokensOf = (part: UploadConversation) => part.conversation.messages.reduce((sum, m) => sum + messageTokens(m.content, tokenizer), 0);

describe("conversationParts", () => {
  it("leaves a conversation within the limit whole", () => {
    const short = upload(10, 100);
    expect(conversationParts(short, tokenizer)).toEqual([short]);
  });

  it("cuts one over the limit into runs of whole messages under it: the first keeps its id and title", () => {
    const long = upload(60, 4_000);
    const parts = conversationParts(long, tokenizer);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flatMap((part) => part.conversation.messages)).toEqual(long.conversation.messages);
    for (const part of parts) expect(tokensOf(part)).toBeLessThanOrEqual(MAX_CONVERSATION_TOKENS);
    expect(parts.map((part) => part.conversation.id)).toEqual(["conv-1", ...parts.slice(1).map((_, i) => `conv-1 (part ${i + 2})`)]);
    expect(parts[1]!.conversation.title).toBe("A long day of coding (part 2)");
    expect(parts[1]!.conversation.createdAt).toBe(parts[1]!.conversation.messages[0]!.createdAt);
    expect(parts.every((part) => part.complete === true && part.platform === "chatgpt")).toBe(true);
  });

  it("never dates a part's update before its start: an export's updatedAt may be the conversation's start", () => {
    const long = upload(60, 4_000);
    long.conversation.updatedAt = long.conversation.createdAt;
    const parts = conversationParts(long, tokenizer);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts.slice(1)) expect(part.conversation.updatedAt).toBe(part.conversation.createdAt);
    expect(parts.every((part) => UploadConversation.safeParse(part).success)).toBe(true);
  });

  it("keeps the earlier parts as they were when the conversation grows", () => {
    const before = conversationParts(upload(60, 4_000), tokenizer);
    const after = conversationParts(upload(80, 4_000), tokenizer);
    expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
  });

  it("leaves an upload that adds to what was stored whole: its first part would replace the rest", () => {
    const adding = upload(60, 4_000, { complete: false });
    expect(conversationParts(adding, tokenizer)).toEqual([adding]);
  });

  it("keeps a single message over the limit a part of its own, and an id and title at their limits within them", () => {
    const long = upload(3, 60_000, { id: "x".repeat(500), title: "t".repeat(1_000) });
    const parts = conversationParts(long, tokenizer);
    expect(parts.map((part) => part.conversation.messages.length)).toEqual([1, 1, 1]);
    expect([...parts[2]!.conversation.id]).toHaveLength(500);
    expect(parts[2]!.conversation.id.endsWith(" (part 3)")).toBe(true);
    expect([...parts[2]!.conversation.title]).toHaveLength(1_000);
  });
});
