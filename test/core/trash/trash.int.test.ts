import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { purgeExpiredTrash } from "../../../src/core/trash/trash.js";
import type { TableKey } from "../../../src/store/schema.js";
import { openTestApp, ROOT, settled } from "../../helpers.js";

const IMAGE = fs.readFileSync(path.join(ROOT, "fixtures", "images", "red-square.png"));
const DAY = 24 * 60 * 60 * 1000;

const chat = (id: string, title: string, texts: string[]) => ({
  platform: "custom",
  conversation: {
    id,
    title,
    createdAt: "2024-05-01T10:00:00Z",
    messages: texts.map((content, i) => ({ id: `${id}-m${i}`, role: i % 2 === 0 ? "human" : "assistant", content })),
  },
});

let app: App;
let me: MnemoService;
/** The app's clock: moved forward to see the trash expire. */
let now = Date.parse("2025-06-01T12:00:00Z");

beforeAll(async () => {
  app = await openTestApp({}, { now: () => new Date(now) });
  app.indexer.start();
  me = await app.service();
});

afterAll(async () => {
  await app?.close();
});

/** A table's rows of the user, as stored (vectors as arrays), to compare before and after. */
async function rows(key: TableKey, where: string): Promise<unknown[]> {
  const columns = [...(await app.context.store.columns(key)), ...(key === "memories" || key === "chunks" ? ["vector"] : [])];
  const found = await app.context.store.select(key, where, { columns });
  return found
    .map((row) =>
      Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value instanceof Float32Array ? [...value] : value])),
    )
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function exportText(service: MnemoService): Promise<string> {
  let text = "";
  for await (const line of await service.export({ vectors: false })) text += line;
  return text;
}

describe("the trash", () => {
  it("takes a memory with its history and image, and a conversation with its chunks, out of everything; restores them exactly", async () => {
    await me.buckets.create({ name: "Travel", description: "trips" });
    const { memoryId } = await me.memories.store({ text: "2025-05-30 Tram 28 goes up to Graça" });
    await me.memories.update({ memoryId, text: "2025-05-30 Tram 28 goes up to Graça and Estrela" });
    await me.memories.update({ memoryId, bucketName: "Travel" });
    const image = await me.memories.storeImage({ data: IMAGE.toString("base64"), description: "the logo draft", filename: "logo.png" });
    await me.conversations.uploadMany([chat("c1", "Lisbon trip", ["What should I see in Lisbon?", "Take tram 28 through Alfama."])]);
    await settled(me);
    const [conversation] = (await me.conversations.list({})).items;
    const ids = [memoryId, image.memoryId];
    const memoryScope = `id IN ('${ids.join("','")}')`;
    const before = {
      memories: await rows("memories", memoryScope),
      history: await rows("memoryHistory", `memoryId IN ('${ids.join("','")}')`),
      conversations: await rows("conversations", `id = '${conversation!.id}'`),
      messages: await rows("messages", `conversationId = '${conversation!.id}'`),
      chunks: await rows("chunks", `conversationId = '${conversation!.id}'`),
      image: await app.context.images.read(`${(await app.context.store.select("memories", `id = '${image.memoryId}'`))[0]!.imageFile}`),
    };
    expect(before.chunks.length).toBeGreaterThan(0);

    const moved = await me.trash.move({ memoryIds: ids, conversationIds: [conversation!.id, "conv_unknown"] });
    expect(moved.notFound).toEqual(["conv_unknown"]);
    expect(moved.items.map((item) => [item.kind, item.itemId, item.title, item.detail])).toEqual([
      ["memory", memoryId, "2025-05-30 Tram 28 goes up to Graça and Estrela", "Travel"],
      ["memory", image.memoryId, "the logo draft", "Image · General"],
      ["conversation", conversation!.id, "Lisbon trip", "custom · 2 messages"],
    ]);
    expect(moved.items[0]!.expiresAt).toBe(new Date(now + 30 * DAY).toISOString());

    // Gone from every list, search, count and the export, as after a delete.
    expect((await me.memories.listV2({ includeIds: true })).memories).toEqual([]);
    expect((await me.conversations.list({})).total).toBe(0);
    expect((await me.conversations.count()).count).toBe(0);
    expect((await me.search({ query: "tram 28" })).totalResults).toBe(0);
    expect(await exportText(me)).not.toMatch(/Tram 28|Lisbon trip|logo draft/);
    expect(await rows("chunks", `conversationId = '${conversation!.id}'`)).toEqual([]);
    expect((await me.trash.list()).items.map((item) => item.itemId).sort()).toEqual([...ids, conversation!.id].sort());

    const restored = await me.trash.restore({ ids: moved.items.map((item) => item.id) });
    expect(restored.problems).toEqual([]);
    expect(restored.restored).toHaveLength(3);
    expect(restored.present).toEqual([]);
    // As they were, row for row: ids, versions, history, bucket, dates, vectors, the chunks (not embedded again).
    expect(await rows("memories", memoryScope)).toEqual(before.memories);
    expect(await rows("memoryHistory", `memoryId IN ('${ids.join("','")}')`)).toEqual(before.history);
    expect(await rows("conversations", `id = '${conversation!.id}'`)).toEqual(before.conversations);
    expect(await rows("messages", `conversationId = '${conversation!.id}'`)).toEqual(before.messages);
    expect(await rows("chunks", `conversationId = '${conversation!.id}'`)).toEqual(before.chunks);
    expect(
      await app.context.images.read(`${(await app.context.store.select("memories", `id = '${image.memoryId}'`))[0]!.imageFile}`),
    ).toEqual(before.image);
    expect((await me.search({ query: "tram 28" })).totalResults).toBeGreaterThan(0);
    expect((await me.trash.list()).total).toBe(0);
  });

  it("makes a deleted bucket again for a memory restored into it, and leaves a conversation imported again meanwhile as it is", async () => {
    const bucket = await me.buckets.create({ name: "Garden" });
    const { memoryId } = await me.memories.store({ text: "2025-05-31 Tomatoes by the south wall", bucketId: Number(bucket.bucket.id) });
    await me.conversations.uploadMany([chat("c2", "Roses", ["When to prune roses?", "Late winter."])]);
    await settled(me);
    const roses = (await me.conversations.list({ title: "Roses" })).items[0]!;
    const moved = await me.trash.move({ memoryIds: [memoryId], conversationIds: [roses.id] });
    await me.buckets.delete(Number(bucket.bucket.id));
    await me.conversations.uploadMany([chat("c2", "Roses", ["When to prune roses?", "Late winter."])]);
    await settled(me);

    const result = await me.trash.restore({ ids: moved.items.map((item) => item.id) });
    expect(result.restored.map((item) => item.itemId)).toEqual([memoryId]);
    expect(result.present.map((item) => item.itemId)).toEqual([roses.id]);
    const memory = (await me.memories.listV2({ includeIds: true })).memories.find((m) => typeof m !== "string" && m.id === memoryId);
    expect(memory && typeof memory !== "string" ? memory.metadata.bucketName : undefined).toBe("Garden");
    expect((await me.conversations.list({ title: "Roses" })).total).toBe(1);
    expect((await me.trash.list()).total).toBe(0);
  });

  it("keeps entries 30 days, then deletes them for good; deletes some or all for good when asked", async () => {
    const a = await me.memories.store({ text: "2025-06-01 Old note" });
    const b = await me.memories.store({ text: "2025-06-01 Another note" });
    const c = await me.memories.store({ text: "2025-06-01 A third note" });
    const [first] = (await me.trash.move({ memoryIds: [a.memoryId] })).items;
    now += 29 * DAY;
    const later = await me.trash.move({ memoryIds: [b.memoryId, c.memoryId] });
    expect((await me.trash.list()).total).toBe(3);
    now += 2 * DAY;
    expect((await me.trash.list()).items.map((item) => item.itemId).sort()).toEqual([b.memoryId, c.memoryId].sort());
    await expect(me.trash.restore({ ids: [first!.id] })).rejects.toMatchObject({ code: "not_found" });
    // Deleted for good by the purge a server runs every few hours (and every move to the trash).
    expect(await purgeExpiredTrash(app.context)).toBe(1);
    expect(await app.context.store.count("trash", `id = '${first!.id}'`)).toBe(0);

    expect(await me.trash.empty({ ids: [later.items[0]!.id] })).toEqual({ deleted: 1, notFound: [] });
    expect(await me.trash.empty()).toEqual({ deleted: 1, notFound: [] });
    expect((await me.trash.list()).total).toBe(0);
  });

  it("moves and restores only the caller's own: another user's ids are not found, their trash not theirs", async () => {
    await app.users.add("bob");
    const bob = await app.service("bob");
    const mine = await me.memories.store({ text: "2025-06-02 Mine" });
    const moved = await bob.trash.move({ memoryIds: [mine.memoryId] });
    expect(moved).toEqual({ items: [], notFound: [mine.memoryId] });
    const trashed = await me.trash.move({ memoryIds: [mine.memoryId] });
    await expect(bob.trash.restore({ ids: [trashed.items[0]!.id] })).rejects.toMatchObject({ code: "not_found" });
    expect(await bob.trash.empty()).toEqual({ deleted: 0, notFound: [] });
    await expect(bob.trash.empty({ ids: [trashed.items[0]!.id] })).rejects.toMatchObject({ code: "not_found" });
    expect((await me.trash.list()).total).toBe(1);
  });

  it("deletes for good by entry or item id, naming the ids not in the trash, where it answered deleted: 0 and no more", async () => {
    const a = await me.memories.store({ text: "2025-06-03 To delete by entry" });
    const b = await me.memories.store({ text: "2025-06-03 To delete by memory id" });
    const { items } = await me.trash.move({ memoryIds: [a.memoryId, b.memoryId] });
    const byEntry = items.find((item) => item.itemId === a.memoryId)!.id;
    expect(await me.trash.empty({ ids: [byEntry, "trs_01M8KMYCMQNBQPA53118TKM5YV", b.memoryId, byEntry] })).toEqual({
      deleted: 2,
      notFound: ["trs_01M8KMYCMQNBQPA53118TKM5YV"],
    });
    // None of them there: a 404, as restore's, naming the id.
    await expect(me.trash.empty({ ids: [byEntry] })).rejects.toMatchObject({
      code: "not_found",
      message: `${byEntry} is not in the trash`,
    });
    await expect(me.trash.empty({ ids: [byEntry, b.memoryId] })).rejects.toMatchObject({
      message: "none of these is in the trash",
      suggestion: "They were restored or deleted for good already, or deleted over 30 days ago.",
    });
    // One id given twice is one id, as empty counts them.
    await expect(me.trash.restore({ ids: [byEntry, byEntry] })).rejects.toMatchObject({ message: `${byEntry} is not in the trash` });
    expect(await me.trash.empty({ ids: [] })).toEqual({ deleted: 0, notFound: [] });
  });

  it("restores by the conversation's or memory's own id, as by the entry's", async () => {
    await me.conversations.uploadMany([chat("ferry", "Cacilhas ferry", ["When does the ferry leave?", "Every 20 minutes."])]);
    await settled(me);
    const conversationId = (await me.conversations.list({ title: "Cacilhas" })).items[0]!.id;
    const { memoryId } = await me.memories.store({ text: "2025-06-02 The ferry leaves every 20 minutes" });
    const moved = await me.trash.move({ memoryIds: [memoryId], conversationIds: [conversationId] });
    const restored = await me.trash.restore({ ids: [conversationId, memoryId] });
    expect(restored.restored.map((item) => item.id).sort()).toEqual(moved.items.map((item) => item.id).sort());
    expect((await me.conversations.list({ title: "Cacilhas" })).items.map((item) => item.id)).toEqual([conversationId]);
    const left = (await me.trash.list()).items.map((item) => item.itemId);
    expect(left).not.toContain(memoryId);
    expect(left).not.toContain(conversationId);
    await expect(me.trash.restore({ ids: [memoryId] })).rejects.toMatchObject({ code: "not_found" });
  });

  it("names a bad request's field", async () => {
    await expect(me.trash.move({})).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/^memoryIds: must list at least one id/),
    });
    await expect(me.trash.restore({ ids: [] })).rejects.toMatchObject({ message: "ids: must list at least one id" });
    await expect(me.trash.list({ pageSize: 0 })).rejects.toMatchObject({ message: "pageSize: must be at least 1" });
  });
});
