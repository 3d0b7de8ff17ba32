// Cursor's chats to the upload shape, one conversation per composer (a Composer or Agent chat) or chat tab.
// Cursor writes no export: this is read from its databases (records.ts), as these public readers of
// them do: michaeldhood/chatrxiv docs/cursor/storage-reference.md (composerData `_v` 10 and bubble `_v` 3:
// fields, types, times), DavidBerdik/cursor-view cursor_view/sources/item_table.py and
// extraction/passes/item_table_chats.py (the chat panel's tabs, `allComposers`), somogyijanos/cursor-chat-export
// src/export.py (a tab's bubbles: `type` "user" / "ai", the user's `text`, `initText` as Lexical JSON,
// `rawText`), and readers of the global database's bubbles in issue threads and tools (`toolFormerData`,
// `thinking`, JSON `null` bubbles).
// - Where: `composerData:<id>` in the global database's cursorDiskKV holds a composer: `name`,
//   `createdAt` and `lastUpdatedAt` (ms), and its messages either inline (`conversation`, older
//   versions) or as `fullConversationHeadersOnly` (`{ bubbleId, type }`, in order), each bubble in a
//   row of its own, `bubbleId:<id>:<bubble id>` (or in `conversationMap`). A workspace's ItemTable holds
//   `composer.composerData` (`allComposers`: each composer's name and times, with its `conversation`
//   only in older versions; the others are read from the global database) and the old chat panel's
//   `workbench.panel.aichat.view.aichat.chatdata` (`tabs`: `tabId`, `chatTitle`, `lastSendTime`, `bubbles`).
// - A bubble: `type` 1 the user's, 2 the assistant's (a tab's: "user", "ai"). The user's `text` as typed
//   (else the text of its Lexical `richText`), its images (`images`, `context.selectedImages`) as `[image]`; the assistant's `text`, with its
//   `codeBlocks` the text does not already hold, fenced; a tool it ran (`toolFormerData.name`) as
//   `[tool: name]`, those in a row on one line (agent-sessions.ts). Left out and counted: its
//   thinking (`thinking`, `allThinkingBlocks`), what tools returned (`toolFormerData.result`), and
//   the composers of the subagents it ran (`task-<toolCallId>`, or with `subagentInfo`: cursor-view's
//   extraction/passes/task_subagents.py), as Claude Code's subagents are left out.
// - Id: the composer's id (the tab's): a composer that grew is the same conversation, updated; a
//   message's id is its bubble's. Title: the composer's `name`, else the first prompt's first line.
//   Times: the composer's; a bubble's `createdAt` (ISO, or ms), else when its request was sent.
// - A damaged value (JSON that does not parse) costs only its composer, or its tab; a damaged bubble only itself.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { AppError } from "../../shared/errors.js";
import { agentTurns, promptTitle, type TurnPiece, type Utterance } from "../agent-sessions.js";
import type { Converter } from "../importer.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId, uniqueIds } from "../message-ids.js";
import { codeBlock, toolPlaceholder } from "../placeholders.js";
import { unreadableRecord } from "../record-errors.js";
import type { RecordContext, SkipReport } from "../types.js";
import { CHAT_TABS_KEY, COMPOSER_PREFIX, WORKSPACE_COMPOSERS_KEY, type CursorRecord } from "./records.js";

const EMPTY = "chats without any message text (a composer opened and left)";
const THINKING = "thinking (the model's reasoning, left out)";
const TOOL_OUTPUT = "tools' output (what the model read, left out)";
const DAMAGED_BUBBLE = "messages whose stored JSON is damaged (left out)";
const SUBAGENT = "subagents' chats (the agent's side work, left out as its thinking is)";
/** A subagent's composer is `task-<the call's toolCallId>` (its `subagentInfo` is often null). */
const SUBAGENT_PREFIX = "task-";
const MISSING_BUBBLE = "messages the database no longer holds (a composer's header without its bubble)";

export const cursorConversations: Converter<UploadConversation> = async function* (records) {
  for await (const { value, context } of records) {
    for (const read of readersOf(value as CursorRecord, context)) {
      const conversation = isolated(read, context);
      if (conversation !== undefined) yield conversation;
    }
  }
};

/** A chat its reader fails on is reported, and the others read. */
function isolated(read: () => UploadConversation | undefined, context: RecordContext): UploadConversation | undefined {
  try {
    return read();
  } catch (error) {
    context.unreadable(unreadableRecord(context, error));
    return undefined;
  }
}

/** One reader per chat of the record, each on its own: a damaged chat costs only itself. */
function readersOf(record: CursorRecord, context: RecordContext): (() => UploadConversation | undefined)[] {
  const json = () => parsed(record.key, record.value, context);
  if (record.key === CHAT_TABS_KEY) return listOf(json, "tabs", context).map((tab) => () => chatTab(tab, context));
  if (record.key === WORKSPACE_COMPOSERS_KEY) {
    return listOf(json, "allComposers", context)
      .filter((composer) => isObject(composer) && arrayOf(composer.conversation).length > 0)
      .map((composer) => () => composerConversation(composer, new Map(), context));
  }
  if (record.key.startsWith(COMPOSER_PREFIX)) {
    const id = record.key.slice(COMPOSER_PREFIX.length);
    return [() => composerConversation(json(), bubblesOf(record, context.skip), context, id)];
  }
  return [];
}

/** A value's list of chats; a value that does not parse costs them all, reported once. */
function listOf(json: () => unknown, key: string, context: RecordContext): unknown[] {
  try {
    const value = json();
    return isObject(value) ? arrayOf(value[key]) : [];
  } catch (error) {
    context.unreadable(unreadableRecord(context, error));
    return [];
  }
}

function parsed(key: string, text: string, context: RecordContext): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError("invalid_input", `${context.label}, ${key}: its JSON is damaged (${(error as Error).message})`, {
      suggestion: "That chat is left out and the rest of the database read: Cursor writes the value again when the chat changes.",
    });
  }
}

/** A composer's bubbles stored apart, by bubble id; a damaged one left out and counted. */
function bubblesOf(record: CursorRecord, skip: SkipReport): Map<string, unknown> {
  const bubbles = new Map<string, unknown>();
  for (const { key, value } of record.bubbles ?? []) {
    if (value === undefined) continue;
    const id = key.slice(key.lastIndexOf(":") + 1);
    try {
      bubbles.set(id, JSON.parse(value));
    } catch {
      bubbles.set(id, null); // counted here, not as missing too
      skip(DAMAGED_BUBBLE);
    }
  }
  return bubbles;
}

function composerConversation(
  value: unknown,
  stored: Map<string, unknown>,
  context: RecordContext,
  keyId?: string,
): UploadConversation | undefined {
  if (!isObject(value)) return undefined;
  const id = nonEmptyString(value.composerId) ?? nonEmptyString(keyId);
  if (id === undefined) return undefined;
  if (id.startsWith(SUBAGENT_PREFIX) || isObject(value.subagentInfo)) {
    context.skip(SUBAGENT);
    return undefined;
  }
  const said = bubblesInOrder(value, stored, context.skip).flatMap((bubble, i) =>
    isObject(bubble) ? [utterance(bubble, i, context.skip)] : [],
  );
  return conversation({
    id,
    name: value.name,
    createdAt: isoFromTime(value.createdAt),
    updatedAt: isoFromTime(value.lastUpdatedAt),
    said,
    context,
  });
}

/** The composer's bubbles in the order it shows them: inline, or as its headers list them. */
function bubblesInOrder(composer: JsonObject, stored: Map<string, unknown>, skip: SkipReport): unknown[] {
  const inline = arrayOf(composer.conversation);
  if (inline.length > 0) return inline;
  const map = isObject(composer.conversationMap) ? composer.conversationMap : {};
  return arrayOf(composer.fullConversationHeadersOnly).flatMap((header) => {
    const id = isObject(header) ? nonEmptyString(header.bubbleId) : undefined;
    if (id === undefined) return [];
    const bubble = stored.has(id) ? stored.get(id) : map[id];
    if (bubble === undefined) skip(MISSING_BUBBLE);
    return bubble === undefined ? [] : [bubble];
  });
}

/** A bubble of a composer (`type` 1 or 2) or of a chat tab ("user", "ai"). */
function utterance(bubble: JsonObject, index: number, skip: SkipReport): Utterance {
  const id = fittingId(nonEmptyString(bubble.bubbleId) ?? nonEmptyString(bubble.id) ?? `bubble-${index + 1}`);
  const time = isoFromTime(bubble.createdAt) ?? timingOf(bubble);
  const human = bubble.type === 1 || bubble.type === "user";
  const assistant = bubble.type === 2 || bubble.type === "ai" || bubble.type === "assistant";
  if (human) return { id, role: "human", pieces: promptPieces(bubble), time };
  if (!assistant) return { id, role: "assistant", pieces: [], time };
  if (nonEmptyString(isObject(bubble.thinking) ? bubble.thinking.text : undefined) || arrayOf(bubble.allThinkingBlocks).length > 0)
    skip(THINKING);
  return { id, role: "assistant", pieces: answerPieces(bubble, skip), time };
}

/** When the bubble's request was sent (ms), for bubbles that carry no `createdAt`. */
function timingOf(bubble: JsonObject): string | undefined {
  const timing = isObject(bubble.timingInfo) ? bubble.timingInfo : {};
  return isoFromTime(timing.clientRpcSendTime) ?? isoFromTime(timing.clientEndTime);
}

function promptPieces(bubble: JsonObject): TurnPiece[] {
  const delegate = isObject(bubble.delegate) ? bubble.delegate.a : undefined;
  const text =
    nonEmptyString(bubble.text) ??
    nonEmptyString(delegate) ??
    lexicalText(bubble.richText) ??
    lexicalText(bubble.initText) ??
    nonEmptyString(bubble.rawText);
  const selected = isObject(bubble.context) ? arrayOf(bubble.context.selectedImages) : [];
  const images = [...arrayOf(bubble.images), ...selected, ...(isObject(bubble.image) ? [bubble.image] : [])].map(() => "[image]");
  return [...(text === undefined ? [] : [text]), ...images].map((piece) => ({ text: piece, tool: false }));
}

function answerPieces(bubble: JsonObject, skip: SkipReport): TurnPiece[] {
  const text = nonEmptyString(bubble.text) ?? nonEmptyString(bubble.rawText) ?? "";
  const code = arrayOf(bubble.codeBlocks).flatMap((block) => {
    if (!isObject(block)) return [];
    const content = nonEmptyString(block.content);
    const fenced = content === undefined || text.includes(content.trim()) ? undefined : codeBlock(block.languageId, content);
    return fenced === undefined ? [] : [fenced];
  });
  const pieces = [text, ...code].filter((piece) => piece.trim() !== "").map((piece) => ({ text: piece, tool: false }));
  const tool = isObject(bubble.toolFormerData) ? bubble.toolFormerData : undefined;
  if (tool === undefined) return pieces;
  if (tool.result !== undefined && tool.result !== null && tool.result !== "") skip(TOOL_OUTPUT);
  return [...pieces, { text: toolPlaceholder(nonEmptyString(tool.name) ?? stringName(tool.tool)), tool: true }];
}

function stringName(tool: unknown): string | undefined {
  return typeof tool === "string" ? tool : undefined;
}

/** The text of a Lexical editor state (Cursor's `richText`), a line per paragraph. */
function lexicalText(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.startsWith("{")) return undefined;
  try {
    const root: unknown = (JSON.parse(value) as JsonObject).root;
    return nonEmptyString(nodeText(root).trim());
  } catch {
    return undefined;
  }
}

function nodeText(node: unknown): string {
  if (!isObject(node)) return "";
  if (typeof node.text === "string") return node.text;
  if (node.type === "linebreak") return "\n";
  const text = arrayOf(node.children).map(nodeText).join("");
  return node.type === "paragraph" ? `${text}\n` : text;
}

function chatTab(tab: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(tab)) return undefined;
  const id = nonEmptyString(tab.tabId);
  if (id === undefined) return undefined;
  const said = arrayOf(tab.bubbles).flatMap((bubble, i) => (isObject(bubble) ? [utterance(bubble, i, context.skip)] : []));
  const sent = isoFromTime(tab.lastSendTime);
  return conversation({ id, name: tab.chatTitle, createdAt: undefined, updatedAt: sent, said, context });
}

function conversation(chat: {
  id: string;
  name: unknown;
  createdAt: string | undefined;
  updatedAt: string | undefined;
  said: Utterance[];
  context: RecordContext;
}): UploadConversation | undefined {
  const messages: UploadMessage[] = agentTurns(chat.said);
  if (messages.length === 0) {
    chat.context.skip(EMPTY);
    return undefined;
  }
  const times = messages.flatMap((message) => (message.createdAt === undefined ? [] : [message.createdAt])).sort();
  const createdAt = chat.createdAt ?? times[0] ?? chat.updatedAt ?? chat.context.fallbackDate.toISOString();
  const updatedAt = [chat.updatedAt, times.at(-1)]
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  return {
    complete: true, // the database holds the whole chat as it stands
    conversation: {
      id: fittingId(chat.id),
      title: titleFrom(nonEmptyString(chat.name) ?? promptTitle(messages)),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages: uniqueIds(messages),
    },
  };
}
