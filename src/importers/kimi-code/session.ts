// Kimi Code CLI's session files to the upload shape, one conversation per session. What each rule
// rests on: MoonshotAI/kimi-code at d723cc47 (apps/kimi-code 0.38.0): packages/agent-core-v2/docs/
// wire-manifest.d.ts (the wire's records, protocol 1.5, and its migrations from 1.0: wire/migration/
// v1.1.ts renames a tool call's `function.name` to `name`), agent/contextMemory/contextTranscript.ts and
// loopEventFold.ts (the history a resumed session shows: messages, loop events folded into the agent's
// answers, undo, clear, compaction), conversationTime.ts (which prompts an undo counts),
// packages/kap-server/src/search/wireExtract.ts (the app's own reading of what was said: which user
// messages the user typed), packages/migration-legacy/src/sessions/ (the /upgrade from Kimi CLI:
// migrate-one.ts, wire-writer.ts, state-writer.ts) and apps/vis/server/test/fixtures/sessions/.
// - Which file: agents/main/wire.jsonl, the main agent's, appended as the session goes on; the
//   sub-agents' (agents/<id>/wire.jsonl) are counted and not read.
// - Human: a `context.append_message` of role user whose origin the user typed (none, `user`, a
//   slash command's `user-slash`, a cron job's prompt…); not the app's own (`injection`,
//   `system_trigger`, `retry`, `compaction_summary`, a skill or plugin it ran itself). `turn.prompt`
//   repeats the prompt: not read. Text as typed, media `[image]`.
// - Assistant: the loop's events of its open step (`content.part` text, `tool.call` as
//   `[tool: Shell]`), thinking and tools' results left out; `context.append_message` of role assistant
//   where the wire holds whole messages (a session /upgrade brought from Kimi CLI, protocol 1.0).
// - Rewinds: `context.undo` removes the last `count` prompts and what followed them, as the resumed
//   session does (never past a /clear or a compaction); /clear and compactions keep what was shown
//   (the transcript keeps the whole history).
// - Id: the session's folder; a session /upgrade copied from Kimi CLI (`ses_<its id>`, state.json
//   `custom.kimi_cli_session_id`) keeps Kimi CLI's id, under Kimi Code's platform: a conversation of
//   its own beside Kimi CLI's (src/README.md says why). Its copied part is Kimi CLI's model context
//   (context.jsonl): the CLI's own `<system>` messages in it are left out as Kimi CLI's importer does.
//   Title: state.json's `title`, else the first prompt. Times: each record's `time` (Unix ms).
import { basename, dirname, resolve } from "node:path";
import type { UploadConversation } from "../../schemas/chat-history.js";
import { firstTagBlock } from "../../text/tag-blocks.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, jsonObjectBeside, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { contentParts, inputPieces, isTheCliOwn, onDisk, partPieces } from "../kimi-cli/session.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";

/** What a wire record does to the session as shown. */
export type KimiCodeLine = { context: RecordContext } & (
  | { kind: "said"; said: Utterance; anchor: boolean }
  | { kind: "step"; uuid: string }
  | { kind: "part"; step: string; pieces: TurnPiece[]; id: string; time: string | undefined }
  | { kind: "undo"; count: number }
  | { kind: "metadata"; created: string | undefined }
  | { kind: "clear" | "compaction" | "other" }
);

export function kimiCodeLine(record: unknown, context: RecordContext): KimiCodeLine | undefined {
  if (!isObject(record) || typeof record.type !== "string") return undefined;
  const time = isoFromTime(record.time);
  const id = `line-${context.index + 1}`;
  switch (record.type) {
    case "context.append_message":
      return isObject(record.message) ? messageLine(record.message, id, time, context) : { kind: "other", context };
    case "context.append_loop_event":
      return isObject(record.event) ? loopLine(record.event, id, time, context) : { kind: "other", context };
    case "context.undo":
      return typeof record.count === "number" && record.count > 0
        ? { kind: "undo", count: record.count, context }
        : { kind: "other", context };
    case "context.clear":
      return { kind: "clear", context };
    case "context.apply_compaction":
      return { kind: "compaction", context };
    case "metadata":
      return { kind: "metadata", created: isoFromTime(record.created_at), context };
    default:
      return { kind: "other", context };
  }
}

/**
 * The origins of user messages the app wrote itself (contextMemory/types.ts PromptOrigin): reminders,
 * triggers, retries, compaction summaries (wireExtract.ts NON_USER_ORIGIN_KINDS), and the notices of a
 * background task, a missed cron job or a hook; a skill or plugin command unless the user typed it.
 */
const THE_APP_OWN = new Set(["injection", "system_trigger", "retry", "compaction_summary", "task", "cron_missed", "hook_result"]);

function messageLine(message: JsonObject, id: string, time: string | undefined, context: RecordContext): KimiCodeLine {
  const said = (role: Utterance["role"], pieces: TurnPiece[], anchor: boolean): KimiCodeLine => ({
    kind: "said",
    said: { id, role, pieces, time },
    anchor,
    context,
  });
  if (message.role === "assistant") {
    const calls = arrayOf(message.toolCalls).filter(isObject).map(toolPiece);
    return said("assistant", [...partPieces(contentParts(message.content)), ...calls], false);
  }
  if (message.role !== "user") return { kind: "other", context };
  const origin = isObject(message.origin) ? message.origin : {};
  const command = origin.kind === "skill_activation" || origin.kind === "plugin_command";
  const slash = command && origin.trigger === "user-slash";
  // conversationTime.ts isUndoAnchor: the prompts an undo counts.
  const anchor = origin.kind === undefined || origin.kind === "user" || slash;
  if ((command && !slash) || THE_APP_OWN.has(String(origin.kind)) || isTheCliOwn(message.content)) return said("human", [], anchor);
  if (origin.kind === "shell_command") return said("human", origin.phase === "input" ? shellPieces(message.content) : [], anchor);
  return said("human", promptPieces(message.content), anchor);
}

/** A shell command the user ran with `!` (shellCommand/shellCommandService.ts: `<bash-input>`, XML-escaped), as "! command". */
function shellPieces(content: unknown): TurnPiece[] {
  const text = contentParts(content)
    .map((part) => stringOf(part.text) ?? "")
    .join("");
  const command = firstTagBlock(text, "<bash-input>", "</bash-input>")?.inside.trim();
  return command ? [{ text: `! ${unescapeXml(command)}`, tool: false }] : [];
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|amp);/g, (_, name: string) => XML_ENTITIES[name] ?? "");
}

const XML_ENTITIES: Record<string, string> = { lt: "<", gt: ">", quot: '"', amp: "&" };

/** The tag the app puts in a part of its own beside a pasted file (agent/media/mediaRef.ts buildMediaPathTag). */
const MEDIA_TAG = /^\s*<(image|video|audio|file)\b([^>]*)>(?:<\/\1>)?\s*$/;
/** Tested on the tag's attributes alone: `[^>]*?\bpath="…"[^>]*` in one pattern tried each "path=" with each split (seconds for a 300 KB part). */
const PATH_ATTRIBUTE = /\bpath="[^"]*"/;

function isMediaPathTag(text: string): boolean {
  const attributes = MEDIA_TAG.exec(text)?.[2];
  return attributes !== undefined && PATH_ATTRIBUTE.test(attributes);
}

/** A prompt as typed: its parts run together, media as placeholders, the media's path tags left out (as wireExtract.ts does). */
function promptPieces(content: unknown): TurnPiece[] {
  return inputPieces(contentParts(content).filter((part) => !(part.type === "text" && isMediaPathTag(stringOf(part.text) ?? ""))));
}

function loopLine(event: JsonObject, id: string, time: string | undefined, context: RecordContext): KimiCodeLine {
  const step = stringOf(event.stepUuid) ?? "";
  if (event.type === "step.begin") return { kind: "step", uuid: stringOf(event.uuid) ?? "", context };
  if (event.type === "content.part" && isObject(event.part))
    return { kind: "part", step, pieces: partPieces([event.part]), id, time, context };
  if (event.type === "tool.call") return { kind: "part", step, pieces: [toolPiece(event)], id, time, context };
  return { kind: "other", context };
}

/** A tool call: `name` since protocol 1.1, `function.name` in 1.0 (a session migrated from Kimi CLI). */
function toolPiece(call: JsonObject): TurnPiece {
  const name = call.name ?? (isObject(call.function) ? call.function.name : undefined);
  return { text: toolPlaceholder(name), tool: true };
}

const SUBAGENT_FILES = "sub-agents' wire files (agents/<id>/ beside agents/main: their events are the agent's side work)";
const UNDONE = "prompts undone (/undo), with what followed them, which the session no longer shows";
const EMPTY = "sessions without any message text";

/** A wire's lines (groupedPerFile gives one file's at a time) to its conversation. */
export async function kimiCodeSessions(lines: KimiCodeLine[]): Promise<UploadConversation[]> {
  const first = lines[0];
  if (first === undefined) return [];
  const { context } = first;
  if (isSubagentFile(context)) {
    context.skip(SUBAGENT_FILES);
    return [];
  }
  const said = shown(lines, context);
  const messages = agentTurns(said);
  if (messages.length === 0) {
    context.skip(EMPTY);
    return [];
  }
  const state = await stateOf(context);
  const title = nonEmptyString(state?.title)?.trim() || promptTitle(messages);
  const session = sessionConversation({
    id: fittingId(sessionId(context, state, said)),
    title: titleFrom(title),
    messages,
    said,
    fallbackDate: context.fallbackDate,
    partial: context.damaged?.() === true,
  });
  return [withCopiedStart(session, lines)];
}

/**
 * A session /upgrade copied starts with Kimi CLI's messages, which have no times: it was created
 * when the wire's metadata line says (Kimi CLI's last write to it), not at the first turn since.
 */
function withCopiedStart(session: UploadConversation, lines: KimiCodeLine[]): UploadConversation {
  const { conversation } = session;
  const created = lines.find((line) => line.kind === "metadata")?.created;
  if (conversation.messages[0]?.createdAt !== undefined || created === undefined || created >= conversation.createdAt) return session;
  return { ...session, conversation: { ...conversation, createdAt: created } };
}

interface Entry {
  said?: Utterance;
  anchor: boolean;
  /** A compaction's summary: an undo stops at it (contextTranscript.ts applyUndo). */
  barrier?: true;
}

/** What the resumed session shows (contextTranscript.ts): messages and the open step's parts, less what was undone. */
function shown(lines: KimiCodeLine[], context: RecordContext): Utterance[] {
  const entries: Entry[] = [];
  let floor = 0;
  let step: string | undefined;
  let undone = 0;
  for (const line of lines) {
    if (line.kind === "said") entries.push({ said: line.said, anchor: line.anchor });
    else if (line.kind === "step") step = line.uuid;
    else if (line.kind === "part" && line.step === step)
      entries.push({ said: { id: line.id, role: "assistant", pieces: line.pieces, time: line.time }, anchor: false });
    else if (line.kind === "clear") floor = entries.length;
    else if (line.kind === "compaction") entries.push({ anchor: false, barrier: true });
    else if (line.kind === "undo") undone += undo(entries, line.count, floor);
  }
  if (undone > 0) context.skip(UNDONE, undone);
  return entries.flatMap((entry) => (entry.said === undefined ? [] : [entry.said]));
}

/** Removes the last `count` prompts and what followed them, down to `floor`; how many prompts it removed. */
function undo(entries: Entry[], count: number, floor: number): number {
  let removed = 0;
  while (entries.length > floor && removed < count) {
    const last = entries.at(-1)!;
    if (last.barrier) break;
    entries.pop();
    if (last.anchor) removed++;
  }
  return removed;
}

/** A sub-agent's wire: agents/<id>/wire.jsonl with an id other than main. */
const SUBAGENT_PATH = /(?:^|[\\/])agents[\\/](?!main[\\/])[^\\/]+[\\/][^\\/]+$/;

function isSubagentFile({ path, label }: RecordContext): boolean {
  return SUBAGENT_PATH.test(path) || (onDisk({ path, label }) && SUBAGENT_PATH.test(resolve(label)));
}

/** The session's folder: two above its agents/main/wire.jsonl. */
function sessionFolder(context: RecordContext): string | undefined {
  const full = context.path.includes("/") ? context.path : onDisk(context) ? resolve(context.label) : undefined;
  if (full === undefined) return undefined;
  const agents = dirname(dirname(full));
  return basename(dirname(full)) === "main" && basename(agents) === "agents" ? basename(dirname(agents)) : undefined;
}

/** Kimi CLI's session id in a session /upgrade copied, else the session's folder, else (an upload alone) its first time. */
function sessionId(context: RecordContext, state: JsonObject | undefined, said: Utterance[]): string {
  const custom = isObject(state?.custom) ? state.custom : {};
  const fromKimiCli = custom.imported_from_kimi_cli === true ? nonEmptyString(custom.kimi_cli_session_id) : undefined;
  if (fromKimiCli !== undefined) return fromKimiCli;
  const folder = sessionFolder(context);
  if (folder !== undefined && folder !== "") return folder.replace(MIGRATED, "");
  const started = said.find((utterance) => utterance.time !== undefined)?.time;
  return `session-${started ?? context.fallbackDate.toISOString()}`;
}

/** The folder /upgrade names a Kimi CLI session's copy (migrate-one.ts): `ses_` and Kimi CLI's id, a UUID. */
const MIGRATED = /^ses_(?=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)/i;

/** More than a session's state.json holds (its title, agents and a few settings). */
const MAX_STATE_BYTES = 1024 * 1024;

/** The session's state.json, two folders above its main agent's wire. */
function stateOf(context: RecordContext): Promise<JsonObject | undefined> {
  return jsonObjectBeside(
    context,
    "../../state.json",
    MAX_STATE_BYTES,
    "state.json files that could not be read (the session keeps the title its first prompt gives)",
  );
}
