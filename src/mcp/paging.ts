/**
 * Pages past the end, the same way for every tool that pages: the REST twin answers an empty page
 * (the spec's list does), but "Page 999 of 14" or "no memories here" reads to a model as an empty
 * store. The tool answers an error that names the argument and the pages there are.
 */
import type { ConversationDetail, ListChatsResponse } from "../schemas/chat-history.js";
import type { MemoryHistoryResponse, V2MemoryResponse } from "../schemas/memories.js";
import { AppError } from "../shared/errors.js";

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

export function listPastTheEnd(result: ListChatsResponse): AppError | undefined {
  if (result.items.length > 0 || result.page <= result.totalPages || result.total === 0) return undefined;
  return AppError.invalid(
    "page",
    `is past the last page: ${plural(result.total, "conversation")} make ${plural(result.totalPages, "page")} of ${result.pageSize}`,
    `Ask for page 1 to ${result.totalPages}.`,
  );
}

/**
 * How many memories a listing pages through, when the buckets' counts tell it: all of them, or
 * one bucket's; not with a content type or dates.
 */
export function memoriesInView(
  result: V2MemoryResponse,
  args: { bucketId?: number | undefined; contentType?: string | undefined; dateFrom?: string | undefined; dateTo?: string | undefined },
): number | undefined {
  if (args.contentType !== undefined || args.dateFrom !== undefined || args.dateTo !== undefined) return undefined;
  const buckets = args.bucketId === undefined ? result.buckets : result.buckets.filter((bucket) => bucket.id === String(args.bucketId));
  return buckets.reduce((sum, bucket) => sum + bucket.memoryCount, 0);
}

export function memoriesPastTheEnd(
  result: V2MemoryResponse,
  args: Parameters<typeof memoriesInView>[1] & { skip: number },
): AppError | undefined {
  if (result.memories.length > 0 || args.skip === 0) return undefined;
  const total = memoriesInView(result, args);
  if (total === 0) return undefined;
  return AppError.invalid(
    "skip",
    total === undefined
      ? "is past the last memory that matches"
      : `is past the last memory: there ${total === 1 ? "is" : "are"} ${plural(total, "memory", "memories")}`,
    total === undefined ? "Ask with skip 0, or a smaller skip." : `Ask with skip 0 to ${total - 1}.`,
  );
}

export function historyPastTheEnd(result: MemoryHistoryResponse, args: { skip: number }): AppError | undefined {
  if (result.versions.length > 0 || args.skip === 0) return undefined;
  return AppError.invalid(
    "skip",
    `is past the last version: the memory has ${plural(result.total, "version")}`,
    `Ask with skip 0 to ${result.total - 1}.`,
  );
}

export function conversationPastTheEnd(result: ConversationDetail, args: { offset: number }): AppError | undefined {
  if (result.messages.length > 0 || args.offset === 0 || result.total === 0) return undefined;
  return AppError.invalid(
    "offset",
    `is past the last message: the conversation has ${plural(result.total, "message")}`,
    `Ask with offset 0 to ${result.total - 1}.`,
  );
}
