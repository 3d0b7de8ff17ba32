import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/core/app.js";
import type { MnemoService } from "../../src/core/service.js";
import type { Store } from "../../src/store/store.js";
import { openTestApp, settled, tempDir } from "../helpers.js";

/**
 * A write cut between its commits (simulated: its intent recorded and never cleared, its first
 * commit in, its second not) is finished by the next write on the data dir, which deletes the rows
 * that write recorded and nothing else. The outage, fault and kill tests that cut real commands
 * are in object-storage.int.test.ts and faults.int.test.ts.
 */

let app: App;
let service: MnemoService;
let store: Store;
let dataDir: string;
let userId: string;

beforeAll(async () => {
  dataDir = path.join(tempDir(), "store");
  app = await openTestApp({ store: dataDir });
  service = await app.service();
  store = app.context.store;
  const stored = await service.conversations.upload({
    conversation: {
      id: "kept",
      title: "Kept",
      createdAt: "2024-05-01T10:00:00Z",
      messages: [{ id: "m1", role: "human", content: "hello" }],
    },
  });
  userId = (await store.select("conversations", `id = '${stored.conversationId}'`))[0]!.userId;
});
afterAll(async () => app.close());

const messagesRow = (conversationId: string, revision: number) => ({
  id: `${conversationId}:${revision}`,
  userId,
  conversationId,
  revision,
  messagesJson: "[]",
});

const intentFiles = () => fs.readdirSync(path.join(dataDir, "unfinished-writes"));

describe("a write's intent", () => {
  it("left by a cut conversations write: the next write deletes the messages it recorded that no conversation holds, and no other", async () => {
    const [kept] = await store.select("conversations", "platformConversationId = 'kept'");
    // Another writer's messages between its own commits: not recorded here, so not this data dir's to delete.
    await store.write(() => store.add("messages", [messagesRow("conv_elsewhere", 1)]));
    await store.write(async () => {
      store.intend({ rows: "conversations", userId, ids: ["conv_cut", kept!.id] });
      await store.add("messages", [messagesRow("conv_cut", 1), messagesRow(kept!.id, 2)]);
    });
    expect(intentFiles()).toHaveLength(1);
    await store.write(async () => undefined);
    const ids = (await store.select("messages", "true", { columns: ["id"] })).map((row) => row.id).sort();
    expect(ids).toEqual([`${kept!.id}:1`, "conv_elsewhere:1"].sort());
    expect(intentFiles()).toEqual([]);
    await store.write(() => store.delete("messages", "id = 'conv_elsewhere:1'"));
  });

  it("left by a cut memory write: the next write deletes the versions of the recorded memories that are not stored, and those past a stored one's version (an edit cut short)", async () => {
    const { memoryId: id } = await service.memories.store({ text: "The spare key is under the blue flowerpot" });
    await store.write(async () => undefined); // absorbed from the journal
    const before = await store.count("memoryHistory", `memoryId = '${id}'`);
    const version = (memoryId: string) => ({
      id: `hist_${memoryId}`,
      userId,
      memoryId,
      version: 2,
      text: "a version",
      bucketId: 0,
      changedAt: "2024-05-01T10:00:00.000Z",
    });
    await store.write(async () => {
      store.intend({ rows: "memories", userId, ids: ["mem_cut", id] });
      await store.add("memoryHistory", [version("mem_cut"), version(id)]);
    });
    await store.write(async () => undefined);
    expect(await store.count("memoryHistory", "memoryId = 'mem_cut'")).toBe(0);
    expect(before).toBe(1);
    expect(await store.count("memoryHistory", `memoryId = '${id}'`)).toBe(before);
    expect(intentFiles()).toEqual([]);
  });

  it("left by a cut move to the trash: the next write deletes the trash entries of what is still stored", async () => {
    const [kept] = await store.select("conversations", "platformConversationId = 'kept'");
    const entry = (id: string, itemId: string) => ({
      id,
      userId,
      kind: "conversation" as const,
      itemId,
      title: "Kept",
      detail: "custom · 1 message",
      deletedAt: "2024-05-02T10:00:00.000Z",
      entryJson: "{}",
    });
    await store.write(async () => {
      store.intend({ rows: "trash", userId, ids: ["trs_cut", "trs_moved"] });
      await store.add("trash", [entry("trs_cut", kept!.id), entry("trs_moved", "conv_moved")]);
    });
    await store.write(async () => undefined);
    expect((await store.select("trash", "true", { columns: ["id"] })).map((row) => row.id)).toEqual(["trs_moved"]);
    expect(intentFiles()).toEqual([]);
  });

  it("left by a move to the trash cut after the chunks went: the move is undone and the conversation indexed again, found by search", async () => {
    app.indexer.start();
    const { conversationId } = await service.conversations.upload({
      conversation: {
        id: "moved-half",
        title: "Boiler service",
        createdAt: "2024-05-01T10:00:00Z",
        messages: [{ id: "m1", role: "human", content: "The boiler is serviced every October by Mr Okafor" }],
      },
    });
    await settled(service);
    const found = async () => (await service.search({ query: "boiler serviced October" })).results.map((hit) => hit.conversationId);
    expect(await found()).toContain(conversationId);
    // moveConversations up to its first deletion: the trash entry in, the chunks out, then cut.
    await store.write(async () => {
      store.intend({ rows: "trash", userId, ids: ["trs_half"] });
      await store.add("trash", [
        {
          id: "trs_half",
          userId,
          kind: "conversation",
          itemId: conversationId,
          title: "Boiler service",
          detail: "custom · 1 message",
          deletedAt: "2024-05-02T10:00:00.000Z",
          entryJson: "{}",
        },
      ]);
      store.intend({ rows: "conversations", userId, ids: [conversationId] });
      await store.delete("chunks", { conversationId });
    });
    expect(await found()).not.toContain(conversationId);
    await store.write(async () => undefined);
    expect(await store.count("trash", { id: "trs_half" })).toBe(0);
    await settled(service);
    expect(await found()).toContain(conversationId);
    expect(intentFiles()).toEqual([]);
    await app.indexer.stop();
  });

  it("cut before its record was whole is dropped: nothing was committed after it", async () => {
    fs.writeFileSync(path.join(dataDir, "unfinished-writes", "1-cut.json"), '{"rows":"conversations","userId":"u');
    await store.write(async () => undefined);
    expect(intentFiles()).toEqual([]);
    expect(await store.count("conversations", "true")).toBe(2);
  });
});
