import fs from "node:fs";
import path from "node:path";
import pRetry from "p-retry";
import { AppError } from "../shared/errors.js";
import { waitForProcessLock, type ReleaseLock } from "./process-lock.js";
import { fileSystemFault, StorageFaultError } from "./storage-faults.js";

/** A lock held beyond this machine: the writer lease of a store on object storage (store-lease.ts). */
export interface SharedLock {
  acquire(): Promise<() => Promise<void>>;
}

/**
 * Serialises this process's writes (one queue) and, across processes, takes a lock file in the
 * data dir, so a CLI command and a running `mnemo serve` never interleave a read-then-write; with
 * `shared`, writers on other machines are waited for too. LanceDB's own commit conflicts (e.g.
 * against a background optimize) are retried.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly lockPath: string,
    private readonly shared?: SharedLock,
  ) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(() => this.underFileLock(work));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async underFileLock<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      const releaseShared = await this.shared?.acquire();
      try {
        return await retryOnCommitConflict(work);
      } finally {
        await releaseShared?.();
      }
    } catch (error) {
      // LanceDB reports a full disk or a failing one as a generic IO error: say what it is, once, for every writer.
      throw storageFaultOr(error, path.dirname(this.lockPath));
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** The lock file, waited for while another process holds it (~3 minutes at most). */
  private async acquire(): Promise<ReleaseLock> {
    const dir = path.dirname(this.lockPath);
    try {
      fs.mkdirSync(dir, { recursive: true });
      return await waitForProcessLock(this.lockPath, { stale: 15_000, update: 5_000 });
    } catch (error) {
      throw lockError(error, dir);
    }
  }
}

/** Why the lock could not be taken, as the user can act on it. */
function lockError(error: unknown, dir: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOCKED") {
    return new AppError("unavailable", `The store at ${dir} stayed busy: another mnemo process held its write lock for over 3 minutes`, {
      suggestion: "Try again once that process (an import, `mnemo maintain`, a server's write) has finished.",
    });
  }
  // A folder you may not write in: said as every other write to it says it (store/storage-faults.ts).
  return storageFaultOr(error, dir);
}

/** The disk holding the store is full: what was stored before stays stored. */
export class DiskFullError extends StorageFaultError {
  constructor(dir: string, cause?: unknown) {
    super(`The disk holding ${dir} is full`, "Free some space and run the command again: what was stored before stays stored.", cause);
  }
}

/** A DiskFullError or another fault of the file system (store/storage-faults.ts) for `error`; any other error as it is. */
export function storageFaultOr(error: unknown, dir: string): unknown {
  const full = diskFullOr(error, dir);
  return full !== error ? full : (fileSystemFault(error, dir) ?? error);
}

/**
 * A DiskFullError for ENOSPC from Node or LanceDB's "No space left on device (os error 28)", about
 * the store in `dir`; any other error as it is.
 */
export function diskFullOr(error: unknown, dir: string): unknown {
  if (error instanceof AppError) return error;
  const full =
    (error as NodeJS.ErrnoException | undefined)?.code === "ENOSPC" ||
    (error instanceof Error && /No space left on device|os error 28\b/.test(error.message));
  return full ? new DiskFullError(dir, error) : error;
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
