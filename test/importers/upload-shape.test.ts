import { collect, fixtures } from "./collect.js";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";

const uploads = join(fixtures, "upload");

async function readJson(name: string): Promise<unknown> {
  return JSON.parse(await readFile(join(uploads, name), "utf8")) as unknown;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-upload-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("upload shape", () => {
  it("a single object is yielded as it is", async () => {
    const reader = await openExport(join(uploads, "single.json"));
    expect(reader.format).toBe("upload");
    expect(await collect(join(uploads, "single.json"))).toEqual([await readJson("single.json")]);
  });

  it("a top-level array yields its elements, platform left undefined when absent", async () => {
    const conversations = await collect(join(uploads, "array.json"));
    expect(conversations).toEqual(await readJson("array.json"));
    const [first, second] = conversations as UploadConversation[];
    expect(first?.platform).toBeUndefined();
    expect(second?.platform).toBe("le-chat");
    for (const conversation of conversations) UploadConversation.parse(conversation);
  });

  it("NDJSON yields one object per line", async () => {
    const text = await readFile(join(uploads, "conversations.ndjson"), "utf8");
    const expected = text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as unknown);
    const reader = await openExport(join(uploads, "conversations.ndjson"));
    expect(reader.format).toBe("upload");
    expect(await collect(join(uploads, "conversations.ndjson"))).toEqual(expected);
  });

  it("NDJSON is recognised by structure even in a .json file, with blank lines and CRLF", async () => {
    const path = join(tmp, "export.json");
    const line = JSON.stringify({
      conversation: { id: "c1", title: "T", createdAt: "2024-01-01T00:00:00Z", messages: [{ id: "m1", role: "human", content: "Hi" }] },
    });
    await writeFile(path, `${line}\r\n\r\n${line.replace('"c1"', '"c2"')}\r\n`);
    const ids = (await collect(path)).map((c) => (c as UploadConversation).conversation.id);
    expect(ids).toEqual(["c1", "c2"]);
  });

  it("leaves out an updatedAt earlier than createdAt, which the upload endpoint refuses: the conversation is kept, dated by createdAt", async () => {
    const path = join(tmp, "backdated.json");
    const conversation = (id: string, updatedAt: string) => ({
      conversation: {
        id,
        title: "T",
        createdAt: "2024-06-01T12:00:00+02:00",
        updatedAt,
        messages: [{ id: "m1", role: "human", content: "Hi" }],
      },
    });
    await writeFile(path, JSON.stringify([conversation("c1", "2024-01-01T00:00:00Z"), conversation("c2", "2024-06-01T10:00:00Z")]));
    const [backdated, same] = (await collect(path)) as UploadConversation[];
    expect(backdated?.conversation).not.toHaveProperty("updatedAt");
    UploadConversation.parse(backdated);
    // The same instant in another zone is not earlier.
    expect(same?.conversation.updatedAt).toBe("2024-06-01T10:00:00Z");
  });

  it("passes objects through unvalidated: the core reports their field errors", async () => {
    const path = join(tmp, "invalid-fields.json");
    const invalid = {
      platform: "bad platform!",
      conversation: { id: "x", title: "T", messages: [{ id: "m", role: "user", content: "Hi" }] },
    };
    await writeFile(path, JSON.stringify([invalid]));
    expect(await collect(path)).toEqual([invalid]);
  });

  it("numbers apart the messages of a conversation that share an id, as the chat importers do, rather than lose one; one sent twice is kept once", async () => {
    const path = join(tmp, "repeated-ids.json");
    const message = (id: string, content: string) => ({ id, role: "human", content });
    const record = {
      conversation: {
        id: "r",
        title: "T",
        createdAt: "2024-01-01T00:00:00Z",
        messages: [message("m1", "a"), message("m1", "b"), message("m2", "c"), message("m2", "c")],
      },
    };
    await writeFile(path, JSON.stringify(record));
    const [conversation] = (await collect(path)) as UploadConversation[];
    expect(conversation?.conversation.messages.map((m) => [m.id, m.content])).toEqual([
      ["m1", "a"],
      ["m1-2", "b"],
      ["m2", "c"],
    ]);
    UploadConversation.parse(conversation);
  });

  it("the platform option overrides the data's platform", async () => {
    const conversations = (await collect(join(uploads, "array.json"), { platform: "imported" })) as UploadConversation[];
    expect(conversations.map((c) => c.platform)).toEqual(["imported", "imported"]);
    expect(conversations[1]?.platformDisplayName).toBe("Le Chat");
  });

  it("a folder of upload files yields them all, in path order", async () => {
    const ids = (await collect(uploads)).map((c) => (c as UploadConversation).conversation.id);
    expect(ids).toEqual([
      "notes-marathon-plan",
      "lechat-quiche-0915",
      "standup-2025-01-13",
      "rust-borrow-checker",
      "pplx-lisbon-fado",
      "pplx-tomato-leaves-2024-07",
    ]);
  });

  it("an empty array is an empty upload", async () => {
    const path = join(tmp, "empty.json");
    await writeFile(path, "[]\n");
    const reader = await openExport(path);
    expect(reader.format).toBe("upload");
    expect(await collect(path)).toEqual([]);
  });

  it("a message id of 500 characters given to two messages is numbered apart and still fits an upload (found by fuzzing)", async () => {
    const upload = (await readJson("single.json")) as UploadConversation;
    const long = "m".repeat(500);
    for (const message of upload.conversation.messages.slice(0, 2)) message.id = long;
    const path = join(tmp, "repeated-long-id.json");
    await writeFile(path, JSON.stringify(upload));
    const [read] = await collect(path);
    expect(read!.conversation.messages.map((m) => m.id.length)).toEqual([500, 35, 13, 13]);
    expect(UploadConversation.safeParse(read).success).toBe(true);
  });
});
