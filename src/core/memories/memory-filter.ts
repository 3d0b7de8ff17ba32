import type { ContentType, MemoryRow } from "../../store/rows.js";
import type { Where } from "../../store/where.js";

/** Which of a user's memories a listing or a search covers: the table reads it as SQL, rows in memory as a test. */
export interface MemoryFilter {
  userId: string;
  bucketId?: number | undefined;
  contentType?: ContentType | undefined;
  /** Stored at or after / before these times (ISO). */
  from?: string | undefined;
  to?: string | undefined;
}

export function filterWhere(filter: MemoryFilter): Where<"memories"> {
  return {
    userId: filter.userId,
    bucketId: filter.bucketId,
    contentType: filter.contentType,
    createdAt: { from: filter.from, to: filter.to },
  };
}

export function filterTest(filter: MemoryFilter): (row: Pick<MemoryRow, "userId" | "bucketId" | "contentType" | "createdAt">) => boolean {
  return (row) =>
    row.userId === filter.userId &&
    (filter.bucketId === undefined || row.bucketId === filter.bucketId) &&
    (filter.contentType === undefined || row.contentType === filter.contentType) &&
    (filter.from === undefined || row.createdAt >= filter.from) &&
    (filter.to === undefined || row.createdAt <= filter.to);
}
