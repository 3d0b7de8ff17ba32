import type { ChunkRow, ConversationRow, Sender, StoredMessage } from "../../store/rows.js";
import { breakLongRuns, type Tokenizer } from "../../text/tokens.js";

/** A chunk before it has a vector and an owner. */
export type ChunkDraft = Pick<
  ChunkRow,
  "chunkIndex" | "text" | "sender" | "messageIds" | "messageOffsets" | "messageTimes" | "messageSenders" | "timestamp" | "tokenCount"
>;

export interface ChunkingOptions {
  /** Most tokens in one chunk: the store's chunk size (its meta's `chunkTokens`). */
  maxTokens: number;
}

/** The store's chunk size beside the setting's, and what to do when they differ (`mnemo info`, `mnemo doctor`). */
export function chunkSizes(tokens: number, setting: number): { tokens: number; setting: number; note?: string } {
  if (tokens === setting) return { tokens, setting };
  const note =
    `The chat history is cut into chunks of up to ${tokens} tokens, but config.json's chunkTokens is ${setting}: ` +
    `\`mnemo reindex --rechunk\` cuts it again (until then new conversations are cut at ${tokens} too)`;
  return { tokens, setting, note };
}

interface Piece {
  message: StoredMessage;
  text: string;
  tokens: number;
}

const SEPARATOR = "\n";

/**
 * Message-aware chunks: consecutive messages share a chunk while they fit in `maxTokens`; a
 * message never straddles two chunks unless it alone is too long, in which case it is split at
 * sentence (then word) boundaries. Every chunk knows which messages it holds and where each starts.
 */
export function chunkConversation(messages: StoredMessage[], tokenizer: Tokenizer, options: ChunkingOptions): ChunkDraft[] {
  const pieces = messages.flatMap((message) => splitMessage(message, tokenizer, options.maxTokens));
  const chunks: ChunkDraft[] = [];
  let current: Piece[] = [];
  let tokens = 0;
  for (const piece of pieces) {
    if (current.length > 0 && tokens + piece.tokens > options.maxTokens) {
      chunks.push(toChunk(chunks.length, current, tokens));
      current = [];
      tokens = 0;
    }
    current.push(piece);
    tokens += piece.tokens;
  }
  if (current.length > 0) chunks.push(toChunk(chunks.length, current, tokens));
  return chunks;
}

function toChunk(chunkIndex: number, pieces: Piece[], tokenCount: number): ChunkDraft {
  const messageIds: string[] = [];
  const messageOffsets: number[] = [];
  const messageTimes: string[] = [];
  const messageSenders: Sender[] = [];
  let text = "";
  for (const piece of pieces) {
    if (text) text += SEPARATOR;
    if (messageIds[messageIds.length - 1] !== piece.message.id) {
      messageIds.push(piece.message.id);
      messageOffsets.push(text.length);
      messageTimes.push(piece.message.timestamp ?? "");
      messageSenders.push(piece.message.sender);
    }
    text += piece.text;
  }
  const first = pieces[0]!.message;
  return {
    chunkIndex,
    text,
    sender: first.sender,
    messageIds,
    messageOffsets,
    messageTimes,
    messageSenders,
    timestamp: pieces.find((piece) => piece.message.timestamp)?.message.timestamp ?? null,
    tokenCount,
  };
}

/** A chunk's id: its conversation's, the revision chunked, and its place. */
export function chunkId(conversation: Pick<ConversationRow, "id" | "revision">, chunkIndex: number): string {
  return `${conversation.id}:${conversation.revision}:${chunkIndex}`;
}

/** A chunk as the chunks table holds it. `active` is false while its conversation is excluded. */
export function chunkRow(
  conversation: Pick<ConversationRow, "id" | "userId" | "platform" | "revision">,
  active: boolean,
  draft: ChunkDraft,
  vector: Float32Array,
): ChunkRow {
  return {
    id: chunkId(conversation, draft.chunkIndex),
    userId: conversation.userId,
    conversationId: conversation.id,
    platform: conversation.platform,
    ...draft,
    active,
    vector,
  };
}

/** One message of a chunk, as the chunk holds it. */
export interface ChunkMessage {
  id: string;
  text: string;
  sender: Sender;
  /** The message's own time, else the chunk's first; null when no message has one. */
  timestamp: string | null;
}

type ChunkMessages = Pick<ChunkRow, "text" | "sender" | "timestamp" | "messageIds" | "messageOffsets" | "messageTimes" | "messageSenders">;

/** The messages a chunk holds, in order (a long message's piece counts as that message). */
export function messagesOf(chunk: ChunkMessages): ChunkMessage[] {
  return chunk.messageIds.map((id, i) => ({
    id,
    text: chunk.text.slice(chunk.messageOffsets[i], chunk.messageOffsets[i + 1]).trim(),
    sender: chunk.messageSenders[i] ?? chunk.sender,
    timestamp: chunk.messageTimes[i] || chunk.timestamp,
  }));
}

/** A message's text as chunks hold it: trimmed, and a blob without spaces, which would otherwise be one "word" longer than any chunk, cut. */
function chunkText(text: string): string {
  return breakLongRuns(text.trim());
}

/** The tokens a message takes in its chunks: its conversation's tokenCount is their sum. */
export function messageTokens(text: string, tokenizer: Tokenizer): number {
  return tokenizer.count(chunkText(text));
}

function splitMessage(message: StoredMessage, tokenizer: Tokenizer, maxTokens: number): Piece[] {
  const text = chunkText(message.text);
  if (text === "") return [];
  const tokens = message.tokens ?? tokenizer.count(text);
  if (tokens <= maxTokens) return [{ message, text, tokens }];
  const pieces = packed(units(text, tokenizer, maxTokens), tokenizer, maxTokens);
  return [...pieces].map((piece) => ({ message, text: piece, tokens: tokenizer.count(piece) }));
}

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });

/** Sentences, with any sentence over the limit broken into runs of words that fit. */
function* units(text: string, tokenizer: Tokenizer, maxTokens: number): Generator<string> {
  for (const { segment } of sentences.segment(text)) {
    const sentence = segment.trim();
    if (!sentence) continue;
    if (tokenizer.within(sentence, maxTokens)) yield sentence;
    else yield* packed(sentence.split(/\s+/), tokenizer, maxTokens);
  }
}

/**
 * `parts` joined with spaces into runs of at most `maxTokens`, each part counted once (re-counting
 * the growing run made long messages quadratic). A space ends every pre-token of the BPE, so a
 * run's count is its first part's plus each later part's count with its leading space.
 */
function* packed(parts: Iterable<string>, tokenizer: Tokenizer, maxTokens: number): Generator<string> {
  let run = "";
  let tokens = 0;
  for (const part of parts) {
    const added = run ? tokenizer.count(` ${part}`) : tokenizer.count(part);
    if (run && tokens + added > maxTokens) {
      yield run;
      run = part;
      tokens = tokenizer.count(part);
    } else {
      run = run ? `${run} ${part}` : part;
      tokens += added;
    }
  }
  if (run) yield run;
}
