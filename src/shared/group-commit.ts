/** One item's outcome in a batch: its result, or why it failed (the others go on). */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Group commit: an item that arrives while nothing is being handled is handled at once; items
 * that arrive while a batch is under way wait for it and are then handled together, up to
 * `maxBatch` at a time and in groups of the same key (a user: a write holds one user's rows). So
 * one client pays no wait, and many at once share one commit instead of queueing for one each.
 */
export class GroupCommit<I, R> {
  private waiting: Waiting<I, R>[] = [];
  private draining = 0;

  /**
   * `inFlight` batches may be handled at once: two let one batch be prepared (embedded) while the
   * one before it is written, when the write itself is serialised (the store's write lock).
   */
  constructor(
    private readonly handle: (key: string, items: I[]) => Promise<Outcome<R>[]>,
    private readonly keyOf: (item: I) => string,
    private readonly maxBatch: number,
    private readonly inFlight = 1,
  ) {}

  add(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.draining < this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining++;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      for (const [key, group] of this.byKey(batch)) {
        try {
          const outcomes = await this.handle(
            key,
            group.map((entry) => entry.item),
          );
          group.forEach((entry, i) => {
            const outcome = outcomes[i]!;
            if (outcome.ok) entry.resolve(outcome.value);
            else entry.reject(outcome.error);
          });
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    }
    this.draining--;
  }

  private byKey(batch: Waiting<I, R>[]): Map<string, Waiting<I, R>[]> {
    const groups = new Map<string, Waiting<I, R>[]>();
    for (const entry of batch) {
      const key = this.keyOf(entry.item);
      const group = groups.get(key);
      if (group) group.push(entry);
      else groups.set(key, [entry]);
    }
    return groups;
  }
}
