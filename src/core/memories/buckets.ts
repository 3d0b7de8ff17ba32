import { parseInput } from "../../schemas/parse.js";
import { CreateBucketRequest, ListBucketsQuery, type Bucket, type CreateBucketResponse } from "../../schemas/memories.js";
import type { BucketRow } from "../../store/rows.js";
import { sameBucketName } from "../../text/bucket-names.js";
import type { CoreContext } from "../context.js";
import { AppError } from "../../shared/errors.js";
import { cachedBucketRows, DEFAULT_BUCKET, listBucketRows } from "./bucket-rows.js";
import { besideMemoryJournal, notYetStored } from "./pending-memories.js";

export { cachedBucketRows, DEFAULT_BUCKET, listBucketRows };

/** The user's buckets with their memory counts, those still in the store's journal counted in. */
export async function listBuckets(ctx: CoreContext, userId: string, query: unknown = {}): Promise<Bucket[]> {
  parseInput(ListBucketsQuery, query);
  return besideMemoryJournal(
    ctx,
    userId,
    async (pending, moved) => {
      const stored = await ctx.store.memo(`buckets:${userId}`, ["buckets", "memories"], async () => {
        const rows = await listBucketRows(ctx, userId);
        const counts = await Promise.all(rows.map((row) => ctx.store.count("memories", { userId, bucketId: row.id })));
        return rows.map((row, index) => ({ row, count: counts[index] ?? 0 }));
      });
      // A memory absorbed while this ran is counted in the table already.
      const journalled = await notYetStored(ctx, pending, moved);
      return stored.map(({ row, count }) => {
        const inJournal = journalled.filter((memory) => memory.bucketId === row.id).length;
        return toBucket(row, count + inJournal);
      });
    },
    "rows",
  );
}

export async function createBucket(ctx: CoreContext, userId: string, input: CreateBucketRequest): Promise<CreateBucketResponse> {
  const request = parseInput(CreateBucketRequest, input);
  const row = await ctx.store.write(async () => {
    const existing = await listBucketRows(ctx, userId);
    const clash = findByName(existing, request.name);
    if (clash) {
      // The one that exists, by its own name: it may differ in case or in how its letters are encoded.
      throw new AppError("conflict", `A bucket named "${clash.name}" already exists`, {
        details: { field: "name" },
        suggestion: "Choose another name, or use the existing bucket.",
      });
    }
    return insertBucket(ctx, userId, existing, request.name, request.description);
  });
  ctx.afterWrite();
  return { message: "Bucket created successfully", bucket: toBucket(row, 0) };
}

/** The default bucket every user has; creates it on first use. Call inside `store.write`. */
export async function ensureDefaultBucket(ctx: CoreContext, userId: string): Promise<void> {
  const existing = await listBucketRows(ctx, userId);
  if (existing.some((row) => row.id === DEFAULT_BUCKET.id)) return;
  await ctx.store.add("buckets", [
    { userId, id: DEFAULT_BUCKET.id, name: DEFAULT_BUCKET.name, description: null, createdAt: ctx.now().toISOString() },
  ]);
}

/**
 * Whether a memory of `rows` goes to the default bucket and `ids` (the user's buckets) lack it. Every
 * user has one, but another process adding the user commits its row first and the bucket just after
 * (two writers on a new store refused a memory in between), and a process killed between the two
 * leaves it out: the writer then makes it (ensureDefaultBucket) rather than refuse.
 */
export const lacksDefaultBucket = (ids: Set<number>, rows: readonly { bucketId: number }[]): boolean =>
  !ids.has(DEFAULT_BUCKET.id) && rows.some((row) => row.bucketId === DEFAULT_BUCKET.id);

/**
 * The bucket a memory goes to: `bucketId` must exist; `bucketName` is created when missing.
 * Call inside `store.write` (it may create a bucket).
 */
export async function resolveTargetBucket(
  ctx: CoreContext,
  userId: string,
  target: { bucketId?: number | undefined; bucketName?: string | undefined },
): Promise<BucketRow> {
  const existing = await listBucketRows(ctx, userId);
  if (target.bucketName !== undefined) {
    return findByName(existing, target.bucketName) ?? insertBucket(ctx, userId, existing, target.bucketName, null);
  }
  const id = target.bucketId ?? DEFAULT_BUCKET.id;
  const row = existing.find((bucket) => bucket.id === id);
  if (!row) throw bucketNotFound(id, { create: "bucketName" });
  return row;
}

/** The bucket `id` of a new memory, which must exist: storing takes no bucketName (spec §4.1). Call inside `store.write`. */
/**
 * How the caller gets a bucket that is missing: `bucketName` in the same request (an update), by
 * creating it `first` (a new memory), or not at all (a listing).
 */
export function bucketNotFound(id: number, { create }: { create?: "bucketName" | "first" } = {}): AppError {
  const how = {
    bucketName: ", or pass bucketName to create one",
    first: ", or create one first with `mnemo buckets create <name>` (POST /api/buckets)",
  };
  return new AppError("not_found", `bucketId: bucket ${id} does not exist`, {
    details: { field: "bucketId" },
    suggestion: `List your buckets with \`mnemo buckets\` (GET /api/buckets)${create ? how[create] : ""}.`,
  });
}

export function findByName(rows: BucketRow[], name: string): BucketRow | undefined {
  return rows.find((row) => sameBucketName(row.name, name));
}

async function insertBucket(
  ctx: CoreContext,
  userId: string,
  existing: BucketRow[],
  name: string,
  description: string | null | undefined,
): Promise<BucketRow> {
  const id = Math.max(DEFAULT_BUCKET.id, ...existing.map((row) => row.id)) + 1;
  const row: BucketRow = { userId, id, name: name.trim(), description: description ?? null, createdAt: ctx.now().toISOString() };
  await ctx.store.add("buckets", [row]);
  return row;
}

export function toBucket(row: BucketRow, memoryCount: number): Bucket {
  return {
    id: String(row.id),
    name: row.name,
    ...(row.description ? { description: row.description } : {}),
    memoryCount,
  };
}
