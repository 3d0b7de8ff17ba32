// A ConversationState of Amazon Q Developer CLI (`q chat`) or Kiro CLI (`kiro-cli chat`) to the upload
// shape. What each rule rests on (aws/amazon-q-developer-cli, crates/chat-cli/src/cli/chat: main to
// v1.19.7, the last Amazon Q release; branch release/versionBump@1.28.3 for Kiro CLI):
// - The state (conversation.rs ConversationState), serde's JSON: `conversation_id` (a UUID made when
//   the conversation starts), `next_message`, `history`, `transcript`, `tools`… A history entry is
//   `{ user, assistant, request_metadata }` (since July 2025, #2313); before, the pair `[user, assistant]`.
// - A UserMessage (message.rs): `content` one of `{ Prompt: { prompt } }`, `{ CancelledToolUses: {
//   prompt?, tool_use_results } }`, `{ ToolUseResults: { tool_use_results } }`, the prompt as typed (the
//   context the CLI adds is `additional_context`, apart); `images`; `timestamp` RFC 3339 (since August
//   2025). An AssistantMessage: `{ Response: { message_id, content } }` or `{ ToolUse: { message_id,
//   content, tool_uses: [{ id, name, orig_name, args }] } }`, `message_id` a UUID the CLI makes for each
//   request. RequestMetadata (parser.rs): `request_start_timestamp_ms`, `stream_end_timestamp_ms`.
// - Kept: each prompt; the answers until the next prompt as one message, tools as `[tool: name]`. Left
//   out: tool results, `next_message` (a prompt not yet answered: once answered it is in the history,
//   under the id it gets there).
// - /compact drops the history before its summary and /clear all of it, the conversation id kept: the
//   upload adds to what was stored (not `complete`), so what an earlier import kept stays. Message ids
//   are the answers' `message_id`s (else derived from the entry), never places, which those shift.
// - Platform: Kiro CLI's when the state has `user_turn_metadata` (written by every Kiro CLI version, by
//   no Amazon Q release), so a conversation Kiro's database holds from Amazon Q keeps Amazon Q's id.
// - Title: the first prompt (Kiro's session list shows the last, cut; Amazon Q shows none).
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, isoFromTime, jsonObjectIn, nonEmptyString, titleFrom, type JsonObject } from "../json-values.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";
import { isAmazonQRow } from "./database.js";

export const KIRO_CLI = { platform: "kiro-cli", platformDisplayName: "Kiro CLI" } as const;

/** A row of data.sqlite3, or a state /save wrote to a file, to its conversation. */
export function amazonQConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  const row = isAmazonQRow(record) ? record : undefined;
  const state = row === undefined ? (isObject(record) ? record : undefined) : jsonObjectIn(row.value);
  if (state === undefined) {
    context.skip("conversations whose stored JSON is damaged (left out)");
    return undefined;
  }
  const id = nonEmptyString(state.conversation_id);
  if (id === undefined) {
    context.skip("conversations without an id (left out)");
    return undefined;
  }
  const said = arrayOf(state.history).flatMap(entryUtterances);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    context.skip("conversations without any message text");
    return undefined;
  }
  const fallback = row?.createdAt ?? row?.updatedAt;
  const upload = sessionConversation({
    id,
    title: titleFrom(promptTitle(messages)),
    messages,
    said,
    fallbackDate: fallback === undefined ? context.fallbackDate : new Date(fallback),
    partial: true,
  });
  const rowUpdated = isoFromTime(row?.updatedAt);
  if (upload.conversation.updatedAt === undefined && rowUpdated !== undefined && rowUpdated >= upload.conversation.createdAt) {
    upload.conversation.updatedAt = rowUpdated;
  }
  return "user_turn_metadata" in state ? { ...KIRO_CLI, ...upload } : upload;
}

/** A history entry's prompt and answer. */
function entryUtterances(entry: unknown): Utterance[] {
  const [user, assistant, metadata] = Array.isArray(entry)
    ? [entry[0], entry[1], undefined]
    : isObject(entry)
      ? [entry.user, entry.assistant, entry.request_metadata]
      : [];
  if (!isObject(user) || !isObject(assistant)) return [];
  const answer = variant(assistant);
  const meta = isObject(metadata) ? metadata : {};
  const id = nonEmptyString(answer.message_id) ?? nonEmptyString(meta.message_id) ?? derivedId("turn", [user.content, assistant]);
  return [
    {
      id: `${id}-prompt`,
      role: "human",
      pieces: promptPieces(user),
      time: isoFromTime(user.timestamp) ?? isoFromTime(meta.request_start_timestamp_ms),
    },
    { id, role: "assistant", pieces: answerPieces(answer), time: isoFromTime(meta.stream_end_timestamp_ms) },
  ];
}

/** What the user typed, and an `[image]` for each image pasted with it; nothing for tool results alone. */
function promptPieces(user: JsonObject): TurnPiece[] {
  const prompt = nonEmptyString(variant(user.content).prompt);
  if (prompt === undefined) return [];
  return [{ text: prompt, tool: false }, ...arrayOf(user.images).map(() => ({ text: "[image]", tool: false }))];
}

function answerPieces(answer: JsonObject): TurnPiece[] {
  const text = nonEmptyString(answer.content);
  const tools = arrayOf(answer.tool_uses)
    .filter(isObject)
    .map((use) => ({ text: toolPlaceholder(nonEmptyString(use.orig_name) ?? use.name), tool: true }));
  return [...(text === undefined ? [] : [{ text, tool: false }]), ...tools];
}

/** The fields of serde's externally tagged enum value, `{ Variant: { … } }`, whichever its variant. */
function variant(value: unknown): JsonObject {
  if (!isObject(value)) return {};
  const inner = Object.values(value)[0];
  return isObject(inner) ? inner : {};
}
