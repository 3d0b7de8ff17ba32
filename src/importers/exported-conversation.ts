// A conversation as an app's export holds it, in the upload shape: what the converters of the apps
// that keep a conversation in one record have in common.
import type { UploadConversation, UploadMessage } from "../schemas/chat-history.js";
import { derivedId } from "./derived-id.js";
import { earliestIso, titleFrom } from "./json-values.js";
import { uniqueIds } from "./message-ids.js";
import type { RecordContext } from "./types.js";

/** What a converter found of a conversation: its fields as read (undefined when the export has none). */
export interface FoundConversation {
  id: string | undefined;
  title: unknown;
  createdAt: string | undefined;
  updatedAt?: string | undefined;
  messages: UploadMessage[];
}

/**
 * The conversation to upload: `complete` (an export holds the whole of it), dated by its messages (or
 * the file) when it has no date, its message ids made unique. Undefined, and counted, when no
 * message has text.
 */
export function exportedConversation(format: string, found: FoundConversation, context: RecordContext): UploadConversation | undefined {
  const messages = uniqueIds(found.messages);
  const first = messages[0];
  if (first === undefined) {
    context.skip("conversations without any message text");
    return undefined;
  }
  const createdAt = found.createdAt ?? earliestIso(messages.map((message) => message.createdAt)) ?? context.fallbackDate.toISOString();
  const { updatedAt } = found;
  const title = titleFrom(found.title);
  return {
    complete: true,
    conversation: {
      id: found.id ?? derivedId(format, [title, createdAt, first.content.slice(0, 200)]),
      title,
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages,
    },
  };
}
