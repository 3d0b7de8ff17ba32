// Message ids must be unique within a conversation: the store keys messages by them, so a repeat
// replaces the message before it and that message is lost without a word.
import { sameMessage, type UploadMessage } from "../schemas/chat-history.js";
import { MAX_ID_CHARS } from "../schemas/limits.js";
import { derivedId } from "./derived-id.js";

/**
 * An id an upload takes: one longer than it allows (a damaged export's) becomes one derived from it,
 * the same at every import, rather than the whole conversation refused for one message's id.
 */
export function fittingId(id: string): string {
  return id.length <= MAX_ID_CHARS ? id : derivedId("id", [id]);
}

/** The messages with repeated ids numbered: the second `m1` becomes `m1-2`, the third `m1-3`. */
export function uniqueIds(messages: UploadMessage[]): UploadMessage[] {
  const taken = new Set(messages.map((message) => message.id));
  const seen = new Map<string, number>();
  // Where each id's numbering goes on: a number found taken is not tried again. Tried from the count
  // each time, 20,000 repeats of `m` after messages m-2 … m-20001 took 30 s to 3 minutes.
  const next = new Map<string, number>();
  return messages.map((message) => {
    const count = (seen.get(message.id) ?? 0) + 1;
    seen.set(message.id, count);
    if (count === 1) return message;
    let n = Math.max(count, next.get(message.id) ?? 0);
    while (taken.has(`${message.id}-${n}`)) n++;
    next.set(message.id, n + 1);
    const id = `${message.id}-${n}`;
    taken.add(id);
    return { ...message, id };
  });
}

/** The messages without a repeat of one before it (the same id, sender, text and time): sent twice, kept once. */
export function withoutRepeats(messages: UploadMessage[]): UploadMessage[] {
  const first = new Map<string, UploadMessage>();
  return messages.filter((message) => {
    const earlier = first.get(message.id);
    if (!earlier) first.set(message.id, message);
    return !earlier || !sameMessage(earlier, message);
  });
}
