// Qwen Code's session transcripts to the upload shape, one conversation per file. What each rule rests
// on: QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts (ChatRecord, the writer) and
// config/storage.ts (the folders); third-party readers agree (zszz3/AgentRecall #475, specstoryai/getspecstory #267):
// - A record a line: `{ uuid, parentUuid, sessionId, timestamp, type: "user" | "assistant" |
//   "tool_result" | "system", subtype?, cwd, version, message?: Content { role, parts }, systemPayload? }`.
//   /rewind and /branch leave the records they undo in the file: the conversation is the chain of
//   `parentUuid`s from the last record back (every record when that chain breaks).
// - Human: a `user` record's `systemPayload.displayText`, the prompt as typed (before an @path's files
//   are added to what the model is sent), else its text parts; one typed while tools ran
//   (`mid_turn_user_message`) too, not the app's own (`cron`, `notification`…). Assistant: the `assistant` records from one prompt to the next
//   are one message: their text and the tools they called (`functionCall` parts) as `[tool: name]`.
//   Left out: thoughts (`thought` parts), tool results (`tool_result`), the app's `system` records, and
//   subagents' records (`isSidechain`).
// - Title: the last `custom_title` record's (/rename, or Qwen Code's own), else the first prompt's first
//   line. Id: `sessionId`; messages by `uuid`.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, sessionFileId, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext } from "../types.js";

/** A prompt typed while the agent's tools ran: the user's too. */
const MID_TURN = "mid_turn_user_message";

export interface QwenRecord {
  uuid: string | undefined;
  parent: string | undefined;
  session: string;
  utterance: Utterance | undefined;
  title: string | undefined;
  context: RecordContext;
}

export function qwenRecord(record: unknown, context: RecordContext): QwenRecord | undefined {
  if (!isObject(record)) return undefined;
  const base = {
    uuid: stringOf(record.uuid),
    parent: stringOf(record.parentUuid),
    session: stringOf(record.sessionId) ?? sessionFileId(context.path),
    context,
  };
  const payload = isObject(record.systemPayload) ? record.systemPayload : {};
  const title = record.subtype === "custom_title" ? nonEmptyString(payload.customTitle) : undefined;
  const role = record.type === "user" ? "human" : record.type === "assistant" ? "assistant" : undefined;
  const typed = record.subtype === undefined || record.subtype === MID_TURN;
  if (role === undefined || record.isSidechain === true || !typed) return { ...base, utterance: undefined, title };
  const id = fittingId(base.uuid ?? `line-${context.index + 1}`);
  const shown = role === "human" ? nonEmptyString(payload.displayText) : undefined;
  if (shown !== undefined)
    return { ...base, utterance: { id, role, pieces: [{ text: shown, tool: false }], time: isoFromTime(record.timestamp) }, title };
  const parts = arrayOf(isObject(record.message) ? record.message.parts : undefined).filter(isObject);
  const pieces = parts.flatMap((part): TurnPiece[] => {
    if (typeof part.text === "string" && part.thought !== true && part.text.trim() !== "") return [{ text: part.text, tool: false }];
    if (role === "assistant" && isObject(part.functionCall)) return [{ text: toolPlaceholder(part.functionCall.name), tool: true }];
    return [];
  });
  return { ...base, utterance: { id, role, pieces, time: isoFromTime(record.timestamp) }, title };
}

/** A file's records to its conversation. */
export function qwenSessions(records: QwenRecord[]): UploadConversation[] {
  if (records.length === 0) return [];
  const { skip, fallbackDate } = records[0]!.context;
  const said = onBranch(records).flatMap((record) => (record.utterance === undefined ? [] : [record.utterance]));
  const messages = agentTurns(said);
  if (messages.length === 0) {
    skip("sessions without any message text");
    return [];
  }
  const title = records.findLast((record) => record.title !== undefined)?.title;
  return [
    sessionConversation({
      id: fittingId(records[0]!.session),
      title: titleFrom(title ?? promptTitle(messages)),
      messages,
      said,
      fallbackDate,
    }),
  ];
}

/** The records on the chain of parents from the last one: what /rewind and /branch left standing. */
function onBranch(records: QwenRecord[]): QwenRecord[] {
  const byId = new Map(records.filter((record) => record.uuid !== undefined).map((record) => [record.uuid!, record]));
  const chain = new Set<QwenRecord>();
  let record = records.findLast((candidate) => candidate.uuid !== undefined);
  while (record !== undefined && !chain.has(record)) {
    chain.add(record);
    if (record.parent === undefined) return records.filter((candidate) => chain.has(candidate));
    record = byId.get(record.parent);
  }
  return records; // the chain breaks (a record lost): every record, rather than a part
}
