// logs.db's rows, as the database reader gives them: one exchange (a prompt and what answered it) per
// row of `turns` (0.32 on), of `responses` (0.5 to 0.31; those llm's code of late July 2026, before
// 0.32rc1, wrote as turns too, the same id, read once, as `llm logs` reads them) and of 0.4's `log`
// (`logs` once 0.5 renamed it), each with its parts as llm stored them. Reading a turn's parts means
// following its messages' parent links, so they are gathered here, where the database is; what they
// say is read in conversation.ts. A table an older database lacks is not read; the content of
// fragments and attachments (whole files, images) is never selected.
import { isObject } from "../json-values.js";
import type { DatabaseFile, Row } from "../sqlite.js";
import { FIRST_COLUMNS, KEPT_COLUMNS, LEGACY_COLUMNS, STORE_COLUMNS } from "./tables.js";

/** A piece of a message, in the store's shape (a parts row); legacy rows' pieces are written in it too. */
export interface LlmPart {
  /** text, reasoning, tool_call, tool_result, attachment; `fragment` for a legacy row's fragment. */
  type: string;
  /** The literal text, or undefined when the text borrows fragments (then in `payload` as text_ref). */
  text?: string | number | undefined;
  payload?: string | number | undefined;
  toolName?: string | number | undefined;
  /** The fragments the part's text_ref names, by id: their source (a path, a URL). */
  fragments?: Record<string, string | number | undefined>;
  /** A fragment's source (legacy: prompt_fragments, system_fragments). */
  source?: string | number | undefined;
  /** An attachment's type, path and url (its bytes are not read). */
  attachment?: Row;
}

export interface LlmExchange {
  llmTable: "turns" | "responses" | "logs";
  id: string;
  /** Where it sorts in its conversation: the ULID both turns and responses have; 0.4's row number. */
  order: string;
  conversation: string;
  /** The conversation's name (conversations.name, threads.name), as llm made it from the first prompt. */
  name: string | number | undefined;
  time: string | number | undefined;
  system: LlmPart[];
  prompt: LlmPart[];
  answer: LlmPart[];
}

type Columns = Readonly<Record<string, readonly string[]>>;

export function* llmExchanges(db: DatabaseFile): Generator<LlmExchange> {
  if (holds(db, STORE_COLUMNS)) yield* turns(db);
  if (holds(db, LEGACY_COLUMNS)) yield* responses(db);
  if (holds(db, KEPT_COLUMNS)) yield* firstLogs(db, "logs", "datetime_utc");
  if (holds(db, FIRST_COLUMNS)) yield* firstLogs(db, "log", "timestamp");
}

export function isLlmExchange(value: unknown): value is LlmExchange {
  return isObject(value) && typeof value.llmTable === "string" && Array.isArray(value.answer);
}

function holds(db: DatabaseFile, columns: Columns): boolean {
  return Object.entries(columns).every(([table, names]) => names.every((column) => db.tables.get(table)?.has(column)));
}

// 0.5 to 0.31: a row per response, its fragments, attachments and tool calls in tables of their own.
function* responses(db: DatabaseFile): Generator<LlmExchange> {
  const promptFragments = fragmentsBy(db, "prompt_fragments");
  const systemFragments = fragmentsBy(db, "system_fragments");
  const attachments = listsBy(
    db,
    ["prompt_attachments", "attachments"],
    `SELECT pa.response_id AS owner, a.type AS type, a.path AS path, a.url AS url FROM prompt_attachments pa JOIN attachments a ON a.id = pa.attachment_id ORDER BY pa.response_id, pa."order"`,
  );
  const toolCalls = listsBy(db, ["tool_calls"], "SELECT response_id AS owner, name FROM tool_calls ORDER BY id");
  const notTurns = db.tables.has("turns") ? " WHERE r.id NOT IN (SELECT id FROM turns)" : "";
  const sql =
    "SELECT r.id AS id, r.prompt AS prompt, r.system AS system, r.response AS response, r.conversation_id AS conversation, " +
    `r.datetime_utc AS time, c.name AS name FROM responses r LEFT JOIN conversations c ON c.id = r.conversation_id${notTurns} ` +
    "ORDER BY r.conversation_id, r.id";
  for (const row of db.select(sql)) {
    const id = String(row.id);
    yield {
      llmTable: "responses",
      id,
      order: id,
      conversation: String(row.conversation ?? id),
      name: row.name,
      time: row.time,
      system: [...(systemFragments.get(id) ?? []), { type: "text", text: row.system }],
      prompt: [
        ...(promptFragments.get(id) ?? []),
        { type: "text", text: row.prompt },
        ...(attachments.get(id) ?? []).map((attachment) => ({ type: "attachment", attachment })),
      ],
      answer: [
        { type: "text", text: row.response },
        ...(toolCalls.get(id) ?? []).map((call) => ({ type: "tool_call", toolName: call.name })),
      ],
    };
  }
}

function fragmentsBy(db: DatabaseFile, table: "prompt_fragments" | "system_fragments"): Map<string, LlmPart[]> {
  const sql = `SELECT j.response_id AS owner, f.source AS source FROM ${table} j JOIN fragments f ON f.id = j.fragment_id ORDER BY j.response_id, j."order"`;
  const rows = listsBy(db, [table, "fragments"], sql);
  return new Map([...rows].map(([owner, its]) => [owner, its.map((row) => ({ type: "fragment", source: row.source }))]));
}

/** A query's rows by their `owner` column, when the database has the tables it reads (they came in later versions). */
function listsBy(db: DatabaseFile, tables: readonly string[], sql: string): Map<string, Row[]> {
  const lists = new Map<string, Row[]>();
  if (!tables.every((table) => db.tables.has(table))) return lists;
  for (const row of db.select(sql)) {
    const owner = String(row.owner);
    const list = lists.get(owner);
    if (list === undefined) lists.set(owner, [row]);
    else list.push(row);
  }
  return lists;
}

// 0.4: a row per prompt, a chat's rows naming its first row's id as chat_id (cli.py get_history).
function* firstLogs(db: DatabaseFile, table: "log" | "logs", time: "timestamp" | "datetime_utc"): Generator<LlmExchange> {
  for (const row of db.select(`SELECT id, prompt, system, response, chat_id, ${time} AS time FROM ${table} ORDER BY id`)) {
    const id = String(row.id);
    yield {
      llmTable: "logs",
      id: `logs-${id}`,
      order: id.padStart(12, "0"),
      conversation: `logs-${row.chat_id ?? id}`,
      name: undefined,
      time: row.time,
      system: [{ type: "text", text: row.system }],
      prompt: [{ type: "text", text: row.prompt }],
      answer: [{ type: "text", text: row.response }],
    };
  }
}

interface StoredMessage {
  hash: string;
  parent: string | undefined;
  role: string | undefined;
}

/** How far a chain is followed: a loop in damaged parent links ends here. */
const MAX_CHAIN = 100_000;

// 0.32 on (llm/logs.py LogStore.log): a turn's prompt is the message its parent_message_hash names, its
// answer the messages from its tip back to that parent (the model's, and the tools' results between them).
function* turns(db: DatabaseFile): Generator<LlmExchange> {
  const sql =
    "SELECT t.id AS id, t.thread_id AS thread, t.parent_message_hash AS parent, t.tip_message_hash AS tip, " +
    "t.datetime_utc AS time, th.name AS name FROM turns t LEFT JOIN threads th ON th.id = t.thread_id ORDER BY t.thread_id, t.id";
  const rows = [...db.select(sql)];
  let thread: string | undefined;
  for (const row of rows) {
    const id = String(row.id);
    const first = row.thread !== thread;
    thread = row.thread === undefined ? undefined : String(row.thread);
    const parent = messageAt(db, row.parent);
    yield {
      llmTable: "turns",
      id,
      order: id,
      conversation: thread ?? id,
      name: row.name,
      time: row.time,
      // The system prompt heads the chain: read once, with a thread's first turn.
      system: first ? systemOf(db, parent) : [],
      prompt: parent?.role === "user" ? partsOf(db, parent.hash) : [],
      answer: answerOf(db, row.tip, parent?.hash).flatMap((message) => (message.role === "assistant" ? partsOf(db, message.hash) : [])),
    };
  }
}

function messageAt(db: DatabaseFile, hash: unknown): StoredMessage | undefined {
  if (typeof hash !== "string") return undefined;
  const [row] = db.select("SELECT hash, parent_hash, role FROM messages WHERE hash = $hash", { $hash: hash });
  return row === undefined
    ? undefined
    : {
        hash,
        parent: typeof row.parent_hash === "string" ? row.parent_hash : undefined,
        role: row.role === undefined ? undefined : String(row.role),
      };
}

/** The messages after the parent, up to the tip, oldest first; the tip alone when the parent is not on its chain. */
function answerOf(db: DatabaseFile, tip: unknown, parent: string | undefined): StoredMessage[] {
  const chain: StoredMessage[] = [];
  let message = messageAt(db, tip);
  while (message !== undefined && message.hash !== parent && chain.length < MAX_CHAIN) {
    chain.push(message);
    message = messageAt(db, message.parent);
  }
  if (parent !== undefined && message?.hash !== parent) return chain.slice(0, 1);
  return chain.reverse();
}

function systemOf(db: DatabaseFile, from: StoredMessage | undefined): LlmPart[] {
  let message = from;
  for (let steps = 0; message?.parent !== undefined && steps < MAX_CHAIN; steps++) message = messageAt(db, message.parent);
  return message?.role === "system" ? partsOf(db, message.hash) : [];
}

function partsOf(db: DatabaseFile, hash: string): LlmPart[] {
  const sql = "SELECT id, type, tool_name, text, payload FROM parts WHERE message_hash = $hash ORDER BY position";
  return [...db.select(sql, { $hash: hash })].map((row) => ({
    type: String(row.type),
    text: row.text,
    payload: row.payload,
    toolName: row.tool_name,
    ...(row.text === undefined && row.payload !== undefined && row.type !== "attachment" ? { fragments: fragmentsOf(db, row.id) } : {}),
    ...(row.type === "attachment" ? { attachment: attachmentOf(db, row.id) } : {}),
  }));
}

function fragmentsOf(db: DatabaseFile, part: unknown): Record<string, string | number | undefined> {
  if (typeof part !== "number" || !db.tables.has("part_fragments")) return {};
  const sql =
    "SELECT f.id AS id, f.source AS source FROM part_fragments pf JOIN fragments f ON f.id = pf.fragment_id WHERE pf.part_id = $part";
  return Object.fromEntries([...db.select(sql, { $part: part })].map((row) => [String(row.id), row.source]));
}

function attachmentOf(db: DatabaseFile, part: unknown): Row | undefined {
  if (typeof part !== "number" || !db.tables.has("part_attachments")) return undefined;
  const sql =
    'SELECT a.type AS type, a.path AS path, a.url AS url FROM part_attachments pa JOIN attachments a ON a.id = pa.attachment_id WHERE pa.part_id = $part ORDER BY pa."order"';
  const [row] = db.select(sql, { $part: part });
  return row;
}
