// Continue's session files and sessions.json to the upload shape, one conversation per session. What
// each rule rests on: continuedev/continue core/index.d.ts (Session, BaseSessionMetadata,
// ChatHistoryItem, ChatMessage and its roles, MessagePart, ToolCallDelta, ToolCallState; and the
// same at 2023-12, PersistedSessionInfo and SessionInfo, `content` a string), core/util/history.ts
// (HistoryManager: what is saved where; sessions.json entries with `session_id` are the old format,
// which Continue no longer lists), gui/src/redux/thunks/session.ts (the title: the user's or one
// generated, "New Session" until then), gui/.../resolveEditorContent.ts (a prompt's content is what
// was typed, the code blocks put in it, and a slash command's prompt) and extensions/cli/src/session.ts
// (the CLI saves the same Session, without its system messages):
// - A session file is `{ sessionId, title, workspaceDirectory, history, mode?, chatModelTitle?, usage? }`;
//   each history item `{ message, contextItems, editorState?, toolCallStates?, reasoning?, conversationSummary? }`.
// - Human: a `user` message's text (`content` a string, or its `text` parts; images as `[image]`).
//   Left out: the context items (files, the codebase, docs the user attached: Continue's to send,
//   not what was typed), the editor's state (the same prompt again).
// - Assistant: an `assistant` message's text and the tools it called (`toolCalls`, else the item's
//   `toolCallStates`) as `[tool: name]`; the messages from one prompt to the next are one message
//   (agent-sessions.ts). Left out: `thinking` messages and `reasoning`, tools' results (`tool`
//   messages), `system` messages, compaction summaries (`conversationSummary`).
// - Title: the session's, unless it is Continue's placeholder "New Session" or empty; else the
//   list's; else the first prompt's first line. Id: `sessionId`, else the file's name. Message ids:
//   the message's `id` (the GUI gives one since late 2024), else its place in the history.
// - Dates: sessions.json's `dateCreated` (milliseconds as a string) is the session's start; a session
//   file holds no time, so without the list (a lone file is read with the one beside it:
//   Importer.companionFiles) it starts at the file's time, and it was last updated then. Nothing gives a message its time.
// - Continue's Python server (before 0.8, 2023; server/continuedev/core/main.py, server/sessions.py at
//   2023-12) wrote PersistedSessionInfo `{ session_state: { history: [StepDescription] }, title,
//   workspace_directory, session_id }` (before it `{ session_info, history: { timeline: [{ step }] } }`),
//   listed in sessions.json as `{ session_id, title, date_created }` (seconds): Continue no longer
//   opens them, but they stay on disk. Read as its GUI showed them: a UserInputStep's `description`
//   (the input) the human's, every other step not hidden (a chat answer, an edit's summary) the assistant's.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";

/** What Continue names a session it has not titled yet (core/util/constants.ts). */
const NEW_SESSION_TITLE = "New Session";

/** A session file read, or an entry of sessions.json. */
export type ContinueItem = { session: SessionRead } | { listed: Listed; skip: SkipReport };

interface SessionRead {
  id: string;
  title: string | undefined;
  said: Utterance[];
  /** When the file itself says (the oldest format's `session_info.date_created`). */
  createdAt?: string | undefined;
  fileDate: Date;
  skip: SkipReport;
}

interface Listed {
  id: string;
  title: string | undefined;
  createdAt: string | undefined;
}

export function continueRecord(record: unknown, context: RecordContext): ContinueItem | undefined {
  if (!isObject(record)) return undefined;
  if (Array.isArray(record.history)) return { session: sessionRead(record, context) };
  const steps = serverSteps(record);
  if (steps !== undefined) return { session: serverSessionRead(record, steps, context) };
  const id = nonEmptyString(record.sessionId) ?? nonEmptyString(record.session_id);
  if (id === undefined) return undefined;
  const createdAt = isoFromTime(record.dateCreated ?? record.date_created);
  return { listed: { id, title: shownTitle(record.title), createdAt }, skip: context.skip };
}

function sessionRead(record: JsonObject, context: RecordContext): SessionRead {
  const said = arrayOf(record.history).map((item, index) => utterance(item, index));
  return {
    id: fittingId(nonEmptyString(record.sessionId) ?? sessionFileId(context.path)),
    title: shownTitle(record.title),
    said: said.filter((item) => item !== undefined),
    fileDate: context.fallbackDate,
    skip: context.skip,
  };
}

/**
 * The steps of a session the Python server wrote: PersistedSessionInfo's `session_state.history`
 * (StepDescription), or before it `history.timeline`, each node's `step`.
 */
function serverSteps(record: JsonObject): JsonObject[] | undefined {
  if (isObject(record.session_state)) return arrayOf(record.session_state.history).filter(isObject);
  if (isObject(record.session_info) && isObject(record.history)) {
    return arrayOf(record.history.timeline)
      .map((node) => (isObject(node) ? node.step : undefined))
      .filter(isObject);
  }
  return undefined;
}

/** A Python server's session: the user's input (UserInputStep) and what each step not hidden showed (its description). */
function serverSessionRead(record: JsonObject, steps: JsonObject[], context: RecordContext): SessionRead {
  const info = isObject(record.session_info) ? record.session_info : record;
  const said = steps.flatMap((step, index): Utterance[] => {
    const type = step.step_type ?? step.class_name;
    const input = type === "UserInputStep";
    const params = isObject(step.params) ? step.params : {};
    const text = nonEmptyString(step.description) ?? (input ? nonEmptyString(params.user_input) : undefined);
    if (text === undefined || (!input && step.hide === true)) return [];
    return [{ id: `step-${index + 1}`, role: input ? "human" : "assistant", pieces: [{ text, tool: false }], time: undefined }];
  });
  return {
    id: fittingId(nonEmptyString(info.session_id) ?? sessionFileId(context.path)),
    title: shownTitle(info.title),
    said,
    createdAt: isoFromTime(info.date_created),
    fileDate: context.fallbackDate,
    skip: context.skip,
  };
}

function shownTitle(value: unknown): string | undefined {
  const title = nonEmptyString(value)?.trim();
  return title === undefined || title === "" || title === NEW_SESSION_TITLE ? undefined : title;
}

function utterance(item: unknown, index: number): Utterance | undefined {
  if (!isObject(item) || !isObject(item.message)) return undefined;
  const { message } = item;
  const role = message.role === "user" ? "human" : message.role === "assistant" ? "assistant" : undefined;
  if (role === undefined) return undefined; // thinking, a tool's result, a system message
  const pieces = role === "human" ? textPieces(message.content) : [...textPieces(message.content), ...toolPieces(message, item)];
  return { id: fittingId(nonEmptyString(message.id) ?? `item-${index + 1}`), role, pieces, time: undefined };
}

/** MessageContent: a string, or parts of text and images. */
function textPieces(content: unknown): TurnPiece[] {
  const parts = typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject);
  return parts
    .map((part) => (part.type === "text" ? nonEmptyString(part.text) : part.type === "imageUrl" ? "[image]" : undefined))
    .filter((text): text is string => text !== undefined && text.trim() !== "")
    .map((text) => ({ text, tool: false }));
}

/** The tools an answer called: its `toolCalls`, else what the item's states say was called. */
function toolPieces(message: JsonObject, item: JsonObject): TurnPiece[] {
  const calls = arrayOf(message.toolCalls).filter(isObject);
  const states = arrayOf(item.toolCallStates)
    .filter(isObject)
    .map((state) => state.toolCall)
    .filter(isObject);
  return (calls.length > 0 ? calls : states).map((call) => ({
    text: toolPlaceholder(isObject(call.function) ? call.function.name : undefined),
    tool: true,
  }));
}

/** The sessions read, each dated by its entry in sessions.json where one was read with it. */
export function continueSessions(items: ContinueItem[]): UploadConversation[] {
  const listed = new Map<string, Listed>();
  for (const item of items) if ("listed" in item) listed.set(item.listed.id, item.listed);
  const sessions = items.flatMap((item) => ("session" in item ? [item.session] : []));
  if (sessions.length === 0 && items.length > 0 && "skip" in items[0]!) {
    items[0].skip("lists of sessions without their files (sessions.json holds titles and dates: pass the sessions folder)");
  }
  return sessions.flatMap((session) => {
    const conversation = conversationOf(session, listed.get(session.id));
    return conversation === undefined ? [] : [conversation];
  });
}

function conversationOf(session: SessionRead, listed: Listed | undefined): UploadConversation | undefined {
  const messages = agentTurns(session.said);
  if (messages.length === 0) {
    session.skip("sessions without any message text");
    return undefined;
  }
  const fileTime = session.fileDate.toISOString();
  const createdAt = listed?.createdAt ?? session.createdAt ?? fileTime;
  return {
    complete: true, // the file holds the whole session as it stands
    conversation: {
      id: session.id,
      title: titleFrom(session.title ?? listed?.title ?? promptTitle(messages)),
      createdAt,
      ...(fileTime > createdAt ? { updatedAt: fileTime } : {}),
      messages,
    },
  };
}
