import { once } from "node:events";
import Assembler from "stream-json/assembler.js";
import parser from "stream-json/parser.js";
import { MAX_CONVERSATION_TOKENS } from "../../schemas/chat-history.js";
import { AppError } from "../../shared/errors.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { decodeUtf8, Utf8StreamDecoder, withoutBom } from "../../text/utf8.js";
import { messageTokens } from "./chunking.js";

const LIMIT = MAX_CONVERSATION_TOKENS.toLocaleString("en-US");

/** Bodies up to this size are parsed whole (JSON.parse is ~6× faster than parsing as the bytes arrive). */
const WHOLE_BODY_BYTES = 1024 * 1024;

/**
 * An upload's body (the spec's upload shape, JSON), refused when its messages hold more than the
 * 100,000-token limit. A large body (or one of unknown length) is parsed as its bytes arrive, its
 * messages' tokens counted on the way, and refused as soon as they pass the limit, without reading
 * the rest: read whole, a 42 MB upload of 300,000 tiny messages took a server from 315 MB to 1 GB
 * (four at once to 2.1 GB) before the index worker rejected it anyway. Counted as the index worker
 * counts (messageTokens), so what passes here is what it would accept; a re-upload that adds to
 * what was stored can still pass the limit there. Undefined for an empty body; bytes that are not
 * UTF-8 are kept visible (text/utf8.ts).
 */
export async function readUploadBody(body: AsyncIterable<Uint8Array>, length?: number): Promise<unknown> {
  const tokenizer = await loadTokenizer();
  if (length !== undefined && length <= WHOLE_BODY_BYTES) return withinLimit(await parseWhole(body), tokenizer);
  const assembler = new Assembler();
  const count = tokenCounter(tokenizer);
  let seen = false;
  const take = (token: Token) => {
    seen = true;
    if (token.name === "keyValue" && token.value === "__proto__")
      throw AppError.invalid(where(assembler) || "body", 'has a field named "__proto__"');
    if (token.name === "stringValue" && assembler.key === "content" && isMessage(assembler.path)) count(token.value as string);
    assembler.consume(token);
  };
  const blank = { only: true };
  try {
    await parse(decoded(body, blank), take);
  } catch (error) {
    if (blank.only && !seen) return undefined;
    throw error;
  }
  if (!assembler.done) throw notJson();
  return assembler.current;
}

/** Adds up messages' tokens, and throws once they pass the limit. */
function tokenCounter(tokenizer: Tokenizer): (content: string) => void {
  let total = 0;
  let messages = 0;
  return (content) => {
    messages++;
    total += messageTokens(content, tokenizer);
    if (total > MAX_CONVERSATION_TOKENS) throw overLimit(messages);
  };
}

async function parseWhole(body: AsyncIterable<Uint8Array>): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  const text = withoutBom(decodeUtf8(Buffer.concat(chunks)));
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/**
 * The parsed upload, once its messages are known to be within the limit. A token is at least one
 * byte of UTF-8, so messages of at most 100,000 bytes in all need no count.
 */
function withinLimit(upload: unknown, tokenizer: Tokenizer): unknown {
  const messages = (upload as { conversation?: { messages?: unknown } } | undefined)?.conversation?.messages;
  if (!Array.isArray(messages)) return upload;
  const contents = messages.map((message) => (message as { content?: unknown } | null)?.content).filter((c) => typeof c === "string");
  if (contents.reduce((bytes, content) => bytes + Buffer.byteLength(content), 0) <= MAX_CONVERSATION_TOKENS) return upload;
  const count = tokenCounter(tokenizer);
  for (const content of contents) count(content);
  return upload;
}

interface Token {
  name: string;
  value?: unknown;
}

/**
 * Feeds `texts` to stream-json's parser and each token it makes to `take`, synchronously (a
 * promise per token made parsing eight times slower than JSON.parse). Fails with what `take`
 * throws, or as a body that is not JSON; stops reading `texts` when it does.
 */
async function parse(texts: AsyncIterable<string>, take: (token: Token) => void): Promise<void> {
  const tokens = parser.asStream({ packValues: true, streamValues: false });
  let failure: unknown;
  const ended = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      failure ??= error instanceof AppError ? error : notJson();
      reject(failure);
      tokens.destroy();
    };
    tokens.on("data", (token: Token) => {
      try {
        take(token);
      } catch (error) {
        fail(error);
      }
    });
    tokens.on("error", fail);
    tokens.on("end", resolve);
  });
  ended.catch(() => undefined); // seen through `failure` and the await below
  try {
    for await (const text of texts) {
      if (failure) break;
      if (!tokens.write(text)) await Promise.race([once(tokens, "drain"), ended]);
    }
    if (!failure) tokens.end();
    await ended;
  } finally {
    tokens.destroy();
  }
}

const notJson = () => AppError.invalid("body", "is not valid JSON");

/** The body as text, without a leading BOM; `blank.only` stays true while it is all white space. */
async function* decoded(body: AsyncIterable<Uint8Array>, blank: { only: boolean }): AsyncGenerator<string> {
  const decoder = new Utf8StreamDecoder();
  let first = true;
  const text = (chunk: string) => {
    const out = first ? withoutBom(chunk) : chunk;
    first = false;
    if (blank.only && out.trim() !== "") blank.only = false;
    return out;
  };
  for await (const chunk of body) {
    const decodedChunk = decoder.write(chunk);
    if (decodedChunk !== "") yield text(decodedChunk);
  }
  const rest = decoder.end();
  if (rest) yield text(rest);
}

/** Whether the assembler stands in a message of `conversation.messages`. */
function isMessage(path: (string | number | null)[]): boolean {
  return path.length === 3 && path[0] === "conversation" && path[1] === "messages";
}

function where(assembler: Assembler): string {
  return assembler.path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`))
    .join("")
    .replace(/^\./, "");
}

function overLimit(messages: number): AppError {
  return AppError.invalid(
    "conversation.messages",
    `hold more than ${LIMIT} tokens by message ${messages.toLocaleString("en-US")}: a conversation may have at most ${LIMIT}`,
    "Split it into several conversations, each with its own conversation.id and under the limit.",
  );
}
