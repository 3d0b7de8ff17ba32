import fs from "node:fs";
import { getEnvironmentData, setEnvironmentData } from "node:worker_threads";

/** The worker_threads environment key under which the ids of this process's ended threads are kept. */
const ENDED_THREADS = "mnemo:ended-threads";

/**
 * Records that a worker thread this thread started has ended (once its exit event came): this
 * thread and the threads it starts later know it, as environment data is copied into new threads.
 */
export function recordThreadEnded(id: number): void {
  setEnvironmentData(ENDED_THREADS, [...endedThreads(), id]);
}

/** Whether a thread of this process is known to have ended (recordThreadEnded): a thread still running, or one not recorded, is not. */
export function threadEnded(id: number): boolean {
  return endedThreads().includes(id);
}

function endedThreads(): number[] {
  return (getEnvironmentData(ENDED_THREADS) as number[] | undefined) ?? [];
}

/**
 * Whether a process with this pid runs on this machine; only "no such process" or a process that
 * has exited (a zombie) counts as gone.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  return !isZombie(pid);
}

/**
 * A process that has exited but that its parent has not reaped yet still answers `kill(pid, 0)`.
 * A lock holder killed by a parent that is busy (a script's synchronous call to the next command)
 * stays one until that call returns, so the lock it left looked held. Linux only: elsewhere the
 * check is skipped, and such a holder is waited for as before.
 */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  // "pid (command) state …": the command may hold spaces and parentheses, the state follows the last ")".
  return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}
