import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { threadId } from "node:worker_threads";
import type * as lancedb from "@lancedb/lancedb";
import { AppError } from "../shared/errors.js";
import { processRuns, threadEnded } from "../shared/processes.js";
import { sqlString } from "./sql.js";
import { isCommitConflict } from "./write-lock.js";

/** The meta row that holds the lease: its value is the holder's stamp, or "" when free. */
const LEASE_KEY = "writer";
/** A holder's stamp that has not changed for this long (it renews every third of it) is taken over. */
export const LEASE_MS = 30_000;
/** How long a writer waits for the lease before giving up: a busy store, or one whose holder hangs. */
const WAIT_MS = 3 * 60_000;

/**
 * The stamps this thread's leases hold, or may hold (a renewal whose answer an outage cut). A stamp
 * of this thread's that is not among them was left by a lease whose release failed (the object
 * store went away mid-command): nobody holds it, so it is taken at once, not after LEASE_MS. Per
 * thread, as this set is: an import's worker thread shares the process id, not the set (that a
 * thread has ended its starter records: `holderGone`).
 */
const heldHere = new Set<string>();

/**
 * The store-wide writer lease of a store on object storage, so that writers on several machines
 * take turns as the write lock makes a machine's processes do. It is one row of the meta table,
 * taken by LanceDB's conditional update (`value = <what was read>`, and the rows it changed
 * counted): of two machines updating it at once, one commit wins and the other changes 0 rows
 * (measured on the test S3 server: 2 processes × 12 compare-and-set increments = exactly 24).
 * Rows of a key inserted for the first time by two machines at once are not merged by LanceDB,
 * so a taker checks afterwards that every lease row holds its stamp, and lets go if not.
 * Expiry needs no shared clock: a stamp seen unchanged for LEASE_MS of the waiter's own time is
 * taken over, and one of this machine's (its id in the data dir) whose process has ended at once. A
 * holder frozen longer than that (a suspended laptop) can overlap the next writer's
 * commits; the index queue's claims and token rotation are conditional on what they read besides.
 */
export class StoreLease {
  /** How this thread's stamps begin: `host@machine:pid:t<thread>:` (a stamp ends with a random id). */
  private readonly here: string;

  /**
   * `onMeta`: runs a request on the meta table as the store's other requests run (its errors said
   * the same way, an unreachable object store not asked again at once). `machine`: this machine's id
   * (machineId), which tells its own stamps from those of a machine of the same host name.
   */
  constructor(
    private readonly onMeta: <T>(work: (table: lancedb.Table) => Promise<T>) => Promise<T>,
    private readonly machine: string,
    private readonly leaseMs = LEASE_MS,
  ) {
    this.here = `${os.hostname()}@${machine}:${process.pid}:t${threadId}:`;
  }

  /** Waits for the lease and takes it; the function returned lets it go. */
  async acquire(): Promise<() => Promise<void>> {
    const deadline = Date.now() + WAIT_MS;
    let seen: { state: string; since: number } | undefined;
    for (;;) {
      const values = await this.read();
      if (values.length === 0) {
        await this.onMeta((table) => table.add([{ key: LEASE_KEY, value: "" }]));
        continue;
      }
      const state = values.join("\n");
      seen = seen?.state === state ? seen : { state, since: Date.now() };
      const same = values.every((value) => value === values[0]);
      const expired = Date.now() - seen.since >= this.leaseMs || values.every((value) => this.leftHere(value) || this.holderGone(value));
      // Unchanged for a whole lease, its holder is gone; rows that disagree so long are made again.
      if (expired && !same) await this.clear();
      const taken = same && (values[0] === "" || expired) ? await this.take(values[0]!) : undefined;
      if (taken) return this.held(taken);
      if (Date.now() > deadline) throw stayedBusy(values.find((value) => value !== "") ?? "", this.machine);
      await sleep(20 + Math.random() * 80);
    }
  }

  /** Swaps `from` for a stamp of ours, kept (and returned) only if every lease row then holds it. */
  private async take(from: string): Promise<string | undefined> {
    const mine = this.stamp();
    // Counted as held before it is written: no other lease of this process may take it for a leftover.
    heldHere.add(mine);
    let taken = false;
    try {
      if (!(await this.swap(from, mine))) return undefined;
      taken = (await this.read()).every((value) => value === mine);
      if (!taken) await this.swap(mine, "");
      return taken ? mine : undefined;
    } finally {
      if (!taken) heldHere.delete(mine);
    }
  }

  private async clear(): Promise<void> {
    await this.onMeta((table) => table.delete(`key = ${sqlString(LEASE_KEY)}`));
  }

  /** Renews the lease while the work runs; the returned function releases it. */
  private held(first: string): () => Promise<void> {
    let stamp = first;
    const stamps = new Set([first]);
    let renewing = Promise.resolve();
    const timer = setInterval(() => {
      const next = this.stamp();
      stamps.add(next);
      heldHere.add(next);
      renewing = this.swap(stamp, next).then(
        (renewed) => {
          const dropped = renewed ? stamp : next;
          stamps.delete(dropped);
          heldHere.delete(dropped);
          if (renewed) stamp = next;
        },
        () => undefined, // tried again at the next tick; the work itself is not stopped
      );
    }, this.leaseMs / 3);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await renewing;
      // Not let go when the object store cannot be reached: another machine takes it over after LEASE_MS, this machine once the process has ended.
      await this.swap(stamp, "").catch(() => undefined);
      for (const held of stamps) heldHere.delete(held);
    };
  }

  /** A stamp of this thread's that no lease of it holds. */
  private leftHere(stamp: string): boolean {
    return stamp.startsWith(this.here) && !heldHere.has(stamp);
  }

  /**
   * A stamp of another process of this machine that has ended, or of another thread of this process
   * known to have ended (an import's worker thread): its release was cut (an outage, kill -9), so
   * nobody holds it, and the command run again takes it at once rather than after LEASE_MS.
   */
  private holderGone(stamp: string): boolean {
    const holder = parseStamp(stamp);
    if (holder?.machine !== this.machine) return false;
    return holder.pid === process.pid ? holder.thread !== threadId && threadEnded(holder.thread) : !processRuns(holder.pid);
  }

  private stamp(): string {
    return `${this.here}${randomUUID()}`;
  }

  private async read(): Promise<string[]> {
    const rows = await this.onMeta((table) =>
      table
        .query()
        .where(`key = ${sqlString(LEASE_KEY)}`)
        .select(["value"])
        .toArray(),
    );
    return rows.map((row: { value: string }) => row.value);
  }

  /** Sets the lease rows holding `from` to `to`; whether any did. A lost commit race changes none. */
  private async swap(from: string, to: string): Promise<boolean> {
    for (;;) {
      try {
        const result = await this.onMeta((table) =>
          table.update({
            where: `key = ${sqlString(LEASE_KEY)} AND value = ${sqlString(from)}`,
            valuesSql: { value: sqlString(to) },
          }),
        );
        return Number(result.rowsUpdated ?? 0) > 0;
      } catch (error) {
        if (!isCommitConflict(error)) throw error;
      }
    }
  }
}

/** Who a stamp is of; undefined for a stamp of another form (an older mnemo's, without the machine). */
function parseStamp(stamp: string): { host: string; machine: string; pid: number; thread: number } | undefined {
  const found = /^(.*)@([0-9a-f]+):(\d+):t(\d+):/.exec(stamp);
  return found ? { host: found[1]!, machine: found[2]!, pid: Number(found[3]), thread: Number(found[4]) } : undefined;
}

/**
 * This machine's id for the lease, kept in its data dir (`machine-id`) and made on first use: two
 * machines may share a host name, never a data dir.
 */
export function machineId(dataDir: string): string {
  const file = path.join(dataDir, "machine-id");
  if (!fs.existsSync(file)) {
    // Written whole, then linked into place: two processes starting at once agree on the first one linked.
    const draft = `${file}.${process.pid}-${randomBytes(4).toString("hex")}`;
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(draft, randomBytes(8).toString("hex"), { mode: 0o600 });
    try {
      fs.linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  const id = fs.readFileSync(file, "utf8").trim();
  if (/^[0-9a-f]+$/.test(id)) return id;
  throw new AppError("store_mismatch", `${file} holds no machine id`, {
    suggestion: "Delete that file: mnemo makes another (it only tells this machine's writers from another's).",
  });
}

function stayedBusy(stamp: string, machine: string): AppError {
  const holder = parseStamp(stamp);
  const who =
    holder?.machine === machine
      ? `process ${holder.pid} of this machine`
      : `another machine (${holder ? `${holder.host}, process ${holder.pid}` : stamp.split(":").slice(0, 2).join(":")})`;
  return new AppError("unavailable", `The store stayed busy: ${who} held its writer lease for over 3 minutes`, {
    suggestion: "Try again once that machine's import or maintenance has finished.",
  });
}
