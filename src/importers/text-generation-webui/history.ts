// One text-generation-webui chat history to the upload shape. What each rule is based on
// (oobabooga/text-generation-webui, modules/chat.py at 1dcde41d, May 2026, and the versions named):
// - The file: `{ internal, visible, metadata }`, rows of `[user, assistant]`. `internal` is what the
//   model is sent; `visible` what the chat shows, HTML-escaped since a4e903e9 (August 2023: decoded
//   here), with `<USER>` written as the user's name and the output extensions' HTML. Before 6c6a52aa
//   (August 2023) `{ data, data_visible }`, the same rows (load_history still reads it). `metadata`
//   since 8e10f989 (May 2025).
// - A row whose user side is `<|BEGIN-VISIBLE-CHAT|>` is the character's greeting (start_new_chat):
//   the answer is kept, no prompt. An empty side (send_dummy_reply's rows) is no message. A history of
//   the greeting alone is a new chat never used, counted and left out, as is an empty one.
// - Swipes and edits (616ea696, 355b5f6c, May 2025): `metadata["assistant_<row>"].versions`; `visible`
//   holds the version shown (handle_navigate_version_click copies it there), so it is kept, the others not.
// - Tools (2026): the answer's visible text holds each call as `<tool_call>name(args)\nresult\n</tool_call>`
//   (generate_chat_reply_wrapper): named `[tool: name]`, the result left out. Thinking (a leading
//   `<think>` block and the other THINKING_FORMATS of modules/reasoning.py the UI folds) is left out.
// - Attachments: `metadata["user_<row>"].attachments` (409a48d6): an image is `[image]`, a file or
//   web search result `[file: name]`, as the chat shows their boxes.
// - Times: `metadata[…].timestamp`, "%b %d, %Y %H:%M" in the user's local time, which the file does
//   not say (read as UTC, as SillyTavern's are); "" for rows older than the metadata. The file's name,
//   `%Y%m%d-%H-%M-%S` when the chat was started (start_new_chat), dates it when no row is dated.
// - Title: the file's name when the user renamed the chat (rename_history), else the first prompt
//   (find_all_histories_with_first_prompts), after the character's name in chat modes (its folder, or
//   the name of a persistent history or of a download: history_<character>_<time>.json, js/save_files.js).
// - Id: the file's name (the app's unique_id) and, in its logs folder, its mode's folder and character:
//   each character's chats are a folder of their own. A file on disk is placed by the whole path it was
//   given by, so the logs folder, its chat folder, a character's folder or the file alone give one id.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { promptTitle, toolsOnOneLine, type TurnPiece } from "../agent-sessions.js";
import { derivedId } from "../derived-id.js";
import { decodeEntities } from "../gemini/html-text.js";
import { arrayOf, earliestIso, isObject, nonEmptyString, plausibleIso, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { filePlaceholder, joinPieces } from "../placeholders.js";
import { wholePath } from "../source.js";
import type { RecordContext } from "../types.js";
import { firstLine } from "../../text/cut-text.js";

const GREETING_MARK = "<|BEGIN-VISIBLE-CHAT|>";

export function textGenerationWebUiHistory(value: unknown, context: RecordContext): UploadConversation | undefined {
  const history = isObject(value) ? value : {};
  const internal = arrayOf(history.internal ?? history.data);
  const visible = arrayOf(history.visible ?? history.data_visible);
  const metadata = isObject(history.metadata) ? history.metadata : {};
  const place = placeOf(wholePath(context));
  const messages: UploadMessage[] = [];
  const rows = Math.max(internal.length, visible.length);
  for (let row = 0; row < rows; row++) {
    const shown = pairOf(visible[row]) ?? pairOf(internal[row]);
    if (shown === undefined) {
      context.skip("rows that are no pair of messages");
      continue;
    }
    const greeting = pairOf(internal[row])?.[0] === GREETING_MARK;
    if (!greeting) pushMessage(messages, "human", row, shown[0], metadata);
    pushMessage(messages, "assistant", row, shown[1], metadata);
  }
  if (!messages.some((message) => message.role === "human")) {
    context.skip(
      messages.length === 0 ? "chats without any message text" : "chats of the character's greeting alone (a new chat never used)",
    );
    return undefined;
  }
  const times = messages.map((message) => message.createdAt).filter((time) => time !== undefined);
  const createdAt = earliestIso([startOf(place.name), ...times]) ?? context.fallbackDate.toISOString();
  const updatedAt = times.sort().at(-1);
  const title = titleFrom(place.renamed ? place.name : promptTitle(messages));
  return {
    complete: true, // the file holds the whole chat as it stands
    conversation: {
      id: derivedId("text-generation-webui", place.scope),
      title: place.character === undefined ? title : titleFrom(`${place.character}: ${title}`),
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages,
    },
  };
}

function pushMessage(messages: UploadMessage[], role: UploadMessage["role"], row: number, text: string, metadata: JsonObject): void {
  const key = `${role === "human" ? "user" : "assistant"}_${row}`;
  const meta = isObject(metadata[key]) ? metadata[key] : {};
  const content = joinPieces([...shownPieces(text, role), ...attachments(meta)]);
  if (content === "") return;
  const createdAt = textGenTime(meta.timestamp);
  messages.push({ id: key, role, content, ...(createdAt === undefined ? {} : { createdAt }) });
}

/** A row's two sides; undefined for what is no row. */
function pairOf(row: unknown): [string, string] | undefined {
  if (!Array.isArray(row)) return undefined;
  return [stringOf(row[0]) ?? "", stringOf(row[1]) ?? ""];
}

/** Each tool call's block, as generate_chat_reply_wrapper writes it (its tags not escaped, unlike the model's text). */
const TOOL_OPEN = "<tool_call>";
const TOOL_CLOSE = "\n</tool_call>";

/** A side's visible text as the chat shows it: entities decoded, tool calls named, thinking and extensions' players left out. */
function shownPieces(text: string, role: UploadMessage["role"]): string[] {
  const pieces: TurnPiece[] = [];
  let from = 0;
  // Found with indexOf, not a lazy regex, so thousands of unclosed tags cost one pass.
  for (let open = text.indexOf(TOOL_OPEN); open !== -1; open = text.indexOf(TOOL_OPEN, from)) {
    const close = text.indexOf(TOOL_CLOSE, open);
    if (close === -1) break;
    const header = firstLine(text.slice(open + TOOL_OPEN.length, close));
    pieces.push({ text: segmentText(text.slice(from, open), role), tool: false });
    pieces.push({ text: `[tool: ${header.replace(/\(.*$/, "").trim() || "tool"}]`, tool: true });
    from = close + TOOL_CLOSE.length;
  }
  pieces.push({ text: segmentText(text.slice(from), role), tool: false });
  return toolsOnOneLine(pieces.filter((piece) => piece.text.trim() !== ""));
}

/** The players and pictures output extensions write into the visible text (silero_tts, send_pictures). */
const AUDIO = /<audio\b/gi;
const IMAGE = /<img\b/gi;

function segmentText(text: string, role: UploadMessage["role"]): string {
  // An inlined image (`data:`) is left for joinPieces, which writes it `[image]` too.
  const withoutPlayers = replaceTags(
    replaceTags(text, AUDIO, "</audio>", () => ""),
    IMAGE,
    "",
    (tag) => (tag.includes('src="data:') ? tag : "[image]"),
  );
  const decoded = decodeEntities(withoutPlayers);
  return role === "assistant" ? withoutThinking(decoded) : decoded;
}

/** The most characters an extension's tag holds: a longer one is text. */
const MAX_TAG = 2000;

/**
 * `text` with each tag that `opening` starts (up to its first ">", at most MAX_TAG characters on, and
 * `closing` when it follows at once) replaced. The first ">" ahead is looked for once, not from each
 * tag again: /<audio\b[^>]{0,2000}>/ scanned 2,000 characters from each of 400,000 unended tags (5 s).
 */
function replaceTags(text: string, opening: RegExp, closing: string, replace: (tag: string) => string): string {
  let out = "";
  let copied = 0;
  let tagEnd = -1;
  for (const { index: at, 0: name } of text.matchAll(opening)) {
    if (at < copied) continue; // inside the tag just replaced
    if (tagEnd < at) tagEnd = text.indexOf(">", at);
    if (tagEnd === -1) break;
    if (tagEnd - at - name.length > MAX_TAG) continue;
    const after = tagEnd + 1;
    out += text.slice(copied, at) + replace(text.slice(at, after));
    copied = closing !== "" && text.slice(after, after + closing.length).toLowerCase() === closing ? after + closing.length : after;
  }
  return out + text.slice(copied);
}

/** The answer without the reasoning the UI folds (modules/reasoning.py THINKING_FORMATS, at the start). */
function withoutThinking(text: string): string {
  const trimmed = text.trimStart();
  for (const [open, close] of THINKING) {
    if (!trimmed.startsWith(open)) continue;
    const end = trimmed.indexOf(close, open.length);
    return end === -1 ? "" : trimmed.slice(end + close.length);
  }
  const endOnly = trimmed.indexOf("</think>"); // Qwen3-next: the opening tag was in the prompt
  return endOnly === -1 ? text : trimmed.slice(endOnly + "</think>".length);
}

const THINKING: readonly (readonly [string, string])[] = [
  ["<think>", "</think>"],
  ["<seed:think>", "</seed:think>"],
  ["<|channel|>analysis<|message|>", "<|channel|>final<|message|>"],
  ["<|channel|>commentary<|message|>", "<|channel|>final<|message|>"],
  ["<|channel>thought", "<channel|>"],
  ["<|think|>", "<|content|>"],
];

function attachments(meta: JsonObject): string[] {
  return arrayOf(meta.attachments)
    .filter(isObject)
    .map((attachment) => (attachment.type === "image" ? "[image]" : filePlaceholder(attachment.name)));
}

/** Where a history sits: its name, its character (chat modes) and what its id is made of. */
interface Place {
  name: string;
  character: string | undefined;
  /** The name is the user's (rename_history), not the time the chat was started. */
  renamed: boolean;
  scope: string[];
}

const STARTED = /^(\d{4})(\d{2})(\d{2})-(\d{2})-(\d{2})-(\d{2})$/;
/** The Chat tab's download (js/save_files.js): history_<character or mode>_<local time>.json. */
const DOWNLOAD = /^history_(.+)_\d{8}T\d{6}$/;
/** Its download before July 2023 (save_history with timestamp=True, 3b886f9c): <character or Instruct>_<local time>.json in logs/. */
const OLD_DOWNLOAD = /^(.+)_\d{8}-\d{6}$/;
const MODES = new Set(["instruct", "chat", "chat-instruct", "unknown"]);

function placeOf(path: string): Place {
  const parts = path.split("/");
  const name = (parts.at(-1) ?? path).replace(/\.json$/i, "");
  const folder = parts.at(-2);
  const logged = !STARTED.test(name);
  if (folder === "instruct") return { name, character: undefined, renamed: logged, scope: ["instruct", name] };
  if (folder !== undefined && parts.at(-3) === "chat") return { name, character: folder, renamed: logged, scope: ["chat", folder, name] };
  const character = [/^persistent_(.+)$/, /^(.+)_persistent$/, DOWNLOAD, OLD_DOWNLOAD]
    .map((pattern) => pattern.exec(name)?.[1])
    .find(Boolean);
  return {
    name,
    character: character === undefined || MODES.has(character.toLowerCase()) ? undefined : character,
    renamed: false,
    scope: [name],
  };
}

/** When the chat was started, from its file's name (`20250520-14-03-12`, local time read as UTC). */
function startOf(name: string): string | undefined {
  const parts = STARTED.exec(name)?.slice(1).map(Number);
  if (parts === undefined) return undefined;
  const [year, month, day, hour, minute, second] = parts as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return date.getUTCDate() === day ? plausibleIso(date.getTime()) : undefined;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
/** get_current_timestamp: "May 20, 2025 14:03". */
const TIMESTAMP = /^([A-Za-z]{3}) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2})$/;

/** A message's timestamp to ISO 8601 UTC; undefined for "" (a row older than the metadata) or what is no time. */
export function textGenTime(value: unknown): string | undefined {
  const match = TIMESTAMP.exec(nonEmptyString(value)?.trim() ?? "");
  if (match === null) return undefined;
  const month = MONTHS.indexOf(match[1]!.toLowerCase());
  const day = Number(match[2]);
  if (month === -1) return undefined;
  const date = new Date(Date.UTC(Number(match[3]), month, day, Number(match[4]), Number(match[5])));
  return date.getUTCDate() === day ? plausibleIso(date.getTime()) : undefined;
}
