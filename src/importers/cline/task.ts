// Cline's (Roo Code's, Kilo Code's) ui_messages.json to the upload shape, one conversation per task.
// What each rule rests on: cline/cline apps/vscode/src/shared/ExtensionMessage.ts (ClineMessage,
// ClineAsk, ClineSay, ClineAskQuestion, ClinePlanModeResponse, COMPLETION_RESULT_CHANGES_FLAG),
// src/core/storage/disk.ts (the task folder's files), src/core/task/index.ts and its tools/handlers
// (AskFollowupQuestionToolHandler, AttemptCompletionHandler: what is said when) before the SDK move
// (791d238996^); RooCodeInc/Roo-Code packages/types/src/message.ts (its asks and says),
// src/core/task/Task.ts (startTask says the task as "text"), src/core/tools/AskFollowupQuestionTool.ts;
// Kilo Code's src/shared/globalFileNames.ts (the same files, Roo's fork).
// - Which file: ui_messages.json, what the chat showed, every message with its time (`ts`, ms). The
//   api_conversation_history.json beside it is what the model was sent: the prompt inside `<task>`
//   or `<feedback>` tags with `<environment_details>` after it, the tools' output as the user's
//   messages, calls as XML in the text (older) or tool_use blocks (newer), times only in newer
//   versions (ClineStorageMessage.ts, Roo's `ts`). Both are rewritten whole at each step, so
//   ui_messages.json is never behind; the model's file is detected aside (index.ts), counted as not
//   read, and needs no pairing with it: a task is its one file.
// - Human: the task (say "task"; Roo and Kilo say it as the file's first "text"), and what the user
//   typed later (say "user_feedback": an answer, a follow-up, a rejected tool's reason), with its
//   images as `[image]` and files as `[file: name]`; an option clicked in answer to a question (Cline
//   writes no feedback then, but `selected` into the question's JSON).
// - Assistant: from one human message to the next, one message: its text (say "text"), its questions
//   (ask "followup": `question` of the JSON, or the text of versions that wrote it bare), a plan-mode
//   answer (ask "plan_mode_respond": `response`), an image Roo generated (say "image") as `[image]`,
//   the result it ended on (say "completion_result", without Cline's HAS_CHANGES flag; an ask
//   "completion_result" with text too, once when it repeats the say), and the tools it ran as
//   `[tool: readFile]` (say/ask "tool": the JSON's `tool`), `[tool: execute_command]`, an MCP
//   server's tool by name, those in a row on one line. Left out: reasoning, the API requests
//   (api_req_started: a JSON of the request and its cost), commands' and tools' output, errors,
//   checkpoints, notices; a subtask is a task of its own (Roo's new_task), its result here not.
// - App: Roo Code's and Kilo Code's tasks are stored as theirs (platforms `roo-code`, `kilo-code`) when
//   the file's path names their extension's folder in VS Code's globalStorage (rooveterinaryinc.roo-cline,
//   kilocode.kilo-code); nothing in the files tells Roo's from Kilo's, so a task whose path does not
//   (a task's folder zipped alone, an upload) is Cline's. One stored as Cline's before moves (uploads.ts).
// - Id: the first message's `ts`, when the task began (Cline's task id is that time too, a few ms
//   before), the same whether a tasks folder, a task's folder or the file alone is imported: a
//   folder's name is not seen in the last two. Title: the task's first line, as promptTitle cuts it.
import { resolve } from "node:path";
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom, type JsonObject, jsonObjectIn } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { filePlaceholder, toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";
import { MODEL_SIDE } from "./model-side.js";

/** One record of ui_messages.json, read: what it says, or that the file is the model's history. */
export interface TaskMessage {
  index: number;
  ts: number | undefined;
  said: Utterance[];
  model: boolean;
  fallbackDate: Date;
  skip: SkipReport;
  /** The file was cut short (written whole at each step, it was read mid-write or the write never ended). */
  damaged: () => boolean;
  /** The fork whose folder holds the file, when it is one. */
  fork: Fork | undefined;
}

interface Fork {
  platform: string;
  platformDisplayName: string;
}

/** The forks by the folder VS Code keeps their data in (globalStorage/<publisher>.<name>, lower case). */
const FORKS: readonly (Fork & { folder: RegExp })[] = [
  { platform: "roo-code", platformDisplayName: "Roo Code", folder: /(^|[\\/])rooveterinaryinc\.roo-cline[\\/]/i },
  { platform: "kilo-code", platformDisplayName: "Kilo Code", folder: /(^|[\\/])kilocode\.kilo-code[\\/]/i },
];

/**
 * The fork a file is of, by its path: inside the export, or on disk (the label names a file by the
 * path it was passed as, `.` in the tasks folder among them: resolved).
 */
function forkOf(context: RecordContext): Fork | undefined {
  const fork = FORKS.find(({ folder }) => folder.test(context.path) || folder.test(resolve(context.label)));
  return fork === undefined ? undefined : { platform: fork.platform, platformDisplayName: fork.platformDisplayName };
}

/** Appended to a completion result whose task changed files, for the chat's "See new changes" button (ChatRow.tsx slices it off). */
const HAS_CHANGES = "HAS_CHANGES";

function withoutChangesFlag(text: string): string {
  return text.endsWith(HAS_CHANGES) ? text.slice(0, -HAS_CHANGES.length) : text;
}

export function taskMessage(record: unknown, context: RecordContext): TaskMessage | undefined {
  if (!isObject(record)) return undefined;
  const { index, fallbackDate, skip } = context;
  const damaged = context.damaged ?? (() => false);
  const fork = forkOf(context);
  if (record.type !== "say" && record.type !== "ask") {
    if (typeof record.role !== "string") return undefined;
    return { index, ts: undefined, said: [], model: true, fallbackDate, skip, damaged, fork }; // api_conversation_history.json passed alone
  }
  const ts = typeof record.ts === "number" ? record.ts : undefined;
  return { index, ts, said: utterancesOf(record, index, ts), model: false, fallbackDate, skip, damaged, fork };
}

function utterancesOf(record: JsonObject, index: number, ts: number | undefined): Utterance[] {
  const id = fittingId(ts === undefined ? `message-${index + 1}` : String(ts));
  const time = isoFromTime(ts);
  const human = (pieces: TurnPiece[], suffix = ""): Utterance => ({ id: id + suffix, role: "human", pieces, time });
  const assistant = (pieces: TurnPiece[]): Utterance => ({ id, role: "assistant", pieces, time });
  const text = stringOf(record.text) ?? "";
  const kind = record.type === "say" ? record.say : record.ask;
  if (record.type === "say" && (kind === "task" || kind === "user_feedback" || (kind === "text" && index === 0)))
    return [human(promptPieces(record))];
  if (kind === "text" || kind === "completion_result" || kind === "plan_completion_result")
    return [assistant(textPieces(kind === "text" ? text : withoutChangesFlag(text)))];
  if (kind === "image" && record.type === "say") return [assistant([{ text: "[image]", tool: false }])]; // Roo's generate_image
  if (kind === "followup" || kind === "plan_mode_respond" || kind === "act_mode_respond") {
    const json = jsonObjectIn(text);
    const said = json === undefined ? text : (stringOf(json.question) ?? stringOf(json.response) ?? "");
    const selected = nonEmptyString(json?.selected);
    return [assistant(textPieces(said)), ...(selected === undefined ? [] : [human(textPieces(selected), "-selected")])];
  }
  const tool = toolOf(kind, text);
  return tool === undefined ? [] : [assistant([{ text: toolPlaceholder(tool), tool: true }])];
}

function textPieces(text: string): TurnPiece[] {
  return text.trim() === "" ? [] : [{ text, tool: false }];
}

/** What the user sent: the text, then its images and files. */
function promptPieces(record: JsonObject): TurnPiece[] {
  const images = arrayOf(record.images).map(() => "[image]");
  const files = arrayOf(record.files).map((file) => filePlaceholder(stringOf(file)?.replace(/^.*[\\/]/, "")));
  return [...textPieces(stringOf(record.text) ?? ""), ...[...images, ...files].map((text) => ({ text, tool: false }))];
}

/** The tool a message shows the agent running, by the name the model called it; undefined when it is none. */
function toolOf(kind: unknown, text: string): string | undefined {
  switch (kind) {
    case "tool":
      return stringOf(jsonObjectIn(text)?.tool) ?? "tool";
    case "command":
      return "execute_command";
    case "use_mcp_server": {
      const json = jsonObjectIn(text);
      return nonEmptyString(json?.toolName) ?? nonEmptyString(json?.uri) ?? "use_mcp_server";
    }
    case "browser_action_launch":
    case "browser_action":
      return "browser_action";
    case "new_task":
    case "condense":
    case "summarize_task":
    case "report_bug":
    case "use_subagents":
      return kind;
    default:
      return undefined;
  }
}

/** A task file's messages (groupedPerFile gives one file's at a time) to its conversation. */
export function tasks(messages: TaskMessage[]): UploadConversation[] {
  const first = messages[0];
  if (first === undefined) return [];
  if (messages.every((message) => message.model)) {
    first.skip(MODEL_SIDE);
    return [];
  }
  const said = messages.flatMap((message) => message.said);
  const turns = agentTurns(withoutRepeatedResults(said));
  if (turns.length === 0) {
    first.skip("tasks without any message text");
    return [];
  }
  const started = messages.find((message) => message.ts !== undefined)?.ts;
  const id = fittingId(started === undefined ? `task-${first.fallbackDate.getTime()}` : String(started));
  const title = titleFrom(promptTitle(turns));
  // A file cut short adds what it holds to the stored task, which it would otherwise cut short too.
  const conversation = sessionConversation({
    id,
    title,
    messages: turns,
    said,
    fallbackDate: first.fallbackDate,
    partial: first.damaged(),
  });
  return [{ ...first.fork, ...conversation }];
}

/**
 * Versions that said the result (say "completion_result") and then asked with it again (ask
 * "completion_result" with the same text) showed it once.
 */
function withoutRepeatedResults(said: Utterance[]): Utterance[] {
  return said.filter((utterance, i) => {
    const before = said[i - 1];
    return !(
      before !== undefined &&
      utterance.role === "assistant" &&
      before.role === "assistant" &&
      utterance.pieces.length > 0 &&
      utterance.pieces.map((piece) => piece.text).join() === before.pieces.map((piece) => piece.text).join()
    );
  });
}
