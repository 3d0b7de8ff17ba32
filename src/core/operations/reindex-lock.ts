import { setTimeout as sleep } from "node:timers/promises";
import { lockHolder, tryProcessLock, type ReleaseLock } from "../../store/process-lock.js";
import { AppError } from "../../shared/errors.js";

/**
 * The lock `mnemo reindex` holds for its whole run. Others take it for a moment to know that no
 * reindex runs while they do something a reindex must not meet: a server while it registers itself
 * (a reindex takes the lock, then looks for a server), maintenance while it drops old generations.
 */
const TIMING = { stale: 60_000, update: 10_000 };

/** The lock, or undefined while a reindex holds it. */
export function lockOutReindex(lockPath: string): Promise<ReleaseLock | undefined> {
  return tryProcessLock(lockPath, TIMING);
}

/**
 * Maintenance holds the lock for the moment it drops old generations, so a reindex or a server
 * waits this long before it takes a holder for a reindex.
 */
const MOMENT_MS = 3_000;
const POLL_MS = 100;

/** The lock, waiting out a moment's holder; undefined while a reindex holds it. */
async function lockOutLongHolder(lockPath: string): Promise<ReleaseLock | undefined> {
  const deadline = Date.now() + MOMENT_MS;
  for (;;) {
    const release = await lockOutReindex(lockPath);
    if (release || Date.now() >= deadline) return release;
    await sleep(POLL_MS);
  }
}

/** The lock, for a reindex: refused while another one runs. */
export async function takeReindexLock(lockPath: string): Promise<ReleaseLock> {
  const release = await lockOutLongHolder(lockPath);
  if (release) return release;
  throw new AppError("conflict", `Another \`mnemo reindex\`${pidNote(lockPath)} is re-embedding this store`, {
    suggestion: "Wait for it to finish.",
  });
}

/** The lock, for a server that is starting: refused while a reindex runs. */
export async function lockOutReindexToServe(lockPath: string): Promise<ReleaseLock> {
  const release = await lockOutLongHolder(lockPath);
  if (release) return release;
  throw new AppError(
    "conflict",
    `\`mnemo reindex\`${pidNote(lockPath)} is re-embedding this store, and a server would lose its vectors when it switches`,
    {
      suggestion: "Wait for the reindex to finish, then start the server.",
    },
  );
}

function pidNote(lockPath: string): string {
  const pid = lockHolder(lockPath);
  return pid === undefined ? "" : ` (pid ${pid})`;
}
