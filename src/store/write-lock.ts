import fs from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import pRetry from "p-retry";

/**
 * Serialises this process's writes (one queue) and, across processes, takes a lock file in the
 * data dir, so a CLI command and a running `mnemo serve` never interleave a read-then-write.
 * LanceDB's own commit conflicts (e.g. against a background optimize) are retried.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly lockPath: string) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(() => this.underFileLock(work));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async underFileLock<T>(work: () => Promise<T>): Promise<T> {
    fs.mkdirSync(path.dirname(this.lockPath), { recursive: true });
    const release = await lockfile.lock(this.lockPath, {
      realpath: false,
      stale: 15_000,
      update: 5_000,
      retries: { retries: 2_000, minTimeout: 5, maxTimeout: 100, factor: 1.5 },
    });
    try {
      return await retryOnCommitConflict(work);
    } finally {
      await release().catch(() => undefined);
    }
  }
}

export function isCommitConflict(error: unknown): boolean {
  return error instanceof Error && /commit conflict|preempted by concurrent transaction/i.test(error.message);
}

export function retryOnCommitConflict<T>(work: () => Promise<T>): Promise<T> {
  return pRetry(work, {
    retries: 8,
    minTimeout: 10,
    maxTimeout: 500,
    shouldRetry: (error) => isCommitConflict(error),
  });
}
