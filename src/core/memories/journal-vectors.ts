import type { Embedder } from "../../providers/embedder.js";
import { onePer } from "../../shared/one-per.js";
import type { CoreContext } from "../context.js";

/**
 * Vectors kept at most (2 KiB each at 512 dimensions): one absorbed by another process is forgotten
 * with the oldest, and one forgotten before its absorb is embedded again.
 */
const LIMIT = 1_024;

interface Text {
  id: string;
  text: string;
}

/**
 * The vectors of memories acknowledged before their text was embedded (memory-batcher.ts): they
 * embed right after, here. A read that needs the vectors of memories still in the journal (a query,
 * the near-duplicate check) takes them from here, or embeds them itself and keeps them here; the
 * absorb takes them and forgets them. A failed embedding is forgotten, so the next read tries again.
 */
export class JournalVectors {
  private readonly vectors = new Map<string, Promise<Float32Array>>();

  constructor(private readonly embedder: Embedder) {}

  /** Starts embedding these memories' texts, in one batch. */
  private embed(memories: Text[]): Map<string, Promise<Float32Array>> {
    const batch = this.embedder.embedDocuments(memories.map((memory) => memory.text));
    const started = new Map(memories.map((memory, index) => [memory.id, batch.then((vectors) => vectors[index]!)]));
    for (const [id, vector] of started) {
      if (this.vectors.size >= LIMIT) this.vectors.delete(this.vectors.keys().next().value!);
      this.vectors.set(id, vector);
      vector.catch(() => {
        if (this.vectors.get(id) === vector) this.vectors.delete(id);
      });
    }
    return started;
  }

  /** The vectors of these memories, in their order: those made or under way, the others embedded now. */
  async of(memories: Text[]): Promise<Float32Array[]> {
    const known = new Map(memories.flatMap((memory) => (this.vectors.has(memory.id) ? [[memory.id, this.vectors.get(memory.id)!]] : [])));
    const missing = memories.filter((memory) => !known.has(memory.id));
    const started = missing.length === 0 ? new Map() : this.embed(missing);
    return Promise.all(memories.map((memory) => known.get(memory.id) ?? started.get(memory.id)!));
  }

  forget(ids: string[]): void {
    for (const id of ids) this.vectors.delete(id);
  }
}

export const journalVectors = onePer((ctx: CoreContext) => new JournalVectors(ctx.embedder));
