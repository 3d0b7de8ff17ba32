// OpenCode's storage files to the upload shape, one conversation per session. What each rule rests
// on: sst/opencode packages/opencode/src/session/index.ts (Session.Info; updateMessage writes
// ["message", sessionID, id], updatePart ["part", messageID, id]; the default titles "New session - "
// and "Child session - " with an ISO time), session/message-v2.ts (User, Assistant and the Part
// types; parts read sorted by id; `fromV1`, the first messages' shape), storage/storage.ts (a key is
// the file's path under storage/, and its migrations from storage/session/{info,message,part}), and
// the TUI, which shows the session's title and, of a prompt, its text parts that are not synthetic.
// - Session (session/<project>/<id>.json): `{ id, title, version, projectID, directory, parentID?,
//   time: { created, updated } }`. A session with `parentID` is a subagent's (the task tool's): left
//   out, as the other agents' subagents are. Title: the session's, unless still the default; else
//   the first prompt's first line.
// - Message (message/<session>/<id>.json): `{ id, sessionID, role: "user" | "assistant", time:
//   { created, completed? }, summary? }`. Ordered by id (ascending by time, as OpenCode lists them).
//   An assistant message with `summary: true` is a compaction's summary, OpenCode's, not the chat's: left out.
// - Part (part/<message>/<id>.json): `{ id, sessionID, messageID, type, … }`. `text` (not `synthetic`,
//   the file contents OpenCode adds to a prompt, nor `ignored`) is what was said; `tool` is `[tool:
//   name]`; reasoning, a tool's output, step marks, snapshots, patches, files and agents are left out.
// - First-version message (mid-2025): `{ id, role, parts: [{ type: "text" | "tool-invocation" |
//   "reasoning" | … }], metadata: { sessionID, time } }`, its parts inside.
// - A session's prompts alternate with the agent's runs, one assistant message each (agent-sessions.ts).
//   Times: each message's `time.created`; the session ends at the last answer's `time.completed`.
// - 1.2 and later keep the same records as rows of opencode.db (database.ts), read here as the files.
//   A session, message or part met twice (~/.local/share/opencode holds both, the files copied into
//   the database when OpenCode moved to it) is read once, as the database has it: OpenCode writes there
//   since, so a session continued after the move is renamed and grown there alone.
// - 2.x's sessions (session_v2, the same record) and messages (session_message, v2.ts: each whole, its
//   pieces inside, ordered by `seq`): a session 2.x copied from 1.x keeps its id, and so its
//   conversation id, and its messages theirs; of a session in 2.x, only 2.x's messages are read.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { SUBAGENT_SESSIONS, agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom, type JsonObject } from "../json-values.js";
import { fittingId } from "../message-ids.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";
import { isOpencodeRow, recordOfRow } from "./database.js";
import { v2Said } from "./v2.js";

/** What one storage file (or row of opencode.db) gives: a session's info, a message's, or a part's piece of what was said. */
export type OpencodeItem = SessionInfo | MessageInfo | PartPiece;

interface Stored {
  id: string;
  /** Read from opencode.db, not a storage file: of an item in both, the database's is read. */
  inDatabase: boolean;
}

interface SessionInfo extends Stored {
  kind: "session";
  title: string | undefined;
  createdAt: string | undefined;
  subagent: boolean;
  /** 2.x's (session_v2): its messages are 2.x's alone. */
  v2: boolean;
  fileDate: Date;
  skip: SkipReport;
}

interface MessageInfo extends Stored {
  kind: "message";
  sessionID: string;
  role: Utterance["role"] | undefined;
  createdAt: string | undefined;
  completedAt: string | undefined;
  /** A first-version message's or 2.x's own parts; 1.x messages' parts are files (rows) of their own. */
  pieces: TurnPiece[] | undefined;
  /** 2.x's place of the message in its session; 1.x's are ordered by id. */
  seq: number | undefined;
  skip: SkipReport;
}

interface PartPiece extends Stored {
  kind: "part";
  sessionID: string;
  messageID: string;
  piece: TurnPiece | undefined;
}

/** OpenCode's titles for a session not named yet (session/index.ts). */
const DEFAULT_TITLE = /^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function opencodeRecord(value: unknown, context: RecordContext): OpencodeItem | undefined {
  const inDatabase = isOpencodeRow(value);
  const record = inDatabase ? recordOfRow(value, context) : value;
  if (!isObject(record)) return undefined;
  const id = nonEmptyString(record.id);
  if (id === undefined) return undefined;
  // A session_message row is a message whatever its id: one named ses_… is no session to stand beside (or for) one.
  if (inDatabase && value.opencodeTable === "session_message") return v2MessageInfo(record, id, context);
  if (id.startsWith("ses_")) return sessionInfo(record, { id, inDatabase }, context, inDatabase && value.opencodeTable === "session_v2");
  if (id.startsWith("msg_")) return messageInfo(record, { id, inDatabase }, context);
  const sessionID = nonEmptyString(record.sessionID);
  const messageID = nonEmptyString(record.messageID);
  if (sessionID === undefined || messageID === undefined) return undefined;
  return { kind: "part", id, inDatabase, sessionID, messageID, piece: partPiece(record) };
}

function sessionInfo(record: JsonObject, stored: Stored, context: RecordContext, v2: boolean): SessionInfo {
  const title = nonEmptyString(record.title)?.trim();
  const time = isObject(record.time) ? record.time : {};
  return {
    kind: "session",
    ...stored,
    title: title === undefined || DEFAULT_TITLE.test(title) ? undefined : title,
    createdAt: isoFromTime(time.created),
    subagent: nonEmptyString(record.parentID) !== undefined,
    v2,
    fileDate: context.fallbackDate,
    skip: context.skip,
  };
}

function messageInfo(record: JsonObject, stored: Stored, context: RecordContext): MessageInfo | undefined {
  const metadata = isObject(record.metadata) ? record.metadata : undefined; // the first version's
  const sessionID = nonEmptyString(record.sessionID) ?? nonEmptyString(metadata?.sessionID);
  if (sessionID === undefined) return undefined;
  const time = isObject(record.time) ? record.time : isObject(metadata?.time) ? metadata.time : {};
  const compaction = record.role === "assistant" && record.summary === true;
  return {
    kind: "message",
    ...stored,
    sessionID,
    role: compaction ? undefined : record.role === "user" ? "human" : record.role === "assistant" ? "assistant" : undefined,
    createdAt: isoFromTime(time.created),
    completedAt: isoFromTime(time.completed),
    pieces: metadata === undefined ? undefined : arrayOf(record.parts).flatMap((part) => v1Piece(part) ?? []),
    seq: undefined,
    skip: context.skip,
  };
}

/** A session_message row's message (database.ts made it a record); those the chat does not show have no role. */
function v2MessageInfo(record: JsonObject, id: string, context: RecordContext): MessageInfo | undefined {
  const sessionID = nonEmptyString(record.sessionID);
  if (sessionID === undefined || typeof record.seq !== "number") {
    context.skip("messages without their session or their place in it (seq): damaged rows, left out");
    return undefined;
  }
  const time = isObject(record.time) ? record.time : {};
  const said = v2Said(record);
  return {
    kind: "message",
    id,
    inDatabase: true,
    sessionID,
    role: said?.role,
    createdAt: isoFromTime(time.created),
    completedAt: isoFromTime(time.completed),
    pieces: said?.pieces ?? [],
    seq: record.seq,
    skip: context.skip,
  };
}

/** A part's share of what was said: its text, or the tool it called. */
function partPiece(part: JsonObject): TurnPiece | undefined {
  if (part.type === "tool") return { text: toolPlaceholder(part.tool), tool: true };
  if (part.type !== "text" || part.synthetic === true || part.ignored === true) return undefined;
  const text = nonEmptyString(part.text);
  return text === undefined ? undefined : { text, tool: false };
}

/** A first-version part: `text`, or `tool-invocation` with its `toolInvocation.toolName`. */
function v1Piece(part: unknown): TurnPiece | undefined {
  if (!isObject(part)) return undefined;
  if (part.type === "tool-invocation") {
    const call = isObject(part.toolInvocation) ? part.toolInvocation : {};
    return { text: toolPlaceholder(call.toolName), tool: true };
  }
  return partPiece(part);
}

/** Every session read, from its files wherever they were. */
export function opencodeSessions(items: OpencodeItem[]): UploadConversation[] {
  const sessions = new Map<string, SessionInfo>();
  const messages = new Map<string, Map<string, MessageInfo>>();
  const parts = new Map<string, Map<string, PartPiece>>();
  for (const item of items) {
    if (item.kind === "session") put(sessions, item);
    else if (item.kind === "message") setIn(messages, item.sessionID, item);
    else setIn(parts, item.messageID, item);
  }
  for (const [id, orphan] of messages) if (!sessions.has(id)) [...orphan.values()][0]!.skip(WITHOUT_SESSION);
  return [...sessions.values()].flatMap((session) => {
    const conversation = conversationOf(session, [...(messages.get(session.id)?.values() ?? [])], parts);
    return conversation === undefined ? [] : [conversation];
  });
}

const WITHOUT_SESSION =
  "sessions whose session file was not read (damaged, or not passed: pass ~/.local/share/opencode/storage, every file of a session)";

function conversationOf(
  session: SessionInfo,
  messages: MessageInfo[],
  parts: Map<string, Map<string, PartPiece>>,
): UploadConversation | undefined {
  if (session.subagent) {
    session.skip(SUBAGENT_SESSIONS);
    return undefined;
  }
  const read = inOrder(session.v2 ? messages.filter(({ seq }) => seq !== undefined) : messages).flatMap((message) => {
    if (message.role === undefined) return [];
    const pieces = message.pieces ?? byId([...(parts.get(message.id)?.values() ?? [])]).flatMap((part) => part.piece ?? []);
    const said: Utterance = { id: fittingId(message.id), role: message.role, pieces, time: message.createdAt };
    return [{ said, ended: { ...said, time: message.completedAt ?? message.createdAt } }];
  });
  const turns = agentTurns(read.map(({ said }) => said));
  if (turns.length === 0) {
    session.skip("sessions without any message text");
    return undefined;
  }
  return sessionConversation({
    id: fittingId(session.id),
    title: titleFrom(session.title ?? promptTitle(turns)),
    messages: turns,
    said: read.map(({ ended }) => ended), // the session was last updated when its last answer ended
    fallbackDate: session.createdAt === undefined ? session.fileDate : new Date(session.createdAt),
  });
}

/** 2.x's messages by `seq`, 1.x's by id (ascending by time, as OpenCode lists them). */
function inOrder(messages: MessageInfo[]): MessageInfo[] {
  const v2 = messages.every(({ seq }) => seq !== undefined);
  return v2 ? [...messages].sort((a, b) => a.seq! - b.seq!) : byId(messages);
}

function byId<T extends { id: string }>(list: T[]): T[] {
  return [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `item` under `key`, one of each id. */
function setIn<T extends Stored>(map: Map<string, Map<string, T>>, key: string, item: T): void {
  const items = map.get(key) ?? new Map<string, T>();
  map.set(key, items);
  put(items, item);
}

/** `item` by its id, in place of one read before unless that one is the database's and this is not. */
function put<T extends Stored>(items: Map<string, T>, item: T): void {
  if (items.get(item.id)?.inDatabase !== true || item.inDatabase) items.set(item.id, item);
}
