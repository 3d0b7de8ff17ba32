// Goose's sessions (block/goose) to the upload shape, one conversation per session. What each rule
// rests on: crates/goose/src/session/storage.rs (to 1.9: the .jsonl files), legacy.rs (how 1.10 reads
// them into its database), session_manager.rs (the database, database.ts) and
// crates/goose/src/conversation/message.rs (a message and its content):
// - To 1.9 a session is ~/.local/share/goose/sessions/<id>.jsonl (%APPDATA%\Block\goose\data\sessions
//   on Windows: the `etcetera` crate's data folder), the id its start, `20250320_143501`: a first line of
//   metadata (`working_dir`, `description`, `message_count`, tokens…; files of the first versions lack
//   it), then a Message a line: `{ id?, role: "user" | "assistant", created: Unix seconds, content: [
//   { type: "text" | "image" | "toolRequest" | "toolResponse" | "thinking" | … } ], metadata? }`.
// - Since 1.10 (October 2025) the sessions are rows of sessions.db in that folder, the files copied in
//   once, ids unchanged: the same messages, content and metadata in their own columns (database.ts).
// - Human: a `user` message's text (images as placeholders); one of tool results alone is none.
//   Assistant: the `assistant` messages from one prompt to the next are one message: their text and
//   the tools they called (`toolRequest`, `frontendToolRequest`) as `[tool: name]`. Left out: tool
//   results, thinking, confirmations and the app's notices, and messages the user is not shown
//   (`metadata.userVisible: false`: the summaries that replace a compacted conversation for the model).
// - Subagents' and hidden sessions (`session_type`) are left out, as Goose's session list leaves them.
// - Title: the session's name (`description` before), else the first prompt's first line. Id: the
//   session's id (the file's name); messages by their place in the session, as Goose numbers them,
//   so a session gets the same ids read from its file or from the database it was copied into.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";
import { isGooseRow } from "./database.js";

/** A session's own fields, from its file's first line or its row. */
interface SessionItem {
  kind: "session";
  session: string;
  title: string | undefined;
  type: string | undefined;
  context: RecordContext;
}

/** A message, as what it says. */
interface MessageItem {
  kind: "message";
  session: string;
  role: "human" | "assistant";
  pieces: TurnPiece[];
  time: string | undefined;
  context: RecordContext;
}

export type GooseItem = SessionItem | MessageItem;

const LEFT_OUT_SESSIONS = new Set(["sub_agent", "hidden"]);

/** A line of a session file, or a row of the database, as an item of its session. */
export function gooseItem(record: unknown, context: RecordContext): GooseItem | undefined {
  if (isGooseRow(record)) {
    const { row } = record;
    const session = String(row.session_id ?? row.id);
    if (record.gooseTable === "sessions") {
      return {
        kind: "session",
        session,
        title: nonEmptyString(row.name) ?? nonEmptyString(row.description),
        type: stringOf(row.session_type),
        context,
      };
    }
    const content = parsed(row.content_json);
    if (!Array.isArray(content)) {
      context.skip("messages whose stored JSON is damaged (left out)");
      return undefined;
    }
    const metadata = parsed(row.metadata_json) ?? {};
    return messageItem({ role: row.role, created: row.created_timestamp, content, metadata }, session, context);
  }
  if (!isObject(record)) return undefined;
  const session = sessionFileId(context.path);
  if ("message_count" in record && "description" in record) {
    return { kind: "session", session, title: nonEmptyString(record.description), type: undefined, context };
  }
  return messageItem(record, session, context);
}

function messageItem(message: JsonObject, session: string, context: RecordContext): MessageItem | undefined {
  const role = message.role === "user" ? "human" : message.role === "assistant" ? "assistant" : undefined;
  if (role === undefined) return undefined;
  const hidden = isObject(message.metadata) && message.metadata.userVisible === false;
  const items = arrayOf(message.content).filter(isObject);
  return { kind: "message", session, role, pieces: hidden ? [] : items.flatMap(pieceOf), time: isoFromTime(message.created), context };
}

/** What a content item shows: text, an image, a tool the agent called; nothing of the rest. */
function pieceOf(item: JsonObject): TurnPiece[] {
  if (item.type === "text") return typeof item.text === "string" && item.text.trim() !== "" ? [{ text: item.text, tool: false }] : [];
  if (item.type === "image") return [{ text: "[image]", tool: false }];
  if (item.type === "toolRequest" || item.type === "frontendToolRequest") {
    const call = isObject(item.toolCall) && isObject(item.toolCall.value) ? item.toolCall.value : {}; // `{ status: "error" }`: a call the model got wrong
    return [{ text: toolPlaceholder(call.name), tool: true }];
  }
  return [];
}

/** Each session's items, in the order read, to its conversation. */
export function gooseSessions(items: GooseItem[]): UploadConversation[] {
  const sessions = new Map<string, GooseItem[]>();
  for (const item of items) sessions.set(item.session, [...(sessions.get(item.session) ?? []), item]);
  return [...sessions.entries()].flatMap(([id, its]) => {
    const conversation = sessionOf(id, its);
    return conversation === undefined ? [] : [conversation];
  });
}

function sessionOf(id: string, items: GooseItem[]): UploadConversation | undefined {
  const fields = items.find((item): item is SessionItem => item.kind === "session");
  const { skip, fallbackDate } = items[0]!.context;
  if (fields?.type !== undefined && LEFT_OUT_SESSIONS.has(fields.type)) {
    skip("subagents' and hidden sessions (the agent's side work, left out as Goose's session list leaves them)");
    return undefined;
  }
  const said: Utterance[] = items
    .filter((item): item is MessageItem => item.kind === "message")
    .map((message, place) => ({ id: `msg-${place}`, role: message.role, pieces: message.pieces, time: message.time }));
  const messages = agentTurns(said);
  if (messages.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  return sessionConversation({
    id,
    title: titleFrom(fields?.title ?? promptTitle(messages)),
    messages,
    said,
    fallbackDate,
  });
}

function parsed(text: unknown): unknown {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
