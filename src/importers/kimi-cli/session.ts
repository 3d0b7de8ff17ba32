// Kimi CLI's session files to the upload shape, one conversation per session. What each rule rests on:
// MoonshotAI/kimi-cli at 1.49.0 (4a550eff): src/kimi_cli/session.py (the folder, its files, the title
// shown, the move of <id>.jsonl into <id>/context.jsonl), wire/file.py and wire/types.py (wire.jsonl:
// a metadata line, then `{ timestamp, message: { type, payload } }`, the UI's events merged as the
// wire records them), soul/context.py (context.jsonl: a kosong Message a line, and `_system_prompt`,
// `_checkpoint`, `_usage` lines; a revert, /clear or compaction moves the file to context_N.jsonl and
// writes the kept part anew), session_state.py (state.json's `custom_title`; the web's metadata.json
// before it), ui/shell/replay.py (what a resumed session shows), web/src/hooks/useSessionStream.ts
// (what the web app shows of it), session_fork.py (/undo and /fork),
// subagents/store.py (subagents/<id>/ in the session's folder); and at 7e0c7bbe (0.59: the wire
// first recorded) and 50a663a9 (the session folder).
// - Which file: wire.jsonl, what the UI showed: append-only, every turn in it (the web app replays
//   it; so does the shell, its last turns). context.jsonl is what the model sees now: after a
//   compaction a summary, after /clear nothing; a session's context beside its wire is counted and not
//   read. Sessions before 0.59 have no wire: their context (context.jsonl, or <id>.jsonl not yet moved)
//   is read, as the model last saw it. The contexts set aside (context_N.jsonl, <id>_N.jsonl) are not.
//   A session begun before 0.59 and continued after (0.59's 18326bf4 moves <id>.jsonl to <id>/context.jsonl
//   when the session is resumed or listed) has a wire from its continuation on: its earlier turns are
//   read from that context (context_1.jsonl once set aside), up to the wire's first prompt.
// - Rewinds: /clear (and /reset) ends what the session shows: the shell's resume replays the turns
//   after the last one, the web app shows it and what follows; what came before is left out, counted.
//   /undo and /fork copy the session's first turns into a new session (a folder of its own, a
//   conversation of its own); the session forked stays whole. A D-Mail (SendDMail) folds the agent's
//   own steps out of its context only: the user saw them, and the wire keeps them.
// - Human: each prompt (TurnBegin) and each follow-up typed while the agent ran (SteerInput), text as
//   typed, images `[image]` (the `<image path>` tags around them left out), slash commands as typed.
// - Assistant: from one prompt to the next, one message: its text (ContentPart text) and the tools it
//   called (ToolCall) as `[tool: Shell]`. Left out: thinking, tools' results, approvals, status,
//   notifications, hooks, /btw side questions (a modal), and sub-agents' events (SubagentEvent; their
//   own files under subagents/), counted. In a context: the CLI's own user messages (`<system>`
//   checkpoints and compaction summaries, `<system-reminder>`, `<notification>`) and the tools' messages.
// - Id: the session's folder, its session id (the file's name before 0.59), read from the file's path
//   on disk when it is passed alone. Title: state.json's `custom_title` (/title, the web's rename or
//   generated title), else metadata.json's `title` (the web's, before April 2026), else the first prompt.
//   Times: the wire's `timestamp` (Unix seconds); a context has none, so the file's.
import { basename, dirname, resolve } from "node:path";
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, jsonObjectBeside, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { jsonLines } from "../json-lines.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import { ByteTally, type ByteSource } from "../source.js";
import type { RecordContext } from "../types.js";

/** A line of a session file, read: which file it is of, and what it says. */
export interface KimiLine {
  kind: "wire" | "context" | "state";
  context: RecordContext;
  said?: Utterance;
  /** A sub-agent's event, relayed in the session's wire. */
  subagent?: true;
}

export function kimiLine(record: unknown, context: RecordContext): KimiLine | undefined {
  if (!isObject(record)) return undefined;
  if (isObject(record.message) || record.type === "metadata") return wireLine(record, context);
  if (typeof record.role === "string") return contextLine(record, context);
  if (isObject(record.approval)) return { kind: "state", context };
  return undefined;
}

function wireLine(record: JsonObject, context: RecordContext): KimiLine {
  const line: KimiLine = { kind: "wire", context };
  const message = isObject(record.message) ? record.message : undefined;
  const payload = isObject(message?.payload) ? message.payload : {};
  const said = (role: Utterance["role"], pieces: TurnPiece[]): KimiLine => ({
    ...line,
    said: { id: `line-${context.index + 1}`, role, pieces, time: isoFromTime(record.timestamp) },
  });
  switch (message?.type) {
    case "TurnBegin":
    case "SteerInput":
      return said("human", inputPieces(payload.user_input));
    case "ContentPart":
      return said("assistant", partPieces([payload]));
    case "ToolCall":
      return said("assistant", [toolPiece(payload)]);
    case "SubagentEvent":
      return { ...line, subagent: true };
    default:
      return line;
  }
}

function contextLine(record: JsonObject, context: RecordContext, idPrefix = "line"): KimiLine {
  const line: KimiLine = { kind: "context", context };
  const said = (role: Utterance["role"], pieces: TurnPiece[]): KimiLine => ({
    ...line,
    said: { id: `${idPrefix}-${context.index + 1}`, role, pieces, time: undefined },
  });
  if (record.role === "user") return isTheCliOwn(record.content) ? line : said("human", inputPieces(record.content));
  if (record.role !== "assistant") return line;
  return said("assistant", [...partPieces(contentParts(record.content)), ...arrayOf(record.tool_calls).filter(isObject).map(toolPiece)]);
}

/** What a user message of the context opens with when the CLI wrote it, not the user (soul/message.py, notifications/llm.py). */
const THE_CLI_OWN = /^\s*<(?:system|system-reminder|notification)[\s>]/;

export function isTheCliOwn(content: unknown): boolean {
  const first = contentParts(content).find((part) => part.type === "text");
  return THE_CLI_OWN.test(stringOf(first?.text) ?? "");
}

/** A Message's content: kosong writes a lone text part as a string. */
export function contentParts(content: unknown): JsonObject[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject);
}

/** The tags the shell puts around a pasted image's part (utils/media_tags.py wrap_media_part). */
const MEDIA_TAG = /^<\/?(?:image|audio|video)(?:\s[^>]*)?>$/;

/** A prompt as the shell echoes it (utils/message.py message_stringify): its parts run together, media as placeholders. */
export function inputPieces(input: unknown): TurnPiece[] {
  const text = contentParts(input)
    .filter((part) => !(part.type === "text" && MEDIA_TAG.test(stringOf(part.text)?.trim() ?? "")))
    .map(partText)
    .join("")
    .trim();
  return text === "" ? [] : [{ text, tool: false }];
}

/** An answer's parts: its text, media as placeholders; thinking left out. */
export function partPieces(parts: JsonObject[]): TurnPiece[] {
  return parts
    .filter((part) => part.type !== "think")
    .map(partText)
    .filter((text) => text.trim() !== "")
    .map((text) => ({ text, tool: false }));
}

function partText(part: JsonObject): string {
  switch (part.type) {
    case "text":
      return stringOf(part.text) ?? "";
    case "think":
      return "";
    case "image_url":
      return "[image]";
    case "audio_url":
      return "[audio]";
    case "video_url":
      return "[video]";
    default:
      return "";
  }
}

function toolPiece(call: JsonObject): TurnPiece {
  return { text: toolPlaceholder(isObject(call.function) ? call.function.name : undefined), tool: true };
}

const SUBAGENT_EVENTS = "sub-agents' events (the agent's side work, left out as its reasoning is)";
const SUBAGENT_FILES = "sub-agents' session files (subagents/<id>/: their events are the agent's side work)";
const CONTEXT_BESIDE_WIRE =
  "model contexts (context.jsonl) beside a session's wire.jsonl, not read: the wire holds what the session showed";
const SET_ASIDE = "contexts the CLI set aside when it reverted, cleared or compacted one (context_N.jsonl), not read";
const EMPTY = "sessions without any message text";

/** A session file's lines (groupedPerFile gives one file's at a time) to its conversation; none from its state.json or a context its wire holds. */
export async function kimiSessions(lines: KimiLine[]): Promise<UploadConversation[]> {
  const first = lines[0];
  if (first === undefined) return [];
  const { context } = first;
  const kind = lines.some((line) => line.kind === "wire") ? "wire" : first.kind;
  if (kind === "state") return [];
  const notRead = await whyNotRead(kind, context);
  if (notRead !== undefined) {
    context.skip(notRead);
    return [];
  }
  const subagents = lines.filter((line) => line.subagent).length;
  if (subagents > 0) context.skip(SUBAGENT_EVENTS, subagents);
  const own = lines.flatMap((line) => (line.said === undefined ? [] : [line.said]));
  const said = sinceLastClear(kind === "wire" ? [...(await turnsBeforeWire(context, own)), ...own] : own, context);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    context.skip(EMPTY);
    return [];
  }
  const title = (await givenTitle(context)) ?? promptTitle(messages);
  return [
    sessionConversation({
      id: fittingId(sessionId(context, said)),
      title: titleFrom(title),
      messages,
      said,
      fallbackDate: context.fallbackDate,
      partial: context.damaged?.() === true,
    }),
  ];
}

/** Why a session file is not the one its session is read from: a sub-agent's, a context set aside or beside a wire. */
async function whyNotRead(kind: KimiLine["kind"], context: RecordContext): Promise<string | undefined> {
  if (isSubagentFile(context)) return SUBAGENT_FILES;
  if (kind !== "context") return undefined;
  if (SET_ASIDE_NAME.test(context.path)) return SET_ASIDE;
  return (await hasWire(context)) ? CONTEXT_BESIDE_WIRE : undefined;
}

/**
 * A session begun before 0.59 and continued after: the CLI moved its <id>.jsonl to <id>/context.jsonl
 * (session.py _migrate_session_context_file) and its wire starts at the continuation, so the turns before
 * are in that context alone: in context.jsonl, or in context_1.jsonl once the CLI set it aside (a
 * /clear, compaction or revert moves the file to the first free context_N.jsonl). They are the context's
 * messages before the wire's first prompt the model was given. Their ids are named after the context's
 * lines, apart from the wire's (`line-N`, which a session with a wire kept before).
 */
async function turnsBeforeWire(context: RecordContext, wire: Utterance[]): Promise<Utterance[]> {
  const source = (await nonEmptySibling(context, "context_1.jsonl")) ?? (await nonEmptySibling(context, "context.jsonl"));
  if (source === undefined) return [];
  const said: Utterance[] = [];
  let unreadable = 0;
  for await (const record of jsonLines(source, new ByteTally(), () => unreadable++)) {
    if (!isObject(record.value) || typeof record.value.role !== "string") continue;
    const line = contextLine(record.value, { ...context, index: record.index }, "context-line");
    if (line.said !== undefined) said.push(line.said);
  }
  if (unreadable > 0) context.skip(UNREADABLE_CONTEXT_LINES, unreadable);
  const before = said.slice(0, wireStart(said, wire));
  return before.some((utterance) => utterance.role === "human") ? before : [];
}

const UNREADABLE_CONTEXT_LINES = "damaged lines of a context holding the turns from before a session's wire";

async function nonEmptySibling(context: RecordContext, name: string): Promise<ByteSource | undefined> {
  const source = await context.sibling?.(name);
  return source !== undefined && source.size > 0 ? source : undefined;
}

/**
 * Where the wire's turns start among the context's messages: at the prompt that matches the most of the
 * wire's prompts in a row (a prompt typed before and again, "go on", is not taken for it); at the end when
 * none matches (the context was set aside before the wire's first prompt reached it). Slash commands
 * never reach the context (soul/slash.py), the rest as typed (kimisoul.py: TurnBegin and the user
 * message carry the same user_input).
 */
export function wireStart(context: Utterance[], wire: Utterance[]): number {
  const prompts = (said: Utterance[]) =>
    said.flatMap((utterance, at) => (utterance.role === "human" ? [{ at, text: promptText(utterance) }] : []));
  const typed = prompts(wire)
    .map(({ text }) => text)
    .filter((text) => !text.startsWith("/"));
  const asked = prompts(context);
  const numbers = new Map<string, number>();
  const number = (text: string) => numbers.get(text) ?? numbers.set(text, numbers.size).size - 1;
  // Each prompt's run is read off one pass over the wire's prompts, a mark, then the context's: counted
  // from each prompt afresh, a session of 80,000 prompts "go on" took 16 s, as many runs as prompts.
  const runs = prefixRuns(
    typed.map(number).concat(
      -1,
      asked.map(({ text }) => number(text)),
    ),
  );
  let start = context.length;
  let longest = 0;
  asked.forEach(({ at }, from) => {
    const run = runs[typed.length + 1 + from] ?? 0;
    if (run > longest) [start, longest] = [at, run];
  });
  return Math.min(start, firstAnswerInWire(context, wire));
}

/** For each item of `items` from the second on, how many in a row from it equal the first ones (the Z-function, linear). */
function prefixRuns(items: readonly number[]): number[] {
  const runs = new Array<number>(items.length).fill(0);
  for (let i = 1, left = 0, right = 0; i < items.length; i++) {
    let run = i < right ? Math.min(right - i, runs[i - left] ?? 0) : 0;
    while (i + run < items.length && items[run] === items[i + run]) run++;
    runs[i] = run;
    if (i + run > right) [left, right] = [i, i + run];
  }
  return runs;
}

/**
 * The turn of the context's first answer the wire holds too: a prompt the wire has otherwise (a skill's
 * `/skill:…`, which the context holds as the skill's text, kimisoul.py) is placed by its answer.
 */
function firstAnswerInWire(context: Utterance[], wire: Utterance[]): number {
  const inWire = new Set(wire.flatMap(answerTexts));
  const at = context.findIndex((utterance) => answerTexts(utterance).some((text) => inWire.has(text)));
  if (at === -1) return context.length;
  return Math.max(
    0,
    context.findLastIndex((utterance, i) => i <= at && utterance.role === "human"),
  );
}

/** An answer's text, its tools aside (`[tool: Shell]` is said in many turns). */
function answerTexts(utterance: Utterance): string[] {
  return utterance.role === "assistant" ? utterance.pieces.filter((piece) => !piece.tool).map((piece) => piece.text) : [];
}

function promptText(utterance: Utterance): string {
  return utterance.pieces.map((piece) => piece.text).join("");
}

/** A prompt that clears the session: /clear or its alias /reset (soul/slash.py). */
const CLEAR = /^\/(?:clear|reset)(?:\s|$)/;
const CLEARED = "messages before the session's last /clear, which the CLI and its web app no longer show";

/**
 * The session as the CLI and its web app show it: from its last /clear on (the shell's replay starts
 * after it, ui/shell/replay.py; the web app keeps the /clear itself, web/src/hooks/useSessionStream.ts).
 */
function sinceLastClear(said: Utterance[], context: RecordContext): Utterance[] {
  const from = said.findLastIndex((utterance) => utterance.role === "human" && CLEAR.test(utterance.pieces[0]?.text ?? ""));
  if (from <= 0) return said;
  const dropped = agentTurns(said.slice(0, from)).length;
  if (dropped > 0) context.skip(CLEARED, dropped);
  return said.slice(from);
}

/** A context moved aside, `context_2.jsonl` (or `<session id>_2.jsonl` before 0.59): utils/path.py next_available_rotation. */
const SET_ASIDE_NAME = /_\d+\.jsonl$/i;

/** A sub-agent's own files: <session>/subagents/<agent id>/ (subagents/store.py). */
const SUBAGENT_PATH = /(?:^|[\\/])subagents[\\/][^\\/]+[\\/][^\\/]+$/;

function isSubagentFile({ path, label }: RecordContext): boolean {
  return SUBAGENT_PATH.test(path) || (onDisk({ path, label }) && SUBAGENT_PATH.test(resolve(label)));
}

/** The file is one on disk passed alone (or beside one so), whose label is the path it was passed as. */
export function onDisk({ path, label }: Pick<RecordContext, "path" | "label">): boolean {
  return !path.includes("/") && basename(label) === path;
}

async function hasWire(context: RecordContext): Promise<boolean> {
  const wire = await context.sibling?.("wire.jsonl");
  return wire !== undefined && wire.size > 0;
}

/** The names of a session's files in its folder (since 0.59); another name is the session's id (before it). */
const SESSION_FILES = /^(?:wire|context)\.jsonl$/i;

/** The session's id: its folder's name, or its file's before 0.59; for a copy without its folder (an upload), its first time. */
function sessionId(context: RecordContext, said: Utterance[]): string {
  const name = basename(context.path);
  if (!SESSION_FILES.test(name)) return sessionFileId(context.path);
  const folder = context.path.includes("/")
    ? context.path.split("/").at(-2)
    : onDisk(context)
      ? basename(dirname(resolve(context.label)))
      : undefined;
  if (folder !== undefined && folder !== "") return folder;
  const started = said.find((utterance) => utterance.time !== undefined)?.time;
  return `session-${started ?? context.fallbackDate.toISOString()}`;
}

/** More than a session's state.json or metadata.json holds (a few hundred bytes, its to-do list aside). */
const MAX_STATE_BYTES = 1024 * 1024;

/** The title the session was given (state.json's `custom_title`, else the web's metadata.json `title`), beside its file. */
async function givenTitle(context: RecordContext): Promise<string | undefined> {
  const state = await jsonBeside(context, "state.json");
  const custom = nonEmptyString(state?.custom_title)?.trim();
  if (custom) return custom;
  const legacy = nonEmptyString((await jsonBeside(context, "metadata.json"))?.title)?.trim();
  return legacy && legacy !== "Untitled" ? legacy : undefined;
}

function jsonBeside(context: RecordContext, name: string): Promise<JsonObject | undefined> {
  return jsonObjectBeside(
    context,
    name,
    MAX_STATE_BYTES,
    `${name} files that could not be read (the session keeps the title its first prompt gives)`,
  );
}
