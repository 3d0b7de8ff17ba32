import { describe, expect, it } from "vitest";
import { readUploadBody } from "../../../src/core/chat-history/upload-reader.js";
import { AppError } from "../../../src/shared/errors.js";

/** `text` as a stream of small chunks, counting how many were read. */
function streamed(text: string | Buffer, size = 4096) {
  const bytes = Buffer.from(text);
  const read = { chunks: 0, of: Math.ceil(bytes.length / size) };
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += size) {
      read.chunks++;
      yield bytes.subarray(at, at + size);
    }
  }
  return { chunks: chunks(), read };
}

const upload = (contents: string[]) =>
  JSON.stringify({
    conversation: {
      id: "c1",
      title: "t",
      createdAt: "2024-03-01T09:00:00Z",
      messages: contents.map((content, i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "human", content })),
    },
  });

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("readUploadBody", () => {
  // 3 MB of short messages, which pass the 100,000-token limit at about message 25,000.
  const over = upload(Array.from({ length: 60_000 }, (_, i) => `note ${i}`));

  it("takes a conversation over 100,000 tokens whole, for the index worker to reject, keeping its messages only until they pass the limit", async () => {
    const { chunks, read } = streamed(`${over.slice(0, -2)}, "platform": "notes" }}`); // a field after the messages is still read
    const value = (await readUploadBody(chunks)) as { conversation: { messages: { id: string }[]; platform: string } };
    const kept = value.conversation.messages;
    expect(kept.length).toBeGreaterThan(10_000);
    expect(kept.length).toBeLessThan(60_000);
    expect(kept.map((message) => message.id)).toEqual(Array.from({ length: kept.length }, (_, i) => `m${i}`));
    expect(value.conversation.platform).toBe("notes");
    expect(read.chunks).toBe(read.of);
  });

  it("keeps every message of a body small enough to be parsed whole, for the worker to count", async () => {
    const small = upload(Array.from({ length: 20 }, () => "word ".repeat(6_000))); // 600 KB, ~120,000 tokens
    const value = (await readUploadBody(streamed(small).chunks, Buffer.byteLength(small))) as { conversation: { messages: unknown[] } };
    expect(value.conversation.messages).toHaveLength(20);
  });

  it("still refuses a body that is not JSON past the limit", async () => {
    const error = await failure(readUploadBody(streamed(`${over.slice(0, -3)}, ]}}`).chunks));
    expect(error.details["field"]).toBe("body");
  });

  it("reads a body within the limit the same both ways, as JSON.parse does", async () => {
    const body = upload(["Which tram goes to the castle?", "Tram 28 — through Alfama. 🦊", "x".repeat(200_000)]);
    const whole = await readUploadBody(streamed(body).chunks, Buffer.byteLength(body));
    const streamedValue = await readUploadBody(streamed(body, 7).chunks);
    expect(whole).toEqual(JSON.parse(body));
    expect(streamedValue).toEqual(JSON.parse(body));
  });

  it("answers an empty body with nothing, and refuses one that is not JSON or names __proto__", async () => {
    expect(await readUploadBody(streamed("").chunks)).toBeUndefined();
    expect(await readUploadBody(streamed(" \n ").chunks)).toBeUndefined();
    for (const bad of ['{"a":1} x', '{"a":', "[1,]", "nul"]) {
      expect((await failure(readUploadBody(streamed(bad, 2).chunks))).details["field"]).toBe("body");
    }
    const proto = await failure(readUploadBody(streamed('{"conversation":{"__proto__":{"messages":[]}}}').chunks));
    expect(proto.details["field"]).toBe("conversation");
  });

  it("keeps bytes that are not UTF-8 visible, even split between chunks, for the field check to refuse", async () => {
    const bytes = Buffer.concat([Buffer.from('{"conversation":{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}}')]);
    const value = (await readUploadBody(streamed(bytes, 3).chunks)) as { conversation: { title: string } };
    expect(value.conversation.title.isWellFormed()).toBe(false);
    const fox = Buffer.from('{"a":"🦊"}');
    expect(await readUploadBody(streamed(fox, 1).chunks)).toEqual({ a: "🦊" });
  });
});
