import { beforeAll, describe, expect, it } from "vitest";
import { chunkConversation, messageTokens } from "../../../src/core/chat-history/chunking.js";
import { loadTokenizer, type Tokenizer } from "../../../src/text/tokens.js";
import type { StoredMessage } from "../../../src/store/rows.js";

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await loadTokenizer();
});

const message = (id: string, text: string, sender: StoredMessage["sender"] = "human", timestamp: string | null = null): StoredMessage => ({
  id,
  text,
  sender,
  timestamp,
});

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe("chunkConversation", () => {
  it("keeps consecutive messages together, with their ids, offsets, senders and times in order", () => {
    const messages = [
      message("m1", "Where should we go hiking on Saturday?", "human", "2026-01-01T10:00:00.000Z"),
      message("m2", "The ridge trail above the lake is lovely in spring.", "assistant", "2026-01-01T10:00:05.000Z"),
      message("m3", "Great, let's do that one.", "human"),
    ];
    const [chunk, ...rest] = chunkConversation(messages, tokenizer, { maxTokens: 64 });
    expect(rest).toEqual([]);
    expect(chunk!.messageIds).toEqual(["m1", "m2", "m3"]);
    expect(chunk!.messageSenders).toEqual(["human", "assistant", "human"]);
    expect(chunk!.messageTimes).toEqual(["2026-01-01T10:00:00.000Z", "2026-01-01T10:00:05.000Z", ""]);
    chunk!.messageOffsets.forEach((offset, i) => expect(chunk!.text.slice(offset).startsWith(messages[i]!.text)).toBe(true));
    expect(chunk!.sender).toBe("human");
    expect(chunk!.timestamp).toBe("2026-01-01T10:00:00.000Z");
  });

  it("starts a new chunk when the next message does not fit", () => {
    const long = "The quick brown fox jumps over the lazy dog. ".repeat(5).trim();
    const chunks = chunkConversation([message("a", long), message("b", long), message("c", long)], tokenizer, { maxTokens: 120 });
    expect(chunks.map((chunk) => chunk.messageIds)).toEqual([["a", "b"], ["c"]]);
    expect(chunks.map((chunk) => chunk.chunkIndex)).toEqual([0, 1]);
  });

  it("takes a message's count from the one stored with it, counted as messageTokens counts", () => {
    const text = "  The ridge trail above the lake is lovely in spring.  ";
    const counted = { ...message("m1", text), tokens: messageTokens(text, tokenizer) };
    expect(counted.tokens).toBe(tokenizer.count(text.trim()));
    expect(chunkConversation([counted], tokenizer, { maxTokens: 192 })[0]!.tokenCount).toBe(counted.tokens);
    expect(chunkConversation([{ ...counted, tokens: 7 }], tokenizer, { maxTokens: 192 })[0]!.tokenCount).toBe(7);
  });

  it("splits an over-long message at sentences into pieces that fit, keeping every word in order", () => {
    const sentences = Array.from({ length: 80 }, (_, i) => `Sentence number ${i} talks about the weather in Zürich and the trains.`);
    const text = sentences.join(" ");
    const chunks = chunkConversation([message("long", text, "assistant")], tokenizer, { maxTokens: 50 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk.messageIds).toEqual(["long"]);
      expect(chunk.tokenCount).toBe(tokenizer.count(chunk.text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(50);
      expect(chunk.text).toMatch(/^Sentence number \d+/);
    }
    expect(chunks.flatMap((chunk) => words(chunk.text))).toEqual(words(text));
  });

  it("splits a sentence longer than a chunk between words, and a blob without spaces into slices", () => {
    const sentence = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
    const blob = "x".repeat(5_000);
    const chunks = chunkConversation([message("s", sentence), message("b", blob)], tokenizer, { maxTokens: 40 });
    for (const chunk of chunks) expect(tokenizer.count(chunk.text)).toBeLessThanOrEqual(40);
    const fromSentence = chunks.filter((chunk) => chunk.messageIds.includes("s"));
    expect(fromSentence.flatMap((chunk) => words(chunk.text)).filter((word) => word.startsWith("word"))).toEqual(words(sentence));
    const blobText = chunks
      .filter((chunk) => chunk.messageIds.includes("b"))
      .map((chunk) => chunk.text.replace(/[^x]/g, ""))
      .join("");
    expect(blobText).toBe(blob);
  });
});
