// Gemini: Google Takeout "My Activity" records (Gemini Apps, formerly Bard) to conversations.
// Each record is one prompt and its response; records are grouped into conversations by their
// conversation URL when they carry one, otherwise into sessions, split where an hour passes without
// a record (never at midnight: the JSON gives no zone, and the HTML page's own day would make its
// sessions and ids differ from the JSON's of the same account). A turn from before the point where
// the user branched a chat links to the original and to each branch (the title then opens with
// "Branched "): it is a turn of each, as Gemini shows it in each.
//
// Takeout writes the account's language: the header ("Gemini Apps", "Gemini アプリ", "Gemini-Apps")
// and the verb before each prompt ("Prompted …", "送信したメッセージ: …"). A record is recognised by
// what does not change with the language: the brand in its product names, or its link to
// gemini.google.com. The verb is stripped when it is one we know (gemini-prompt-verbs.ts), or when
// the file shows it: the same words open nearly every title.
//
// A record's answer is every item of its `safeHtmlItem`, in order: a long answer arrives as several
// items. Takeout marks no item as a draft; choosing among drafts is an activity record of its own
// ("Selected preferred draft", with no text), which is not a prompt and is counted as such. A Canvas
// Gemini wrote is a record of its own too ("Created Gemini Canvas titled …"), its text in `subtitles`:
// kept as Gemini's document; it links to no chat, so it joins the session of unlinked records at its time.
import { createHash } from "node:crypto";
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { knownPromptVerb, learnedPromptVerb, MIN_VERB_TITLES, type PromptVerb } from "./prompt-verbs.js";
import { htmlToText } from "./html-text.js";
import { uniqueIds } from "../message-ids.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { cutText } from "../../text/cut-text.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";
import { GEMINI_HOST, namesGeminiProduct } from "./names.js";

/** A conversation's link: /app/<id>, /app/c/<id> (newer), /chat/<id> (Bard), optionally under /u/<n>/. */
const CONVERSATION_URL = /https?:\/\/(?:gemini|bard)\.google\.com\/(?:u\/\d+\/)?(?:app|chat)\/(?:c\/)?([A-Za-z0-9_-]{6,})/;
const TITLE_CHARS = 80;
/** Records without a conversation URL are one conversation until this long a pause. */
const SESSION_GAP_MS = 60 * 60 * 1000;

const SKIPPED = {
  otherProduct: "activity of other Google products",
  undated: "Gemini records without a readable time",
  notAPrompt: "Gemini activity that is neither a prompt nor an answer (feedback, settings, an empty Canvas, a Gem used, a draft chosen)",
  repeated: "Gemini records met again in another activity file (read once)",
} as const;

/** The group of the turns that link to no conversation, which sessionsOf splits and names. */
const UNLINKED = "day";

/** A Gemini record as read, before the file's prompt verb is known. */
export interface Activity {
  time: string;
  /** Position in the file, to keep records with equal times in a stable order. */
  order: number;
  title: string;
  /** Gemini's answer: the text of every `safeHtmlItem`, in order ("" when there is none). */
  answer: string;
  /** The conversations the record links to (several for a turn a branch shares), none when it links to none. */
  groups: string[];
  attachments: string[];
  /** A Canvas Gemini wrote (a record that is no prompt): its name and text; undefined for other records. */
  canvas?: { name: string; text: string } | undefined;
  context: RecordContext;
}

interface Turn {
  time: string;
  order: number;
  group: string;
  prompt: string;
  attachments: string[];
  response: string;
  /** Short hash of the raw title: with the time, a stable message id. */
  fingerprint: string;
  /** The Canvas's name, for a turn that is a Canvas (no prompt of its own). */
  canvasName?: string | undefined;
}

/**
 * One record of Gemini activity, as read: only its extracted text is kept (not the raw JSON), and
 * nothing of other products' records, since grouping needs every record before anything is yielded.
 */
export function readActivity(record: unknown, context: RecordContext): Activity | undefined {
  if (!isObject(record)) throw notAConversation(context);
  return toActivity(record, context);
}

/** The activities of a read grouped into conversations: by the conversation they link to, else by session. */
export function geminiConversations(activities: Activity[]): UploadConversation[] {
  const byFile = new Map<string, Activity[]>();
  for (const activity of activities) {
    const inFile = byFile.get(activity.context.label) ?? [];
    inFile.push(activity);
    byFile.set(activity.context.label, inFile);
  }
  const groups = new Map<string, Turn[]>();
  // A record in two files (two Takeouts of one account side by side) is one turn, not two.
  const firstFile = new Map<string, string>();
  for (const [label, activities] of byFile) {
    const verb = learnedPromptVerb(promptTitles(activities));
    for (const activity of activities) {
      const turns = toTurns(activity, verb)?.filter((turn) => {
        const key = `${turn.time}\u0000${turn.fingerprint}\u0000${turn.group}\u0000${turn.response}`;
        const seenIn = firstFile.get(key) ?? label;
        firstFile.set(key, seenIn);
        return seenIn === label;
      });
      if (turns === undefined) continue;
      if (turns.length === 0) activity.context.skip(SKIPPED.repeated);
      for (const turn of turns) {
        const inGroup = groups.get(turn.group) ?? [];
        inGroup.push(turn);
        groups.set(turn.group, inGroup);
      }
    }
  }
  const conversations = [...groups.entries()]
    .flatMap(([group, turns]) => sessionsOf(group, turns))
    .map(([group, turns]) => toConversation(group, turns));
  return conversations.sort(
    (a, b) => compare(a.conversation.createdAt, b.conversation.createdAt) || compare(a.conversation.id, b.conversation.id),
  );
}

/**
 * The titles to learn the file's prompt verb from: those of records Gemini answered, which are
 * prompts in any language, so feedback, "Used Gemini Apps" and the like do not dilute the verb's
 * share; all titles when too few were answered to learn from.
 */
function promptTitles(activities: Activity[]): string[] {
  const answered = activities.filter((activity) => activity.answer !== "").map((activity) => activity.title);
  return answered.length >= MIN_VERB_TITLES ? answered : activities.map((activity) => activity.title);
}

/** A Gemini Apps (or Bard) record: by its product names, or by a link to gemini.google.com. */
export function isGeminiRecord(record: JsonObject): boolean {
  const names = [record.header, ...arrayOf(record.products)].filter((name): name is string => typeof name === "string");
  if (names.some(namesGeminiProduct)) return true;
  const links = [record.titleUrl, ...arrayOf(record.details).map((detail) => (isObject(detail) ? detail.url : undefined))];
  return links.some((link) => typeof link === "string" && GEMINI_HOST.test(hostOf(link)));
}

function hostOf(link: string): string {
  try {
    return new URL(link).hostname;
  } catch {
    return "";
  }
}

function toActivity(record: JsonObject, context: RecordContext): Activity | undefined {
  const time = isoFromTime(record.time);
  const problem = !isGeminiRecord(record) ? SKIPPED.otherProduct : time === undefined ? SKIPPED.undated : undefined;
  if (problem !== undefined || time === undefined) {
    context.skip(problem ?? SKIPPED.undated);
    return undefined;
  }
  const answer = arrayOf(record.safeHtmlItem)
    .filter(isObject)
    .map((item) => htmlToText(stringOf(item.html) ?? ""))
    .filter((text) => text !== "")
    .join("\n\n");
  return {
    time,
    order: context.index,
    title: stringOf(record.title) ?? "",
    answer,
    groups: conversationLinks(record),
    attachments: attachmentNames(record),
    canvas: canvasOf(record),
    context,
  };
}

/** How an English Takeout titles a Canvas record; other languages keep the product's name, "Canvas". */
const CANVAS_TITLE = /^Created Gemini Canvas titled\s*/;

/**
 * The document of a Canvas record ("Created Gemini Canvas titled Trip budget"): Takeout writes its
 * text in `subtitles` without a link (JSON), or in the lines between the title and the time (the
 * page, read as more lines of the title). Undefined when the record names no Canvas or has no text.
 */
function canvasOf(record: JsonObject): { name: string; text: string } | undefined {
  const [first = "", ...more] = (stringOf(record.title) ?? "").split("\n");
  if (!/\bCanvas\b/.test(first)) return undefined;
  const subtitles = arrayOf(record.subtitles)
    .filter(isObject)
    .filter((subtitle) => subtitle.url === undefined)
    .map((subtitle) => stringOf(subtitle.name) ?? "");
  const text = [...more, ...subtitles].join("\n").trim();
  return text === "" ? undefined : { name: first.replace(CANVAS_TITLE, "").trim(), text };
}

/** The record's turn in each conversation it belongs to: its prompt and answer; undefined for activity that is not a prompt. */
function toTurns(activity: Activity, learned: PromptVerb | undefined): Turn[] | undefined {
  const verb = knownPromptVerb(activity.title) ?? learned;
  const isPrompt = verb !== undefined && activity.title.startsWith(verb.prefix);
  // A Canvas Gemini wrote is its answer to the chat's last prompt: no words of the user's.
  const canvas = !isPrompt && activity.answer === "" ? activity.canvas : undefined;
  const prompt = canvas !== undefined ? "" : (isPrompt ? activity.title.slice(verb.prefix.length) : activity.title).trim();
  const response = canvas !== undefined ? `[document: ${canvas.name || "Canvas"}]\n${canvas.text}` : activity.answer;
  const empty = prompt === "" && activity.attachments.length === 0 && response === "";
  if ((!isPrompt && response === "") || empty) {
    activity.context.skip(SKIPPED.notAPrompt);
    return undefined;
  }
  const groups = activity.groups.length > 0 ? activity.groups.map((id) => `app-${id}`) : [UNLINKED];
  const fingerprint = fingerprintOf(activity.title);
  return groups.map((group) => ({
    time: activity.time,
    order: activity.order,
    group,
    prompt,
    attachments: activity.attachments,
    response,
    fingerprint,
    canvasName: canvas?.name,
  }));
}

/**
 * The ids of the conversations the record links to (titleUrl, then details), in order: one, or
 * several for a turn from before a branch point (the original chat's and each branch's).
 */
function conversationLinks(record: JsonObject): string[] {
  const ids = stringsIn([record.titleUrl, record.details, record.subtitles], 0).map((text) => CONVERSATION_URL.exec(text)?.[1]);
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/** Names of the files given with a prompt: strings or objects ({name}, {file}, {path}), in any of the fields Takeout has used. */
function attachmentNames(record: JsonObject): string[] {
  const listed = [...arrayOf(record.attachedFiles), ...arrayOf(record.attachmentInfo)];
  // `imageFile` repeats one of the attached files: it counts only when nothing else names one.
  const entries = listed.length > 0 ? listed : [record.imageFile];
  const names = entries.flatMap((entry) => {
    const name = isObject(entry)
      ? (nonEmptyString(entry.name) ?? nonEmptyString(entry.file) ?? nonEmptyString(entry.path) ?? nonEmptyString(entry.url))
      : nonEmptyString(entry);
    return name === undefined ? [] : [name.trim()];
  });
  return [...new Set(names)];
}

/**
 * The records without a conversation split where an hour passes between two of them: a morning's
 * question about Python and an evening's about bread are two conversations, and a session that runs
 * past midnight is one. A session is named by the UTC day it starts on, `day-2025-03-08`, the later
 * ones starting that day adding `-2`, `-3`: the names a page and the JSON of one account both give.
 */
function sessionsOf(group: string, turns: Turn[]): [string, Turn[]][] {
  turns.sort((a, b) => compare(a.time, b.time) || a.order - b.order);
  if (group !== UNLINKED) return [[group, turns]];
  const sessions: Turn[][] = [];
  for (const [i, turn] of turns.entries()) {
    const previous = turns[i - 1];
    if (previous === undefined || Date.parse(turn.time) - Date.parse(previous.time) > SESSION_GAP_MS) sessions.push([]);
    sessions.at(-1)!.push(turn);
  }
  const startedOn = new Map<string, number>();
  return sessions.map((session) => {
    const day = `day-${session[0]!.time.slice(0, 10)}`;
    const count = (startedOn.get(day) ?? 0) + 1;
    startedOn.set(day, count);
    return [count === 1 ? day : `${day}-${count}`, session];
  });
}

function stringsIn(value: unknown, depth: number): string[] {
  if (typeof value === "string") return [value];
  if (depth > 4) return [];
  if (Array.isArray(value)) return value.flatMap((item) => stringsIn(item, depth + 1));
  if (isObject(value)) return Object.values(value).flatMap((item) => stringsIn(item, depth + 1));
  return [];
}

function fingerprintOf(title: string): string {
  return createHash("sha256").update(title).digest("hex").slice(0, 10);
}

/** A conversation of turns in time order. */
function toConversation(group: string, turns: Turn[]): UploadConversation {
  const messages = uniqueIds(turns.flatMap(turnMessages));
  const first = turns[0];
  const last = turns.at(-1);
  const createdAt = first?.time ?? "";
  return {
    complete: true, // an export holds the whole conversation as it stands
    conversation: {
      id: `gemini-${group}`,
      title: titleOf(turns),
      createdAt,
      ...(last === undefined || last.time === createdAt ? {} : { updatedAt: last.time }),
      messages,
    },
  };
}

function turnMessages(turn: Turn): UploadMessage[] {
  const base = `gemini-${turn.time}-${turn.fingerprint}`;
  const promptText = [turn.prompt, ...turn.attachments.map((name) => `[file: ${name}]`)].filter((piece) => piece !== "").join("\n");
  const messages: UploadMessage[] = [];
  if (promptText !== "") messages.push({ id: `${base}-prompt`, role: "human", content: promptText, createdAt: turn.time });
  if (turn.response !== "") messages.push({ id: `${base}-response`, role: "assistant", content: turn.response, createdAt: turn.time });
  return messages;
}

function titleOf(turns: Turn[]): string {
  const named = turns.find((turn) => turn.prompt !== "")?.prompt ?? turns.find((turn) => turn.canvasName)?.canvasName;
  return named === undefined ? "Untitled" : cutText(named.replace(/\s+/g, " "), TITLE_CHARS);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
