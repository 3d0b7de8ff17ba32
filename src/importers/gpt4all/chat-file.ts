// A GPT4All `gpt4all-<id>.chat` file read into the fields mnemo keeps, as nomic-ai/gpt4all's
// gpt4all-chat/src reads it back (every version a user's disk may hold, 0 to 12; read at cd70db2,
// February 2025): chatlistmodel.cpp ChatsRestoreThread (magic, qint32 version; the stream is Qt_6_2's;
// version 0, 2.4.0 and 2.4.1's of May 2023 (f291853e, e397fda2), without either, kept in the settings
// folder, read by the same code as 1 but for its model state, uncompressed in 2.4.0, skipped alike),
// chat.cpp Chat::deserialize (qint64 creation time in seconds, id, name, the user's rename, the model's
// id or file name, from 3 the LocalDocs collections), chatllm.cpp ChatLLM::deserialize (before 11: the
// model's state, skipped unread: it may be hundreds of MB), chatmodel.h ChatModel::deserialize (int
// count) and chatmodel.cpp ChatItem::deserialize (per item: before 12 an int id; name "Prompt: " /
// "Response: " / "ToolResponse: "…; value; before 10 a prompt; newResponse; four bools; from 11 a
// response's isError; sources (8 on) or references (3 to 7); from 10 attachments; from 12 sub-items,
// each name, value (a tool call's ToolCallInfo, tool.cpp; a thought's int time) and its own sub-items).
// QDataStream: integers big-endian, bool one byte, QString a quint32 byte length (0xFFFFFFFF: null) then
// UTF-16BE, QByteArray and QUrl (as its encoded bytes) a quint32 length then bytes, a list a quint32
// count, qsizetype a qint64. The stream stops after the items: nothing after them is needed.
import { Readable } from "node:stream";
import type { ByteSource } from "../source.js";
import { CHAT_FORMAT_MAGIC } from "./magic.js";

/** The newest format version GPT4All writes (CHAT_FORMAT_VERSION). */
export const NEWEST_VERSION = 12;

export interface ChatFile {
  version: number;
  /** Seconds since 1970 (Chat::m_creationDate). */
  created: number;
  id: string;
  /** The name GPT4All gave the chat (from its first exchange), and the user's rename, shown instead when set. */
  name: string;
  userName: string;
  model: string;
  items: ChatItem[];
}

export interface ChatItem {
  /** "Prompt: ", "Response: ", "ToolResponse: ", "Text: ", "ToolCall: ", "Think: " */
  name: string;
  value: string;
  /** A tool call's tool (ToolCallInfo::name). */
  tool?: string;
  subItems: ChatItem[];
}

/** Why a file is not read: damaged, cut short, or of a version this reader does not know. */
export class ChatFileError extends Error {}

const NULL_LENGTH = 0xffffffff;
/** A sub-item tree deeper than this is no file GPT4All wrote (it writes three levels). */
const MAX_DEPTH = 16;
/**
 * A prompt or answer is at most a model's context (a million tokens, some MB); a length past this is
 * damage, not read up to: 0xFFFFFFF0 would hold the rest of the file (the model's state, GBs) in memory.
 */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;

export async function readChatFile(input: Readable): Promise<ChatFile> {
  const stream = new StreamReader(input);
  try {
    return await readChat(stream);
  } finally {
    input.destroy();
  }
}

async function readChat(stream: StreamReader): Promise<ChatFile> {
  const first = await stream.uint32();
  // Version 0 has no header: the creation time's first half (0 in 2023) comes first (magic.ts).
  if (first !== CHAT_FORMAT_MAGIC && first !== 0) throw new ChatFileError("it is no GPT4All chat file (its first bytes are not GPT4All's)");
  const version = first === 0 ? 0 : await stream.int32();
  if (first !== 0 && (version < 1 || version > NEWEST_VERSION))
    throw new ChatFileError(`its format version is ${version}; mnemo reads GPT4All's versions 0 to ${NEWEST_VERSION}`);
  const created = first === 0 ? await stream.uint32() : Number(await stream.int64());
  const id = await stream.string();
  const name = await stream.string();
  const userName = await stream.string();
  const model = await stream.string();
  if (version >= 3) await stream.stringList(); // collections
  if (version < 11) await skipModelState(stream, version);
  const count = await stream.int32();
  const items: ChatItem[] = [];
  for (let i = 0; i < count; i++) items.push(await readItem(stream, version));
  return { version, created, id, name, userName, model, items };
}

/** ChatLLM::deserialize before 11: the model's state, read past. */
async function skipModelState(stream: StreamReader, version: number): Promise<void> {
  const withKv = version >= 6 ? await stream.bool() : true;
  if (version >= 2) await stream.skip(8); // model type, state version
  await stream.string(); // response
  await stream.string(); // name response
  await stream.skip(4); // prompt + response token count
  if (!withKv) return;
  if (version < 4) await stream.skip(4); // response logits
  await stream.skip(4); // n_past
  if (version >= 7) await stream.skip(4); // n_ctx
  if (version < 9) await stream.skip(Number(await stream.uint64()) * 4); // logits
  await stream.skip(Number(await stream.uint64()) * 4); // token cache
  await stream.bytes(false); // the state
}

async function readItem(stream: StreamReader, version: number): Promise<ChatItem> {
  if (version < 12) await stream.skip(4); // id
  const name = await stream.string();
  const value = await stream.string();
  if (version < 10) await stream.string(); // prompt, unused
  await stream.string(); // newResponse
  await stream.skip(4); // isCurrentResponse, stopped, thumbsUpState, thumbsDownState
  if (version >= 11 && name === "Response: ") await stream.skip(1); // isError
  if (version >= 8) {
    const sources = await stream.size();
    for (let i = 0; i < sources; i++) {
      for (let field = 0; field < 7; field++) await stream.string(); // collection, path, file, title, author, date, text
      await stream.skip(12); // page, from, to
    }
  } else if (version >= 3) {
    await stream.string(); // references
    await stream.stringList(); // their context
  }
  if (version >= 10) {
    const attachments = await stream.size();
    for (let i = 0; i < attachments; i++) {
      await stream.bytes(false); // url
      await stream.bytes(false); // content
    }
  }
  const subItems = version >= 12 ? await readSubItems(stream, 1) : [];
  return { name, value, subItems };
}

async function readSubItems(stream: StreamReader, depth: number): Promise<ChatItem[]> {
  if (depth > MAX_DEPTH) throw new ChatFileError("its items nest deeper than GPT4All writes them");
  const count = await stream.size();
  const items: ChatItem[] = [];
  for (let i = 0; i < count; i++) {
    const name = await stream.string();
    const value = await stream.string();
    const item: ChatItem = { name, value, subItems: [] };
    if (name === "ToolCall: ") item.tool = await skipToolCallInfo(stream);
    else if (name === "Think: ")
      await stream.skip(4); // thinkingTime
    else if (!["Response: ", "ToolResponse: ", "Text: "].includes(name))
      throw new ChatFileError(`an item is of a kind GPT4All does not write (${JSON.stringify(name)})`);
    item.subItems = await readSubItems(stream, depth + 1);
    items.push(item);
  }
  return items;
}

/** ToolCallInfo::deserialize: the tool's name, its parameters (each a QVariant), result, error and its text. */
async function skipToolCallInfo(stream: StreamReader): Promise<string> {
  const tool = await stream.string();
  const params = await stream.size();
  for (let i = 0; i < params; i++) {
    await stream.string(); // name
    await stream.skip(4); // type
    await skipVariant(stream);
  }
  await stream.string(); // result
  await stream.skip(4); // error
  await stream.string(); // errorString
  return tool;
}

/** QVariant as Qt 6 streams it: quint32 type id, qint8 null flag, then the value, of the types a tool's parameter holds. */
async function skipVariant(stream: StreamReader): Promise<void> {
  const type = await stream.uint32();
  await stream.skip(1);
  const sizes: Record<number, number> = { 0: 0, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 8, 38: 4, 51: 0 };
  if (type === 10) await stream.string();
  else if (type === 12) await stream.bytes(false);
  else if (sizes[type] !== undefined) await stream.skip(sizes[type]);
  else throw new ChatFileError(`a tool call's parameter is of a type mnemo does not read (Qt type ${type})`);
}

/** Reads a QDataStream from a byte stream, skipping what is not kept without holding it. */
class StreamReader {
  private readonly chunks: AsyncIterator<Buffer>;
  private buffer: Buffer = Buffer.alloc(0);

  constructor(input: Readable) {
    this.chunks = (input as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** Joined once when enough is there: joining at each chunk copied a long text's bytes once per chunk. */
  private async fill(count: number): Promise<void> {
    const pieces = [this.buffer];
    let length = this.buffer.length;
    while (length < count) {
      const next = await this.chunks.next();
      if (next.done) throw new ChatFileError("the file stops short (cut off while being copied or saved)");
      pieces.push(next.value);
      length += next.value.length;
    }
    if (pieces.length > 1) this.buffer = Buffer.concat(pieces);
  }

  async take(count: number): Promise<Buffer> {
    await this.fill(count);
    const taken = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(count);
    return taken;
  }

  async skip(count: number): Promise<void> {
    let left = count;
    while (left > 0) {
      if (this.buffer.length === 0) await this.fill(1);
      const step = Math.min(left, this.buffer.length);
      this.buffer = this.buffer.subarray(step);
      left -= step;
    }
  }

  async uint32(): Promise<number> {
    return (await this.take(4)).readUInt32BE(0);
  }

  async int32(): Promise<number> {
    return (await this.take(4)).readInt32BE(0);
  }

  async int64(): Promise<bigint> {
    return (await this.take(8)).readBigInt64BE(0);
  }

  async uint64(): Promise<bigint> {
    return (await this.take(8)).readBigUInt64BE(0);
  }

  async bool(): Promise<boolean> {
    return (await this.take(1))[0] !== 0;
  }

  /** A qsizetype count (qint64), sane or the file is damaged. */
  async size(): Promise<number> {
    const count = await this.int64();
    if (count < 0n || count > 0xffffffffn) throw new ChatFileError("a count in it is out of range (the file is damaged)");
    return Number(count);
  }

  /** A QString: its byte length, then UTF-16BE; a null string is "". */
  async string(): Promise<string> {
    const length = await this.uint32();
    if (length === NULL_LENGTH) return "";
    if (length % 2 !== 0) throw new ChatFileError("a text in it has an odd length (the file is damaged)");
    if (length > MAX_TEXT_BYTES) throw new ChatFileError("a text in it is longer than any chat holds (the file is damaged)");
    const bytes = Buffer.from(await this.take(length));
    return bytes.swap16().toString("utf16le");
  }

  /** A QByteArray (a QUrl is streamed as one), kept or skipped. */
  async bytes(keep: boolean): Promise<Buffer | undefined> {
    const length = await this.uint32();
    if (length === NULL_LENGTH) return undefined;
    if (!keep) return void (await this.skip(length));
    return await this.take(length);
  }

  async stringList(): Promise<string[]> {
    const count = await this.uint32();
    const strings: string[] = [];
    for (let i = 0; i < count; i++) strings.push(await this.string());
    return strings;
  }
}

/**
 * The source as the JSON record its importer reads, `{ "gpt4allChat": … }`: every reader of mnemo
 * reads text, and a chat's text is small once the model's state is left out. A file that cannot be
 * read is a record saying why (`unreadable`), which costs that file alone.
 */
export async function chatFileAsJson(source: ByteSource): Promise<ByteSource> {
  const chat = await readChatFile(await source.open()).catch((error: unknown) => ({ unreadable: reasonOf(error) }));
  const text = Buffer.from(`${JSON.stringify({ [CHAT_KEY]: chat })}\n`, "utf8");
  return { ...source, size: text.length, open: async () => Readable.from([text]) };
}

/** The key of the record a chat file is read into (the importer's detector knows it by it). */
export const CHAT_KEY = "gpt4allChat";

function reasonOf(error: unknown): string {
  if (error instanceof ChatFileError) return error.message;
  return `it cannot be read (${error instanceof Error ? error.message : String(error)})`;
}
