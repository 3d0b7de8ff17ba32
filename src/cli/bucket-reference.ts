import type { Bucket } from "../schemas/memories.js";
import { sameBucketName } from "../text/bucket-names.js";
import { AppError } from "../shared/errors.js";

/**
 * The bucket a person means by `reference` (a name or an id, as the CLI takes it): a name first, then
 * a numeric id. Every bucket has a name, so every bucket stays reachable, one called "2024" or "1"
 * included; General is also `General`.
 */
export function findBucket(buckets: readonly Bucket[], reference: string): Bucket | undefined {
  const byName = buckets.find((bucket) => sameBucketName(bucket.name, reference));
  if (byName || !/^\d+$/.test(reference.trim())) return byName;
  return buckets.find((bucket) => bucket.id === String(Number(reference)));
}

/**
 * Where a move to `reference` goes: a bucket that exists, else a new bucket of that name. A number
 * that is neither a name nor an id is refused, so a mistyped id does not become a bucket called "12".
 */
export function moveTarget(buckets: readonly Bucket[], reference: string): { bucketId: number } | { bucketName: string } {
  const bucket = findBucket(buckets, reference);
  if (bucket) return { bucketId: Number(bucket.id) };
  if (/^\d+$/.test(reference.trim())) throw bucketReferenceNotFound(reference);
  return { bucketName: reference };
}

/** Neither a bucket's name nor its id: only then is creating it the way out. */
export function bucketReferenceNotFound(reference: string): AppError {
  return new AppError("not_found", `bucket "${reference}" does not exist`, {
    details: { field: "bucket" },
    suggestion: `Create it with \`mnemo buckets create "${reference}"\`, or list buckets with \`mnemo buckets\`.`,
  });
}
