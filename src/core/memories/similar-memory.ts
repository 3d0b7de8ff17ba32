import { parseInput } from "../../schemas/parse.js";
import { onePer } from "../../shared/one-per.js";
import { StoreMemoryRequest, type SimilarMemory, type StoreMemoryResponse } from "../../schemas/memories.js";
import { cosine } from "../retrieval/hybrid-search.js";
import { searchMemories } from "./memory-search.js";
import type { MemoryRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { storeMemoryBatched } from "./memory-batcher.js";
import { bucketNotFound, cachedBucketRows, DEFAULT_BUCKET } from "./buckets.js";
import { DATE_PREFIX, lastMemoryIndex, memoryIndex, memoryWords, sharedShare } from "./memory-index.js";
import { besideMemoryJournal, withVectors, type PendingMemory } from "./pending-memories.js";

/**
 * Two memories say nearly the same when they share at least this share of their content words
 * (the larger one's, the date prefix left out) and their vectors at least this cosine. Measured on
 * fixtures/memories (test/bench/memory-duplicates.mjs, figures in test/bench/README.md): 30
 * memories stored again in other words share ≥ 0.75 of their words and ≥ 0.847 of cosine; 30
 * other facts on the same topics share ≤ 0.43 (cosine up to 0.892: the bundled model alone
 * cannot tell "in bed by 11 pm on weeknights" from "wake up around 9 am on weekends"); no two of
 * the 30 memories share more than 0.17. Among LoCoMo's 1.8 M pairs of turns, the 42 above both
 * are greetings and thanks said twice, no fact.
 */
export const SIMILAR_WORDS = 0.75;
export const SIMILAR_COSINE = 0.84;
/** What the check reads of a memory that shares the words. */
const COLUMNS = ["id", "text", "bucketId", "createdAt"] as const;

/** The share of content words two texts have in common, of the larger one's (their date prefixes left out). */
export function sharedWords(a: string, b: string): number {
  return wordsShared(a)(b);
}

/** How much of its content words another text shares with `text`, whose words are worked out once. */
function wordsShared(text: string): (other: string) => number {
  const words = memoryWords(text);
  return (other) => {
    const theirs = memoryWords(other);
    if (words.size === 0 && theirs.size === 0) return undated(text) === undated(other) ? 1 : 0;
    return sharedShare(words, theirs);
  };
}

const undated = (text: string) => text.replace(DATE_PREFIX, "").trim();

export const nearlySame = (words: number, cosine: number): boolean => words >= SIMILAR_WORDS && cosine >= SIMILAR_COSINE;

type Similar = SimilarMemory & { memoryId: string };

/** What the check found, and the text's vector when it had to embed it (the store then keeps it). */
interface Checked {
  similar?: Similar | undefined;
  vector?: Float32Array;
}

/**
 * The user's memory that says nearly what `text` says, if one does (the most similar of those that
 * do). Words first: only a memory that shares ≥ 0.75 of the content words can be one, and the word
 * index (memory-index.ts) names those in well under a millisecond, so a text that shares them with
 * none is told apart without being embedded (most texts: the store is then acknowledged once
 * appended, test/bench/README.md); the text is embedded only for those few, and compared with the
 * vectors the index keeps (a journalled memory's, its record's). A text without content words is
 * the same only as itself, which the nearest by meaning finds.
 */
export async function findSimilarMemory(ctx: CoreContext, userId: string, text: string): Promise<Checked> {
  const words = memoryWords(text);
  if (words.size === 0) return nearestByMeaning(ctx, userId, text);
  // The memories still in the journal too: the same fact stored twice in a row is caught.
  return besideMemoryJournal(ctx, userId, async (pending) => {
    const journalled = pending.filter((row) => sharedShare(words, wordsOf(row)) >= SIMILAR_WORDS);
    // Embedding while the index is checked for changes, when it already names one that shares the
    // words, saved the check's time (≥ 0.3 ms, all of an update's) on most calls that need the vector.
    const likely = journalled.length > 0 || (lastMemoryIndex(ctx, userId)?.sharing(words, SIMILAR_WORDS).length ?? 0) > 0;
    let embedding = likely ? embed(ctx, text) : undefined;
    const index = await memoryIndex(ctx, userId);
    const inTable = index.sharing(words, SIMILAR_WORDS).filter(({ id }) => !journalled.some((row) => row.id === id));
    if (journalled.length + inTable.length === 0) {
      embedding?.catch(() => undefined);
      return {};
    }
    embedding ??= embed(ctx, text);
    const [query, journalRows] = await Promise.all([embedding, withVectors(ctx, journalled)]);
    return { similar: mostSimilar(query, [...journalRows, ...inTable], text), vector: query };
  });
}

const embed = (ctx: CoreContext, text: string): Promise<Float32Array> =>
  ctx.embedder.embedDocuments([text], { urgent: true }).then(([vector]) => vector!);

/** Of memories found with their vectors, the one that says nearly what `text` says, the most similar. */
function mostSimilar(query: Float32Array, rows: (Pick<MemoryRow, (typeof COLUMNS)[number]> & { vector?: Float32Array })[], text: string) {
  const shared = wordsShared(text);
  const [similar] = rows
    .map((row) => ({ row, similarity: row.vector ? cosine(query, row.vector) : -1 }))
    .filter(({ row, similarity }) => nearlySame(shared(row.text), similarity))
    .sort((a, b) => b.similarity - a.similarity);
  if (!similar) return undefined;
  const { id, text: existing, bucketId, createdAt } = similar.row;
  return { memoryId: id, text: existing, bucketId, createdAt, similarity: similar.similarity };
}

/** A text without content words: the nearest memories by meaning, compared as any others. */
async function nearestByMeaning(ctx: CoreContext, userId: string, text: string): Promise<Checked> {
  const query = await embed(ctx, text);
  return besideMemoryJournal(ctx, userId, async (pending) => {
    const hits = await searchMemories(ctx, {
      query: text,
      vector: query,
      filter: { userId },
      limit: NEAREST,
      candidates: NEAREST,
      mode: "vector",
      columns: COLUMNS,
      pending: await withVectors(ctx, pending),
    });
    return {
      similar: mostSimilar(
        query,
        hits.map(({ row, vector }) => ({ ...row, vector })),
        text,
      ),
      vector: query,
    };
  });
}

/** Memories compared by meaning alone: the nearest few. */
const NEAREST = 10;

/** Content words of journalled memories, worked out once each (a check compares the text with each of them). */
const journalWords = new Map<string, Set<string>>();
const JOURNAL_WORDS_LIMIT = 1_024;

function wordsOf(row: PendingMemory): Set<string> {
  let words = journalWords.get(row.id);
  if (!words) {
    if (journalWords.size >= JOURNAL_WORDS_LIMIT) journalWords.delete(journalWords.keys().next().value!);
    journalWords.set(row.id, (words = memoryWords(row.text)));
  }
  return words;
}

/**
 * POST /api/memory: stores the memory, or with `ifSimilar: "skip"` answers with the memory that
 * already says nearly the same and stores nothing (a client then updates that one instead).
 */
export async function storeMemory(ctx: CoreContext, userId: string, input: StoreMemoryRequest): Promise<StoreMemoryResponse> {
  const request = parseInput(StoreMemoryRequest, input);
  if (request.ifSimilar !== "skip") return storeMemoryBatched(ctx, userId, request);
  return inTurn(ctx, userId, async () => {
    await checkBucketExists(ctx, userId, request.bucketId);
    const { similar: found, vector } = await findSimilarMemory(ctx, userId, request.text);
    if (!found) return storeMemoryBatched(ctx, userId, request, vector);
    const { memoryId, ...similar } = found;
    return { done: "exists", memoryId, similar };
  });
}

/**
 * The bucket a "skip" store names, checked before the similar memory is looked for: a text that
 * matched one answered "already says nearly the same", and the model never heard that its bucket
 * does not exist. Bucket 1 is made with the first memory.
 */
async function checkBucketExists(ctx: CoreContext, userId: string, bucketId: number | undefined): Promise<void> {
  if (bucketId === undefined || bucketId === DEFAULT_BUCKET.id) return;
  if (!(await cachedBucketRows(ctx, userId)).some((bucket) => bucket.id === bucketId)) throw bucketNotFound(bucketId, { create: "first" });
}

/**
 * A "skip" store checks, then stores: the same fact sent several times at once (a client that
 * retries, or a model calling store_memory side by side) was checked by each call before any was
 * stored, and stored six times for six calls. A user's "skip" stores take turns in this process, so
 * each check sees the memory stored before it (in the journal at once). Other processes on the
 * store are not waited for.
 */
const turnsOf = onePer((_ctx: CoreContext) => new Map<string, Promise<void>>());

function inTurn<T>(ctx: CoreContext, userId: string, work: () => Promise<T>): Promise<T> {
  const users = turnsOf(ctx);
  const result = (users.get(userId) ?? Promise.resolve()).then(work);
  const done = result.then(
    () => undefined,
    () => undefined,
  );
  users.set(userId, done);
  void done.then(() => {
    if (users.get(userId) === done) users.delete(userId);
  });
  return result;
}
