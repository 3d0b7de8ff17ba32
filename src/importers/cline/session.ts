// Cline's sessions since its move to the SDK (2026: the CLI, and the VS Code extension on it) to the
// upload shape, one conversation per session. What each rule rests on: cline/cline at 21cb8d25
// (sdk v0.0.78): sdk/packages/core/docs/messages-contract-v1.md and src/services/session-data.ts
// (buildMessagesFilePayload: the file), session-artifacts.ts (where: ~/.cline/data/sessions/<id>/
// <id>.messages.json, a subagent's <agent id>.messages.json beside it, the manifest <id>.json),
// sdk/packages/shared/src/llms/messages.ts (MessageWithMetadata, the content blocks),
// shared/src/prompt/format.ts (formatDisplayUserInput: what the chat shows of a prompt),
// apps/vscode/src/sdk/sdk-user-message-mapping.ts (isSyntheticSdkUserMessage: prompts never shown),
// apps/cli/src/tui/utils/hydrate-messages.ts (how the CLI shows a session again), and the real
// session sdk/packages/core/fixtures/session/session.messages.json.
// - The file: `{ version: 1, updated_at, agent: "lead" | "subagent" | "teammate", sessionId, taskType?,
//   origin?, messages, system_prompt? }`, rewritten whole at each step. `messages` is the model's
//   history: `{ id, role: "user" | "assistant", content: blocks or a string, ts?, modelInfo?, metrics?,
//   metadata? }`, the tools' results as `tool_result` blocks of `user` messages.
// - Human: a user message's text (the `<user_input mode>` and `<user_command slash>` wrappers taken
//   off as the chat does, a `/command` shown as typed, `<mode_notice>` left out), its images as
//   `[image]` and the files an @mention attached as `[file: name]`. Left out: tool results, and the
//   prompts the chat never showed: the runtime's (metadata `displayRole` system or status: compaction
//   summaries, hook context), a task's resumption (`[TASK RESUMPTION]`), the plan-to-act continuation.
// - Assistant: from one prompt to the next, one message: its text, its images as `[image]`, the tools
//   it called (`tool_use`) and those its provider ran (metadata `modelToolActivities`, session/
//   display-messages.ts) as `[tool: name]`. Left out: thinking, the system prompt (Cline's own).
// - Subagents' and teammates' files (`agent` not "lead") are left out: the lead's session holds what
//   they returned, as a tool's result.
// - Id: `sessionId` (else the file's name), `<ms>_<random>` as the SDK makes it. Times: each
//   message's `ts` (ms). Title: the manifest's beside it (<id>.json, `metadata.title`: what the
//   session list shows, a title the user gave included), else the first prompt's first line (the
//   SDK's own deriveTitleFromPrompt). A manifest that cannot be read is counted; the session stays.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { SUBAGENT_SESSIONS, agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, jsonObjectBeside, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";

/** The prompt the extension sends itself when plan mode's plan is approved (sdk-user-message-mapping.ts). */
const ACT_MODE_CONTINUATION = "The user approved switching to act mode. Continue with the approved plan now.";
const SYNTHETIC_PROMPT = /^(\[TASK RESUMPTION\]|<hook_context)/;
/** What `/team` sends before the task typed, which the chat does not show (formatDisplayUserInput). */
const TEAM_PREFIX = "spawn a team of agents for the following task:";

/** Whether a record is a session's messages file (buildMessagesFilePayload's object). */
export function isSessionFile(record: JsonObject): boolean {
  return typeof record.sessionId === "string" && typeof record.agent === "string" && Array.isArray(record.messages);
}

export function sdkSession(record: JsonObject, context: RecordContext): UploadConversation | undefined {
  const { skip, fallbackDate } = context;
  if (record.agent !== "lead") {
    skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  const said = arrayOf(record.messages).flatMap((message, index) => (isObject(message) ? utterancesOf(message, index) : []));
  const turns = agentTurns(said);
  if (turns.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const id = nonEmptyString(record.sessionId) ?? context.path.replace(/^.*\//, "").replace(/\.messages\.json$/i, "");
  const started = startOf(id);
  // A prompt without `ts` (files before per-message times) began the session: the SDK's id is its start.
  const first = turns[0]!;
  if (first.createdAt === undefined && started !== undefined) first.createdAt = started;
  return sessionConversation({ id: fittingId(id), title: titleFrom(promptTitle(turns)), messages: turns, said, fallbackDate });
}

/** When a session began, from an id the SDK made: `${Date.now()}_${nanoid(5)}`. */
function startOf(id: string): string | undefined {
  const millis = /^(\d{13})(_|$)/.exec(id)?.[1];
  return millis === undefined ? undefined : isoFromTime(Number(millis));
}

function utterancesOf(message: JsonObject, index: number): Utterance[] {
  const id = fittingId(nonEmptyString(message.id) ?? `message-${index + 1}`);
  const time = isoFromTime(message.ts);
  const blocks =
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : arrayOf(message.content).filter(isObject);
  if (message.role === "assistant")
    return [{ id, role: "assistant", pieces: [...modelTools(message), ...blocks.flatMap(assistantPiece)], time }];
  if (message.role !== "user" || shownNever(message, blocks)) return [];
  return [{ id, role: "human", pieces: blocks.flatMap(promptPiece), time }];
}

/** The tools the model's provider ran (web search…), kept in the message's metadata and shown before it (display-messages.ts). */
function modelTools(message: JsonObject): TurnPiece[] {
  const activities = isObject(message.metadata) ? arrayOf(message.metadata.modelToolActivities) : [];
  return activities.flatMap((activity) => {
    const name = isObject(activity) ? nonEmptyString(activity.toolName)?.trim() : undefined;
    return name === undefined || name === "" ? [] : [{ text: toolPlaceholder(name), tool: true }];
  });
}

function assistantPiece(block: JsonObject): TurnPiece[] {
  if (block.type === "text") return textPiece(stringOf(block.text));
  if (block.type === "tool_use") return [{ text: toolPlaceholder(block.name), tool: true }];
  if (block.type === "image" || block.type === "media") return [{ text: "[image]", tool: false }];
  return []; // thinking, redacted_thinking
}

function promptPiece(block: JsonObject): TurnPiece[] {
  if (block.type === "text") return textPiece(shownPrompt(stringOf(block.text) ?? ""));
  if (block.type === "image") return [{ text: "[image]", tool: false }];
  if (block.type === "file") return [{ text: filePlaceholder(stringOf(block.path)?.replace(/^.*[\\/]/, "")), tool: false }];
  return []; // tool_result: the tool's output, not the user's
}

function textPiece(text: string | undefined): TurnPiece[] {
  return text === undefined || text.trim() === "" ? [] : [{ text, tool: false }];
}

/** A prompt the runtime sent itself, which the chat never showed (isSyntheticSdkUserMessage). */
function shownNever(message: JsonObject, blocks: JsonObject[]): boolean {
  const role = isObject(message.metadata) ? stringOf(message.metadata.displayRole)?.trim().toLowerCase() : undefined;
  if (role === "system" || role === "status") return true;
  const text = blocks
    .map((block) => (block.type === "text" ? shownPrompt(stringOf(block.text) ?? "") : ""))
    .join("\n")
    .trim();
  const attached = blocks.some((block) => block.type === "image" || block.type === "file");
  return (SYNTHETIC_PROMPT.test(text) || text === ACT_MODE_CONTINUATION) && !attached;
}

/** What the chat shows of a prompt (formatDisplayUserInput): the wrappers off, a command as typed, the mode notices out. */
function shownPrompt(text: string): string {
  const command = /^\s*<user_command\b[^>]*\bslash="([^"]+)"[^>]*>([\s\S]*?)<\/user_command>\s*$/i.exec(text);
  const unwrapped = text.replace(/<\/?(user_input|user_command)\b[^>]*>/g, "");
  const shown = withoutModeNotices(unwrapped).trim();
  if (command === null) return shown;
  const slash = command[1]!;
  const asked =
    slash.toLowerCase() === "team" && shown.toLowerCase().startsWith(TEAM_PREFIX) ? shown.slice(TEAM_PREFIX.length).trim() : shown;
  return asked === "" ? `/${slash}` : `/${slash} ${asked}`;
}

function withoutModeNotices(text: string): string {
  let result = text;
  for (let start = result.indexOf("<mode_notice>"); start !== -1; start = result.indexOf("<mode_notice>", start)) {
    const end = result.indexOf("</mode_notice>", start);
    if (end === -1) break;
    result = result.slice(0, start) + result.slice(end + "</mode_notice>".length);
  }
  return result;
}

/** More than a manifest holds (a few kilobytes). */
const MAX_MANIFEST_BYTES = 256 * 1024;

/** The title in the session's manifest beside its messages file (<id>.json), when there is one to read. */
export async function manifestTitle(id: string, context: Pick<RecordContext, "sibling" | "skip">): Promise<string | undefined> {
  const manifest = await jsonObjectBeside(
    context,
    `${id}.json`,
    MAX_MANIFEST_BYTES,
    "session manifests that could not be read (the session keeps its first prompt as its title)",
  );
  return isObject(manifest?.metadata) ? nonEmptyString(manifest.metadata.title)?.trim() || undefined : undefined;
}
