import type { QueueStatus } from "./chat-history.js";

type Counts = QueueStatus["counts"];

/**
 * No conversation in any state, excluded ones too: a new user's store, where "nothing found" would
 * be read (and told by an assistant) as "you never talked about it". Zod-free, for the CLI's start.
 */
export function nothingImported(counts: Counts): boolean {
  return Object.values(counts).every((count) => count === 0);
}

/** Conversations imported and not indexed yet: not searched until they are. */
export function awaitingIndex(counts: Counts): number {
  return counts.queued + counts.processing;
}
