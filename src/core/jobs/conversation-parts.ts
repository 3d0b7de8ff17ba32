import type { UploadConversation } from "../../schemas/chat-history.js";
import { MAX_CONVERSATION_TOKENS, MAX_ID_CHARS, MAX_TITLE_CHARS } from "../../schemas/limits.js";
import { utcMillis } from "../../shared/time.js";
import type { Tokenizer } from "../../text/tokens.js";
import { messageTokens } from "../chat-history/chunking.js";

/**
 * An export's conversation as uploads that each hold at most the 100,000 tokens a conversation may
 * have: the spec rejects a longer one, which would leave a user's longest conversations (a day of
 * coding, a Gemini session without a pause) out of search and recall. Parts are runs of whole
 * messages, cut where the next would pass the limit, so the parts before a conversation's last keep
 * their messages when it grows. The first keeps the conversation's id and title, so a conversation
 * stored whole (or rejected) before is replaced by it; the others are "<id> (part 2)", "<title>
 * (part 2)". A single message over the limit stays a part of its own, rejected as before. Only a
 * complete upload (an export's) is cut: one that adds to what was stored may hold the new messages
 * alone, and its first part would replace the rest.
 */
export function conversationParts(upload: UploadConversation, tokenizer: Tokenizer): UploadConversation[] {
  const { messages } = upload.conversation;
  if (upload.complete !== true) return [upload];
  // A token is at least one byte of UTF-8: messages of at most the limit in bytes need no count.
  if (messages.reduce((bytes, message) => bytes + Buffer.byteLength(message.content), 0) <= MAX_CONVERSATION_TOKENS) return [upload];
  const runs: (typeof messages)[] = [[]];
  let tokens = 0;
  for (const message of messages) {
    const count = messageTokens(message.content, tokenizer);
    if (tokens + count > MAX_CONVERSATION_TOKENS && runs.at(-1)!.length > 0) {
      runs.push([]);
      tokens = 0;
    }
    runs.at(-1)!.push(message);
    tokens += count;
  }
  if (runs.length === 1) return [upload];
  return runs.map((run, i) => (i === 0 ? withMessages(upload, run) : part(withMessages(upload, run), i + 1)));
}

const withMessages = (upload: UploadConversation, messages: UploadConversation["conversation"]["messages"]): UploadConversation => ({
  ...upload,
  conversation: { ...upload.conversation, messages },
});

/** Part `n` of a conversation: its id and title with " (part n)", cut to their limits to make room. */
function part(upload: UploadConversation, n: number): UploadConversation {
  const suffix = ` (part ${n})`;
  const { conversation } = upload;
  const createdAt = conversation.messages[0]?.createdAt ?? conversation.createdAt;
  return {
    ...upload,
    conversation: {
      ...conversation,
      id: `${cut(conversation.id, MAX_ID_CHARS - suffix.length)}${suffix}`,
      title: `${cut(conversation.title, MAX_TITLE_CHARS - suffix.length)}${suffix}`,
      createdAt,
      // The conversation's updatedAt may be before a later part's first message: never before the part starts.
      ...(conversation.updatedAt === undefined ? {} : { updatedAt: later(conversation.updatedAt, createdAt) }),
    },
  };
}

function later(a: string, b: string | undefined): string {
  return b !== undefined && utcMillis(b) > utcMillis(a) ? b : a;
}

/** The first `max` characters (code points, as the upload's limits count them). */
const cut = (text: string, max: number): string => {
  const characters = [...text];
  return characters.length <= max ? text : characters.slice(0, max).join("");
};
