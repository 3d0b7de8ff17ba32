// DeepChat's sessions (ThinkInAIXYZ/deepchat, the desktop chat app) to the upload shape, one
// conversation per session, as the chat shows it. What each rule rests on (read at 1.1.0-beta.12,
// August 2026, and the versions before it still on disks: 0.0.1 to 0.5.8 wrote chat.db, 1.0.0-beta.1 on agent.db):
// - A user message is UserMessageContent (src/shared/chat.d.ts): `{ text, files: [{ name, mimeType, … }],
//   links, search, think, content?: rich blocks of `text` / `code` / `mention` }`: kept, the prompt as
//   typed (`text`, else its rich blocks' text) and each file by name, an image as `[image]`.
// - An answer is a list of AssistantMessageBlock (src/shared/types/agent-interface.d.ts): `content`
//   (its text) kept; `tool_call` as `[tool: name]` (its params and response left out), `image` (a
//   generated image, bytes in the block) as `[image]`, `audio` as `[audio]`. Left out:
//   `reasoning_content` and `artifact-thinking` (the model's thinking, folded in the app), `search` (the
//   web results it read), `plan`, `action` (permission requests, questions), `error` (the app's notice
//   of a failed request). Older chat.db rows hold a plain string: read as the answer's text, as
//   DeepChat's own import reads it (legacyChatImportService.ts normalizeAssistantContent).
// - agent.db: a message whose `metadata.messageType` is `compaction` is the app's note that it
//   compacted the context ("Conversation context compacted."), left out. Sub-agents' sessions
//   (`session_kind` 'subagent') are left out, as the session list leaves them (newSessions.ts list).
// - chat.db: regenerating an answer (0.x) wrote a variant: a row with `is_variant` 1 and the answer's
//   `parent_id` (its prompt). Since 0.3.9 the chat shows the variant the user picked, kept in the
//   conversation's `context_chain` as `{ answer id: variant id }` (selectedVariantsMap), else the first
//   answer; before 0.3.9 (`context_chain` its default '[]') it opened on the last variant. That answer is
//   read, under the first answer's id. `system` and `function` rows are left out.
// - Ids: 1.0 copied chat.db into agent.db at its first start (legacyChatImportService.ts), a
//   conversation as session `legacy-session-<conv_id>`, a message as `legacy-msg-<msg_id>` (the first
//   answer's, its variant's content), and left chat.db beside it. chat.db is read under those ids, so
//   a chat read from both databases is one conversation: read once in one import, the newer kept.
// - Title: the session's, unless DeepChat's placeholder "New Chat"; else the first prompt's first line.
//   Times: epoch milliseconds; a message is dated by when it was last written (an answer's end).
// - No model is kept (the upload shape has no field for it).
import type { UploadConversation } from "../../schemas/chat-history.js";
import { SUBAGENT_SESSIONS, agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, jsonArrayIn, jsonObjectIn, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { Row } from "../sqlite.js";
import type { RecordContext } from "../types.js";
import { isDeepChatSession, type DeepChatSession } from "./database.js";

const DEFAULT_TITLE = "New Chat";
const DAMAGED = "messages whose stored JSON is damaged (left out)";

export function deepchatConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isDeepChatSession(record)) return undefined;
  const { session } = record;
  if (session === undefined) {
    context.skip("messages of sessions no longer in the database (the app never shows them)");
    return undefined;
  }
  if (session.session_kind === "subagent") {
    context.skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  const said = record.legacy ? legacyUtterances(record, context) : agentUtterances(record.messages, context);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    context.skip("sessions without any message text");
    return undefined;
  }
  const title = nonEmptyString(session.title)?.trim();
  const created = isoFromTime(session.created_at);
  return sessionConversation({
    id: fittingId(record.legacy ? legacySessionId(record.deepchatSession) : record.deepchatSession),
    title: titleFrom(title === undefined || title === DEFAULT_TITLE ? promptTitle(messages) : title),
    messages,
    said,
    fallbackDate: created === undefined ? context.fallbackDate : new Date(created),
  });
}

/** The ids DeepChat 1.0 gave chat.db's conversations and messages as it copied them into agent.db. */
const legacySessionId = (convId: string) => `legacy-session-${convId}`;
const legacyMessageId = (msgId: string) => `legacy-msg-${msgId}`;

function agentUtterances(rows: readonly Row[], context: RecordContext): Utterance[] {
  return rows.flatMap((row) => {
    if (jsonObjectIn(row.metadata)?.messageType === "compaction") return [];
    const pieces = row.role === "user" ? agentPrompt(row, context) : row.role === "assistant" ? agentAnswer(row, context) : undefined;
    if (pieces === undefined) return [];
    return [utterance(String(row.id), row.role === "user", pieces, row.updated_at ?? row.created_at)];
  });
}

/** A prompt from deepchat_user_messages and its files' rows when they are there, else from `content`. */
function agentPrompt(row: Row, context: RecordContext): TurnPiece[] | undefined {
  if (row.user_text !== undefined) {
    const files = arrayOf(jsonArrayIn(row.files)).filter(isObject);
    return [...said(nonEmptyString(row.user_text)), ...files.flatMap((file) => said(fileShown(file.name, file.mime)))];
  }
  return promptPieces(row.content, context);
}

/** An answer from its deepchat_assistant_blocks rows when there are any, else from `content`. */
function agentAnswer(row: Row, context: RecordContext): TurnPiece[] | undefined {
  if (row.blocks !== undefined) {
    return arrayOf(jsonArrayIn(row.blocks))
      .filter(isObject)
      .flatMap((block) => blockPieces(block.type, block.text, block.tool));
  }
  const blocks = jsonArrayIn(row.content);
  if (blocks === undefined) {
    context.skip(DAMAGED);
    return undefined;
  }
  return blocks
    .filter(isObject)
    .flatMap((block) => blockPieces(block.type, block.content, isObject(block.tool_call) ? block.tool_call.name : undefined));
}

/** A user message's `content`: UserMessageContent as JSON (a JSON string, in the oldest rows, its text). */
function promptPieces(content: Row[string], context: RecordContext): TurnPiece[] | undefined {
  const value = parsed(content);
  if (typeof value === "string") return said(nonEmptyString(value));
  if (!isObject(value)) {
    context.skip(DAMAGED);
    return undefined;
  }
  const text = nonEmptyString(value.text) ?? richText(value.content);
  const files = arrayOf(value.files).filter(isObject);
  return [...said(text), ...files.flatMap((file) => said(fileShown(file.name, file.mimeType)))];
}

/** The prompt's rich blocks (UserMessageContent.content), for a message whose `text` is empty: their text and code. */
function richText(blocks: unknown): string | undefined {
  const texts = arrayOf(blocks)
    .filter(isObject)
    .filter((block) => block.type === "text" || block.type === "code")
    .map((block) => stringOf(block.content) ?? "");
  return nonEmptyString(texts.join(""));
}

function blockPieces(type: unknown, text: unknown, tool: unknown): TurnPiece[] {
  if (type === "content") return said(nonEmptyString(text));
  if (type === "tool_call") return [{ text: toolPlaceholder(tool), tool: true }];
  if (type === "image") return said("[image]");
  if (type === "audio") return said("[audio]");
  return [];
}

function fileShown(name: unknown, mime: unknown): string {
  return stringOf(mime)?.startsWith("image/") ? "[image]" : filePlaceholder(name);
}

function said(text: string | undefined): TurnPiece[] {
  return text === undefined || text.trim() === "" ? [] : [{ text, tool: false }];
}

function utterance(id: string, human: boolean, pieces: TurnPiece[], time: Row[string]): Utterance {
  return { id: fittingId(id), role: human ? "human" : "assistant", pieces, time: isoFromTime(time) };
}

/** chat.db's rows: each prompt, and each answer as the variant the chat showed (under the first answer's id). */
function legacyUtterances(record: DeepChatSession, context: RecordContext): Utterance[] {
  const rows = record.messages;
  const picked = jsonObjectIn(record.session?.context_chain);
  const variants = new Map<string, Variants>();
  for (const row of rows) {
    if (row.is_variant === 1 && row.role === "assistant" && nonEmptyString(row.parent_id) !== undefined) {
      const parent = String(row.parent_id);
      const of = variants.get(parent) ?? { last: row, byId: new Map() };
      if (!of.byId.has(String(row.id))) of.byId.set(String(row.id), row);
      of.last = row;
      variants.set(parent, of);
    }
  }
  return rows.flatMap((row) => {
    if (row.is_variant === 1 || (row.role !== "user" && row.role !== "assistant")) return [];
    const human = row.role === "user";
    const shown = human ? row : shownVariant(row, variants.get(String(row.parent_id ?? "")), picked);
    const pieces = human ? promptPieces(row.content, context) : legacyAnswer(shown.content, context);
    return pieces === undefined ? [] : [utterance(legacyMessageId(String(row.id)), human, pieces, shown.created_at)];
  });
}

/** An answer's variants: the last written, and each by its id (the first of an id written twice). */
interface Variants {
  last: Row;
  byId: Map<string, Row>;
}

/** The answer the chat showed: the variant picked (0.3.9 on), else the first answer; before 0.3.9, the last variant. */
function shownVariant(answer: Row, variants: Variants | undefined, picked: Record<string, unknown> | undefined): Row {
  if (picked === undefined) return variants?.last ?? answer;
  const choice = stringOf(picked[String(answer.id)]);
  return (choice === undefined ? undefined : variants?.byId.get(choice)) ?? answer;
}

/** A chat.db answer: its blocks as JSON, or (the oldest rows) its text. */
function legacyAnswer(content: Row[string], context: RecordContext): TurnPiece[] | undefined {
  const text = stringOf(content) ?? "";
  const value = parsed(content);
  if (value === undefined && /^\s*[[{]/.test(text)) {
    context.skip(DAMAGED);
    return undefined;
  }
  if (typeof value === "string") return said(nonEmptyString(value));
  if (!isObject(value) && !Array.isArray(value)) return said(nonEmptyString(text));
  const blocks = Array.isArray(value) ? value : [value];
  return blocks
    .filter(isObject)
    .flatMap((block) => blockPieces(block.type, block.content, isObject(block.tool_call) ? block.tool_call.name : undefined));
}

function parsed(content: Row[string]): unknown {
  if (typeof content !== "string") return undefined;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return undefined;
  }
}
