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

/** What the near-duplicate check reads of a memory that shares the words: the vector to compare, the rest to answer with. */
export type IndexedMemory = Pick<MemoryRow, "id" | "text" | "bucketId" | "createdAt" | "vector">;
/** The columns a memory is indexed from (a version of a memory never changes them: an edit or a move makes a new one). */
const INDEXED = ["id", "version", "text", "bucketId", "createdAt", "vector"];

type Versioned = { id: string; version: number } & Partial<IndexedMemory>;

/**
 * The content words of each of a user's memories in the memories table, and which memories hold
 * each word: the near-duplicate check asks it which memories share at least a share of a text's
 * words, exactly and in well under a millisecond, where a full-text query took ~6 ms at 10k
 * memories (and ranked only its first 10). Each memory's vector and text are kept beside its words:
 * reading those of the few that share them from the table took 5–10 ms at 10k, longer than
 * embedding the text (test/bench/README.md). Brought up to date when the table changes (in any
 * process): the ids and versions are read again, and only new or edited memories (~20 ms at 10k,
 * ~60 for the first build). ~2.7 KB a memory, the vector's 2 KB of it (26 MiB more RSS at 10k).
 */
class WordIndex {
  private ids: (string | undefined)[] = [];
  private versions: number[] = [];
  private sizes: number[] = [];
  private memories: (IndexedMemory | undefined)[] = [];
  private readonly slots = new Map<string, number>();
  private readonly postings = new Map<string, number[]>();
  private removed = 0;

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

  empty(): boolean {
    return this.slots.size === 0;
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
      if (!this.slots.has(row.id) && listed.get(row.id) === row.version) this.add(row.version, row as IndexedMemory);
  }

  private add(version: number, { id, text, bucketId, createdAt, vector }: IndexedMemory): void {
    const words = memoryWords(text);
    const slot = this.ids.length;
    this.ids.push(id);
    this.versions.push(version);
    this.sizes.push(words.size);
    this.memories.push({ id, text, bucketId, createdAt, vector });
    this.slots.set(id, slot);
    for (const word of words) {
      const list = this.postings.get(word);
      if (list) list.push(slot);
      else this.postings.set(word, [slot]);
    }
  }

  private remove(id: string, slot: number): void {
    this.ids[slot] = undefined;
    this.memories[slot] = undefined;
    this.slots.delete(id);
    this.removed++;
  }

  /** Drops the slots of removed memories from every list. */
  private compact(): void {
    const renumbered = new Map<number, number>();
    for (const [, slot] of this.slots) renumbered.set(slot, renumbered.size);
    const keep = <T>(values: T[]) => [...renumbered.keys()].map((slot) => values[slot]!);
    [this.ids, this.versions, this.sizes, this.memories] = [keep(this.ids), keep(this.versions), keep(this.sizes), keep(this.memories)];
    for (const [id, slot] of this.slots) this.slots.set(id, renumbered.get(slot)!);
    for (const [word, list] of this.postings) {
      const kept = list.flatMap((slot) => (renumbered.has(slot) ? [renumbered.get(slot)!] : []));
      if (kept.length === 0) this.postings.delete(word);
      else this.postings.set(word, kept);
    }
    this.removed = 0;
  }
}

/** Per user, the index, the vector table generation it holds vectors of, and its update under way (one at a time). */
const indexes = onePer(() => new Map<string, { index: WordIndex; generation: number; updated: Promise<unknown> }>());

/**
 * The word index of a user's memories in the table, up to date with the table's version (checked
 * by store.memo: a tenth of a millisecond when nothing changed). A re-index (another embedder's
 * vectors) starts it afresh.
 */
export function memoryWordIndex(ctx: CoreContext, userId: string): Promise<WordIndex> {
  const mine = indexes(ctx);
  const { generation } = ctx.store.meta;
  return ctx.store.memo(`memory-words:${generation}:${userId}`, ["memories"], () => {
    let entry = mine.get(userId);
    if (entry?.generation !== generation) mine.set(userId, (entry = { index: new WordIndex(), generation, updated: Promise.resolve() }));
    const { index } = entry;
    const done = entry.updated
      .catch(() => undefined)
      .then(async () => {
        // The first time, every memory at once; after, the ids and versions, and the memories it lacks.
        const rows = await ctx.store.select("memories", { userId }, { columns: index.empty() ? INDEXED : ["id", "version"] });
        await index.update(rows, (ids) =>
          // Many new ones (an import): every memory, rather than a list of thousands of ids.
          ctx.store.select("memories", ids.length > 256 ? { userId } : { id: ids }, { columns: INDEXED }),
        );
        return index;
      });
    entry.updated = done;
    return done;
  });
}

/**
 * The user's word index as this process last brought it up to date, without asking the table
 * whether it changed since: a hint, for starting work that the up-to-date index then confirms.
 */
export function lastWordIndex(ctx: CoreContext, userId: string): WordIndex | undefined {
  const entry = indexes(ctx).get(userId);
  return entry?.generation === ctx.store.meta.generation ? entry.index : undefined;
}

/** Brings the word indexes this process keeps up to date, in the background (after the journal is absorbed). */
export function refreshWordIndexes(ctx: CoreContext): void {
  for (const userId of indexes(ctx).keys()) memoryWordIndex(ctx, userId).catch(() => undefined);
}

export type { WordIndex };
