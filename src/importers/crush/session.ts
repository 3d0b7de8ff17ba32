// Crush's sessions (charmbracelet/crush, the terminal coding agent) to the upload shape, one
// conversation per session. What each rule rests on (read at crush 0.1.0, July 2025, to 0.90, August 2026):
// - internal/session/session.go: a session is `sessions`' row; sub-agents' sessions (the agent and
//   agentic_fetch tools: `<message id>$$<tool call id>`) and the title generator's (`title-<id>`) have a
//   `parent_session_id`. Crush's session list (sql/sessions.sql ListSessions) shows only those without
//   one, and a sub-agent's work only as the tools it ran under its tool call: left out here.
// - internal/message/message.go and content.go: `parts` is `[{ "type": …, "data": … }]`, the types
//   `text` `{ text }`, `reasoning` `{ thinking, … }`, `image_url` `{ url }`, `binary` `{ Path, MIMEType,
//   Data }` (an attachment; Go's field names, base64 data), `tool_call` `{ id, name, input, … }`,
//   `tool_result` `{ tool_call_id, name, content, … }`, `finish` `{ reason, time, … }`, `shell_command`
//   `{ command, output, exit_code }` (bang mode, 2026: a `!` command the user ran, its output shown).
// - What the chat shows (internal/ui/chat/messages.go ExtractMessageItems, user.go; internal/tui before
//   it): a user message's text, its attachments by name, or its shell command; an assistant message's
//   text and the tools it called. Kept: the prompt as typed, attachments as `[image]` / `[file: name]`,
//   a shell command as `! command` (its output left out, as a tool's is), the answer's text and its
//   tools as `[tool: name]`. Left out: reasoning, tools' results (role `tool`), finish marks, and the
//   prompt Crush writes itself when it resumes a task cut short by summarizing (agent.go).
// - Summaries (agent.go Summarize: "Summarize Session", or when the context is nearly full): an
//   assistant message (`is_summary_message`, since October 2025; before, the session's
//   `summary_message_id`) that the chat shows as the agent's answer, so it is kept, as a message of
//   its own rather than run into the answer before it.
// - Title: the session's, unless still Crush's default ("New Session", "Untitled Session"); else the
//   first prompt's first line (not a shell command's: Crush titles a session by what was typed). Id:
//   the session's (a UUID); messages by theirs. Times: Unix seconds.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { isObject, isoFromTime, jsonArrayIn, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";
import { isCrushRow } from "./database.js";

interface SessionItem {
  kind: "session";
  session: string;
  title: string | undefined;
  subagent: boolean;
  summaryMessage: string | undefined;
  createdAt: string | undefined;
  context: RecordContext;
}

interface MessageItem {
  kind: "message";
  session: string;
  said: Utterance;
  /** When the message was last written: an answer's end. */
  endedAt: string | undefined;
  summary: boolean;
  /** A shell command the user ran (bang mode), which Crush does not title a session by. */
  shell: boolean;
}

export type CrushItem = SessionItem | MessageItem;

/** Crush's titles of a session not named yet (ui/model/ui.go, agent.go DefaultSessionName). */
const DEFAULT_TITLES = new Set(["New Session", "Untitled Session"]);

/** The prompt Crush queues after a summary cut a task short (agent.go), not the user's. */
const RESUMED_TASK = /^The previous session was interrupted because it got too long, the initial user request was: `/;

export function crushItem(record: unknown, context: RecordContext): CrushItem | undefined {
  if (!isCrushRow(record)) return undefined;
  const { row } = record;
  if (record.crushTable === "sessions") {
    const title = nonEmptyString(row.title)?.trim();
    return {
      kind: "session",
      session: String(row.id),
      title: title === undefined || DEFAULT_TITLES.has(title) ? undefined : title,
      subagent: row.parent_session_id !== undefined,
      summaryMessage: stringOf(row.summary_message_id),
      createdAt: isoFromTime(row.created_at),
      context,
    };
  }
  const parts = jsonArrayIn(row.parts);
  if (parts === undefined) {
    context.skip("messages whose stored JSON is damaged (left out)");
    return undefined;
  }
  const human = row.role === "user";
  const blocks = parts.filter(isObject).map((part) => ({ type: part.type, data: isObject(part.data) ? part.data : {} }));
  const time = isoFromTime(row.created_at);
  return {
    kind: "message",
    session: String(row.session_id),
    said: {
      id: fittingId(String(row.id)),
      role: human ? "human" : "assistant",
      pieces: blocks.flatMap(human ? promptPiece : answerPiece),
      time,
    },
    endedAt: isoFromTime(row.finished_at) ?? isoFromTime(row.updated_at) ?? time,
    summary: row.is_summary_message === 1,
    shell: human && blocks.some((block) => block.type === "shell_command"),
  };
}

interface Part {
  type: unknown;
  data: JsonObject;
}

/** What a user message's part shows: its text, an attachment by name, a shell command. */
function promptPiece({ type, data }: Part): TurnPiece[] {
  const said = (text: string) => [{ text, tool: false }];
  if (type === "text") {
    const text = nonEmptyString(data.text);
    return text === undefined || RESUMED_TASK.test(text) ? [] : said(text);
  }
  if (type === "image_url") return said("[image]");
  if (type === "binary") {
    const mime = stringOf(data.MIMEType) ?? "";
    return said(mime.startsWith("image/") ? "[image]" : filePlaceholder(stringOf(data.Path)?.split(/[\\/]/).at(-1)));
  }
  if (type === "shell_command") {
    const command = nonEmptyString(data.command);
    return command === undefined ? [] : said(`! ${command.trim()}`);
  }
  return [];
}

/** What an assistant message's part shows: its text, a tool it called. */
function answerPiece({ type, data }: Part): TurnPiece[] {
  if (type === "tool_call") return [{ text: toolPlaceholder(data.name), tool: true }];
  const text = type === "text" ? nonEmptyString(data.text) : undefined;
  return text === undefined ? [] : [{ text, tool: false }];
}

/** A database's items (its sessions, then their messages) to each session's conversation. */
export function crushSessions(items: CrushItem[]): UploadConversation[] {
  const messages = new Map<string, MessageItem[]>();
  for (const item of items) if (item.kind === "message") messages.set(item.session, [...(messages.get(item.session) ?? []), item]);
  return items.flatMap((item) => {
    if (item.kind !== "session") return [];
    const conversation = sessionOf(item, messages.get(item.session) ?? []);
    return conversation === undefined ? [] : [conversation];
  });
}

function sessionOf(session: SessionItem, messages: MessageItem[]): UploadConversation | undefined {
  const { skip, fallbackDate } = session.context;
  if (session.subagent) {
    skip("sub-agents' and title generators' sessions (the agent's side work, left out as Crush's session list leaves them)");
    return undefined;
  }
  const summary = (message: MessageItem) => message.summary || message.said.id === session.summaryMessage;
  const turns = turnsWithSummaries(messages, summary);
  if (turns.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const commands = new Set(messages.filter((message) => message.shell).map((message) => message.said.id));
  const prompts = turns.filter((turn) => !commands.has(turn.id));
  return sessionConversation({
    id: fittingId(session.session),
    title: titleFrom(session.title ?? promptTitle(prompts) ?? promptTitle(turns)),
    messages: turns,
    said: messages.map((message) => ({ ...message.said, time: message.endedAt })),
    fallbackDate: session.createdAt === undefined ? fallbackDate : new Date(session.createdAt),
  });
}

/** The prompts and answers, each summary an answer of its own, not run into the answer before or after it. */
function turnsWithSummaries(messages: MessageItem[], summary: (message: MessageItem) => boolean): UploadMessage[] {
  const runs: Utterance[][] = [[]];
  for (const message of messages) {
    if (summary(message)) runs.push([message.said], []);
    else runs.at(-1)!.push(message.said);
  }
  return runs.flatMap((run) => agentTurns(run));
}
