// Pi's session files (.jsonl) to the upload shape, one conversation per file. What each rule rests
// on: badlogic/pi-mono, packages/coding-agent/src/core/session-manager.ts (the header, the entries,
// the tree, the migrations from versions 1 and 2), src/core/messages.ts, packages/ai/src/types.ts,
// src/modes/interactive/interactive-mode.ts (what the chat shows) and docs/session.md:
// - The first line is the header `{ type: "session", version, id, cwd, timestamp }` (version 1 has
//   none); each line after it an entry. Since version 2 entries form a tree by `id`/`parentId`: going
//   back to an earlier entry (/tree) appends the next one as its child, so a file holds every branch.
//   Pi reopens a session on the branch of the file's last entry (its leaf), and so is it read here,
//   from that entry up through its parents. Version 1 entries have no ids: each follows the line
//   before it, as Pi's own migration links them.
// - Human: a `user` message's text (a string, or `text` blocks; images as `[image]`), a file passed
//   as @file as `[file: path]` (not its contents, which Pi writes into the prompt), a /skill command as
//   typed ("/skill:name args", not the skill's text), a shell command run with ! as "! command" (its
//   output left out). Assistant: every `assistant` message from one prompt to the next is one message,
//   its `text` blocks and the tools it called as `[tool: bash]`. Left out: thinking, tools' results,
//   answers that failed without a word, extensions' messages (`custom`, version 2's `hookMessage`,
//   `custom_message` entries) and Pi's summaries for the model (`compaction`, `branch_summary`).
// - A compaction keeps its entries in the file: the branch is read whole, the messages before it too
//   (Pi's /tree and HTML export show them; its chat shows the summary in their place).
// - Title: the latest name given (/name, `session_info`), else the first prompt's first line of words
//   typed (after the files passed). Id: the header's. Message ids are line numbers: Pi appends, and its
//   migrations rewrite a file in the same order (giving version 1 entries new random ids), so a line's
//   number stays its own.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { replaceTagBlocks } from "../../text/tag-blocks.js";
import { agentTurns, promptTitle, sessionConversation, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";

/** A line of a session file: the header, or an entry with its place in the tree and what it says. */
export interface SessionEntry {
  file: string;
  index: number;
  /** The header's session id (the header line alone has it). */
  session?: string | undefined;
  /** The entry's `id`: undefined for the header and for version 1 entries. */
  id: string | undefined;
  /** `parentId`: null for a root, undefined where the entry has none (version 1). */
  parent: string | null | undefined;
  said?: Utterance;
  /** A name given to the session (/name). */
  name?: string;
  fallbackDate: Date;
  skip: SkipReport;
}

export function sessionEntry(record: unknown, context: RecordContext): SessionEntry | undefined {
  if (!isObject(record)) return undefined;
  const line = { file: context.path, index: context.index, fallbackDate: context.fallbackDate, skip: context.skip };
  if (record.type === "session") return { ...line, session: nonEmptyString(record.id), id: undefined, parent: undefined };
  const entry: SessionEntry = {
    ...line,
    id: nonEmptyString(record.id),
    parent: record.parentId === null ? null : nonEmptyString(record.parentId),
  };
  if (record.type === "session_info" && nonEmptyString(record.name)) return { ...entry, name: String(record.name).trim() };
  const said = record.type === "message" && isObject(record.message) ? saidIn(record.message, record, context.index) : undefined;
  return said === undefined ? entry : { ...entry, said };
}

function saidIn(message: JsonObject, entry: JsonObject, index: number): Utterance | undefined {
  const pieces = piecesOf(message);
  if (pieces === undefined) return undefined;
  const role = message.role === "assistant" ? "assistant" : "human";
  return { id: `line-${index + 1}`, role, pieces, time: isoFromTime(entry.timestamp) ?? isoFromTime(message.timestamp) };
}

/** What a message says, by its role; undefined for a message no one typed or answered (a tool's result, an extension's). */
function piecesOf(message: JsonObject): TurnPiece[] | undefined {
  if (message.role === "user") return promptPieces(message.content);
  if (message.role === "assistant") return answerPieces(message.content);
  if (message.role === "bashExecution" && nonEmptyString(message.command))
    return [{ text: `${message.excludeFromContext === true ? "!!" : "!"} ${String(message.command).trim()}`, tool: false }];
  return undefined;
}

function promptPieces(content: unknown): TurnPiece[] {
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject);
  const texts = blocks.map((block) => {
    if (block.type === "text") return typedText(stringOf(block.text) ?? "");
    return block.type === "image" ? "[image]" : undefined;
  });
  return texts.filter((text): text is string => text !== undefined && text.trim() !== "").map((text) => ({ text, tool: false }));
}

/** A skill's text Pi puts in place of "/skill:name args" (agent-session.ts parseSkillBlock's pattern). */
const SKILL = /^<skill name="([^"]+)" location="[^"]+">\n[\s\S]*?\n<\/skill>(?:\n\n([\s\S]+))?$/;
/** A file passed as @file, its contents written into the prompt before the words typed (file-processor.ts). */
const FILE_TAG = /<file name="([^"]*)">/y;

/** What the user typed: a /skill command as typed, each @file as `[file: path]`. */
function typedText(text: string): string {
  const skill = SKILL.exec(text);
  if (skill) return [`/skill:${skill[1]}`, skill[2]?.trim()].filter(Boolean).join(" ");
  return replaceTagBlocks(text, "<file", FILE_TAG, "</file>", ([, name]) => filePlaceholder(name)).trim();
}

function answerPieces(content: unknown): TurnPiece[] {
  const pieces: TurnPiece[] = [];
  for (const block of arrayOf(content).filter(isObject)) {
    if (block.type === "text" && nonEmptyString(block.text) !== undefined) pieces.push({ text: String(block.text), tool: false });
    else if (block.type === "toolCall") pieces.push({ text: toolPlaceholder(block.name), tool: true });
  }
  return pieces;
}

/** A session file's lines (groupedPerFile gives one file's at a time) to its conversation, if anything was said in it. */
export function sessions(lines: SessionEntry[]): UploadConversation[] {
  const conversation = lines.length === 0 ? undefined : session(lines);
  return conversation === undefined ? [] : [conversation];
}

function session(lines: SessionEntry[]): UploadConversation | undefined {
  const { skip, fallbackDate, file } = lines[0]!;
  const said = onBranch(lines)
    .map((line) => line.said)
    .filter((utterance) => utterance !== undefined);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const id = lines.find((line) => line.session !== undefined)?.session ?? sessionFileId(file).replace(/^[\dT-]+Z_/, "");
  const name = lines.filter((line) => line.name !== undefined).at(-1)?.name;
  return sessionConversation({ id: fittingId(id), title: titleFrom(name ?? typedTitle(messages)), messages, said, fallbackDate });
}

/** The files passed as @file that open a prompt, before the words typed. */
const LEADING_FILES = /^(?:\[file(?:: [^\]\n]*)?\]\s*)+/;

/** The first prompt's first line of words typed, not the files passed before them. */
function typedTitle(messages: UploadMessage[]): string | undefined {
  const prompt = messages.find((message) => message.role === "human");
  const typed = prompt?.content.replace(LEADING_FILES, "");
  return typed ? promptTitle([{ ...prompt!, content: typed }]) : promptTitle(messages);
}

/**
 * The entries of the branch Pi reopens the session on, in order: from the file's last entry up
 * through its parents. Version 1 entries (no id) each follow the entry before them. Where a parent is
 * not in the file (a damaged line), the walk goes on from the entry before in the file, so that
 * line costs only itself. An entry written twice (a fork before 0.55.2 wrote its header and entries
 * again, Pi's issue #1672) is met once, by its id, as Pi reads it.
 */
function onBranch(lines: SessionEntry[]): SessionEntry[] {
  const entries = lines.filter((line) => line.session === undefined);
  const parentOf = new Map<SessionEntry, SessionEntry | undefined>();
  const byId = new Map(entries.filter((entry) => entry.id !== undefined).map((entry) => [entry.id!, entry]));
  entries.forEach((entry, i) => {
    const before = entries[i - 1];
    if (entry.id === undefined || entry.parent === undefined) parentOf.set(entry, before);
    else if (entry.parent === null) parentOf.set(entry, undefined);
    else parentOf.set(entry, byId.get(entry.parent) ?? before);
  });
  const branch: SessionEntry[] = [];
  const seen = new Set<SessionEntry>();
  for (let at = entries.at(-1); at !== undefined && !seen.has(at); at = parentOf.get(at)) {
    seen.add(at);
    branch.push(at);
  }
  return branch.reverse();
}
