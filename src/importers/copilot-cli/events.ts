// GitHub Copilot CLI's events.jsonl to the upload shape, one conversation per session. What each rule
// rests on: the event types GitHub generates for its SDK (github/copilot-sdk,
// nodejs/src/generated/session-events.ts: `{ type, data, id, timestamp, parentId, agentId? }`) and the
// files CLI 1.0.78 wrote (WildChildForLife/lantern, fixtures/copilot-home/session-state/, copied verbatim):
// - What was said: `user.message`'s `content`, as the user typed it (`transformedContent` adds the
//   date and the CLI's reminders), and `assistant.message`'s `content`; its `toolRequests` are the
//   tools the agent ran, as `[tool: bash]`. Left out: the system prompt (`system.message`), reasoning
//   (`reasoningText`), tools' output, and events of sub-agents (`agentId`), counted: their side work.
// - A prompt and everything the agent did until the next one is one exchange (agent-sessions.ts).
// - `session.snapshot_rewind` removes the event it names and all after it: those are left out, as
//   the CLI shows the session. (The SDK marks it, like `session.title_changed`, as not written to
//   disk; a file that holds one is still read as the CLI would show it.)
// - Id: `session.start`'s `sessionId`, else the session's folder, else the first event's id; message
//   ids are the events' ids, which stay as the file grows. Title: the name in the workspace.yaml
//   beside the file (workspace.ts: what /resume lists, a name the user gave included), else the last
//   `session.title_changed`, else the first prompt's first line. A workspace.yaml that cannot be read
//   is counted, and the session imported with the title its events give.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";
import { workspaceName } from "./workspace.js";

export interface SessionEvent {
  file: string;
  /** The files beside the session's (its workspace.yaml). */
  sibling: RecordContext["sibling"];
  eventId?: string | undefined;
  session?: string | undefined;
  title?: string | undefined;
  /** A rewind: the id of the first event it removed. */
  rewoundTo?: string | undefined;
  subagent?: boolean;
  said?: Utterance;
  fallbackDate: Date;
  skip: SkipReport;
}

export function sessionEvent(record: unknown, context: RecordContext): SessionEvent | undefined {
  if (!isObject(record) || !isObject(record.data)) return undefined;
  const { data } = record;
  const event = {
    file: context.path,
    sibling: context.sibling,
    eventId: nonEmptyString(record.id),
    fallbackDate: context.fallbackDate,
    skip: context.skip,
  };
  if (record.agentId !== undefined) return { ...event, subagent: true };
  const said = (role: "human" | "assistant", pieces: TurnPiece[]): SessionEvent => ({
    ...event,
    said: { id: event.eventId ?? `line-${context.index + 1}`, role, pieces, time: isoFromTime(record.timestamp) },
  });
  switch (record.type) {
    case "session.start":
      return { ...event, session: nonEmptyString(data.sessionId) };
    case "session.title_changed":
      return { ...event, title: nonEmptyString(data.title) };
    case "session.snapshot_rewind":
      return { ...event, rewoundTo: nonEmptyString(data.upToEventId) };
    case "user.message":
      return said("human", textPieces(data.content));
    case "assistant.message":
      return said("assistant", [...textPieces(data.content), ...toolPieces(data.toolRequests)]);
    default:
      return event.eventId === undefined ? undefined : event;
  }
}

function textPieces(content: unknown): TurnPiece[] {
  const text = nonEmptyString(content)?.trim();
  return text === undefined || text === "" ? [] : [{ text, tool: false }];
}

function toolPieces(requests: unknown): TurnPiece[] {
  return arrayOf(requests)
    .filter(isObject)
    .map((request) => ({ text: toolPlaceholder(stringOf(request.name) ?? "tool"), tool: true }));
}

/** A session file's events (groupedPerFile gives one file's at a time) to its conversation, if anything was said in it. */
export async function sessions(events: SessionEvent[]): Promise<UploadConversation[]> {
  const conversation = events.length === 0 ? undefined : session(events);
  if (conversation === undefined) return [];
  const name = await workspaceName(events[0]!);
  return [name === undefined ? conversation : { ...conversation, conversation: { ...conversation.conversation, title: titleFrom(name) } }];
}

function session(all: SessionEvent[]): UploadConversation | undefined {
  const { skip, fallbackDate, file } = all[0]!;
  const subagents = all.filter((event) => event.subagent).length;
  if (subagents > 0) skip("sub-agents' events (the agent's side work, left out as its reasoning is)", subagents);
  const events = withoutRewound(all);
  const utterances = events.filter((event) => event.said !== undefined).map((event) => event.said!);
  const messages = agentTurns(utterances);
  if (messages.length === 0) {
    skip("sessions without any message text");
    return undefined;
  }
  const id = events.find((event) => event.session !== undefined)?.session ?? sessionFolder(file) ?? all[0]!.eventId ?? "session";
  const title = events.findLast((event) => event.title !== undefined)?.title ?? promptTitle(messages);
  return sessionConversation({ id: fittingId(id), title: titleFrom(title), messages, said: utterances, fallbackDate });
}

/** The events as the CLI shows the session: each rewind removes the event it names and those after it, up to itself. */
function withoutRewound(events: SessionEvent[]): SessionEvent[] {
  const kept: SessionEvent[] = [];
  for (const event of events) {
    if (event.rewoundTo === undefined) {
      kept.push(event);
      continue;
    }
    const from = kept.findIndex((earlier) => earlier.eventId === event.rewoundTo);
    if (from >= 0) kept.length = from;
  }
  return kept;
}

/** The folder the CLI names after the session, `<session id>/events.jsonl`. */
function sessionFolder(file: string): string | undefined {
  return /(?:^|\/)([^/]+)\/events\.jsonl$/i.exec(file)?.[1];
}
