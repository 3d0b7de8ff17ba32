// Claude Code's session files (.jsonl) to the upload shape, one conversation per file. What each rule
// rests on: the session schemas of CLI 2.0 to 2.1.144 in oneryalcin/agent-schemas (claude-code/, checked
// on 100,000+ real lines), and how session viewers read them (simonw/claude-code-transcripts, ccusage):
// - Every line is a record with `type`; those with a `uuid` form a tree by `parentUuid`. A rewind
//   (Esc Esc) starts a branch from an earlier message, so the branch on screen is the one the last
//   message is on; a compaction starts a chain whose first record names the old one in `logicalParentUuid`.
// - Human: a `user` record's text (a string, or `text` blocks; images and documents as placeholders), a
//   slash command as typed ("/model opus"). Left out: tool results (`user` records too), Claude Code's
//   own lines (`isMeta`: caveats, an expanded command; `isCompactSummary`: its summary of what it
//   compacted; a local command's output; the blocks it adds to a prompt, `<system-reminder>`, the
//   IDE's `<ide_opened_file>` and `<ide_selection>`; "[Request interrupted by user]").
// - Assistant: every `assistant` record from one prompt to the next is one message (each content
//   block is a record of its own): `text` blocks, and the tools it ran as `[tool: Bash]`, those in a
//   row on one line. Left out: thinking, API error notices, Claude Code's stand-in answers (model
//   `<synthetic>`), and subagents' sessions (`isSidechain`): the assistant's side work, as its thinking is.
// - Title: the user's /rename (`custom-title`), else Claude Code's own (`ai-title`), the latest of
//   each; else a `summary` of this session; else the first prompt's first line. Id: the session's.
// - A session resumed (--resume) goes on in a new file that starts with the old one's messages, their
//   uuids kept (why ccusage counts a message once by its ids): a session another file holds whole is
//   left out, counted, and imported there.
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
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";

/** What a record says, or only where it is in the tree (the records between messages: tools' progress, system notes). */
export interface SessionLine {
  file: string;
  index: number;
  session: string | undefined;
  uuid: string | undefined;
  /** `parentUuid`, or across a compaction `logicalParentUuid`. */
  parent: string | undefined;
  said?: Said;
  title?: Title;
  fallbackDate: Date;
  skip: SkipReport;
}

interface Said {
  role: UploadMessage["role"];
  pieces: TurnPiece[];
  time: string | undefined;
  sidechain: boolean;
}

interface Title {
  kind: "custom" | "ai" | "summary";
  text: string;
  /** A summary's last message: it titles the session that holds it. */
  leaf?: string | undefined;
}

export function sessionLine(record: unknown, context: RecordContext): SessionLine | undefined {
  if (!isObject(record)) return undefined;
  const line: SessionLine = {
    file: context.path,
    index: context.index,
    session: nonEmptyString(record.sessionId),
    uuid: nonEmptyString(record.uuid),
    parent: nonEmptyString(record.parentUuid) ?? nonEmptyString(record.logicalParentUuid),
    fallbackDate: context.fallbackDate,
    skip: context.skip,
  };
  const said = saidIn(record);
  const title = titleIn(record);
  // A record that neither says anything nor links two that do (a file-history snapshot) is not kept.
  if (said === undefined && title === undefined && line.uuid === undefined) return undefined;
  return { ...line, ...(said ? { said } : {}), ...(title ? { title } : {}) };
}

function saidIn(record: JsonObject): Said | undefined {
  if (record.isMeta === true || record.isCompactSummary === true || record.isApiErrorMessage === true) return undefined;
  const message = isObject(record.message) ? record.message : undefined;
  if (message === undefined || message.model === "<synthetic>") return undefined;
  const role = record.type === "user" ? "human" : record.type === "assistant" ? "assistant" : undefined;
  if (role === undefined) return undefined;
  const pieces = role === "human" ? humanPieces(message.content) : assistantPieces(message.content);
  return { role, pieces, time: isoFromTime(record.timestamp), sidechain: record.isSidechain === true };
}

function humanPieces(content: unknown): TurnPiece[] {
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject);
  const pieces: (string | undefined)[] = blocks.map((block) => {
    if (block.type === "text") return typedText(stringOf(block.text) ?? "");
    if (block.type === "image") return "[image]";
    if (block.type === "document") return filePlaceholder(isObject(block.source) ? block.source.name : undefined);
    return undefined; // a tool's result: the model read it, not the user
  });
  return pieces.filter((text): text is string => text !== undefined && text.trim() !== "").map((text) => ({ text, tool: false }));
}

/** Text Claude Code writes into a prompt of its own, which the user did not type. */
const APP_BLOCKS = /<(system-reminder|ide_opened_file|ide_selection|task-notification|user-prompt-submit-hook)>[\s\S]*?<\/\1>/g;
const APP_LINES =
  /^(?:<local-command-stdout>|<local-command-stderr>|<bash-stdout>|<bash-stderr>|Caveat: The messages below were generated)/;
const INTERRUPTED = /^\[Request interrupted by user[^\]]*\]$/;

/** What the user typed: a slash command as "/name args", a shell command (the ! prefix) as "! command"; undefined for Claude Code's own text. */
function typedText(text: string): string | undefined {
  const plain = text.replace(APP_BLOCKS, "").trim();
  if (plain === "" || APP_LINES.test(plain) || INTERRUPTED.test(plain)) return undefined;
  const command = tagged(plain, "command-name");
  if (command !== undefined)
    return [command.startsWith("/") ? command : `/${command}`, tagged(plain, "command-args")].filter(Boolean).join(" ");
  const shell = tagged(plain, "bash-input");
  return shell === undefined ? plain : `! ${shell}`;
}

function tagged(text: string, tag: string): string | undefined {
  const found = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)?.[1]?.trim();
  return found === "" ? undefined : found;
}

function assistantPieces(content: unknown): TurnPiece[] {
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject);
  const pieces: TurnPiece[] = [];
  for (const block of blocks) {
    if (block.type === "text" && nonEmptyString(block.text) !== undefined) pieces.push({ text: String(block.text), tool: false });
    else if (block.type === "tool_use" || block.type === "server_tool_use") pieces.push({ text: toolPlaceholder(block.name), tool: true });
  }
  return pieces;
}

function titleIn(record: JsonObject): Title | undefined {
  const text = (value: unknown) => nonEmptyString(value)?.trim();
  if (record.type === "custom-title" && text(record.customTitle)) return { kind: "custom", text: text(record.customTitle)! };
  if (record.type === "ai-title" && text(record.aiTitle)) return { kind: "ai", text: text(record.aiTitle)! };
  if (record.type === "summary" && text(record.summary))
    return { kind: "summary", text: text(record.summary)!, leaf: stringOf(record.leafUuid) };
  return undefined;
}

/** A session's conversation, and where to say it was left out (a session resumed in another file). */
export interface Session {
  upload: UploadConversation;
  skip: SkipReport;
}

/** A session file's lines (groupedPerFile gives one file's at a time) to its conversation, if anything was said in it. */
export function sessions(lines: SessionLine[]): Session[] {
  const upload = lines.length === 0 ? undefined : session(lines);
  return upload === undefined ? [] : [{ upload, skip: lines[0]!.skip }];
}

/**
 * The sessions, less each one another file holds whole: a resumed session is written to a new file
 * that starts with the old one's messages (their uuids kept) and goes on, so the old file is its
 * beginning, and imported apart it gave every passage of it twice in search and recall. Sessions
 * are held until the last is read (their text only, not their records' lines).
 */
export async function* withoutResumed(found: AsyncIterable<Session>): AsyncIterable<UploadConversation> {
  const all: Session[] = [];
  for await (const item of found) all.push(item);
  const holders = new Map<string, Session[]>();
  for (const item of all) {
    for (const message of item.upload.conversation.messages) {
      const list = holders.get(message.id);
      if (list === undefined) holders.set(message.id, [item]);
      else list.push(item);
    }
  }
  for (const item of all) {
    if (heldByAnother(item, holders)) item.skip("sessions resumed in another file (imported there, with what came after)");
    else yield item.upload;
  }
}

/** Whether a longer session holds every message of this one (two equal files are both kept: neither tells which is the session). */
function heldByAnother(item: Session, holders: Map<string, Session[]>): boolean {
  const { messages } = item.upload.conversation;
  const ids = messages.map((message) => message.id);
  const others = (holders.get(ids[0]!) ?? []).filter((other) => other !== item);
  return others.some((other) => {
    const theirs = new Set(other.upload.conversation.messages.map((message) => message.id));
    const longer = theirs.size > ids.length;
    return ids.every((id) => theirs.has(id)) && longer;
  });
}

function session(lines: SessionLine[]): UploadConversation | undefined {
  const said = lines.filter((line) => line.said !== undefined);
  const { skip, fallbackDate, file } = lines[0]!;
  if (said.length > 0 && said.every((line) => line.said!.sidechain)) {
    skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  const shown = onScreen(lines).map(utterance);
  const messages = agentTurns(shown);
  if (messages.length === 0) {
    skip(said.length === 0 ? "files of session titles alone (older versions wrote them apart)" : "sessions without any message text");
    return undefined;
  }
  const id = lines.find((line) => line.session !== undefined)?.session ?? sessionFileId(file);
  return sessionConversation({ id: fittingId(id), title: titleOf(lines, messages), messages, said: shown, fallbackDate });
}

/**
 * The lines of the branch on screen, in order: back from the last message through its parents.
 * Where the chain breaks on a record the file does not hold (a damaged line), the messages before
 * the break are kept in file order rather than lost; a session resumed from another file starts
 * on its own first line, so nothing comes before it.
 */
function onScreen(lines: SessionLine[]): SessionLine[] {
  const said = lines.filter((line) => line.said !== undefined && !line.said.sidechain);
  const leaf = said.at(-1);
  if (leaf === undefined) return [];
  const byUuid = new Map(lines.filter((line) => line.uuid !== undefined).map((line) => [line.uuid!, line]));
  const chain = new Set<SessionLine>();
  let at: SessionLine | undefined = leaf;
  let broken = false;
  while (at !== undefined && !chain.has(at)) {
    chain.add(at);
    const parent: SessionLine | undefined = at.parent === undefined ? undefined : byUuid.get(at.parent);
    broken = at.parent !== undefined && parent === undefined;
    at = parent;
  }
  const start = Math.min(...[...chain].map((line) => line.index));
  return said.filter((line) => chain.has(line) || (broken && line.index < start));
}

function utterance(line: SessionLine): Utterance {
  const { role, pieces, time } = line.said!;
  return { id: fittingId(line.uuid ?? `line-${line.index + 1}`), role, pieces, time };
}

function titleOf(lines: SessionLine[], messages: UploadMessage[]): string {
  const titles = lines.map((line) => line.title).filter((title) => title !== undefined);
  const uuids = new Set(lines.map((line) => line.uuid));
  const latest = (kind: Title["kind"]) => titles.filter((title) => title.kind === kind).at(-1)?.text;
  const summary = titles.find((title) => title.kind === "summary" && title.leaf !== undefined && uuids.has(title.leaf))?.text;
  return titleFrom(latest("custom") ?? latest("ai") ?? summary ?? promptTitle(messages));
}
