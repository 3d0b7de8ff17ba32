// big-AGI's conversations to the upload shape. What each rule is based on: big-AGI's own code
// (enricoros/big-AGI src/common/stores/chat/chats.converters.ts `DataAtRestV1.RestChatJsonV1` and the
// V3 message before the May 2024 multi-part change; chat.message.ts `DMessage`; chat.fragments.ts, the
// fragments and their parts; src/data.ts `SystemPurposes`, the personas).
// - A conversation `{ id, messages, systemPurposeId, userTitle?, autoTitle?, created, updated }`; its
//   messages are a list as shown (regenerating or Beam replaces an answer: no branches).
// - A message `{ id, role, fragments, created, updated }`, or before May 2024 `{ id, role, text, … }`.
//   Fragments: `content` text kept, an `image_ref` is `[image]`, a `tool_invocation` `[tool: name]`
//   (code Gemini ran, fenced), a tool's response and an `error` part (the app's notice) left out;
//   `attachment` a `doc` is `[file: title]`, an image `[image]`; `void` fragments (placeholders, the
//   model's reasoning) left out.
// - System prompt: the `system` message, kept only for the Custom persona, whose prompt the user writes;
//   the other personas' prompts are the app's (SystemPurposes).
// - Times: milliseconds, `created` and `updated`. Title: `userTitle`, else `autoTitle`. Id: the conversation's.
// - A flash backup (BackupRestore.tsx `DFlashSchema`) holds the app's storage: its chats are the
//   `app-chats` item of IndexedDB's keyval-store (the chat store's persisted state as JSON text,
//   `{ state: { conversations }, version }`: src/common/util/idbUtils.ts, the store named app-chats in
//   src/common/stores/chat/store-chats.ts); the rest (settings, API keys) is not read.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import type { Importer } from "../importer.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { codeBlock, filePlaceholder, joinPieces, withSystemPrompt, toolPlaceholder } from "../placeholders.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** Each conversation of the file, each on its own: a damaged one costs only itself. */
export const bigAgiRecords: Importer["convert"] = async function* (records) {
  for await (const { value, context } of records) {
    let conversations: unknown[];
    try {
      conversations = isObject(value) && value._t === "agi.flash-backup" ? flashChats(value) : [value];
    } catch (error) {
      context.unreadable(unreadableRecord(context, error));
      continue;
    }
    for (const conversation of conversations) {
      try {
        const converted = bigAgiConversation(conversation, context);
        if (converted !== undefined) yield converted;
      } catch (error) {
        context.unreadable(unreadableRecord(context, error));
      }
    }
  }
};

/** The chats a flash backup holds, as the chat store persisted them. */
function flashChats(flash: JsonObject): unknown[] {
  const storage = isObject(flash.storage) && isObject(flash.storage.indexedDB) ? flash.storage.indexedDB : {};
  const keyval = isObject(storage["keyval-store"]) ? arrayOf(storage["keyval-store"].keyval) : [];
  const item = keyval.filter(isObject).find((entry) => entry.key === "app-chats")?.value;
  const persisted: unknown = typeof item === "string" ? JSON.parse(item) : item; // damaged text: the file is reported
  return isObject(persisted) && isObject(persisted.state) ? arrayOf(persisted.state.conversations) : [];
}

export function bigAgiConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const messages = arrayOf(record.messages).filter(isObject);
  const said = messages.map(toMessage).filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = isoFromTime(record.created) ?? times.sort()[0] ?? context.fallbackDate.toISOString();
  const updatedAt = [isoFromTime(record.updated), ...times]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const system = record.systemPurposeId === "Custom" ? messages.find((message) => message.role === "system") : undefined;
  return {
    complete: true, // the file holds the conversation as it stands
    conversation: {
      id: `big-agi-${nonEmptyString(record.id) ?? said[0]!.id}`,
      title: titleFrom(nonEmptyString(record.userTitle) ?? record.autoTitle),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(system === undefined ? undefined : textOf(system), said, createdAt),
    },
  };
}

function toMessage(message: JsonObject, index: number): UploadMessage | undefined {
  const role = message.role;
  if (role !== "user" && role !== "assistant") return undefined; // system: the persona's prompt, above
  const content = textOf(message);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.created);
  return {
    id: nonEmptyString(message.id) ?? `message-${index + 1}`,
    role: role === "user" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

/** What a message shows: its fragments, or before fragments its `text`. */
function textOf(message: JsonObject): string {
  if (!Array.isArray(message.fragments)) return joinPieces([stringOf(message.text)]);
  return joinPieces(
    message.fragments.map((fragment) => (isObject(fragment) && isObject(fragment.part) ? pieceOf(fragment, fragment.part) : undefined)),
  );
}

function pieceOf(fragment: JsonObject, part: JsonObject): string | undefined {
  if (part.pt === "image_ref") return "[image]";
  if (fragment.ft === "attachment") return part.pt === "doc" ? filePlaceholder(nonEmptyString(fragment.title) ?? part.l1Title) : undefined;
  if (fragment.ft !== "content") return undefined; // void: placeholders, the model's reasoning
  if (part.pt === "text") return stringOf(part.text);
  if (part.pt === "tool_invocation" && isObject(part.invocation)) {
    const { invocation } = part;
    return invocation.type === "code_execution" ? codeBlock(invocation.language, invocation.code) : toolPlaceholder(invocation.name);
  }
  return undefined; // tool_response, error
}
