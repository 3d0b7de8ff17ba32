// Cherry Studio's topics to the upload shape. What each rule is based on: Cherry Studio's own code
// (CherryHQ/cherry-studio src/renderer/src/services/BackupService.ts `getBackupData`, the Dexie schema in
// src/renderer/src/databases/index.ts, the message and block types in src/renderer/src/types/newMessage.ts)
// and how the app's redux state is persisted (redux-persist: `persist:cherry-studio` is JSON whose
// slices are JSON text again; the `assistants` slice holds `{ defaultAssistant, assistants }`, each with
// its `topics` `{ id, name, createdAt, updatedAt, prompt? }`).
// - A topic row `{ id, messages }` is a conversation, its messages in the order the app shows them. A
//   message `{ id, role, createdAt, blocks, type? }` shows its blocks, rows of `message_blocks` that
//   data.json writes after the topics: the file is read again for them, each block on its own, and only
//   the text of those a topic names is kept (an image block's base64 is parsed with its row and dropped).
//   Messages written before blocks (Dexie version 7, 2025) carry their `content` and are read by it.
// - Blocks: `main_text` kept; `code` fenced in its language; `image` `[image]`, `video` `[video]`,
//   `file` `[file: name]`, `tool` `[tool: name]`; `thinking` (folded in the app), `citation` (the
//   search results and references), `error` (the app's notice), `translation` (a copy in another
//   language shown under the message), `compact` and `unknown` (a placeholder while streaming) left out.
// - A `clear` message (the divider that clears the context) and `system` messages are left out; every
//   answer of a multi-model reply is kept (the app shows them side by side).
// - Title: the topic's name in the redux state, else its first prompt's first line. Times: the topic's `createdAt`
//   and `updatedAt` there, else its messages'. The topic's own prompt, else its assistant's, is the
//   system prompt (importers/placeholders.ts). Id: the topic's; the messages' their own.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { jsonRecords } from "../json-records.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { codeBlock, filePlaceholder, joinPieces, toolPlaceholder, withSystemPrompt } from "../placeholders.js";
import { notAConversation } from "../record-errors.js";
import { ByteTally, type ByteSource } from "../source.js";
import type { RecordContext } from "../types.js";
import { firstLine } from "../../text/cut-text.js";

export interface TopicRow {
  id: string;
  messages: JsonObject[];
  context: RecordContext;
}

/** What the redux state says of a topic. */
interface TopicInfo {
  name: string | undefined;
  createdAt: string | undefined;
  updatedAt: string | undefined;
  prompt: string | undefined;
}

/** The blocks' text, by block id; undefined for a block that shows no text kept. */
type BlockTexts = Map<string, string | undefined>;

const BLOCKS = ["indexedDB", "message_blocks"] as const;
/** The redux state is the app's settings and assistants, some MB; more is no Cherry Studio backup's. */
const MAX_STATE_BYTES = 64 * 1024 * 1024;

export function topicRow(record: unknown, context: RecordContext): TopicRow | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const id = nonEmptyString(record.id);
  if (id === undefined) throw notAConversation(context);
  return { id, messages: arrayOf(record.messages).filter(isObject), context };
}

export async function fileConversations(topics: TopicRow[]): Promise<UploadConversation[]> {
  const first = topics[0]?.context;
  if (first === undefined) return [];
  const wanted = new Set(topics.flatMap((topic) => topic.messages.flatMap((message) => arrayOf(message.blocks).filter(isString))));
  const blocks = first.file === undefined ? new Map() : await blockTexts(first.file, wanted, first);
  const infos = first.file === undefined ? new Map() : await topicInfos(first.file);
  return topics.flatMap((topic) => {
    const conversation = topicConversation(topic, blocks, infos.get(topic.id));
    return conversation === undefined ? [] : [conversation];
  });
}

function topicConversation(topic: TopicRow, blocks: BlockTexts, info: TopicInfo | undefined): UploadConversation | undefined {
  const said = topic.messages.map((message) => toMessage(message, blocks)).filter((message) => message !== undefined);
  if (said.length === 0) {
    topic.context.skip("conversations without any message text (an empty new topic)");
    return undefined;
  }
  const times = said
    .map((message) => message.createdAt)
    .filter((time) => time !== undefined)
    .sort();
  const createdAt = info?.createdAt ?? times[0] ?? topic.context.fallbackDate.toISOString();
  const updatedAt = [info?.updatedAt, ...times]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  const prompt = said.find((message) => message.role === "human")?.content;
  const firstPrompt = prompt === undefined ? undefined : firstLine(prompt);
  return {
    complete: true, // the backup holds the topic as it stands
    conversation: {
      id: `cherry-studio-${topic.id}`,
      title: titleFrom(info?.name ?? firstPrompt),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: withSystemPrompt(info?.prompt, said, createdAt),
    },
  };
}

function toMessage(message: JsonObject, blocks: BlockTexts): UploadMessage | undefined {
  const role = message.role === "user" ? "human" : message.role === "assistant" ? "assistant" : undefined;
  const id = nonEmptyString(message.id);
  if (role === undefined || id === undefined || message.type === "clear") return undefined;
  const ids = arrayOf(message.blocks).filter(isString);
  const pieces = ids.length > 0 ? ids.map((block) => blocks.get(block)) : legacyPieces(message);
  const content = joinPieces(pieces);
  if (content === "") return undefined;
  const createdAt = isoFromTime(message.createdAt);
  return { id, role, content, ...(createdAt === undefined ? {} : { createdAt }) };
}

/** A message from before blocks: its text, and the files it was sent with. */
function legacyPieces(message: JsonObject): (string | undefined)[] {
  const files = arrayOf(message.files).map((file) => (isObject(file) ? filePlaceholder(file.origin_name ?? file.name) : undefined));
  return [stringOf(message.content), ...files];
}

/** What a block shows as the message's text, if it is kept. */
export function blockText(block: JsonObject): string | undefined {
  switch (block.type) {
    case "main_text":
      return stringOf(block.content);
    case "code":
      return codeBlock(block.language, block.content);
    case "image":
      return "[image]";
    case "video":
      return "[video]";
    case "file":
      return isObject(block.file) ? filePlaceholder(block.file.origin_name ?? block.file.name) : filePlaceholder(undefined);
    case "tool":
      return toolPlaceholder(block.toolName ?? mcpToolName(block));
    default:
      return undefined; // thinking, citation, error, translation, compact, unknown
  }
}

/** The name of the MCP tool a block's response is of, for blocks written without `toolName`. */
function mcpToolName(block: JsonObject): unknown {
  const response = isObject(block.metadata) ? block.metadata.rawMcpToolResponse : undefined;
  return isObject(response) && isObject(response.tool) ? response.tool.name : undefined;
}

/** The text of the blocks the topics name, read from the file's `message_blocks`, a block at a time. */
async function blockTexts(file: ByteSource, wanted: ReadonlySet<string>, context: RecordContext): Promise<BlockTexts> {
  const texts: BlockTexts = new Map();
  const reading = {
    isRecord: (value: unknown) => isObject(value) && typeof value.messageId === "string",
    onUnreadable: () => context.skip("message blocks that could not be read (damaged)"),
    wrapper: BLOCKS,
  };
  for await (const { value } of jsonRecords(file, "wrapped", new ByteTally(), reading)) {
    if (!isObject(value) || !isString(value.id) || !wanted.has(value.id)) continue;
    texts.set(value.id, blockText(value));
  }
  return texts;
}

/**
 * The topics' names, times and prompts from the redux state in the file's `localStorage`, which
 * data.json writes first, up to `"indexedDB"` (that text cannot occur in a string: its quotes would
 * be escaped). None when the state cannot be read: the topics are then named by their first prompt.
 */
async function topicInfos(file: ByteSource): Promise<Map<string, TopicInfo>> {
  const text = await localStorageText(file);
  if (text === undefined) return new Map();
  try {
    const storage: unknown = JSON.parse(text);
    const persisted = isObject(storage) ? parsedJson(storage["persist:cherry-studio"]) : undefined;
    const slice = isObject(persisted) ? parsedJson(persisted.assistants) : undefined;
    return isObject(slice) ? infosOf(slice) : new Map();
  } catch {
    return new Map();
  }
}

function infosOf(slice: JsonObject): Map<string, TopicInfo> {
  const infos = new Map<string, TopicInfo>();
  for (const assistant of [slice.defaultAssistant, ...arrayOf(slice.assistants)]) {
    if (!isObject(assistant)) continue;
    for (const topic of arrayOf(assistant.topics)) {
      if (!isObject(topic) || !isString(topic.id)) continue;
      infos.set(topic.id, {
        name: nonEmptyString(topic.name),
        createdAt: isoFromTime(topic.createdAt),
        updatedAt: isoFromTime(topic.updatedAt),
        prompt: nonEmptyString(topic.prompt)?.trim() || nonEmptyString(assistant.prompt),
      });
    }
  }
  return infos;
}

const STATE_START = /"localStorage"\s*:\s*\{/;
const STATE_END = /\}\s*,\s*"indexedDB"\s*:/;

/** The text of the file's `localStorage` object, when it comes before `indexedDB` within MAX_STATE_BYTES. */
async function localStorageText(file: ByteSource): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  let tail = "";
  const input = await file.open();
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      // latin1 keeps a byte an offset: the marks are ASCII, and a mark cut between chunks is found in `tail`.
      const seen = tail + chunk.toString("latin1");
      if (STATE_END.test(seen)) break;
      if (length > MAX_STATE_BYTES) return undefined;
      tail = seen.slice(-64);
    }
  } finally {
    input.destroy();
  }
  const bytes = Buffer.concat(chunks);
  const head = bytes.toString("latin1");
  const start = STATE_START.exec(head);
  const end = STATE_END.exec(head);
  if (start === null || end === null || end.index < start.index) return undefined;
  return bytes.subarray(start.index + start[0].length - 1, end.index + 1).toString("utf8");
}

function parsedJson(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}
