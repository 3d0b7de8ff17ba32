import type { UploadConversation } from "../../schemas/chat-history.js";

/**
 * Conversations sent per upload call, at most: each call costs ~20 ms of store work whatever its
 * size (200 instead of 50 stored 2,000 conversations in 1.1 s instead of 1.7).
 */
export const BATCH_CONVERSATIONS = 200;
/** Message characters per upload call, at most: a batch of long conversations stays a few MB. */
export const BATCH_CHARS = 2_000_000;

/** The characters of a conversation's messages, as a batch counts them. */
export function messageChars(upload: UploadConversation): number {
  return upload.conversation.messages.reduce((sum, message) => sum + message.content.length, 0);
}
