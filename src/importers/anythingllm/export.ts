// AnythingLLM's chat export as JSON (Settings → Workspace Chats → Export → JSON; server/utils/helpers/
// chat/convertTo.js `prepareChatsForExport`): a list of every chat of every workspace, `{ id, prompt,
// response, sent_at, attachments: [{ type: "image", image }], workspace, username, rating }`, where
// `response` is the answer's text, `sent_at` the row's createdAt, `workspace` its name ("deleted
// workspace" once gone) and `username` the user's ("unknown user" on the desktop app, "API").
// - The export names no thread and keeps every row, those the app no longer shows too: a conversation
//   per workspace and user, titled by the workspace's name, its chats in order. The database
//   (conversation.ts) gives the threads apart; an export's conversations are other ones.
// - CSV (the same fields, its line breaks made spaces), JSONL (for fine-tuning: a workspace's messages
//   without times) and Alpaca (`{ instruction, input, output }`) are not read: they lose what was said or when.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom } from "../json-values.js";
import { uniqueIds } from "../message-ids.js";
import { joinPieces } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";
import { EXPORT_KEYS } from "./tables.js";

export interface ExportedChat {
  kind: "exported";
  workspace: string;
  username: string | undefined;
  messages: UploadMessage[];
  fallbackDate: Date;
  skip: SkipReport;
}

/** A chat of the export: its keys, but `response`, which JSON.stringify leaves out of a chat with no answer text. */
export function isExportedChat(value: unknown): value is Record<string, unknown> {
  return isObject(value) && EXPORT_KEYS.every((key) => key === "response" || key in value);
}

export function exportedChatOf(record: Record<string, unknown>, context: RecordContext): ExportedChat | undefined {
  const id = typeof record.id === "number" || typeof record.id === "string" ? String(record.id) : undefined;
  if (id === undefined) return undefined;
  const createdAt = isoFromTime(record.sent_at);
  const at = createdAt === undefined ? {} : { createdAt };
  const images = arrayOf(record.attachments).map(() => "[image]"); // convertTo.js exports images alone
  const prompt = joinPieces([nonEmptyString(record.prompt), ...images]);
  const answer = joinPieces([nonEmptyString(record.response)]);
  return {
    kind: "exported",
    workspace: nonEmptyString(record.workspace)?.trim() ?? "",
    username: nonEmptyString(record.username),
    messages: [
      ...(prompt === "" ? [] : [{ id: `${id}-prompt`, role: "human" as const, content: prompt, ...at }]),
      ...(answer === "" ? [] : [{ id: `${id}-response`, role: "assistant" as const, content: answer, ...at }]),
    ],
    fallbackDate: context.fallbackDate,
    skip: context.skip,
  };
}

/** A conversation per workspace and user, in the order the export lists the chats (by id). */
export function exportedConversations(chats: ExportedChat[]): UploadConversation[] {
  const groups = new Map<string, ExportedChat[]>();
  for (const chat of chats) {
    const key = JSON.stringify([chat.workspace, chat.username]);
    groups.set(key, [...(groups.get(key) ?? []), chat]);
  }
  return [...groups.values()].flatMap((group) => {
    const messages = uniqueIds(group.flatMap((chat) => chat.messages));
    if (messages.length === 0) {
      group[0]!.skip("conversations with no text (left out)");
      return [];
    }
    const times = messages.flatMap((message) => message.createdAt ?? []).sort();
    const createdAt = times[0] ?? group[0]!.fallbackDate.toISOString();
    const updatedAt = times.at(-1);
    const { workspace, username } = group[0]!;
    return {
      complete: true, // an export holds every chat of the workspace
      conversation: {
        id: derivedId("anythingllm-export", [workspace, username]),
        title: titleFrom(username === "API" ? `${workspace} (API)` : workspace), // whereWithData's name of the developer API's chats
        createdAt,
        ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
        messages,
      },
    };
  });
}
