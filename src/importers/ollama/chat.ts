// The Ollama app's chats (the desktop chat window of macOS and Windows, mid-2025 on) to the upload
// shape, as the app shows them. What each rule rests on (ollama/ollama at fb30760, August 2026):
// app/store/database.go (the tables, schema 2 to 18; database.ts), app/store/store.go (Message: `role`,
// `content`, `thinking`, `tool_calls`, `attachments`), app/ui/ui.go (what a chat holds: the prompt as
// typed, its attachments apart; the answer streamed into one `assistant` message; a `tool` message per
// tool's result; the title set only by a rename, chatInfoFromChat's excerpt the first prompt) and
// app/ui/app/src/components/ChatSidebar.tsx (a chat is listed as its title, else that excerpt).
// - Human: a `user` message's text, each attached file (an image too) as `[file: name]`.
// - Assistant: the `assistant` messages from one prompt to the next are one message: their text and
//   the tools they called as `[tool: name]`. Left out: thinking, `tool` messages (the results the
//   model read), any other role.
// - Title: the chat's title, else the first prompt's first line. Id: the chat's. Messages by their
//   place in the chat: the app deletes and writes again every row of a chat it saves, so row ids change.
// - Times: each message's `created_at`; the chat was last updated when its last message was (`updated_at`).
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isoFromTime, nonEmptyString, titleFrom } from "../json-values.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { Row } from "../sqlite.js";
import type { RecordContext } from "../types.js";
import { isOllamaChat } from "./database.js";

export function ollamaConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isOllamaChat(record)) return undefined;
  if (record.chat === undefined) {
    context.skip("messages of chats no longer in the database (the app never shows them)");
    return undefined;
  }
  const utterances = record.messages.map((row, place) => utteranceOf(row, place));
  const messages = agentTurns(utterances.map(({ said }) => said));
  if (messages.length === 0) {
    context.skip("chats without any message text");
    return undefined;
  }
  return sessionConversation({
    id: record.ollamaChatId,
    title: titleFrom(nonEmptyString(record.chat.title) ?? promptTitle(messages)),
    messages,
    said: utterances.map(({ said, updatedAt }) => ({ ...said, time: updatedAt ?? said.time })),
    fallbackDate: context.fallbackDate,
  });
}

function utteranceOf(row: Row, place: number): { said: Utterance; updatedAt: string | undefined } {
  const shown = row.role === "user" || row.role === "assistant";
  return {
    said: {
      id: `msg-${place}`,
      role: row.role === "user" ? "human" : "assistant",
      pieces: shown ? piecesOf(row) : [],
      time: isoFromTime(row.created_at),
    },
    updatedAt: isoFromTime(row.updated_at),
  };
}

function piecesOf(row: Row): TurnPiece[] {
  const text = nonEmptyString(row.content);
  return [
    ...(text === undefined || text.trim() === "" ? [] : [{ text, tool: false }]),
    ...namesIn(row.files).map((name) => ({ text: filePlaceholder(name), tool: false })),
    ...namesIn(row.tools).map((name) => ({ text: toolPlaceholder(name), tool: true })),
  ];
}

/** A JSON list of names database.ts gathered (a tool's or a file's). */
function namesIn(json: Row[string]): unknown[] {
  try {
    return arrayOf(JSON.parse(String(json ?? "[]")));
  } catch {
    return [];
  }
}
