// Codex's rollout files (.jsonl) to the upload shape, one conversation per session. What each rule
// rests on: openai/codex, codex-rs/core/src/rollout/policy.rs (what a rollout keeps: response items,
// and of the events the user's and the agent's messages) and codex-rs/protocol (RolloutLine
// `{ timestamp, type, payload }`, SessionMeta, ResponseItem, UserMessageEvent `{ message, kind, images }`,
// AgentMessageEvent `{ message }`), with rollouts as session viewers read them (2025-08 on):
// - What was said: the `user_message` and `agent_message` events, the words the user and the agent
//   saw; a rollout without them (older versions) by its `message` items, those of the user and the
//   assistant (not the developer's or system's instructions).
// - Left out: what Codex adds to a prompt (`<environment_context>`, `<user_instructions>`, AGENTS.md's
//   instructions, events of kind other than plain), reasoning, tools' output, compaction summaries,
//   and sub-agents' sessions (`source` subagent): the agent's side work, as its reasoning is.
// - Tools the agent ran, as `[tool: shell]`, between its words. A prompt and everything the agent did
//   until the next one is one exchange (agent-sessions.ts).
// - Id: the session's (session_meta, else the file name's); message ids are line numbers, which stay
//   as the file grows. Title: the first prompt's first line (the rollout holds no title).
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import {
  SUBAGENT_SESSIONS,
  agentTurns,
  promptTitle,
  sessionConversation,
  sessionFileId,
  type TurnPiece,
  type Utterance,
} from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";

export interface RolloutLine {
  file: string;
  index: number;
  session?: string | undefined;
  subagent?: boolean;
  said?: Utterance;
  /** Said by an event (user_message, agent_message), not a response item. */
  event?: boolean;
  fallbackDate: Date;
  skip: SkipReport;
}

export function rolloutLine(record: unknown, context: RecordContext): RolloutLine | undefined {
  if (!isObject(record) || !isObject(record.payload)) return undefined;
  const { payload } = record;
  const line = { file: context.path, index: context.index, fallbackDate: context.fallbackDate, skip: context.skip };
  const said = (role: UploadMessage["role"], pieces: TurnPiece[], event: boolean): RolloutLine => ({
    ...line,
    said: { id: `line-${context.index + 1}`, role, pieces, time: isoFromTime(record.timestamp) },
    event,
  });
  if (record.type === "session_meta") return { ...line, session: nonEmptyString(payload.id), subagent: isSubagent(payload) };
  if (record.type === "event_msg" && payload.type === "user_message") return said("human", promptPieces(payload), true);
  if (record.type === "event_msg" && payload.type === "agent_message") return said("assistant", textPieces([payload.message]), true);
  if (record.type !== "response_item") return undefined;
  if (payload.type === "message" && payload.role === "user") return said("human", contentPieces(payload.content), false);
  if (payload.type === "message" && payload.role === "assistant") return said("assistant", contentPieces(payload.content), false);
  const tool = toolName(payload);
  return tool === undefined ? undefined : said("assistant", [{ text: toolPlaceholder(tool), tool: true }], false);
}

/** A session Codex started for itself (a review, a spawned thread), whose words are its side work. */
function isSubagent(meta: JsonObject): boolean {
  return (isObject(meta.source) && "subagent" in meta.source) || meta.thread_source === "subagent";
}

/** What Codex writes into the conversation as the user's, before or around what they typed. */
const ADDED = /^\s*(?:<environment_context>|<user_instructions>|<user_shell_command>|# AGENTS\.md instructions)/;

function textPieces(texts: unknown[]): TurnPiece[] {
  return texts
    .map((text) => nonEmptyString(text)?.trim())
    .filter((text): text is string => text !== undefined && !ADDED.test(text))
    .map((text) => ({ text, tool: false }));
}

function promptPieces(event: JsonObject): TurnPiece[] {
  if (event.kind !== undefined && event.kind !== "plain") return [];
  const images = [...arrayOf(event.images), ...arrayOf(event.local_images)].map(() => ({ text: "[image]", tool: false }));
  return [...textPieces([event.message]), ...images];
}

function contentPieces(content: unknown): TurnPiece[] {
  const blocks = arrayOf(content).filter(isObject);
  const pieces = textPieces(
    blocks.filter((block) => block.type === "input_text" || block.type === "output_text").map((block) => block.text),
  );
  const images = blocks.filter((block) => block.type === "input_image").map(() => ({ text: "[image]", tool: false }));
  return [...pieces, ...images];
}

function toolName(item: JsonObject): string | undefined {
  if (item.type === "function_call" || item.type === "custom_tool_call") return stringOf(item.name) ?? "tool";
  if (item.type === "local_shell_call") return "shell";
  if (item.type === "web_search_call") return "web_search";
  return undefined;
}

/** A session file's lines (groupedPerFile gives one file's at a time) to its conversation, if anything was said in it. */
export function rollouts(lines: RolloutLine[]): UploadConversation[] {
  const conversation = lines.length === 0 ? undefined : rollout(lines);
  return conversation === undefined ? [] : [conversation];
}

function rollout(lines: RolloutLine[]): UploadConversation | undefined {
  const { skip, fallbackDate, file } = lines[0]!;
  if (lines.some((line) => line.subagent)) {
    skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  // Events and response items say the same words twice: the events are what the user saw.
  const events = lines.some((line) => line.event === true);
  const utterances = lines.filter((line) => line.said !== undefined && (line.event === events || isTool(line))).map((line) => line.said!);
  const messages = agentTurns(utterances);
  if (messages.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const id =
    lines.find((line) => line.session !== undefined)?.session ??
    sessionFileId(file).replace(/^rollout-\d{4}-\d\d-\d\dT[\d-]+?-(?=[0-9a-f]{8}-)/i, "");
  return sessionConversation({ id: fittingId(id), title: titleFrom(promptTitle(messages)), messages, said: utterances, fallbackDate });
}

const isTool = (line: RolloutLine) => line.said?.pieces.some((piece) => piece.tool) === true;
