import { contentWords } from "../../text/content-words.js";
import { onePer } from "../../shared/one-per.js";
import type { MemoryRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";

/** The date a memory starts with (the spec asks callers to prefix one): the same fact told again has another. */
export const DATE_PREFIX = /^\s*\d{4}-\d{2}-\d{2}\b[\s:,-]*/;

/** A text's content words, its date prefix left out: what two memories are compared by. */
export function memoryWords(text: string): Set<string> {
  return new Set(contentWords(text.replace(DATE_PREFIX, "")));
}

/** The share of words two sets have in common, of the larger one's. */
export function sharedShare(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const larger = Math.max(a.size, b.size);
  if (larger === 0) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / larger;
}

/** A memory row's columns but its vector. */
export const MEMORY_COLUMNS = [
  "id",
  "userId",
  "bucketId",
  "text",
  "contentType",
  "imageFile",
  "imageDescription",
  "source",
  "version",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof MemoryRow)[];

/** A memory as the index keeps it: the whole row (a version of a memory never changes: an edit or a move makes a new one). */
export type IndexedMemory = MemoryRow;
const INDEXED = [...MEMORY_COLUMNS, "vector"] as const;

type Versioned = { id: string; version: number } & Partial<IndexedMemory>;

/** BM25's usual settings (LanceDB's full-text index has the same). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * The content words of each of a user's memories in the memories table, and which memories hold
 * each word: the near-duplicate check asks it which memories share at least a share of a text's
 * words, exactly and in well under a millisecond, where a full-text query took ~6 ms at 10k
 * memories (and ranked only its first 10); memory search takes its text leg and its rows from it
 * (memory-search.ts). Each memory's row is kept beside its words: reading those of the few that
 * share them from the table took 5–10 ms at 10k, longer than embedding the text
 * (test/bench/README.md). Brought up to date when the table changes (in any process): the ids and
 * versions are read again, and only new or edited memories (~20 ms at 10k, ~60 for the first
 * build). ~2.8 KB a memory: at 10k, once collected, 19.5 MiB of vectors and 8.6 of V8's heap.
 */
class MemoryIndex {
  private ids: (string | undefined)[] = [];
  private versions: number[] = [];
  private sizes: number[] = [];
  /**
   * Each memory's vector apart, and its length, for cosines: the scan reads nothing else. One
   * Float32Array of every vector side by side, tried twice, was no better: at 10k memories its scan
   * took 3.3 ms against 3.0, a search's CPU no less, RSS no less (V8's heap 1.8 MiB less).
   */
  private vectors: (Float32Array | undefined)[] = [];
  private norms: number[] = [];
  private memories: (IndexedMemory | undefined)[] = [];
  private readonly slots = new Map<string, number>();
  private readonly postings = new Map<string, number[]>();
  /** Words of memories' date prefixes that their text does not hold besides: found by search, not compared. */
  private readonly prefixPostings = new Map<string, number[]>();
  private removed = 0;
  private totalSize = 0;
  /** Changes whenever a memory comes in or goes: a search that saw two values saw two versions of the table. */
  stamp = 0;

  get(id: string): IndexedMemory | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.memories[slot];
  }

  /**
   * The memories `accept` takes that hold any of these words (stems, as contentWords makes them)
   * or, for words of unspaced scripts, contain them: the best `limit` by BM25 (each word counted
   * once, a memory's length its number of content words), with their scores.
   */
  ranked(stems: readonly string[], substrings: readonly string[], accept: (memory: IndexedMemory) => boolean, limit: number) {
    const live = this.slots.size;
    const averageSize = this.totalSize / Math.max(1, live) || 1;
    const scores = new Map<number, number>();
    const add = (slots: readonly number[]) => {
      let holding = 0;
      for (const slot of slots) if (this.memories[slot] !== undefined) holding++;
      const idf = Math.log(1 + (live - holding + 0.5) / (holding + 0.5));
      for (const slot of slots) {
        if (this.memories[slot] === undefined) continue;
        const norm = 1 - BM25_B + (BM25_B * this.sizes[slot]!) / averageSize;
        scores.set(slot, (scores.get(slot) ?? 0) + (idf * (BM25_K1 + 1)) / (1 + BM25_K1 * norm));
      }
    };
    for (const stem of new Set(stems)) {
      const [body, prefix] = [this.postings.get(stem) ?? [], this.prefixPostings.get(stem)];
      add(prefix ? [...new Set([...body, ...prefix])] : body);
    }
    for (const word of new Set(substrings)) add(this.memories.flatMap((memory, slot) => (memory?.text.includes(word) ? [slot] : [])));
    const best = new Best(limit);
    for (const [slot, score] of scores) if (best.admits(score) && accept(this.memories[slot]!)) best.add(slot, score);
    return best.kept().map(({ slot, score }) => ({ memory: this.memories[slot]!, score }));
  }

  /** The memories that share at least `least` of their words with `words` (of the larger set's). */
  sharing(words: ReadonlySet<string>, least: number): IndexedMemory[] {
    const counts = new Map<number, number>();
    for (const word of words) for (const slot of this.postings.get(word) ?? []) counts.set(slot, (counts.get(slot) ?? 0) + 1);
    const found: IndexedMemory[] = [];
    for (const [slot, shared] of counts) {
      const memory = this.memories[slot];
      if (memory !== undefined && shared / Math.max(words.size, this.sizes[slot]!) >= least) found.push(memory);
    }
    return found;
  }

  /**
   * The `limit` memories `accept` takes that are nearest to `vector` (cosine), nearest first: every
   * memory compared, ~0.3 ms per 1,000 of 512 dimensions (LanceDB's scan: 1.2).
   */
  nearest(vector: Float32Array, accept: (memory: IndexedMemory) => boolean, limit: number) {
    const length = Math.sqrt(dot(vector, vector)) || 1;
    const best = new Best(limit);
    for (let slot = 0; slot < this.vectors.length; slot++) {
      const other = this.vectors[slot];
      if (other === undefined) continue;
      const similarity = dot(vector, other) / (length * this.norms[slot]! || 1);
      if (best.admits(similarity) && accept(this.memories[slot]!)) best.add(slot, similarity);
    }
    return best.kept().map(({ slot, score }) => ({ memory: this.memories[slot]!, similarity: score }));
  }

  /** How many memories it holds. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Brings it up to `rows` (every memory of the user, with its version, and the indexed columns
   * when read): the memories it lacks are read with `read`.
   */
  async update(rows: Versioned[], read: (ids: string[]) => Promise<Versioned[]>): Promise<void> {
    const listed = new Map(rows.map((row) => [row.id, row.version]));
    for (const [id, slot] of this.slots) if (listed.get(id) !== this.versions[slot]) this.remove(id, slot);
    if (this.removed > this.slots.size) this.compact();
    const missing = rows.filter((row) => !this.slots.has(row.id));
    const unread = missing.filter((row) => row.text === undefined).map((row) => row.id);
    const fresh = unread.length === 0 ? [] : await read(unread);
    for (const row of [...missing.filter((row) => row.text !== undefined), ...fresh])
      if (!this.slots.has(row.id) && listed.get(row.id) === row.version) this.add(row as IndexedMemory);
  }

  private add(memory: IndexedMemory): void {
    const words = memoryWords(memory.text);
    const slot = this.ids.length;
    this.ids.push(memory.id);
    this.versions.push(memory.version);
    this.sizes.push(words.size);
    this.vectors.push(memory.vector);
    this.norms.push(Math.sqrt(dot(memory.vector, memory.vector)));
    this.totalSize += words.size;
    this.memories.push(memory);
    this.slots.set(memory.id, slot);
    this.stamp++;
    for (const word of words) post(this.postings, word, slot);
    for (const word of contentWords(memory.text)) if (!words.has(word)) post(this.prefixPostings, word, slot);
  }

  private remove(id: string, slot: number): void {
    this.ids[slot] = undefined;
    this.memories[slot] = undefined;
    this.vectors[slot] = undefined;
    this.totalSize -= this.sizes[slot]!;
    this.slots.delete(id);
    this.removed++;
    this.stamp++;
  }

  /** Drops the slots of removed memories from every list. */
  private compact(): void {
    const renumbered = new Map<number, number>();
    for (const [, slot] of this.slots) renumbered.set(slot, renumbered.size);
    const keep = <T>(values: T[]) => [...renumbered.keys()].map((slot) => values[slot]!);
    [this.ids, this.versions, this.sizes, this.norms, this.vectors, this.memories] = [
      keep(this.ids),
      keep(this.versions),
      keep(this.sizes),
      keep(this.norms),
      keep(this.vectors),
      keep(this.memories),
    ];
    for (const [id, slot] of this.slots) this.slots.set(id, renumbered.get(slot)!);
    for (const postings of [this.postings, this.prefixPostings])
      for (const [word, list] of postings) {
        const kept = list.flatMap((slot) => (renumbered.has(slot) ? [renumbered.get(slot)!] : []));
        if (kept.length === 0) postings.delete(word);
        else postings.set(word, kept);
      }
    this.removed = 0;
  }
}

/** Four sums side by side: one waited on each addition before the next (1.9 against 0.8 ms for 3,900 memories). */
function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < a.length; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < a.length; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/** The `limit` best-scored slots offered: one that cannot enter is turned away by one comparison. */
class Best {
  /** Least first. */
  private readonly entries: { slot: number; score: number }[] = [];

  constructor(private readonly limit: number) {}

  admits(score: number): boolean {
    return this.entries.length < this.limit || score > this.entries[0]!.score;
  }

  add(slot: number, score: number): void {
    const at = this.entries.findIndex((entry) => entry.score >= score); // ties: the first offered first
    this.entries.splice(at === -1 ? this.entries.length : at, 0, { slot, score });
    if (this.entries.length > this.limit) this.entries.shift();
  }

  /** Best first. */
  kept(): { slot: number; score: number }[] {
    return [...this.entries].reverse();
  }
}

function post(postings: Map<string, number[]>, word: string, slot: number): void {
  const list = postings.get(word);
  if (list) list.push(slot);
  else postings.set(word, [slot]);
}

/** Per user, the index, the vector table generation it holds vectors of, and its update under way (one at a time); least recently used first. */
type Indexes = Map<string, { index: MemoryIndex; generation: number; updated: Promise<unknown> }>;
const indexes = onePer((): Indexes => new Map());

/**
 * The users whose indexes a process keeps (a household's server keeps all): past them the least
 * recently used index goes, and is built again at that user's next search (~60 ms at 10k memories).
 */
const KEPT_USERS = 16;

const memoName = (generation: number, userId: string) => `memory-index:${generation}:${userId}`;

/**
 * The memory index of a user's memories in the table, up to date with the table's version (checked
 * by store.memo: a tenth of a millisecond when nothing changed). A re-index (another embedder's
 * vectors) starts it afresh.
 */
export function memoryIndex(ctx: CoreContext, userId: string): Promise<MemoryIndex> {
  const mine = indexes(ctx);
  const { generation } = ctx.store.meta;
  const used = mine.get(userId);
  if (used) {
    mine.delete(userId); // the most recently used last
    mine.set(userId, used);
  }
  return ctx.store.memo(memoName(generation, userId), ["memories"], () => {
    let entry = mine.get(userId);
    if (entry?.generation !== generation) {
      mine.set(userId, (entry = { index: new MemoryIndex(), generation, updated: Promise.resolve() }));
      keepRecent(ctx, mine);
    }
    const { index } = entry;
    const done = entry.updated
      .catch(() => undefined)
      .then(async () => {
        // The first time, every memory at once; after, the ids and versions, and the memories it lacks.
        const rows = await ctx.store.select("memories", { userId }, { columns: index.size === 0 ? [...INDEXED] : ["id", "version"] });
        await index.update(rows, (ids) =>
          // Many new ones (an import): every memory, rather than a list of thousands of ids.
          ctx.store.select("memories", ids.length > 256 ? { userId } : { id: ids }, { columns: [...INDEXED] }),
        );
        return index;
      });
    entry.updated = done;
    return done;
  });
}

/** Lets the least recently used indexes go (their memoised answers too, which hold them) past KEPT_USERS. */
function keepRecent(ctx: CoreContext, mine: Indexes): void {
  for (const [userId, { generation }] of mine) {
    if (mine.size <= KEPT_USERS) return;
    mine.delete(userId);
    ctx.store.forgetMemo(memoName(generation, userId));
  }
}

/**
 * The user's memory index as this process last brought it up to date, without asking the table
 * whether it changed since: a hint, for starting work that the up-to-date index then confirms.
 */
export function lastMemoryIndex(ctx: CoreContext, userId: string): MemoryIndex | undefined {
  const entry = indexes(ctx).get(userId);
  return entry?.generation === ctx.store.meta.generation ? entry.index : undefined;
}

/** Brings the memory indexes this process keeps up to date, in the background (after the journal is absorbed). */
export function refreshMemoryIndexes(ctx: CoreContext): void {
  // A copy: each brought up to date moves to the end of the map, where a live iteration would meet it again.
  for (const userId of [...indexes(ctx).keys()]) memoryIndex(ctx, userId).catch(() => undefined);
}

export type { MemoryIndex };
