// A thread of Zed's agent panel to the upload shape. What each rule rests on (zed-industries/zed):
// - crates/agent/src/db.rs: a row of `threads` (`id`, `summary`, `updated_at` and, later, `created_at`,
//   RFC 3339) is one thread; its `data` is `DbThread` (version "0.3.0": `title`, `updated_at`,
//   `messages`), each message serde's external tag: `{"User": {id, content}}`, `{"Agent": {content,
//   tool_results}}` or `"Resume"` (a "continue" the panel sends itself). A user's content is
//   `{"Text": s}`, `{"Mention": {uri, content}}` (an @-mention: `uri` names it, `content` is the file's
//   text the model was sent) or `{"Image": …}`; an agent's `{"Text": s}`, `{"Thinking": {text}}`,
//   `{"RedactedThinking": s}` or `{"ToolUse": {id, name, input}}`.
// - crates/agent/src/legacy_thread.rs: threads of the agent before it (`SerializedThread`, "0.1.0",
//   "0.2.0", or no version): `summary`, `updated_at`, messages `{id, role, segments: [{type: "text" |
//   "thinking", text}, {type: "RedactedThinking"}], tool_uses: [{id, name, input}], tool_results,
//   context, is_hidden}`; the oldest a message's `text` alone. 0.1.0 sent tool results as user messages.
// - Read as the panel shows it: the user's text, an @-mention as `@name`, an image as `[image]`; the
//   agent's text and each tool it used as `[tool: name]`, in order. Thinking, tool results, the
//   context the model was sent, hidden messages, system messages and "Resume" are left out.
// - A subagent's thread (`parent_id`, db.rs `subagent_context`) is shown inside the thread that
//   started it, as its tool's card: left out, counted, as OpenCode's and Cursor's subagents are.
// - Messages have no times in either shape: the thread's `created_at` (else `updated_at`) starts it, `updated_at` ends it.
// - Ids: the thread's own id; a message's its place in the thread (Zed only appends, or cuts the end
//   when a message is edited), so reading the database again updates a thread.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { promptTitle } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom, type JsonObject, jsonObjectIn } from "../json-values.js";
import { joinPieces, toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";
import { isZedThreadRow } from "./database.js";

type Role = UploadMessage["role"];

/** A row of threads.db as one conversation; undefined (counted) when its data cannot be read. */
export function zedThread(value: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isZedThreadRow(value)) return undefined;
  if (value.parentId !== undefined) {
    context.skip("subagents' threads (shown inside the thread that started them: left out)");
    return undefined;
  }
  const thread = parsed(value.json);
  if (thread === undefined) {
    context.skip("threads whose stored data is damaged (left out)");
    return undefined;
  }
  const messages = arrayOf(thread.messages).flatMap((message, index) => {
    const said = isCurrent(message) ? currentMessage(message) : legacyMessage(message);
    return said === undefined || said.content === "" ? [] : [{ id: String(index), ...said }];
  });
  if (messages.length === 0) return undefined;
  const updatedAt = isoFromTime(value.updatedAt) ?? isoFromTime(thread.updated_at);
  const createdAt = isoFromTime(value.createdAt) ?? updatedAt ?? context.fallbackDate.toISOString();
  return {
    complete: true, // the row holds the whole thread as the panel shows it now
    conversation: {
      id: value.zedThread,
      title: titleFrom(
        nonEmptyString(value.summary) ?? nonEmptyString(thread.title) ?? nonEmptyString(thread.summary) ?? promptTitle(messages),
      ),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages,
    },
  };
}

/** DbThread 0.3.0's messages: `{"User": …}`, `{"Agent": …}` or `"Resume"`. */
const isCurrent = (message: unknown): boolean => message === "Resume" || (isObject(message) && ("User" in message || "Agent" in message));

function currentMessage(message: unknown): { role: Role; content: string } | undefined {
  if (!isObject(message)) return undefined; // "Resume"
  // A user's pieces are one line of the message editor, the spaces in the text around a mention.
  if (isObject(message.User)) return { role: "human", content: joinPieces([arrayOf(message.User.content).map(userPiece).join("")]) };
  if (isObject(message.Agent)) return { role: "assistant", content: joinPieces(arrayOf(message.Agent.content).map(agentPiece)) };
  return undefined;
}

function userPiece(piece: unknown): string {
  if (!isObject(piece)) return "";
  if (typeof piece.Text === "string") return piece.Text;
  if (isObject(piece.Mention)) return mentionLabel(piece.Mention.uri);
  return "Image" in piece ? "[image]" : "";
}

function agentPiece(piece: unknown): string | undefined {
  if (!isObject(piece)) return undefined;
  if (typeof piece.Text === "string") return piece.Text;
  if (isObject(piece.ToolUse)) return toolPlaceholder(piece.ToolUse.name);
  return undefined; // Thinking, RedactedThinking
}

/** An @-mention as the panel labels it: `MentionUri`'s `{"File": {abs_path}}`, `{"Symbol": {name, …}}`, `{"Fetch": {url}}`… */
function mentionLabel(uri: unknown): string {
  const [kind, fields] = isObject(uri) ? (Object.entries(uri)[0] ?? []) : [uri];
  if (kind === "PastedImage") return "[image]";
  const named = isObject(fields)
    ? (nonEmptyString(fields.name) ?? nonEmptyString(fields.url) ?? baseName(fields.abs_path ?? fields.path))
    : undefined;
  return `@${named ?? nonEmptyString(kind) ?? ""}`;
}

function baseName(path: unknown): string | undefined {
  return nonEmptyString(path)?.split(/[\\/]/).filter(Boolean).at(-1);
}

/** SerializedThread's message (0.1.0, 0.2.0) or the oldest's `{ role, text }`. */
function legacyMessage(message: unknown): { role: Role; content: string } | undefined {
  if (!isObject(message) || message.is_hidden === true) return undefined;
  const role = message.role === "user" ? "human" : message.role === "assistant" ? "assistant" : undefined;
  if (role === undefined) return undefined; // system
  const segments = "segments" in message ? arrayOf(message.segments).map(segmentText) : [nonEmptyString(message.text)];
  const tools = role === "assistant" ? arrayOf(message.tool_uses).map((use) => toolPlaceholder(isObject(use) ? use.name : undefined)) : [];
  return { role, content: joinPieces([...segments, ...tools]) };
}

function segmentText(segment: unknown): string | undefined {
  return isObject(segment) && segment.type === "text" ? nonEmptyString(segment.text) : undefined;
}

function parsed(text: string | undefined): JsonObject | undefined {
  const value = jsonObjectIn(text);
  return value !== undefined && Array.isArray(value.messages) ? value : undefined;
}
