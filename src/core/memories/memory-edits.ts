import type { z } from "zod";
import { parseInput } from "../../schemas/parse.js";
import {
  BulkDeleteRequest,
  MEMORY_ID_PATTERN,
  MemoryId,
  StoreMemoryRequest,
  UpdateMemoryRequest,
  type BulkDeleteResponse,
  type BulkMoveResponse,
  type DeleteMemoryResponse,
  type UpdateSingleResponse,
} from "../../schemas/memories.js";
import type { BucketRow, MemoryRow } from "../../store/rows.js";
import type { Where } from "../../store/where.js";
import { resolveTargetBucket } from "./buckets.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { removeImageFiles } from "./images.js";
import { historySnapshot, memoryNotFound } from "./memories.js";

type UpdateBody = z.output<typeof UpdateMemoryRequest>;
type Target = { bucketId?: number | undefined; bucketName?: string | undefined };

/** POST /api/v2/memory/update: the single edit form or the bulk move form (same rules as update_or_move_memories). */
export async function updateMemories(ctx: CoreContext, userId: string, input: unknown): Promise<UpdateSingleResponse | BulkMoveResponse> {
  const body = parseInput(UpdateMemoryRequest, input);
  if (body.memoryId !== undefined && body.memoryIds !== undefined) {
    throw AppError.invalid("memoryIds", "send memoryId or memoryIds, never both");
  }
  if (body.bucketId !== undefined && body.bucketName !== undefined) {
    throw AppError.invalid("bucketName", "send bucketId or bucketName, not both");
  }
  if (body.memoryIds !== undefined) return bulkMove(ctx, userId, body);
  if (body.memoryId === undefined) throw AppError.invalid("memoryId", "is required (or memoryIds for a bulk move)");
  return updateOne(ctx, userId, body, body.memoryId);
}

async function updateOne(ctx: CoreContext, userId: string, body: UpdateBody, rawId: string): Promise<UpdateSingleResponse> {
  const memoryId = parseInput(MemoryId, rawId, "memoryId");
  if (body.text === undefined && body.bucketId === undefined && body.bucketName === undefined) {
    throw AppError.invalid("memoryId", "alone changes nothing: send text, bucketId or bucketName with it");
  }
  const text = body.text === undefined ? undefined : parseInput(StoreMemoryRequest.shape.text, body.text, "text");
  // Embed before taking the write lock: it is the slow part and needs no lock.
  const vector = text === undefined ? undefined : await ctx.embedder.embedDocuments([text], { urgent: true }).then((v) => v[0]!);
  const updated = await ctx.store.write(async () => {
    const [row] = await findOwned(ctx, userId, [memoryId]);
    if (!row) throw memoryNotFound(memoryId);
    const bucket = body.bucketId !== undefined || body.bucketName !== undefined ? await resolveTargetBucket(ctx, userId, body) : undefined;
    const next = applyChange(ctx, row, { text, vector, bucketId: bucket?.id });
    if (next !== row) await saveVersions(ctx, [next]);
    return next;
  });
  ctx.afterWrite();
  const { id, bucketId, version, updatedAt, createdAt } = updated;
  return { success: true, memory: { id, text: updated.text, bucketId, version, updatedAt, createdAt } };
}

/** Moves 1–100 memories; if any id cannot be resolved nothing moves and the ids come back in `rejectedIds`. */
async function bulkMove(ctx: CoreContext, userId: string, body: UpdateBody): Promise<BulkMoveResponse> {
  const ids = [...new Set(body.memoryIds ?? [])];
  if (body.text !== undefined) throw AppError.invalid("text", "a bulk move (memoryIds) cannot change text; edit memories one at a time");
  if (body.bucketId === undefined && body.bucketName === undefined) {
    throw AppError.invalid("bucketId", "a bulk move needs bucketId or bucketName");
  }
  const target: Target = body;
  const { moved, bucket } = await ctx.store.write(async () => {
    const rows = await findOwned(
      ctx,
      userId,
      ids.filter((id) => MEMORY_ID_PATTERN.test(id)),
    );
    const found = new Set(rows.map((row) => row.id));
    const rejectedIds = ids.filter((id) => !found.has(id));
    if (rejectedIds.length > 0) {
      throw new AppError("not_found", "Some memory IDs could not be resolved", {
        details: { rejectedIds },
        suggestion: "Retry with the ids that exist.",
      });
    }
    const bucket: BucketRow = await resolveTargetBucket(ctx, userId, target);
    const changed = rows.filter((row) => row.bucketId !== bucket.id).map((row) => applyChange(ctx, row, { bucketId: bucket.id }));
    await saveVersions(ctx, changed);
    return { moved: changed.length, bucket };
  });
  ctx.afterWrite();
  return { success: true, updated: moved, bucketId: bucket.id };
}

/** The next version of a memory, or the same row when nothing actually changes. */
export function applyChange(
  ctx: CoreContext,
  row: MemoryRow,
  change: { text?: string | undefined; vector?: Float32Array | undefined; bucketId?: number | undefined },
): MemoryRow {
  const textChanged = change.text !== undefined && change.text !== row.text;
  const bucketChanged = change.bucketId !== undefined && change.bucketId !== row.bucketId;
  if (!textChanged && !bucketChanged) return row;
  return {
    ...row,
    ...(textChanged ? { text: change.text!, vector: change.vector!, ...descriptionOf(row, change.text!) } : {}),
    ...(bucketChanged ? { bucketId: change.bucketId! } : {}),
    version: row.version + 1,
    updatedAt: ctx.now().toISOString(),
  };
}

/** An image memory's text is its description (spec §2: both are "the description"), so they change together. */
function descriptionOf(row: MemoryRow, text: string): Pick<MemoryRow, "imageDescription"> | Record<string, never> {
  return row.contentType === "image" ? { imageDescription: text } : {};
}

/** The history first, as when a memory is stored: a crash between the commits loses no text. */
export async function saveVersions(ctx: CoreContext, rows: MemoryRow[]): Promise<void> {
  if (rows.length === 0) return;
  // A version past its memory's, which a cut between the commits leaves, is deleted by the next write.
  const done = ctx.store.intend({ rows: "memories", userId: rows[0]!.userId, ids: rows.map((row) => row.id) });
  await ctx.store.add("memoryHistory", rows.map(historySnapshot));
  await ctx.store.upsert("memories", "id", rows);
  done();
}

async function imageFilesOf(ctx: CoreContext, scope: Where<"memories">): Promise<(string | null)[]> {
  const rows = await ctx.store.select("memories", { ...scope, contentType: "image" }, { columns: ["imageFile"] });
  return rows.map((row) => row.imageFile);
}

async function findOwned(ctx: CoreContext, userId: string, ids: string[]): Promise<MemoryRow[]> {
  if (ids.length === 0) return [];
  return ctx.store.select("memories", { userId, id: ids });
}

/** DELETE /api/memories/{memoryId}: the memory, its vector and its history go. */
export async function deleteMemory(ctx: CoreContext, userId: string, rawId: string): Promise<DeleteMemoryResponse> {
  const memoryId = parseInput(MemoryId, rawId, "memoryId");
  const deleted = await ctx.store.write(() => removeMemories(ctx, userId, [memoryId]));
  if (deleted === 0) throw memoryNotFound(memoryId);
  ctx.afterWrite();
  return { message: "Memory deleted" };
}

/** Removes the user's memories of these ids, their history and image files; inside `store.write`. How many went. */
export async function removeMemories(ctx: CoreContext, userId: string, ids: string[]): Promise<number> {
  const scope = { userId, id: ids };
  const files = await imageFilesOf(ctx, scope);
  const done = ctx.store.intend({ rows: "memories", userId, ids });
  const count = await ctx.store.delete("memories", scope);
  if (count > 0) await ctx.store.delete("memoryHistory", { userId, memoryId: ids });
  done();
  await removeImageFiles(ctx, files);
  return count;
}

/**
 * POST /api/memories/bulk-delete. Unknown ids are skipped (so deletedCount can be lower);
 * malformed ids and failed batches are reported in `errors`; a partial failure is still a result.
 */
export async function bulkDeleteMemories(ctx: CoreContext, userId: string, input: unknown): Promise<BulkDeleteResponse> {
  const { memoryIds } = parseInput(BulkDeleteRequest, input);
  const ids = [...new Set(memoryIds)];
  const valid = ids.filter((id) => MEMORY_ID_PATTERN.test(id));
  const errors: BulkDeleteResponse["errors"] = ids
    .filter((id) => !MEMORY_ID_PATTERN.test(id))
    .map((memoryId) => ({ memoryId, error: "not a memory id" }));
  const scope = { userId, id: valid };
  const deletedCount = await ctx.store.write(async () => {
    let count = 0;
    // Not cleared when the history is not deleted: the next write deletes it.
    const done = ctx.store.intend({ rows: "memories", userId, ids: valid });
    try {
      const files = await imageFilesOf(ctx, scope);
      count = await ctx.store.delete("memories", scope);
      await removeImageFiles(ctx, files);
    } catch {
      // The store's own message would tell a client about our internals; the batch is what failed.
      errors.push({ memoryId: "vector_bulk", error: "The memories could not be deleted; none of them was removed" });
      return 0;
    }
    try {
      await ctx.store.delete("memoryHistory", { userId, memoryId: valid });
      done();
    } catch {
      errors.push({ memoryId: "database_bulk", error: "The memories were deleted, but their version history could not be" });
    }
    return count;
  });
  ctx.afterWrite();
  return { message: "Memories deleted", deletedCount, errors };
}
