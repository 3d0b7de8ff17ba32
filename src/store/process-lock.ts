import fs from "node:fs";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import pRetry from "p-retry";
import lockfile from "proper-lockfile";
import { processRuns } from "../shared/processes.js";

export type ReleaseLock = () => Promise<void>;

/** How long a holder's lock lives without being renewed, and how often the holder renews it (ms). */
export interface LockTiming {
  stale: number;
  update: number;
}

/** proper-lockfile's floor: a lock this old is taken over at once when its holder is known to be gone. */
const GONE_HOLDER_STALE_MS = 2_000;
const GONE_HOLDER_POLL_MS = 100;

/**
 * A lock between processes (proper-lockfile's lock directory beside `lockPath`) that also records
 * its holder's pid. A holder killed without releasing it (`kill -9`, a crash) left the lock to go
 * stale by its age alone, so the next command waited 15 s (a write) or gave up for 60 s (`maintain`)
 * in silence; now a lock whose holder on this machine no longer runs is taken over within ~2 s of
 * its last renewal. Rejects with proper-lockfile's ELOCKED while a live process holds it.
 */
export async function takeProcessLock(lockPath: string, timing: LockTiming): Promise<ReleaseLock> {
  await takeOverFromGoneHolder(lockPath);
  const release = await lockfile.lock(lockPath, { realpath: false, ...timing });
  recordHolder(lockPath);
  return release;
}

/**
 * The lock, waited for while another process holds it (~3 minutes at most); rejects with ELOCKED
 * after that. Only a held lock is waited for: proper-lockfile's own retries retried a file that
 * cannot be written just as long.
 */
export function waitForProcessLock(lockPath: string, timing: LockTiming): Promise<ReleaseLock> {
  return pRetry(() => takeProcessLock(lockPath, timing), {
    retries: 2_000,
    minTimeout: 5,
    maxTimeout: 100,
    factor: 1.5,
    shouldRetry: (error) => (error as NodeJS.ErrnoException).code === "ELOCKED",
  });
}

/** The lock, or undefined while a live process holds it; other failures (permissions, a full disk) reject. */
export async function tryProcessLock(lockPath: string, timing: LockTiming): Promise<ReleaseLock | undefined> {
  try {
    return await takeProcessLock(lockPath, timing);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") return undefined;
    throw error;
  }
}

/** The pid of the process holding the lock, when it is recorded, on this machine and running. */
export function lockHolder(lockPath: string): number | undefined {
  if (!fs.existsSync(lockDir(lockPath))) return undefined;
  const pid = localHolder(lockPath);
  return pid !== undefined && processRuns(pid) ? pid : undefined;
}

/**
 * Breaks the lock if its recorded holder is gone, through proper-lockfile's own stale path with its
 * shortest threshold: a lock renewed in the last 2 s (a new holder that has not recorded itself yet)
 * is never broken.
 */
async function takeOverFromGoneHolder(lockPath: string): Promise<void> {
  const deadline = Date.now() + GONE_HOLDER_STALE_MS + 1_000;
  while (Date.now() < deadline && fs.existsSync(lockDir(lockPath)) && holderIsGone(lockPath)) {
    const release = await lockfile.lock(lockPath, { realpath: false, stale: GONE_HOLDER_STALE_MS }).catch(() => undefined);
    if (release) return release();
    await sleep(GONE_HOLDER_POLL_MS);
  }
}

interface Holder {
  pid: number;
  host: string;
}

function recordHolder(lockPath: string): void {
  const holder: Holder = { pid: process.pid, host: os.hostname() };
  try {
    fs.writeFileSync(holderFile(lockPath), JSON.stringify(holder));
  } catch {
    // Without a record the lock still works (a dead holder is then found by the lock's age), but
    // an older one must not name a holder that is gone.
    fs.rmSync(holderFile(lockPath), { force: true });
  }
}

/** Only a holder on this machine can be checked; one that cannot be read counts as running. */
function holderIsGone(lockPath: string): boolean {
  const pid = localHolder(lockPath);
  return pid !== undefined && !processRuns(pid);
}

/** The recorded holder's pid, when the record can be read and names this machine. */
function localHolder(lockPath: string): number | undefined {
  let holder: Partial<Holder>;
  try {
    holder = JSON.parse(fs.readFileSync(holderFile(lockPath), "utf8")) as Partial<Holder>;
  } catch {
    return undefined;
  }
  return holder.host === os.hostname() && Number.isInteger(holder.pid) ? holder.pid : undefined;
}

const lockDir = (lockPath: string): string => `${lockPath}.lock`;
const holderFile = (lockPath: string): string => `${lockPath}.holder`;
