// Aider's .aider.chat.history.md to the upload shape, one conversation per session. What each rule
// rests on: Aider-AI/aider aider/io.py (append_chat_history, user_input, ai_output, tool_output,
// _tool_message, confirm_ask, prompt_ask; the format unchanged since "updated md chat log format",
// 2023-05-17) and coders/base_coder.py (run, run_stream: what is logged as the user's; send_message:
// the answer logged once it is whole):
// - A session starts at `# aider chat started at 2024-05-01 12:34:56` (the machine's local time,
//   without a zone: read as UTC, as every time without a zone is) and runs to the next one; each is
//   a conversation, created at that time. Lines carry no time of their own.
// - Human: a prompt is `#### ` lines, one per line typed (`#### <blank>` for an empty one), each
//   ended by two spaces (a Markdown line break). A slash command is kept as typed ("/add app.py"), as
//   Claude Code's are. Left out: the answers aider logs as prompts itself (a confirmation answered
//   for a group, "… (Y)es/(N)o [Yes]: y").
// - Aider's own output, left out: `> ` lines, each ended by two spaces (what it did: files added,
//   edits applied, commits, lint and test output, the questions it asked and their answers), and
//   the lines a multi-line one runs on to without `> ` (a subject, a shell command), up to a blank line.
// - Assistant: the rest, blank-line separated from the above (ai_output writes "\n" + answer +
//   "\n\n"), SEARCH/REPLACE blocks in their fences included: the edits are what the model answered.
//   Answers one after another with only aider's output between (a reflection on lint errors) are one
//   message (agent-sessions.ts).
// - A file whose lines lost their trailing spaces (an editor trimmed them) is read by the prefixes
//   alone, outside fenced code.
// - Title: the first prompt that is not a command (or a chat command's words, /ask …), its first
//   line; aider names no session. The repository's folder is not in it: Claude Code's and Codex's
//   sessions are not titled by their project either. Id: a hash of the start time and the first
//   prompt, which stay as the session goes on (and their order among those that share both). Message ids: their line in the session.
// - A session that cannot be read costs that session, not the file. The file is read a session at a
//   time (text-records.ts cuts it at the headings): a history of years imports whatever its size, and
//   a session over 64 MB is said and left out.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, type Utterance } from "../agent-sessions.js";
import { derivedId } from "../derived-id.js";
import { isoFromTime, titleFrom } from "../json-values.js";
import { notAConversation, unreadableRecord } from "../record-errors.js";
import type { RecordContext, SourcedRecord } from "../types.js";
import { nextFence, SESSION_HEADING } from "./history.js";

/** Reads the file's records, a session's text each (text-records.ts cuts it at the headings), into a conversation per session. */
export async function* aiderSessions(records: AsyncIterable<SourcedRecord>): AsyncIterable<UploadConversation> {
  const met = new Map<string, string[]>();
  for await (const { value, context } of records) {
    if (typeof value !== "string") {
      context.unreadable(notAConversation(context));
      continue;
    }
    for (const section of sectionsOf(value)) {
      try {
        const conversation = sessionConversation(section, context);
        if (conversation !== undefined) yield toldApart(conversation, context.label, met);
      } catch (error) {
        context.unreadable(unreadableRecord(context, error));
      }
    }
  }
}

interface Section {
  /** The heading's time; undefined for the lines before the first heading (a history trimmed at its start). */
  started: string | undefined;
  lines: string[];
}

/** An editor's mode line (`-*- mode: fundamental -*-`), which aider's own history opens with. */
const MODE_LINE = /^\s*-\*-.*-\*-\s*$/;

/** The file cut at its sessions' headings. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ started: undefined, lines: [] }];
  for (const [index, line] of text.split("\n").entries()) {
    if (index === 0 && MODE_LINE.test(line)) continue;
    const started = SESSION_HEADING.exec(line)?.[1];
    if (started !== undefined) sections.push({ started, lines: [] });
    else sections.at(-1)!.lines.push(line);
  }
  return sections[0]!.lines.some((line) => line.trim() !== "") ? sections : sections.slice(1);
}

type Kind = "start" | "prompt" | "aider" | "answer";

/** A line written by user_input: `#### ` and what was typed (then the two spaces of a line break, BREAK). */
const PROMPT = /^####(?: (.*))?$/;
/** A line written with blockquote=True: `> ` and aider's output (then BREAK). */
const AIDER = /^>(?: .*)?$/;
/** What append_chat_history ends each line of a prompt or of aider's output with: a Markdown line break. */
const BREAK = "  ";
/** What confirm_ask logs as typed when a group's answer is given for it. */
const CONFIRMATION = /\(Y\)es\/\(N\)o.*\[[^\]\n]*\]: ?\S*$/;

function sessionConversation(section: Section, context: RecordContext): UploadConversation | undefined {
  const said = utterancesOf(section.lines);
  const messages = agentTurns(said);
  const first = messages.find((message) => message.role === "human");
  if (first === undefined || !messages.some((message) => message.role === "assistant")) {
    context.skip("sessions without an answer (aider's output and commands alone)");
    return undefined;
  }
  const createdAt = isoFromTime(section.started) ?? context.fallbackDate.toISOString();
  return {
    complete: true, // the section holds the session as it stands
    conversation: {
      id: derivedId("aider", [section.started ?? "", first.content]),
      title: titleFrom(promptTitle(titlePrompts(messages))),
      createdAt,
      messages,
    },
  };
}

/**
 * Sessions started in the same second with the same first prompt (scripted `aider --message` runs in
 * parallel) told apart by their order among them, which appending keeps; one written twice stays one.
 * `met`: the contents of each id's sessions read so far, by file.
 */
function toldApart(upload: UploadConversation, file: string, met: Map<string, string[]>): UploadConversation {
  const { id, messages } = upload.conversation;
  const key = `${file}\u0000${id}`;
  const contents = met.get(key) ?? [];
  met.set(key, contents);
  const content = derivedId(
    "",
    messages.map((message) => message.content),
  );
  if (!contents.includes(content)) contents.push(content);
  const order = contents.indexOf(content);
  return order === 0 ? upload : { ...upload, conversation: { ...upload.conversation, id: derivedId("aider", [id, order]) } };
}

/** Where the reading of a session's lines is. */
interface Reading {
  /** What the last line that was not blank was. */
  previous: Kind;
  /** Blank lines since it. */
  blanks: number;
  /** The fence an answer has open. */
  fence: string | undefined;
  /** The file's lines lost their trailing spaces: aider's lines are known by their prefix alone, outside fences. */
  trimmed: boolean;
  /** The last line of aider's output of several lines being passed over. */
  blockEnd: number;
}

/** The prompts and answers of a session's lines, aider's own lines left out. */
function utterancesOf(lines: string[]): Utterance[] {
  const trimmed = !lines.some((line) => (PROMPT.test(line) || AIDER.test(line)) && line.endsWith(BREAK));
  const reading: Reading = { previous: "start", blanks: 0, fence: undefined, trimmed, blockEnd: -1 };
  const said: Utterance[] = [];
  lines.forEach((line, index) => {
    if (index <= reading.blockEnd) return;
    if (line.trim() === "") {
      reading.blanks++;
      return;
    }
    const { kind, end } = kindOf(lines, index, reading);
    if (end !== undefined) reading.blockEnd = end;
    const last = said.at(-1);
    if (kind === "prompt") {
      reading.fence = undefined; // an answer cut off (^C) left its fence open
      const text = (PROMPT.exec(line)![1] ?? "").replace(/ {2}$/, "");
      if (reading.previous === "prompt" && reading.blanks === 0 && last?.role === "human") last.pieces[0]!.text += `\n${text}`;
      else said.push(utterance("human", text, index));
    }
    if (kind === "answer") {
      if (reading.previous === "answer" && last?.role === "assistant") last.pieces[0]!.text += `${"\n".repeat(reading.blanks + 1)}${line}`;
      else said.push(utterance("assistant", line, index));
      reading.fence = nextFence(line, reading.fence);
    }
    reading.previous = kind;
    reading.blanks = 0;
  });
  return said.map(tidied).filter((utterance) => utterance.pieces.length > 0);
}

/**
 * What a line is, and where aider's output it starts ends when it is of several lines. Aider writes
 * its lines after a blank line or after one of its own (user_input and ai_output start with "\n").
 */
function kindOf(lines: string[], index: number, reading: Reading): { kind: Kind; end?: number } {
  const line = lines[index]!;
  const { previous, blanks, fence, trimmed } = reading;
  const placed = blanks > 0 || previous !== "answer";
  if (placed && (trimmed ? fence === undefined : line.endsWith(BREAK))) {
    if (PROMPT.test(line)) return { kind: "prompt" };
    if (AIDER.test(line)) return { kind: "aider" };
  }
  if (placed && !trimmed && AIDER.test(line)) {
    const end = outputEnd(lines, index, previous === "answer");
    if (end !== undefined) return { kind: "aider", end };
  }
  // A line aider's output runs on to without `> ` (a subject of several lines) is its own too.
  return { kind: previous === "aider" && blanks === 0 ? "aider" : "answer" };
}

/** The last line of aider's output a line quoted but not ended with BREAK starts: what append_chat_history wrote at once, rstripped, then BREAK. */
const OUTPUT_END = /\S {2}$/;
/** How far an output's end is looked for: a command's output, not a whole session. */
const OUTPUT_LINES = 5_000;

/**
 * Where the output that starts at `start` ends, or undefined when it is no output of aider's: one
 * written whole (a command's, /run's, /test's) is quoted on its first line only and may hold blank
 * lines. After an answer a quoted line may be the answer's own quote, so there the output must
 * end before any blank line (the token report: `> Tokens: …` then `Cost: …`).
 */
function outputEnd(lines: string[], start: number, afterAnswer: boolean): number | undefined {
  const last = Math.min(lines.length, start + OUTPUT_LINES);
  for (let index = start + 1; index < last; index++) {
    const line = lines[index]!;
    if (PROMPT.test(line) && line.endsWith(BREAK)) return undefined;
    if (OUTPUT_END.test(line)) return index;
    if (afterAnswer && line.trim() === "") return undefined;
  }
  return undefined;
}

function utterance(role: UploadMessage["role"], text: string, index: number): Utterance {
  return { id: `line-${index + 2}`, role, pieces: [{ text, tool: false }], time: undefined };
}

/** An utterance's text trimmed; a prompt aider typed itself, or an empty one, says nothing. */
function tidied(utterance: Utterance): Utterance {
  const text = utterance.pieces[0]!.text.trim();
  const nothing = text === "" || (utterance.role === "human" && (text === "<blank>" || CONFIRMATION.test(text)));
  return { ...utterance, pieces: nothing ? [] : [{ text, tool: false }] };
}

/** The prompts a title is taken from: those that are no command, else a chat command's words (/ask …), else any. */
function titlePrompts(messages: UploadMessage[]): UploadMessage[] {
  const prompts = messages.filter((message) => message.role === "human");
  const plain = prompts.filter((message) => !message.content.startsWith("/"));
  if (plain.length > 0) return plain;
  const asked = prompts
    .map((message) => ({ ...message, content: /^\/(?:ask|code|architect|context|help)\s+(\S[\s\S]*)$/.exec(message.content)?.[1] ?? "" }))
    .filter((message) => message.content !== "");
  return asked.length > 0 ? asked : prompts;
}
