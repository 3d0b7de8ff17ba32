import { parseInput } from "../../schemas/parse.js";
import { BucketIdParam, RenameBucketRequest, type DeleteBucketResponse, type RenameBucketResponse } from "../../schemas/memories.js";
import { AppError } from "../../shared/errors.js";
import type { CoreContext } from "../context.js";
import { bucketNotFound, DEFAULT_BUCKET, findByName, listBucketRows, toBucket } from "./buckets.js";
import { applyChange, saveVersions } from "./memory-edits.js";

/**
 * Renaming and deleting buckets: additions to the API (the spec only lists and creates them), for
 * the web app's Buckets page, `mnemo buckets rename|delete` and PATCH/DELETE /api/buckets/{id}.
 */

/** A new name and/or description; the name must not be another bucket's. Bucket 1 can be renamed too. */
export async function renameBucket(ctx: CoreContext, userId: string, rawId: unknown, input: unknown): Promise<RenameBucketResponse> {
  const id = parseInput(BucketIdParam, rawId, "bucketId");
  const request = parseInput(RenameBucketRequest, input);
  const { row, count } = await ctx.store.write(async () => {
    const rows = await listBucketRows(ctx, userId);
    const row = rows.find((bucket) => bucket.id === id);
    if (!row) throw bucketNotFound(id);
    const clash = request.name === undefined ? undefined : findByName(rows, request.name);
    if (clash && clash.id !== id) {
      throw new AppError("conflict", `A bucket named "${clash.name}" already exists`, {
        details: { field: "name" },
        suggestion: "Choose another name, or move the memories into that bucket instead.",
      });
    }
    const next = {
      ...row,
      ...(request.name !== undefined ? { name: request.name.trim() } : {}),
      ...(request.description !== undefined ? { description: request.description.trim() || null } : {}),
    };
    await ctx.store.update("buckets", { userId, id }, { name: next.name, description: next.description });
    return { row: next, count: await ctx.store.count("memories", { userId, bucketId: id }) };
  });
  ctx.afterWrite();
  return { success: true, bucket: toBucket(row, count) };
}

/**
 * Deletes a bucket; its memories move to General (bucket 1), each as a new version, as any move
 * is. General itself cannot be deleted: every memory without a bucket goes there.
 */
export async function deleteBucket(ctx: CoreContext, userId: string, rawId: unknown): Promise<DeleteBucketResponse> {
  const id = parseInput(BucketIdParam, rawId, "bucketId");
  if (id === DEFAULT_BUCKET.id) {
    throw AppError.invalid(
      "bucketId",
      `bucket ${DEFAULT_BUCKET.id} is the default bucket, where memories without a bucket go: it can be renamed but not deleted`,
    );
  }
  const moved = await ctx.store.write(async () => {
    const rows = await listBucketRows(ctx, userId);
    if (!rows.some((bucket) => bucket.id === id)) throw bucketNotFound(id);
    const memories = await ctx.store.select("memories", { userId, bucketId: id });
    // The memories first: a crash in between leaves an empty bucket to delete again, never
    // memories in a bucket that is gone.
    if (memories.length > 0)
      await saveVersions(
        ctx,
        memories.map((row) => applyChange(ctx, row, { bucketId: DEFAULT_BUCKET.id })),
      );
    await ctx.store.delete("buckets", { userId, id });
    return memories.length;
  });
  ctx.afterWrite();
  return { message: "Bucket deleted", bucketId: id, movedMemories: moved, movedTo: DEFAULT_BUCKET.id };
}
