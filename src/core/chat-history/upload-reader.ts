import { once } from "node:events";
import Assembler from "stream-json/assembler.js";
import parser from "stream-json/parser.js";
import { MAX_CONVERSATION_TOKENS } from "../../schemas/chat-history.js";
import { HAS_PROTO } from "../../schemas/parse.js";
import { AppError } from "../../shared/errors.js";
import { loadTokenizer, type Tokenizer } from "../../text/tokens.js";
import { decodeUtf8, Utf8StreamDecoder, withoutBom } from "../../text/utf8.js";
import { messageTokens } from "./chunking.js";

/** Bodies up to this size are parsed whole (JSON.parse is ~6× faster than parsing as the bytes arrive). */
const WHOLE_BODY_BYTES = 1024 * 1024;

/**
 * An upload's body (the spec's upload shape, JSON). A conversation over the 100,000-token limit is
 * taken, as the spec says (200, `queued`), for the index worker to reject: a large body (or one of
 * unknown length) is parsed as its bytes arrive, its messages' tokens counted on the way (as the
 * worker counts them, messageTokens), and the messages after the one that passes the limit are read
 * past, not kept: read whole, a 42 MB upload of 300,000 tiny messages took a server from 315 MB to
 * 1 GB (four at once to 2.1 GB), for a conversation the worker rejects unread. Undefined for an
 * empty body; bytes that are not UTF-8 are kept visible (text/utf8.ts).
 */
export async function readUploadBody(body: AsyncIterable<Uint8Array>, length?: number): Promise<unknown> {
  if (length !== undefined && length <= WHOLE_BODY_BYTES) return await parseWhole(body);
  const tokenizer = await loadTokenizer();
  const assembler = new Assembler();
  const count = tokenCounter(tokenizer);
  let over = false;
  /** How deep the tokens of a message read past are: 0 when none is. */
  let skipping = 0;
  let seen = false;
  const take = (token: Token) => {
    seen = true;
    if (skipping > 0) {
      skipping += OPENS.has(token.name) ? 1 : CLOSES.has(token.name) ? -1 : 0;
      return;
    }
    if (over && startsMessage(assembler, token)) {
      skipping = OPENS.has(token.name) ? 1 : 0;
      return;
    }
    if (token.name === "keyValue" && token.value === "__proto__") throw AppError.invalid(where(assembler) || "body", HAS_PROTO);
    if (token.name === "stringValue" && assembler.key === "content" && isMessage(assembler.path)) over = count(token.value as string);
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

const OPENS = new Set(["startObject", "startArray"]);
const CLOSES = new Set(["endObject", "endArray"]);

/** Whether a token starts an item of `conversation.messages`. */
function startsMessage(assembler: Assembler, token: Token): boolean {
  const { path } = assembler;
  return (
    path.length === 2 &&
    path[0] === "conversation" &&
    path[1] === "messages" &&
    Array.isArray(assembler.current) &&
    token.name !== "endArray"
  );
}

/** Adds up messages' tokens; true once they are past the limit. */
function tokenCounter(tokenizer: Tokenizer): (content: string) => boolean {
  let total = 0;
  return (content) => {
    total += messageTokens(content, tokenizer);
    return total > MAX_CONVERSATION_TOKENS;
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
