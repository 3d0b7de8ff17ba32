import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  compactionDue,
  compactTable,
  needsMaintenance,
  optimizeStore,
  tablesNeedingMaintenance,
  VECTOR_SEGMENT_LIMIT,
} from "../../store/maintenance.js";
import type { TableKey } from "../../store/schema.js";
import { objectStoreError } from "../../store/object-store-errors.js";
import { lockHolder, tryProcessLock } from "../../store/process-lock.js";
import type { Store } from "../../store/store.js";
import { diskFullOr, storageFaultOr } from "../../store/write-lock.js";
import { indexPending } from "../chat-history/index-worker.js";
import { lockOutReindex } from "./reindex-lock.js";
import { giveBackFreeMemory, giveBackWhenIdle, LEAN_ALLOCATOR } from "../../shared/lean-allocator.js";

const GIVE_BACK_EVERY_MS = 60_000;
/** Tables a server keeps compact itself: the journal's, which take one small commit per absorb. */
const COMPACTED_HERE: TableKey[] = ["memories", "memoryHistory"];
/** After the last compaction here, one more run once the versions it left behind are old enough to drop. */
const CLEANUP_AFTER_MS = 65_000;
/**
 * How much LanceDB's caches may grow across compactions here before the store moves to fresh ones:
 * each run gives the tables a new text index, and the cache keeps the old ones, which no query reads
 * again, until its 512 MB bound. Single writes to 2k memories with a search every 20 grew it by 35 MB.
 */
const CACHE_GROWTH_BYTES = 32 * 1024 * 1024;

/**
 * Keeps the store compact without ever making a request wait for it. The work runs in a process of
 * its own, `mnemo maintain --if-needed`, which gives all its memory back when it exits: a server
 * that rebuilt a 290k-chunk vector index itself peaked at 1.69 GB and kept 600 MB of it.
 * - `background` (a long-running server): looks as it starts and after each burst of writes, and
 *   starts that process when a table is due (one at a time; it looks again after, if there were
 *   writes meanwhile).
 * - `detached` (a one-shot CLI command): on close, if this process wrote and the store needs it,
 *   starts that process and exits at once.
 * The process outlives its parent; a lock file in the data dir keeps two runs from overlapping.
 * In the background mode it also hands the memory that writes leave free back to the system (once a
 * minute while they go on, and whenever the process goes quiet after work), and
 * compacts the memory tables itself as their small commits pile up (compactSoon): a search slows
 * down with every fragment, and starting a process for a run of ~0.1 s would cost more than the run.
 */
export class Maintenance {
  private writes = 0;
  private looking: Promise<unknown> | undefined;
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  private compactAgain = false;
  private cleanupTimer: NodeJS.Timeout | undefined;
  /** LanceDB's cache size after the first compaction here since the caches were last renewed. */
  private cacheBase: number | undefined;
  private readonly stopTrimming: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly lockPath: string,
    private readonly reindexLockPath: string,
    private readonly mode: "background" | "detached" | "off",
    private readonly storeLocation: string,
    /** The environment of the maintenance process it starts (the config's). */
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    if (mode === "background") this.stopTrimming = giveBackWhenIdle();
  }

  afterWrite(): void {
    this.writes++;
    this.lookSoon();
    this.compactSoon();
    this.giveBackMemorySoon();
  }

  /**
   * In the background mode, right after a write: compacts the memory tables in this process once
   * they are due (compactionDue), one run at a time, unless a `mnemo maintain` holds the lock; and
   * a while after the last run, once more, to drop the versions it kept for readers.
   */
  private compactSoon(): void {
    if (this.mode !== "background" || this.closed) return;
    if (this.compacting) {
      this.compactAgain = true;
      return;
    }
    this.compacting = this.compactDue()
      .catch(() => undefined) // a store that cannot be compacted now is looked at after the next write
      .finally(() => {
        this.compacting = undefined;
        if (this.compactAgain) {
          this.compactAgain = false;
          this.compactSoon();
        }
      });
  }

  private async compactDue(force = false): Promise<void> {
    const due: TableKey[] = [];
    for (const key of COMPACTED_HERE) if (force || (await compactionDue(this.store, key))) due.push(key);
    if (due.length === 0) return;
    const release = await tryProcessLock(this.lockPath, { stale: 60_000, update: 10_000 });
    if (!release) return; // a `mnemo maintain` is on it
    try {
      for (const key of due) await compactTable(this.store, key);
    } finally {
      await release().catch(() => undefined);
    }
    this.dropStaleCaches();
    if (force) return;
    if (this.cleanupTimer) clearTimeout(this.cleanupTimer);
    this.cleanupTimer = setTimeout(() => {
      this.cleanupTimer = undefined;
      if (!this.closed && !this.compacting)
        this.compacting = this.compactDue(true)
          .catch(() => undefined)
          .finally(() => (this.compacting = undefined));
    }, CLEANUP_AFTER_MS);
    this.cleanupTimer.unref();
  }

  /** A fresh connection once the caches have grown by CACHE_GROWTH_BYTES over compactions here. */
  private dropStaleCaches(): void {
    const bytes = this.store.cacheBytes();
    if (this.cacheBase === undefined || bytes < this.cacheBase) this.cacheBase = bytes;
    else if (bytes - this.cacheBase > CACHE_GROWTH_BYTES) {
      this.cacheBase = undefined;
      void this.store.renewCaches().catch(() => undefined);
    }
  }

  /** While writes go on, once a minute: glibc keeps what LanceDB frees (see giveBackFreeMemory). */
  private giveBackMemorySoon(): void {
    if (this.mode !== "background" || this.closed || this.trimTimer) return;
    this.trimTimer = setTimeout(() => {
      this.trimTimer = undefined;
      void giveBackFreeMemory();
    }, GIVE_BACK_EVERY_MS);
    this.trimTimer.unref();
  }

  /**
   * In the background mode, looks once in a moment: after a burst of writes (let it finish first),
   * or as a server starts on a store that a stopped run left due.
   */
  lookSoon(): void {
    if (this.mode !== "background" || this.closed || this.timer || this.looking || this.child) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A store that cannot be read now is looked at again after the next burst of writes.
      this.looking = this.startIfNeeded()
        .catch(() => undefined)
        .finally(() => (this.looking = undefined));
    }, 2_000);
    this.timer.unref();
  }

  private async startIfNeeded(): Promise<void> {
    if (!(await this.hasWork(await tablesNeedingMaintenance(this.store, await this.segmentLimit())))) return;
    this.writes = 0;
    const child = startMaintenanceProcess(this.storeLocation, this.env);
    this.child = child;
    child.unref(); // a server that stops does not wait for it
    child.once("exit", () => {
      this.child = undefined;
      // The cache holds the indexes' old versions now: start afresh. Writes meanwhile may have made
      // a table due again; none means a big job (an import) is over, and once the old caches are
      // released their memory goes back to the system.
      const released = this.store.renewCaches().catch(() => undefined);
      if (this.writes > 0) this.lookSoon();
      else void released.then(giveBackFreeMemory);
    });
  }

  /**
   * Optimizes the tables that need it, if no other process is already doing so. Only those: while
   * uploads arrive, the queue's tables need compacting every few seconds, and optimizing the chunks
   * table with them re-merged its text index each time.
   */
  async runIfNeeded(): Promise<boolean> {
    const limit = await this.segmentLimit();
    const due = await tablesNeedingMaintenance(this.store, limit);
    if (!(await this.hasWork(due))) return false;
    return this.run(due, limit);
  }

  /** Tables due, or what an interrupted reindex left to drop. */
  private async hasWork(due: TableKey[]): Promise<boolean> {
    return due.length > 0 || (await this.store.staleGenerations()).length > 0;
  }

  /** Optimizes the given tables (all of them by default) in this process. */
  async run(keys?: TableKey[], segmentLimit?: number): Promise<boolean> {
    fs.mkdirSync(path.dirname(this.lockPath), { recursive: true });
    const release = await tryProcessLock(this.lockPath, { stale: 60_000, update: 10_000 }).catch((error: unknown) => {
      throw diskFullOr(error, path.dirname(this.lockPath));
    });
    if (!release) return false; // another process is on it
    try {
      this.writes = 0;
      const limit = segmentLimit ?? (await this.segmentLimit());
      await this.dropStaleGenerations()
        .then(() => optimizeStore(this.store, keys, limit))
        .catch((error: unknown) => {
          throw objectStoreError(error, this.storeLocation) ?? storageFaultOr(error, path.dirname(this.lockPath));
        });
      return true;
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Drops what an interrupted reindex left, once no reindex runs: under the reindex lock, so none
   * starts meanwhile, and the live generation is read afresh under it.
   */
  private async dropStaleGenerations(): Promise<void> {
    const release = await lockOutReindex(this.reindexLockPath);
    if (!release) return; // a reindex runs: the generation it builds is not stale
    try {
      await this.store.dropStaleGenerations();
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** The pid of the process maintaining the store now, when it runs on this machine. */
  runningElsewhere(): number | undefined {
    return lockHolder(this.lockPath);
  }

  /** A vector index is rebuilt sooner when no indexing is under way to add segments again. */
  private async segmentLimit(): Promise<number> {
    return (await indexPending(this.store)) ? VECTOR_SEGMENT_LIMIT.busy : VECTOR_SEGMENT_LIMIT.idle;
  }

  /** Stops looking; a maintenance process already started carries on by itself. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.trimTimer) clearTimeout(this.trimTimer);
    if (this.cleanupTimer) clearTimeout(this.cleanupTimer);
    this.stopTrimming?.();
    await Promise.all([this.looking, this.compacting]);
    if (this.mode === "detached" && this.writes > 0 && (await needsMaintenance(this.store).catch(() => false))) {
      startMaintenanceProcess(this.storeLocation, this.env).unref();
    }
  }
}

/**
 * LanceDB's I/O threads for a process that runs maintenance: 3 instead of its 8 for a local disk.
 * Each holds read buffers, and building the vector index over a whole 600 MB import's chunks
 * peaked at 561 MB with 8, at 482–501 with 4 and 457–463 with 3, in the same time. With 1 the
 * build hangs, so we stay above it. A value the user has set is kept.
 */
const MAINTENANCE_IO_THREADS = "3";

/** Call before the process's first LanceDB read: LanceDB takes the setting from the environment. */
export function useFewerIoThreads(): void {
  process.env.LANCE_IO_THREADS ??= MAINTENANCE_IO_THREADS;
}

/**
 * Starts `mnemo maintain --if-needed` in a process group of its own, so a Ctrl-C meant for its
 * parent does not cut it short. glibc reads its allocator settings when a process starts, and this
 * one is ours to start.
 */
function startMaintenanceProcess(storeLocation: string, env: NodeJS.ProcessEnv): ChildProcess {
  const bin = fileURLToPath(new URL("../../../bin/mnemo.js", import.meta.url));
  const child = spawn(process.execPath, [bin, "maintain", "--if-needed", "--quiet", "--store", storeLocation], {
    detached: true,
    stdio: "ignore",
    env: { GLIBC_TUNABLES: LEAN_ALLOCATOR, ...env },
  });
  child.on("error", () => undefined);
  return child;
}
