import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { insertMemoryRows, memoryRows } from "../../../src/core/memories/memories.js";
import { MEMORY_COLUMNS, memoryIndex } from "../../../src/core/memories/memory-index.js";
import { cosine } from "../../../src/core/retrieval/hybrid-search.js";
import { openTestApp, tempDir } from "../../helpers.js";

// The memory index answers memory search's vector leg and hands out the rows and vectors it keeps
// (core/memories/memory-index.ts): through adds, edits (a new version replaces the old) and
// deletions, and the compaction that drops removed slots once they outnumber the live ones, each
// memory must keep its own row and vector, and the nearest must be what comparing every memory of
// the table finds.

let app: App;
let service: MnemoService;
let userId: string;

beforeAll(async () => {
  app = await openTestApp({ store: tempDir() });
  service = await app.service();
  userId = (await app.users.resolve("default")).id;
});
afterAll(async () => {
  await app.close();
});

/** Deterministic vectors of the store's dimensions, spread over the sphere (mulberry32). */
function randomVectors(count: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: app.context.embedder.dims }, next));
}

async function addMemories(count: number, seed: number): Promise<string[]> {
  const requests = Array.from({ length: count }, (_, i) => ({ text: `Note ${seed}-${i} about the allotment`, bucketId: 1 }));
  const rows = await memoryRows(app.context, userId, requests as Parameters<typeof memoryRows>[2], randomVectors(count, seed));
  await insertMemoryRows(app.context, userId, rows);
  return rows.map((row) => row.id);
}

/** The index against every memory of the table: the same rows, vectors and nearest, in the same order. */
async function expectIndexMatchesTable(queries: Float32Array[]): Promise<void> {
  const table = await app.context.store.select("memories", { userId }, { columns: [...MEMORY_COLUMNS, "vector"] });
  const index = await memoryIndex(app.context, userId);
  expect(index.size).toBe(table.length);
  for (const row of table) {
    const kept = index.get(row.id);
    expect(kept?.version).toBe(row.version);
    expect(kept?.text).toBe(row.text);
    expect(Array.from(kept?.vector ?? [])).toEqual(Array.from(row.vector));
  }
  for (const query of [...queries, ...table.slice(0, 5).map((row) => row.vector)]) {
    const expected = table
      .map((row) => ({ id: row.id, similarity: cosine(query, row.vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, 10);
    const nearest = index.nearest(query, () => true, 10);
    expect(nearest.map(({ memory }) => memory.id)).toEqual(expected.map(({ id }) => id));
    nearest.forEach(({ similarity }, i) => expect(similarity).toBeCloseTo(expected[i]!.similarity, 5));
  }
}

describe("the memory index", () => {
  it("keeps each memory's row and vector, and finds the nearest as comparing every memory does, through adds, edits, deletions and compaction", async () => {
    const queries = randomVectors(4, 99);
    const first = await addMemories(40, 1);
    await expectIndexMatchesTable(queries);

    for (const memoryId of first.slice(0, 8)) await service.memories.update({ memoryId, text: `Edited ${memoryId}: the shed key moved` });
    await expectIndexMatchesTable(queries);

    // 8 edited and 24 deleted: more slots removed than live ones, so the index compacts.
    expect((await service.memories.bulkDelete({ memoryIds: first.slice(10, 34) })).deletedCount).toBe(24);
    await expectIndexMatchesTable(queries);

    await addMemories(50, 2);
    await expectIndexMatchesTable(queries);
  });
});
