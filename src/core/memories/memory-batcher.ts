import { parseInput } from "../../schemas/parse.js";
import { StoreMemoryRequest, type StoreMemoryResponse } from "../../schemas/memories.js";
import { GroupCommit, groupCommitPer, type Outcome } from "../../shared/group-commit.js";
import type { CoreContext } from "../context.js";
import { insertWhereBucketsExist, memoryRows } from "./memories.js";

/** Memories stored together at most: one embedding batch of 64 short texts takes ~50 ms. */
const MAX_BATCH = 64;
/** Batches at once: one is embedded while the one before it is written. */
const IN_FLIGHT = 2;

interface Pending {
  userId: string;
  request: ReturnType<typeof StoreMemoryRequest.parse>;
}

const batcherOf = groupCommitPer(
  (ctx: CoreContext) =>
    new GroupCommit<Pending, StoreMemoryResponse>(
      (userId, items) => storeBatch(ctx, userId, items),
      (item) => item.userId,
      MAX_BATCH,
      IN_FLIGHT,
    ),
);

/**
 * One memory (POST /api/memory), stored with group commit (shared/group-commit.ts): requests that
 * arrive while a write is under way are embedded in one batch and written in one commit. One per
 * request, 200 connections wrote ~23 memories/s with a median wait of 5.4 s: each write embedded
 * one text and took the store's write lock for two commits of its own. Validation comes first,
 * and a bucket that does not exist fails its own requests only.
 */
export async function storeMemoryBatched(ctx: CoreContext, userId: string, input: unknown): Promise<StoreMemoryResponse> {
  const request = parseInput(StoreMemoryRequest, input);
  return batcherOf(ctx).add({ userId, request });
}

async function storeBatch(ctx: CoreContext, userId: string, items: Pending[]): Promise<Outcome<StoreMemoryResponse>[]> {
  const rows = await memoryRows(
    ctx,
    userId,
    items.map((item) => item.request),
  );
  const refused = await insertWhereBucketsExist(ctx, userId, rows);
  return rows.map((row) => {
    const error = refused.get(row.bucketId);
    return error ? { ok: false, error } : { ok: true, value: { done: "ok", memoryId: row.id } };
  });
}
