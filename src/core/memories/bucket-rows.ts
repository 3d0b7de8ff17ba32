import type { BucketRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";

export const DEFAULT_BUCKET = { id: 1, name: "General" } as const;

export async function listBucketRows(ctx: CoreContext, userId: string): Promise<BucketRow[]> {
  const rows = await ctx.store.select("buckets", { userId });
  return rows.sort((a, b) => a.id - b.id);
}

/** The same, reused until the buckets table changes: for read paths (inside `write`, read afresh). */
export function cachedBucketRows(ctx: CoreContext, userId: string): Promise<BucketRow[]> {
  return ctx.store.memo(`bucket-rows:${userId}`, ["buckets"], () => listBucketRows(ctx, userId));
}
