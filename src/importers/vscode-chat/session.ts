// VS Code's chat sessions to the upload shape, one conversation per file. What each rule rests on:
// microsoft/vscode src/vs/workbench/contrib/chat/common/model/ chatSessionStore.ts (where and how a
// session is written), chatModel.ts (ISerializableChatData), chatSessionOperationLog.ts (what of a
// session the .jsonl log keeps: a markdown part as its IMarkdownString, other parts as they are) and
// objectMutationLog.ts (the log: `{ kind: 0, v }` the whole session, then `{ kind: 1, k: path, v }`
// sets, `{ kind: 2, k, v?, i? }` cuts an array to `i` and appends `v`, `{ kind: 3, k }` deletes);
// chatService.ts (the response parts: IChatToolInvocationSerialized's `toolId`, IChatContentInlineReference).
// - A .json file is the session; a .jsonl file is replayed line by line into it, as VS Code reads it.
// - Human: each request's `message.text`, as typed (`@workspace /explain #file:a.ts …`), an image
//   attached (a `variableData` entry of kind `image`, chatVariableEntries.ts) as `[image]`; files
//   attached are named in the text already (`#file:`) or only context, so not repeated.
// - Assistant: its response's markdown, the files and symbols it names inline (by `name`, else the
//   file's name), and the tools it ran as `[tool: toolId]`, those in a row on one line. Left out:
//   thinking, progress messages, edits shown as diffs (`textEditGroup`), code block links, buttons.
// - Title: `customTitle` (version 2: `computedTitle`, which VS Code reads as it), else the first
//   prompt's first line (normalizeSerializableChatData). Id: `sessionId`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId, uniqueIds } from "../message-ids.js";
import { joinPieces, toolPlaceholder } from "../placeholders.js";
import { promptTitle, sessionFileId, toolsOnOneLine, type TurnPiece } from "../agent-sessions.js";
import type { SourcedRecord } from "../types.js";

export function vscodeChatSession(records: readonly SourcedRecord[]): UploadConversation | undefined {
  const { skip, fallbackDate, path } = records[0]!.context;
  const session = replay(records.map((record) => record.value));
  const messages = arrayOf(session?.requests).filter(isObject).flatMap(turn);
  if (session === undefined || messages.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const times = messages.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = isoFromTime(session.creationDate) ?? times[0] ?? fallbackDate.toISOString();
  const updatedAt = times.at(-1);
  return {
    complete: true, // the file holds the whole session as it stands
    conversation: {
      id: fittingId(stringOf(session.sessionId) ?? sessionFileId(path)),
      title: titleFrom(nonEmptyString(session.customTitle) ?? nonEmptyString(session.computedTitle) ?? promptTitle(messages)),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages: uniqueIds(messages),
    },
  };
}

/** The session a file holds: a .json file's one object, or what a .jsonl log's lines build. */
function replay(values: unknown[]): JsonObject | undefined {
  let state: unknown;
  for (const entry of values) {
    if (!isObject(entry)) continue;
    if (entry.kind === undefined && Array.isArray(entry.requests))
      state = entry; // a whole .json session
    else if (entry.kind === 0) state = entry.v;
    else if (isObject(state) && Array.isArray(entry.k) && entry.k.length > 0) {
      if (entry.kind === 1) set(state, entry.k, entry.v);
      else if (entry.kind === 3) set(state, entry.k, undefined);
      else if (entry.kind === 2) push(state, entry.k, entry.v, entry.i);
    }
  }
  return isObject(state) ? state : undefined;
}

/**
 * The object or array a path's last key is in; undefined when the path leads nowhere (a damaged
 * log). Only the session's own properties are followed, and a last key of `__proto__` leads nowhere:
 * a log's `["__proto__", "x"]` had set `x` on Object.prototype, in every object of the process that
 * imported the file (a server, a watcher of ~/Downloads).
 */
function parentOf(state: JsonObject, path: unknown[]): Record<string | number, unknown> | undefined {
  if (path.at(-1) === "__proto__") return undefined;
  let at: unknown = state;
  for (const key of path.slice(0, -1)) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key as PropertyKey)) return undefined;
    at = (at as Record<string | number, unknown>)[key as string | number];
  }
  return typeof at === "object" && at !== null ? (at as Record<string | number, unknown>) : undefined;
}

function set(state: JsonObject, path: unknown[], value: unknown): void {
  const parent = parentOf(state, path);
  if (parent !== undefined) parent[path.at(-1) as string | number] = value;
}

function push(state: JsonObject, path: unknown[], values: unknown, from: unknown): void {
  const parent = parentOf(state, path);
  if (parent === undefined) return;
  const key = path.at(-1) as string | number;
  const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : [];
  if (typeof from === "number") list.length = Math.min(list.length, from);
  list.push(...arrayOf(values));
  parent[key] = list;
}

/** A request as the prompt, then its response when it says anything. */
function turn(request: JsonObject): UploadMessage[] {
  const id = stringOf(request.requestId) ?? "";
  const time = isoFromTime(request.timestamp);
  const at = time === undefined ? {} : { createdAt: time };
  const message = isObject(request.message) ? request.message.text : request.message;
  const images = arrayOf(isObject(request.variableData) ? request.variableData.variables : []).filter(
    (entry) => isObject(entry) && entry.kind === "image",
  );
  const prompt = nonEmptyString(joinPieces([stringOf(message), ...images.map(() => "[image]")]));
  const answer = joinPieces(toolsOnOneLine(responsePieces(arrayOf(request.response))));
  return [
    ...(prompt === undefined ? [] : [{ id: fittingId(id), role: "human" as const, content: prompt, ...at }]),
    ...(answer === ""
      ? []
      : [{ id: fittingId(stringOf(request.responseId) ?? `${id}-response`), role: "assistant" as const, content: answer, ...at }]),
  ];
}

/** The response's text (its markdown parts and inline references, one run) and its tools, in order. */
function responsePieces(parts: unknown[]): TurnPiece[] {
  const pieces: TurnPiece[] = [];
  let text = "";
  const flush = () => {
    if (text.trim() !== "") pieces.push({ text, tool: false });
    text = "";
  };
  for (const part of parts) {
    const markdown = markdownOf(part);
    if (markdown !== undefined) text += markdown;
    else if (isObject(part) && part.kind === "inlineReference") text += referenceName(part);
    else if (isObject(part) && part.kind === "toolInvocationSerialized") {
      flush();
      pieces.push({ text: toolPlaceholder(part.toolId), tool: true });
    }
  }
  flush();
  return pieces;
}

/** A markdown part's text: a string (older files), an IMarkdownString (`{ value }`), or `{ kind: "markdownContent", content }`. */
function markdownOf(part: unknown): string | undefined {
  if (typeof part === "string") return part;
  if (!isObject(part)) return undefined;
  if (part.kind === undefined) return stringOf(part.value);
  if (part.kind === "markdownContent") return isObject(part.content) ? stringOf(part.content.value) : stringOf(part.content);
  return undefined;
}

/** An inline reference as the chat shows it: its name, else the file's name (a URI, or a Location's `uri`). */
function referenceName(part: JsonObject): string {
  const named = nonEmptyString(part.name);
  if (named !== undefined) return named;
  const target = isObject(part.inlineReference) ? part.inlineReference : {};
  const uri = isObject(target.uri) ? target.uri : target;
  return stringOf(target.name) ?? stringOf(uri.path)?.replace(/^.*\//, "") ?? "";
}
