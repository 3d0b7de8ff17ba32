// Kiro CLI's session files to the upload shape, one conversation per session. What each rule rests on
// (aws/amazon-q-developer-cli, branch release/versionBump@1.28.3, and sync-prod-from-main at 2.2.1,
// April 2026): crates/agent/src/agent/event_log.rs (LogEntry), agent_loop/types.rs (ContentBlock
// `{ kind: "text" | "toolUse" | "toolResult" | "image" | "thinking", data }`, Message), agent/mod.rs
// (what is logged when), crates/chat-cli-v2/src/agent/session/mod.rs (SessionData, the .json),
// acp/acp_agent.rs emit_historical_notifications (what a resumed session shows), and
// crates/chat-cli/src/cli/chat/v1_export (a classic UI's chat copied into a session when resumed there).
// - Kept as a resumed session shows it: every Prompt's text and every AssistantMessage's text and tool
//   calls (`[tool: name]`), in the log's order. Compaction, Clear, ResetTo and CancelledPrompt show
//   nothing and hide nothing there (the model's context they rebuild is not what is shown), so what
//   came before them stays. Left out: tool results (ToolResults), thinking, a Compaction's summary and
//   copied messages, the CLI's own retry prompts (a tool too large, a timeout), counted.
// - Sub-agents' sessions (acp/session_manager.rs spawn_orchestrated, acp/subagent_tool.rs, agent/tools/summary.rs)
//   are saved beside the user's with nothing in their .json to tell them apart: a log that calls the
//   `summary` tool (given to sub-agents alone) or holds the CLI's reminder to call it is one, left out and
//   counted; its parent names it by its tool (`[tool: subagent]`).
// - Human: a Prompt's text blocks as typed, an image `[image]`; `meta.additionalContext` (hooks) apart.
// - Ids: an answer is its AssistantMessage's `message_id`; a prompt, `<the answer's id>-prompt`, as the
//   amazon-q importer names it in data.sqlite3 (the copy of a classic chat keeps its answers' ids, not
//   its prompts'), so the chat read from both is one; a prompt without an answer keeps its own id.
// - Times: a prompt's `meta.timestamp` (Unix seconds, since 2.0); the .json's `created_at` and
//   `updated_at` where none. Title: the first prompt (the .json's `title` is it cut to 30 characters).
import type { UploadConversation } from "../../schemas/chat-history.js";
import {
  SUBAGENT_SESSIONS,
  agentTurns,
  promptTitle,
  sessionConversation,
  sessionFileId,
  type TurnPiece,
  type Utterance,
} from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, jsonObjectBeside, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";

/** A line of the event log, or the session's .json (read through the log beside it). */
export interface KiroLine {
  context: RecordContext;
  kind: string;
  data: JsonObject;
}

export function kiroLine(record: unknown, context: RecordContext): KiroLine | undefined {
  if (!isObject(record)) return undefined;
  if (typeof record.session_id === "string" && "session_state" in record) return { context, kind: "session", data: record };
  const kind = nonEmptyString(record.kind);
  if (kind === undefined) return undefined;
  return { context, kind, data: isObject(record.data) ? record.data : {} };
}

/** Prompts agent/mod.rs sends on its own, logged as the user's: the model's answer was cut, it retries. */
const RETRY_PROMPTS = new Set([
  "The generated tool was too large, try again but this time split up the work between multiple tool uses",
  "You took too long to respond - try to split up the work into smaller steps.",
]);
const RETRIES = "prompts the CLI sent itself to retry a cut answer (left out)";
const TOOL_RESULTS = "tool results (left out)";
const EMPTY = "sessions without any message text";

/**
 * What only a sub-agent's log holds. A sub-agent is a session of its own, saved as the user's are
 * (acp/session_manager.rs spawns it with `is_subagent`; acp_agent.rs writes its .json and .jsonl alike,
 * no field says so): only a sub-agent is given the `summary` tool, and it must call it to hand its
 * result back (agent/tools/mod.rs; acp/subagent_tool.rs, whose reminder is logged as a prompt when it does not).
 */
function isSubagentsOwn(line: KiroLine): boolean {
  if (line.kind === "Prompt") return promptPieces(line.data).some((piece) => piece.text === SUMMARY_REMINDER);
  return (
    line.kind === "AssistantMessage" &&
    blocks(line.data).some((block) => block.kind === "toolUse" && isObject(block.data) && isSummaryCall(block.data))
  );
}

/**
 * A call of the built-in summary tool, by its name and its required arguments (agent/tools/summary.rs:
 * taskDescription, taskResult): a user's MCP tool may be called `summary` too, and its session is theirs.
 */
function isSummaryCall(call: JsonObject): boolean {
  const input = call.input;
  return call.name === "summary" && isObject(input) && "taskDescription" in input && "taskResult" in input;
}

/** acp/subagent_tool.rs SUMMARY_FAILSAFE_MSG, sent to a sub-agent that ended its task without its summary. */
const SUMMARY_REMINDER =
  "You have not called the summary tool yet. Please call the summary tool now to provide your findings to the main agent before ending your task.";

/** A session's log (groupedPerFile gives one file's lines at a time) to its conversation; none from its .json. */
export async function kiroSessions(lines: KiroLine[]): Promise<UploadConversation[]> {
  const first = lines[0];
  if (first === undefined) return [];
  const { context } = first;
  if (first.kind === "session") {
    if (!(await hasLog(context))) context.skip(EMPTY); // a session opened and left: its log empty (or gone)
    return [];
  }
  if (lines.some(isSubagentsOwn)) {
    context.skip(SUBAGENT_SESSIONS);
    return [];
  }
  const said = utterances(lines, context);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    context.skip(EMPTY);
    return [];
  }
  const session = await sessionData(context);
  const created = isoFromTime(session?.created_at);
  const upload = sessionConversation({
    id: fittingId(nonEmptyString(session?.session_id) ?? sessionFileId(context.path)),
    title: titleFrom(promptTitle(messages)),
    messages,
    said,
    fallbackDate: created === undefined ? context.fallbackDate : new Date(created),
    partial: context.damaged?.() === true,
  });
  const updated = isoFromTime(session?.updated_at);
  if (upload.conversation.updatedAt === undefined && updated !== undefined && updated >= upload.conversation.createdAt) {
    upload.conversation.updatedAt = updated;
  }
  return [upload];
}

function utterances(lines: KiroLine[], context: RecordContext): Utterance[] {
  const said: Utterance[] = [];
  lines.forEach((line, i) => {
    if (line.kind === "ToolResults") context.skip(TOOL_RESULTS);
    if (line.kind === "Prompt") {
      const pieces = promptPieces(line.data);
      if (pieces.length === 1 && RETRY_PROMPTS.has(pieces[0]!.text)) return context.skip(RETRIES);
      const answer = lines[i + 1]?.kind === "AssistantMessage" ? nonEmptyString(lines[i + 1]!.data.message_id) : undefined;
      const id = answer === undefined ? (nonEmptyString(line.data.message_id) ?? `line-${line.context.index + 1}`) : `${answer}-prompt`;
      const meta = isObject(line.data.meta) ? line.data.meta : {};
      said.push({ id, role: "human", pieces, time: isoFromTime(meta.timestamp) });
    }
    if (line.kind === "AssistantMessage") {
      const id = nonEmptyString(line.data.message_id) ?? `line-${line.context.index + 1}`;
      said.push({ id, role: "assistant", pieces: answerPieces(line.data), time: undefined });
    }
  });
  return said;
}

function promptPieces(data: JsonObject): TurnPiece[] {
  return blocks(data).flatMap((block): TurnPiece[] => {
    if (block.kind === "image") return [{ text: "[image]", tool: false }];
    const text = block.kind === "text" ? stringOf(block.data) : undefined;
    return text === undefined || text.trim() === "" ? [] : [{ text, tool: false }];
  });
}

/** An answer's text and the tools it called; thinking left out. */
function answerPieces(data: JsonObject): TurnPiece[] {
  return blocks(data).flatMap((block): TurnPiece[] => {
    if (block.kind === "toolUse") return [{ text: toolPlaceholder(isObject(block.data) ? block.data.name : undefined), tool: true }];
    const text = block.kind === "text" ? stringOf(block.data) : undefined;
    return text === undefined || text.trim() === "" ? [] : [{ text, tool: false }];
  });
}

function blocks(data: JsonObject): JsonObject[] {
  return arrayOf(data.content).filter(isObject);
}

/** Whether the session's .json has a log beside it with anything in it (read through the log, not here). */
async function hasLog(context: RecordContext): Promise<boolean> {
  const log = await context.sibling?.(`${sessionFileId(context.path)}.jsonl`);
  return log !== undefined && log.size > 0;
}

/** More than a session's .json holds: its metadata and model state (tens of KB, its turns' token counts growing with it). */
const MAX_SESSION_BYTES = 64 * 1024 * 1024;

/** The session's <id>.json beside its log, when there and readable. */
function sessionData(context: RecordContext): Promise<JsonObject | undefined> {
  return jsonObjectBeside(
    context,
    `${sessionFileId(context.path)}.json`,
    MAX_SESSION_BYTES,
    "session .json files that could not be read (the session's times are its messages')",
  );
}
