// Jan's threads to the upload shape. What each rule is based on: Jan's own code (janhq/jan
// core/src/types/thread/threadEntity.ts `Thread`, core/src/types/message/messageEntity.ts `ThreadMessage`
// and `ThreadContent`; web-app/src/lib/completion.ts, which writes a message's parts and its
// `metadata.tool_calls`; web-app/src/lib/fileMetadata.ts, the `[ATTACHED_FILES]` block a user message
// names its documents in; web-app/src/utils/reasoning.ts, which writes the model's reasoning into the
// text as `<think>…</think>`; web-app/src/lib/message-branching.ts for which version is shown;
// web-app/src/hooks/useAssistant.ts for the default assistant's instructions).
// - A thread is a folder: its thread.json and messages.jsonl are read together (records of one folder
//   follow each other, the files being read in path order); messages name their thread (`thread_id`).
// - Branch: a thread whose messages carry `metadata.parentId` is a tree: from the newest root, each
//   message's `metadata.activeChildId`, else its newest child. Otherwise the messages are the chat as
//   it stands (regenerating replaced the answer). A message whose parent is not in the file (a damaged
//   line) goes on from where the shown path ends, rather than being lost with it.
// - Parts: `text` kept (a user's `[ATTACHED_FILES]` block becomes `[file: name]`, an answer's leading
//   `<think>` block is left out); `reasoning` left out; `image_url` is `[image]`; a `tool_call` part or
//   a `metadata.tool_calls` entry is `[tool: name]`, its output not kept. Messages whose status is
//   `error` hold the app's error, not an answer: left out; so are `system` and `tool` messages.
// - System prompt: the thread's first assistant's `instructions`, unless they are the default Jan
//   assistant's. Times: messages' `created_at`, the thread's `created`. Id: the thread's `id`.
import { dirname } from "node:path";
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import type { Importer } from "../importer.js";
import { arrayOf, earliestIso, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces, systemPromptMessage, THINK_BLOCK, toolPlaceholder } from "../placeholders.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext } from "../types.js";

/** A thread's records as read: its thread.json (if any) and its messages. */
interface Held {
  thread: JsonObject | undefined;
  messages: JsonObject[];
  context: RecordContext;
}

/** Every thread of the folder, each on its own: a damaged one costs only itself. */
export const janThreads: Importer["convert"] = async function* (records) {
  let folder: string | undefined;
  let threads = new Map<string, Held>();
  for await (const { value, context } of records) {
    const at = dirname(context.path);
    if (folder !== undefined && at !== folder) {
      yield* finished(threads);
      threads = new Map();
    }
    folder = at;
    if (!isObject(value)) {
      context.unreadable(unreadableRecord(context, notAConversation(context)));
      continue;
    }
    const isThread = value.object === "thread";
    const id = nonEmptyString(isThread ? value.id : value.thread_id) ?? at;
    const held = threads.get(id) ?? { thread: undefined, messages: [], context };
    if (isThread) held.thread = value;
    else held.messages.push(value);
    threads.set(id, held);
  }
  yield* finished(threads);
};

function* finished(threads: Map<string, Held>): Generator<UploadConversation> {
  for (const [id, held] of threads) {
    try {
      const conversation = janConversation(id, held);
      if (conversation !== undefined) yield conversation;
    } catch (error) {
      held.context.unreadable(unreadableRecord(held.context, error));
    }
  }
}

function janConversation(id: string, { thread, messages, context }: Held): UploadConversation | undefined {
  const said = shownPath(messages)
    .map(toMessage)
    .filter((message): message is UploadMessage => message !== undefined);
  if (said.length === 0) {
    context.skip("conversations without any message text (an empty new chat)");
    return undefined;
  }
  const times = said.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = earliestIso([isoFromTime(thread?.created), ...times]) ?? context.fallbackDate.toISOString();
  const updatedAt = [isoFromTime(thread?.updated), ...times]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const system = systemPromptMessage(userInstructions(thread), "system-prompt", createdAt);
  return {
    complete: true, // the folder holds the thread as it stands
    conversation: {
      id: `jan-${id}`,
      title: titleFrom(thread?.title),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: system === undefined ? said : [system, ...said],
    },
  };
}

/** The opening of the default Jan assistant's instructions (useAssistant.ts `defaultAssistant`). */
const DEFAULT_INSTRUCTIONS = "You are a helpful AI assistant. Your primary goal is to assist users with their questions and tasks";

function userInstructions(thread: JsonObject | undefined): string | undefined {
  const assistant = arrayOf(thread?.assistants).find(isObject);
  const instructions = nonEmptyString(assistant?.instructions);
  return instructions?.trim().startsWith(DEFAULT_INSTRUCTIONS) ? undefined : instructions;
}

/** The messages the app shows (message-branching.ts `computeActivePath`). */
function shownPath(messages: JsonObject[]): JsonObject[] {
  const linked = messages.filter((message) => parentOf(message) !== undefined || activeChildOf(message) !== undefined);
  if (linked.length === 0) return messages;
  const childrenOf = (parent: string | null) => byTime(messages.filter((message) => parentOf(message) === parent));
  const roots = childrenOf(null);
  if (roots.length === 0) return messages;
  const ids = new Set(messages.map((message) => message.id));
  const orphans = byTime(messages.filter((message) => typeof parentOf(message) === "string" && !ids.has(parentOf(message))));
  const path: JsonObject[] = [];
  const seen = new Set<JsonObject>();
  for (let at = roots.at(-1); at !== undefined && !seen.has(at); ) {
    seen.add(at);
    path.push(at);
    const children = childrenOf(stringOf(at.id) ?? "");
    const active = activeChildOf(at);
    const last = timeOf(at);
    // A message whose parent's line was lost goes on from here: the damage costs that line alone.
    at = children.find((child) => child.id === active) ?? children.at(-1) ?? orphans.find((orphan) => timeOf(orphan) > last);
  }
  return path;
}

const metadataOf = (message: JsonObject): JsonObject => (isObject(message.metadata) ? message.metadata : {});

/** `null` for a root, the parent's id, or undefined for a message without a link (before branching). */
function parentOf(message: JsonObject): string | null | undefined {
  const parent = metadataOf(message).parentId;
  return parent === null ? null : stringOf(parent);
}

const activeChildOf = (message: JsonObject): string | undefined => stringOf(metadataOf(message).activeChildId);

const timeOf = (message: JsonObject): number => (typeof message.created_at === "number" ? message.created_at : 0);

const byTime = (messages: JsonObject[]): JsonObject[] => [...messages].sort((a, b) => timeOf(a) - timeOf(b));

function toMessage(message: JsonObject, index: number): UploadMessage | undefined {
  const role = message.role;
  if ((role !== "user" && role !== "assistant") || message.status === "error") return undefined;
  const tools = arrayOf(metadataOf(message).tool_calls).map((call) =>
    isObject(call) && isObject(call.tool) && isObject(call.tool.function) ? toolPlaceholder(call.tool.function.name) : undefined,
  );
  const parts = arrayOf(message.content).flatMap((part) => (isObject(part) ? partPieces(part, role) : []));
  const content = joinPieces([...tools, ...parts]);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.created_at);
  return {
    id: nonEmptyString(message.id) ?? `message-${index + 1}`,
    role: role === "user" ? "human" : "assistant",
    content,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

function partPieces(part: JsonObject, role: "user" | "assistant"): (string | undefined)[] {
  if (part.type === "image_url") return ["[image]"];
  if (part.type === "tool_call") return [toolPlaceholder(part.tool_name)];
  if (part.type !== "text" || !isObject(part.text)) return []; // reasoning
  const text = stringOf(part.text.value);
  if (text === undefined) return [];
  return role === "assistant" ? [text.replace(THINK_BLOCK, "")] : withFilesNamed(text);
}

const ATTACHED_FILES = /\[ATTACHED_FILES\]([\s\S]*?)\[\/ATTACHED_FILES\]/;
/** A file's line of the block: `- file_id: …, name: report.pdf, type: …, size: …` (a name may hold commas). */
const FILE_NAME = /(?:^|,)\s*name:\s*(.*?)\s*(?=,\s*(?:type|size|chunks|injectionMode):|$)/;

/** A user's text without the block of the documents it attached, then `[file: name]` for each of them. */
function withFilesNamed(text: string): string[] {
  const block = ATTACHED_FILES.exec(text);
  if (block === null) return [text];
  const names = (block[1] ?? "")
    .split("\n")
    .map((line) => FILE_NAME.exec(line.replace(/^\s*-\s*/, ""))?.[1])
    .filter((name) => name !== undefined);
  return [text.slice(0, block.index), ...names.map(filePlaceholder)];
}
