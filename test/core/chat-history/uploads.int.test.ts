import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import { AppError } from "../../../src/shared/errors.js";
import { nextBatchTokens } from "../../../src/core/chat-history/index-worker.js";
import { loadTokenizer } from "../../../src/text/tokens.js";
import type { MnemoService } from "../../../src/core/service.js";
import type { UploadConversation } from "../../../src/schemas/chat-history.js";
import { openTestApp, ROOT, settled, tempDir } from "../../helpers.js";

let app: App;
let service: MnemoService;

beforeAll(async () => {
  app = await openTestApp();
  app.indexer.start();
  service = await app.service();
});
afterAll(async () => app.close());

type Message = UploadConversation["conversation"]["messages"][number];
const msg = (id: string, role: "human" | "assistant", content: string, createdAt?: string): Message => ({
  id,
  role,
  content,
  ...(createdAt ? { createdAt } : {}),
});
function upload(
  id: string,
  messages: Message[],
  extra: Partial<UploadConversation> & { title?: string; createdAt?: string } = {},
): UploadConversation {
  const { title, createdAt, ...rest } = extra;
  return {
    conversation: { id, title: title ?? `Conversation ${id}`, createdAt: createdAt ?? "2024-05-01T10:00:00Z", messages },
    ...rest,
  };
}

async function failure(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("ingest (upload shape)", () => {
  it("answers queued with the spec's fields; platform defaults to custom", async () => {
    const result = await service.conversations.upload(upload("spec-1", [msg("m1", "human", "hello there")]));
    expect(result).toMatchObject({
      queued: true,
      platform: "custom",
      conversation: {
        platformConversationId: "spec-1",
        title: "Conversation spec-1",
        messageCount: 1,
        status: "queued",
        updatedAt: "2024-05-01T10:00:00.000Z",
      },
    });
    expect(result.conversationId).toBe(result.conversation.id);
    expect(result.conversationId).toMatch(/^conv_/);
    expect(result.importId).toMatch(/^imp_/);
  });

  it("stores single uploads that arrive together in one commit, each with its own answer; a bad one fails alone", async () => {
    // The worker's claims and status updates are commits too: counted with them, the bound below
    // held or not by how the worker's timing fell (5 once in a full run).
    await app.indexer.stop();
    try {
      const conversations = await app.context.store.table("conversations");
      const before = await conversations.version();
      const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`);
      const sent = [
        ...ids.map((id) => service.conversations.upload(upload(id, [msg("1", "human", `note ${id}`)]))),
        service.conversations.upload({ conversation: { id: "bad", messages: [] } }),
      ];
      const results = await Promise.allSettled(sent);
      const answers = results.slice(0, 20).map((r) => (r.status === "fulfilled" ? r.value : undefined));
      expect(answers.map((a) => a?.conversation.platformConversationId)).toEqual(ids);
      expect(answers.every((a) => a?.change === "new")).toBe(true);
      expect(new Set(answers.map((a) => a?.conversationId)).size).toBe(20);
      expect(results[20]).toMatchObject({ status: "rejected", reason: { code: "invalid_input" } });
      // One write for the first upload, one for the 19 that waited for it: each adds its rows once.
      expect((await conversations.version()) - before).toBeLessThanOrEqual(4);
    } finally {
      app.indexer.start();
    }
  });

  it("keeps one import record per platform and overwrites the display name", async () => {
    const a = await service.conversations.upload(
      upload("p-1", [msg("1", "human", "x")], { platform: "my-tool", platformDisplayName: "My Tool" }),
    );
    const b = await service.conversations.upload(
      upload("p-2", [msg("1", "human", "y")], { platform: "my-tool", platformDisplayName: "My Tool 2" }),
    );
    const c = await service.conversations.upload(upload("p-3", [msg("1", "human", "z")], { platform: "other.tool" }));
    expect(a.importId).toBe(b.importId);
    expect(c.importId).not.toBe(a.importId);
    expect((await service.conversations.get(a.conversationId)).platformDisplayName).toBe("My Tool 2");
  });

  it("names the field of every constraint it checks", async () => {
    const ok = upload("v", [msg("1", "human", "x")]);
    const cases: [unknown, RegExp][] = [
      [{ ...ok, platform: "bad platform!" }, /^platform:/],
      [{ ...ok, platform: "x".repeat(101) }, /^platform:/],
      [{ ...ok, platformDisplayName: "x".repeat(201) }, /^platformDisplayName:/],
      [{ ...ok, conversation: { ...ok.conversation, id: "x".repeat(501) } }, /^conversation\.id:/],
      [{ ...ok, conversation: { ...ok.conversation, messages: [] } }, /^conversation\.messages:/],
      [
        { ...ok, conversation: { ...ok.conversation, messages: [{ id: "1", role: "system", content: "x" }] } },
        /^conversation\.messages\[0\]\.role: must be one of "human", "assistant", not "system"$/,
      ],
      [
        {
          ...ok,
          conversation: { ...ok.conversation, messages: [msg("1", "human", "a"), msg("2", "assistant", "b"), msg("1", "assistant", "c")] },
        },
        /^conversation\.messages\[2\]\.id: repeats the id of messages\[0\] with another message: each message needs its own id/,
      ],
      [{ ...ok, conversation: { ...ok.conversation, createdAt: "yesterday" } }, /^conversation\.createdAt:/],
      [
        { ...ok, conversation: { ...ok.conversation, messages: [{ id: "1", role: "human", content: "x", createdAt: "2024-13-45" }] } },
        /^conversation\.messages\[0\]\.createdAt:/,
      ],
      [{ ...ok, conversation: { ...ok.conversation, title: undefined } }, /^conversation\.title: is required/],
      [{ ...ok, conversation: { ...ok.conversation, title: "x".repeat(1_001) } }, /^conversation\.title: must be at most 1,000 characters/],
      [{ platform: "x" }, /^conversation: is required/],
    ];
    for (const [body, message] of cases) {
      const error = await failure(service.conversations.upload(body));
      expect(error.code).toBe("invalid_input");
      expect(error.message).toMatch(message);
    }
  });

  it("upserts: new messages are added, repeated ids updated, time order kept, no duplicate conversation", async () => {
    const first = await service.conversations.upload(
      upload("up-1", [
        msg("a", "human", "Planning a trip to Kyoto", "2024-05-01T10:00:00Z"),
        msg("b", "assistant", "Autumn is lovely", "2024-05-01T10:00:05Z"),
      ]),
    );
    await settled(service);
    const second = await service.conversations.upload(
      upload("up-1", [
        msg("c", "human", "What about hotels?", "2024-05-02T08:00:00Z"),
        msg("no-time", "assistant", "Ryokans are worth it"), // no time: stays right after the message it followed
        msg("b", "assistant", "Autumn (November) is lovely", "2024-05-01T10:00:05Z"),
        msg("early", "human", "I said this first", "2024-05-01T09:00:00Z"),
      ]),
    );
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.change).toBe("updated");
    expect(second.conversation.messageCount).toBe(5);
    const detail = await service.conversations.get(first.conversationId);
    expect(detail.messages.map((m) => [m.id, m.text])).toEqual([
      ["early", "I said this first"],
      ["a", "Planning a trip to Kyoto"],
      ["b", "Autumn (November) is lovely"],
      ["c", "What about hotels?"],
      ["no-time", "Ryokans are worth it"],
    ]);
    expect(detail.messages.map((m) => m.message_index)).toEqual([0, 1, 2, 3, 4]);
    // Counted once per message: the kept ones keep their count, the changed one ("b") is counted again.
    const tokenizer = await loadTokenizer();
    expect(detail.tokenCount).toBe(detail.messages.reduce((sum, m) => sum + tokenizer.count(m.text), 0));
    // The messages are kept once, at the current revision.
    const stored = await app.context.store.select("messages", `conversationId = '${first.conversationId}'`, { columns: ["id"] });
    expect(stored.map((row) => row.id)).toEqual([`${first.conversationId}:2`]);
    const again = await service.conversations.upload(upload("up-1", [msg("c", "human", "What about hotels?", "2024-05-02T08:00:00Z")]));
    expect(again.change).toBe("unchanged");
    expect(again.conversation.status).toBe("queued"); // as the spec fixes it; `change` says nothing was queued
    const listed = await service.conversations.list({ pageSize: 100 });
    expect(listed.items.filter((item) => item.id === first.conversationId)).toHaveLength(1);
  });

  it("keeps a message sent twice in one upload once (its id deduplicates, as on a re-upload)", async () => {
    const twice = msg("t1", "human", "Book the ryokan in Kyoto", "2024-05-01T10:00:00Z");
    const result = await service.conversations.upload(upload("up-twice", [twice, msg("t2", "assistant", "Done"), { ...twice }]));
    expect(result.conversation.messageCount).toBe(2);
    const detail = await service.conversations.get(result.conversationId);
    expect(detail.messages.map((m) => [m.id, m.text])).toEqual([
      ["t1", "Book the ryokan in Kyoto"],
      ["t2", "Done"],
    ]);
  });

  it("previews what an upload would do (new, updated, unchanged) without storing anything", async () => {
    const kept = upload("pre-1", [msg("a", "human", "Preview me", "2024-05-01T10:00:00Z")], { complete: true });
    await service.conversations.upload(kept);
    const before = await app.context.store.count("conversations", "true");
    const grown = upload("pre-1", [msg("a", "human", "Preview me", "2024-05-01T10:00:00Z"), msg("b", "assistant", "Previewed")], {
      complete: true,
    });
    const fresh = upload("pre-2", [msg("a", "human", "Never stored")]);
    // The same conversation twice: the second sees the first, as storing them together would.
    expect(await service.conversations.previewUploads!([kept, grown, fresh, fresh])).toEqual(["unchanged", "updated", "new", "unchanged"]);
    expect(await app.context.store.count("conversations", "true")).toBe(before);
    await expect(service.conversations.previewUploads!([{ conversation: {} }])).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("a Roo Code task stored as Cline's moves to Roo Code when uploaded as Roo Code's, one conversation with its chunks; a Cline upload of it stays there", async () => {
    const task = (platform: string, messages: Message[]) =>
      upload("1752480000000", messages, { platform, complete: true, title: "Add a --json flag to the tides command" });
    const first = [msg("1", "human", "Add a --json flag to the tides command", "2025-07-14T08:00:00Z")];
    const stored = await service.conversations.upload(task("cline", first));
    await settled(service);
    const same = [...first, msg("2", "assistant", "It prints one JSON array.", "2025-07-14T08:01:00Z")];
    expect(await service.conversations.previewUploads!([task("roo-code", first)])).toEqual(["updated"]);
    const moved = await service.conversations.upload({ ...task("roo-code", first), platformDisplayName: "Roo Code" });
    expect([moved.conversationId, moved.platform, moved.change]).toEqual([stored.conversationId, "roo-code", "updated"]);
    await settled(service);
    const chunks = await app.context.store.select("chunks", `conversationId = '${stored.conversationId}'`, { columns: ["platform"] });
    expect(chunks.map((chunk) => chunk.platform)).toEqual(["roo-code"]);
    // Imported again without its folder (a zip of the task): Cline's by the importer, still the one conversation.
    const again = await service.conversations.upload(task("cline", same));
    expect([again.conversationId, again.platform, again.change]).toEqual([stored.conversationId, "roo-code", "updated"]);
    const listed = await service.conversations.list({ title: "tides command" });
    expect(listed.items.filter((item) => item.title === "Add a --json flag to the tides command").map((item) => item.platform)).toEqual([
      "roo-code",
    ]);
  });

  it("a Qwen Code session stored as Gemini CLI's (an earlier mnemo read Qwen Code's 2025 files so) moves to Qwen Code", async () => {
    const session = (platform: string, messages: Message[]) =>
      upload("4f2d9c1e-7a3b-4c5d-9e8f-1a2b3c4d5e6f", messages, { platform, complete: true, title: "Alfama stop 28 twice" });
    const prompt = [msg("p1", "human", "Why does the Alfama tram stop list show stop 28 twice?", "2025-10-20T08:30:02Z")];
    const stored = await service.conversations.upload(session("gemini-cli", prompt));
    const answered = [...prompt, msg("a1", "assistant", "The stops are now keyed by stop_id.", "2025-10-20T08:30:15Z")];
    const moved = await service.conversations.upload({ ...session("qwen-code", answered), platformDisplayName: "Qwen Code" });
    expect([moved.conversationId, moved.platform, moved.change]).toEqual([stored.conversationId, "qwen-code", "updated"]);
  });

  it("a complete upload (an export's) replaces the messages: a branch edited away leaves search", async () => {
    const v1 = upload("edit-1", [msg("u1", "human", "Name a colour"), msg("a1", "assistant", "Cerulean blue, like a summer sky")], {
      complete: true,
    });
    const first = await service.conversations.upload(v1);
    await settled(service);
    // The user edited the prompt: the new export's current branch holds other messages, in its own order.
    const v2 = upload(
      "edit-1",
      [msg("u1e", "human", "Name a fruit", "2024-05-01T10:05:00Z"), msg("a1e", "assistant", "Mango", "2024-05-01T10:04:59Z")],
      { complete: true },
    );
    expect((await service.conversations.upload(v2)).change).toBe("updated");
    await settled(service);
    const detail = await service.conversations.get(first.conversationId);
    expect(detail.messages.map((m) => m.id)).toEqual(["u1e", "a1e"]);
    const found = await service.search({ query: "cerulean summer sky", limit: 20 });
    expect(
      found.results
        .filter((r) => r.conversationId === first.conversationId)
        .map((r) => r.text)
        .join(" "),
    ).not.toMatch(/Cerulean/);
    expect((await service.conversations.upload(v2)).change).toBe("unchanged");
  });

  it("stores new dates alone without processing the conversation again", async () => {
    const v1 = upload("dated-1", [msg("a", "human", "A conversation whose dates move")]);
    const first = await service.conversations.upload(v1);
    await settled(service);
    const chunks = async () => app.context.store.select("chunks", `conversationId = '${first.conversationId}'`, { columns: ["id"] });
    const chunksBefore = await chunks();
    const redated = { ...v1, conversation: { ...v1.conversation, updatedAt: "2025-01-01T00:00:00Z" } };
    expect(await service.conversations.previewUploads!([redated])).toEqual(["updated"]);
    const again = await service.conversations.upload(redated);
    expect(again).toMatchObject({
      change: "updated",
      conversationId: first.conversationId,
      conversation: { status: "queued", updatedAt: "2025-01-01T00:00:00.000Z" },
    });
    const detail = await service.conversations.get(first.conversationId);
    expect([detail.status, detail.updatedAt, detail.createdAt]).toEqual(["ready", "2025-01-01T00:00:00.000Z", "2024-05-01T10:00:00.000Z"]);
    expect(await chunks()).toEqual(chunksBefore);
    expect(await app.context.store.count("conversations", `id = '${first.conversationId}'`)).toBe(1);
    // New messages and new dates in one batch, in either order: processed once, with the last dates.
    const grown = { ...redated, conversation: { ...redated.conversation, messages: [msg("b", "assistant", "and grows")] } };
    const later = { ...redated, conversation: { ...redated.conversation, updatedAt: "2025-02-01T00:00:00Z" } };
    const [grew, moved] = await Promise.all([service.conversations.upload(grown), service.conversations.upload(later)]);
    expect([grew.change, moved.change]).toEqual(["updated", "updated"]);
    await settled(service);
    const final = await service.conversations.get(first.conversationId);
    expect([final.status, final.updatedAt, final.messages.length]).toEqual(["ready", "2025-02-01T00:00:00.000Z", 2]);
    expect(await service.conversations.upload(later)).toMatchObject({ change: "unchanged" });
    // Re-sent without updatedAt, adding a message: not put back to when it began, below what was untouched since.
    const resent = await service.conversations.upload(upload("dated-1", [msg("c", "human", "one more")]));
    expect(resent.conversation.updatedAt).toBe("2025-02-01T00:00:00.000Z");
    // A complete upload (an export's) says where the conversation stands, its dates too.
    const whole = await service.conversations.upload(
      upload("dated-1", [msg("a", "human", "A conversation whose dates move")], { complete: true }),
    );
    expect(whole.conversation.updatedAt).toBe("2024-05-01T10:00:00.000Z");
  });

  it("processes in the background to ready, swapping the chunks of a re-upload", async () => {
    const { conversationId } = await service.conversations.upload(upload("swap", [msg("1", "human", "first version of the text")]));
    await settled(service);
    expect((await service.conversations.get(conversationId)).status).toBe("ready");
    const chunkIds = async () =>
      (await app.context.store.select("chunks", `conversationId = '${conversationId}'`, { columns: ["id", "text"] })).map((c) => c.id);
    expect(await chunkIds()).toEqual([`${conversationId}:1:0`]);
    await service.conversations.upload(upload("swap", [msg("2", "assistant", "an answer added later")]));
    await settled(service);
    expect(await chunkIds()).toEqual([`${conversationId}:2:0`]);
  });

  it("re-embeds only the chunks a re-upload changed; the others keep their vectors", async () => {
    const sentence = (i: number) =>
      `Message ${i} about the garden: tomatoes, basil and a stubborn fig tree that needs pruning every spring.`;
    const turns = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, k) => {
        const i = from + k;
        return msg(
          `g${i}`,
          i % 2 ? "assistant" : "human",
          `${sentence(i)} ${sentence(i + 100)} ${sentence(i + 200)}`,
          `2024-06-01T10:${String(i).padStart(2, "0")}:00Z`,
        );
      });
    const { conversationId } = await service.conversations.upload(upload("garden", turns(0, 12)));
    await settled(service);
    const chunks = async () =>
      new Map(
        (await app.context.store.select("chunks", `conversationId = '${conversationId}'`, { columns: ["text", "vector"] })).map((c) => [
          c.text,
          c.vector,
        ]),
      );
    const before = await chunks();
    expect(before.size).toBeGreaterThan(3);

    const embedded: string[] = [];
    const embedder = app.context.embedder;
    const original = embedder.embedDocuments;
    embedder.embedDocuments = (texts) => {
      embedded.push(...texts);
      return original(texts);
    };
    try {
      await service.conversations.upload(upload("garden", turns(12, 14)));
      await settled(service);
    } finally {
      embedder.embedDocuments = original;
    }
    const after = await chunks();
    const kept = [...after.keys()].filter((text) => before.has(text));
    const changed = [...after.keys()].filter((text) => !before.has(text));
    expect(kept.length).toBeGreaterThan(0);
    expect(changed.length).toBeGreaterThan(0);
    for (const text of kept) expect(after.get(text)).toEqual(before.get(text));
    expect(embedded.filter((text) => before.has(text))).toEqual([]);
    expect(embedded).toEqual(expect.arrayContaining(changed));
    expect((await service.search({ query: "Message 213 about the garden" })).results[0]?.conversationId).toBe(conversationId);
  });

  it("a claim left by a dead process after its chunks were written is taken over without storing them twice", async () => {
    const { conversationId } = await service.conversations.upload(
      upload("takeover", [msg("1", "human", "a conversation whose worker died"), msg("2", "assistant", "after writing its chunks")]),
    );
    await settled(service);
    const chunkIds = async () =>
      (await app.context.store.select("chunks", `conversationId = '${conversationId}'`, { columns: ["id"] })).map((c) => c.id).sort();
    const before = await chunkIds();
    expect(before.length).toBeGreaterThan(0);
    // As if the process had died between appending the chunks and marking the conversation ready.
    await app.context.store.write(() =>
      app.context.store.update("conversations", `id = '${conversationId}'`, {
        status: "processing",
        claimedAt: new Date().toISOString(),
        claimedBy: `${os.hostname()}:2147483646`,
      }),
    );
    await settled(service);
    expect((await service.conversations.get(conversationId)).status).toBe("ready");
    expect(await chunkIds()).toEqual(before);
  });

  it("rejects a conversation over 100,000 tokens during processing, with the reason", async () => {
    const long = "word ".repeat(60_000);
    const { conversationId } = await service.conversations.upload(upload("huge", [msg("1", "human", long), msg("2", "assistant", long)]));
    await settled(service);
    const detail = await service.conversations.get(conversationId);
    expect(detail.status).toBe("rejected");
    expect(detail.statusReason).toBe(
      "120,000 tokens, over the limit of 100,000 a conversation may have: it is kept and listed, but not searched or recalled",
    );
    expect((await service.conversations.status()).problems).toContainEqual(
      expect.objectContaining({ id: conversationId, status: "rejected" }),
    );
    expect(await app.context.store.count("chunks", `conversationId = '${conversationId}'`)).toBe(0);
  });
});

describe("ingest batch size", () => {
  it("follows the embedder's pace: about ten seconds of embedding, between 24,000 and 100,000 tokens", () => {
    expect(nextBatchTokens(24_000, 24_000, 8_000)).toBe(30_000); // 3,000 tokens/s
    expect(nextBatchTokens(24_000, 24_000, 60_000)).toBe(24_000); // slower than the floor
    expect(nextBatchTokens(30_000, 24_000, 100)).toBe(100_000); // a fast model, capped
    expect(nextBatchTokens(100_000, 100_000, 25_000)).toBe(40_000); // it slowed down (a query burst)
  });

  it("keeps its size when a batch was too small to time (one short conversation)", () => {
    expect(nextBatchTokens(120_000, 800, 5)).toBe(120_000);
  });
});

describe("conversations", () => {
  let isolated: App;
  let svc: MnemoService;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    isolated = await openTestApp();
    isolated.indexer.start();
    svc = await isolated.service();
    const items: [string, string, string, string][] = [
      ["lisbon", "Lisbon long weekend", "chatgpt", "2024-05-02T10:00:00Z"],
      ["python", "Fix KeyError in CSV report", "chatgpt", "2024-06-10T10:00:00Z"],
      ["bread", "Sourdough 100% hydration", "claude", "2024-07-01T10:00:00Z"],
      ["kanji", "Kanji study plan", "claude", "2024-08-15T10:00:00Z"],
    ];
    for (const [key, title, platform, createdAt] of items) {
      ids[key] = (
        await svc.conversations.upload(upload(key, [msg("1", "human", `${title}: tell me more`)], { title, platform, createdAt }))
      ).conversationId;
    }
    await settled(svc);
  });
  afterAll(async () => isolated.close());

  it("lists with the spec's items, newest first, paginated", async () => {
    const page = await svc.conversations.list({ pageSize: 3 });
    expect(page).toMatchObject({ page: 1, pageSize: 3, total: 4, totalPages: 2 });
    expect(page.items.map((i) => i.title)).toEqual(["Kanji study plan", "Sourdough 100% hydration", "Fix KeyError in CSV report"]);
    expect(page.items[0]).toMatchObject({ platform: "claude", messageCount: 1, pinned: false, createdAt: "2024-08-15T10:00:00.000Z" });
    expect(page.items[0]!.tokenCount).toBeGreaterThan(0);
    expect((await svc.conversations.list({ page: 2, pageSize: 3 })).items.map((i) => i.title)).toEqual(["Lisbon long weekend"]);
  });

  it("filters by provider, title, dates, pinned and import id", async () => {
    const titles = async (query: Parameters<MnemoService["conversations"]["list"]>[0]) =>
      (await svc.conversations.list(query)).items.map((i) => i.title).sort();
    expect(await titles({ provider: "claude" })).toEqual(["Kanji study plan", "Sourdough 100% hydration"]);
    expect(await titles({ title: "keyerror" })).toEqual(["Fix KeyError in CSV report"]);
    expect(await titles({ title: "100%" })).toEqual(["Sourdough 100% hydration"]);
    expect(await titles({ dateFrom: "2024-06-10", dateTo: "2024-07-01" })).toEqual([
      "Fix KeyError in CSV report",
      "Sourdough 100% hydration",
    ]);
    const claudeImport = (await svc.conversations.get(ids["kanji"]!)).importId;
    expect(await titles({ importId: claudeImport })).toEqual(["Kanji study plan", "Sourdough 100% hydration"]);
    // Each list item names its import record, so the filter's value can be found in a list.
    expect((await svc.conversations.list({ provider: "claude" })).items.map((item) => item.importId)).toEqual([claudeImport, claudeImport]);
    await svc.conversations.pin({ ids: [ids["lisbon"]!], pinned: true });
    expect(await titles({ pinnedOnly: true })).toEqual(["Lisbon long weekend"]);
    expect((await svc.conversations.list({})).items[0]!.title).toBe("Lisbon long weekend");
    await svc.conversations.pin({ ids: [ids["lisbon"]!], pinned: false });
  });

  it("refuses bad list parameters", async () => {
    expect((await failure(svc.conversations.list({ pageSize: 101 }))).message).toMatch(/^pageSize:/);
    expect((await failure(svc.conversations.list({ page: 0 }))).message).toMatch(/^page:/);
    expect((await failure(svc.conversations.list({ dateFrom: "last week" }))).message).toMatch(/^dateFrom:/);
    const swapped = await failure(svc.conversations.list({ dateFrom: "2024-07-01", dateTo: "2024-06-10T12:00:00Z" }));
    expect([swapped.message, swapped.suggestion]).toEqual([
      "dateFrom: 2024-07-01 is after the range's end, 2024-06-10T12:00:00Z: nothing lies between them",
      "Swap the two dates.",
    ]);
    // One day, from its first millisecond to its last, is a range.
    expect((await svc.conversations.list({ dateFrom: "2024-06-10", dateTo: "2024-06-10" })).items).toBeDefined();
    expect((await failure(svc.conversations.list({ provider: "no way!" }))).message).toMatch(/^provider:/);
    // A platform with nothing from it is refused as search refuses it, naming those there are: an empty list read as "no such conversation".
    const none = await failure(svc.conversations.list({ provider: "gemini" }));
    expect([none.message, none.suggestion]).toEqual([
      'provider: no conversations from platform "gemini"',
      expect.stringMatching(/^Use "all" or one of: .*claude/),
    ]);
  });

  it("excluded conversations stay stored but are not counted or searchable", async () => {
    expect(await svc.conversations.count()).toEqual({ count: 4 });
    await svc.conversations.exclude({ ids: [ids["python"]!], excluded: true });
    expect(await svc.conversations.count()).toEqual({ count: 3 });
    expect((await svc.conversations.get(ids["python"]!)).excluded).toBe(true);
    const active = await isolated.context.store.select("chunks", `conversationId = '${ids["python"]}'`, { columns: ["active"] });
    expect(active.map((c) => c.active)).toEqual([false]);
    await svc.conversations.exclude({ ids: [ids["python"]!], excluded: false });
    expect(await svc.conversations.count()).toEqual({ count: 4 });
  });

  it("deletes conversations with their chunks; unknown ids are skipped; 404 for a missing one", async () => {
    const result = await svc.conversations.delete({ ids: [ids["kanji"]!, "conv_nope"] });
    expect(result).toEqual({ deleted: [ids["kanji"]], count: 1 });
    expect(await isolated.context.store.count("chunks", `conversationId = '${ids["kanji"]}'`)).toBe(0);
    expect(await isolated.context.store.count("messages", `conversationId = '${ids["kanji"]}'`)).toBe(0);
    const missing = await failure(svc.conversations.get(ids["kanji"]!));
    expect(missing.code).toBe("not_found");
    expect(await svc.conversations.count()).toEqual({ count: 3 });
    expect((await failure(svc.conversations.delete({ ids: [] }))).code).toBe("invalid_input");
  });

  it("keeps users apart", async () => {
    await isolated.users.add("bob");
    const bob = await isolated.service("bob");
    expect(await bob.conversations.count()).toEqual({ count: 0 });
    expect((await bob.conversations.list({})).total).toBe(0);
    expect((await failure(bob.conversations.get(ids["lisbon"]!))).code).toBe("not_found");
    expect(await bob.conversations.delete({ ids: [ids["lisbon"]!] })).toEqual({ deleted: [], count: 0 });
    expect(await bob.conversations.pin({ ids: [ids["lisbon"]!], pinned: true })).toEqual({ updated: [], count: 0 });
    expect(await svc.conversations.count()).toEqual({ count: 3 });
  });

  it("removing a user removes every row they own and their image files", async () => {
    await isolated.users.add("carol");
    const carol = await isolated.service("carol");
    const { id: carolId } = await isolated.users.resolve("carol");
    await carol.conversations.upload(upload("carol-1", [msg("1", "human", "carol's private diary entry")]));
    await settled(carol);
    const png = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png"));
    await carol.memories.storeImage({ data: png.toString("base64"), filename: "red-square.png" });
    const imageDir = path.join(isolated.config.paths.images, carolId);
    expect(fs.readdirSync(imageDir)).toHaveLength(1);
    // Readable by the store's owner only, whatever the folder it sits in lets others do.
    expect(fs.statSync(imageDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(imageDir, fs.readdirSync(imageDir)[0]!)).mode & 0o777).toBe(0o600);

    await isolated.users.remove("carol");
    for (const table of ["memories", "memoryHistory", "buckets", "platforms", "conversations", "messages", "chunks"] as const) {
      expect(await isolated.context.store.count(table, `userId = '${carolId}'`), table).toBe(0);
    }
    expect(fs.existsSync(imageDir)).toBe(false);
    expect(await svc.conversations.count()).toEqual({ count: 3 });
  });
});

describe("conversation quota", () => {
  it("stores conversations past the quota as blocked, and activates them when room frees", async () => {
    const dir = path.join(tempDir(), "store");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(`${dir}/config.json`, JSON.stringify({ conversationQuota: 2 }));
    const quota = await openTestApp({ store: dir });
    quota.indexer.start();
    const svc = await quota.service();
    const results = [];
    for (const id of ["q1", "q2", "q3"]) results.push(await svc.conversations.upload(upload(id, [msg("1", "human", `quota ${id}`)])));
    await settled(svc);
    const third = await svc.conversations.get(results[2]!.conversationId);
    expect(third).toMatchObject({ quotaBlocked: true, status: "queued" });
    expect(await svc.conversations.count()).toEqual({ count: 2 });
    expect((await svc.conversations.status()).counts.quotaBlocked).toBe(1);
    await svc.conversations.delete({ ids: [results[0]!.conversationId] });
    await settled(svc);
    expect(await svc.conversations.get(results[2]!.conversationId)).toMatchObject({ quotaBlocked: false, status: "ready" });
    expect(await svc.conversations.count()).toEqual({ count: 2 });
    await quota.close();
  });

  let blockedTemplate: Promise<string> | undefined;

  /** A store whose quota of 2 blocked the third of three conversations, and its data dir: a copy of one made once, closed. */
  async function blockedStore(): Promise<string> {
    blockedTemplate ??= (async () => {
      const dir = path.join(tempDir(), "store");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(`${dir}/config.json`, JSON.stringify({ conversationQuota: 2 }));
      const app = await openTestApp({ store: dir });
      await app.indexer.start();
      const svc = await app.service();
      for (const id of ["q1", "q2", "q3"]) await svc.conversations.upload(upload(id, [msg("1", "human", `quota ${id}`)]));
      await settled(svc);
      expect((await svc.conversations.status()).counts.quotaBlocked).toBe(1);
      await app.close();
      return dir;
    })();
    const dir = path.join(tempDir(), "store");
    fs.cpSync(await blockedTemplate, dir, { recursive: true });
    return dir;
  }

  it.each([
    ["removed", {}],
    ["raised", { conversationQuota: 5 }],
  ])("a quota %s in the settings releases blocked conversations as the index worker starts", async (_, settings) => {
    const dir = await blockedStore();
    fs.writeFileSync(`${dir}/config.json`, JSON.stringify(settings));
    const app = await openTestApp({ store: dir });
    const svc = await app.service();
    await app.indexer.start();
    expect((await svc.conversations.status()).counts.quotaBlocked).toBe(0);
    await settled(svc);
    expect(await svc.conversations.count()).toEqual({ count: 3 });
    await app.close();
  });

  it("room a raised quota makes goes to the blocked conversations before a new upload", async () => {
    const dir = await blockedStore();
    fs.writeFileSync(`${dir}/config.json`, JSON.stringify({ conversationQuota: 3 }));
    const app = await openTestApp({ store: dir }); // no worker: an upload alone releases
    const svc = await app.service();
    const fourth = await svc.conversations.upload(upload("q4", [msg("1", "human", "quota q4")]));
    const blocked = (await svc.conversations.list({ pageSize: 10 })).items.filter((item) => item.quotaBlocked).map((item) => item.id);
    expect(blocked).toEqual([fourth.conversationId]);
    await app.close();
  });
});
