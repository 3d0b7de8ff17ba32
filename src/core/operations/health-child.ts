import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import type { Config } from "../../config/load-config.js";
import type { Problem } from "../../store/health.js";
import { StorageFaultError } from "../../store/storage-faults.js";
import { AppError } from "../../shared/errors.js";

/**
 * The health process (store/health-process.ts) that `mnemo doctor` reads a store through. A repair
 * checks the store three times (before, after its salvage, after its repair): one process, kept
 * while the next check comes within IDLE_MS, answers them all, rather than one started for each
 * (~0.25 s of CPU apiece, most of it loading LanceDB). A salvage has a process of its own, which
 * ends with it.
 */

const HEALTH_PROCESS = fileURLToPath(new URL("../../store/health-process.js", import.meta.url));
/** How long a kept process waits for the next check before it is let go. */
const IDLE_MS = 5_000;

type Line = Record<string, unknown>;
type Answer = { done?: unknown; failed?: Problem & { fault?: boolean; suggestion?: string } };
type OnLine = (line: Line) => void;

interface Exchange {
  onLine: OnLine | undefined;
  /** The table being read: named if the process dies on it. */
  last: string;
  answer?: Answer;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A health process and the command it is answering, if any. */
class HealthProcess {
  private readonly child: ChildProcess;
  private pending = "";
  private exchange: Exchange | undefined;
  private idle: NodeJS.Timeout | undefined;
  private ended = false;

  /** `kept`: answers each command sent over its channel (`serve`), else the one its arguments name, and ends. */
  constructor(
    env: NodeJS.ProcessEnv,
    args: string[],
    private readonly kept: boolean,
  ) {
    // The channel closes when this process ends, however it ends: the child then stops (health-process.ts).
    this.child = spawn(process.execPath, [HEALTH_PROCESS, ...(kept ? ["serve"] : args)], {
      env,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    this.child.stderr!.resume();
    this.child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
    this.child.on("error", (error) => this.end(error));
    this.child.on("close", (code, signal) => this.end(undefined, code, signal));
  }

  get busy(): boolean {
    return this.exchange !== undefined;
  }

  /** Whether it can take a command: its channel closes (let go, or ended) before it is reported closed. */
  get open(): boolean {
    return !this.ended && this.child.connected;
  }

  ask<T>(args: string[], onLine?: OnLine): Promise<T> {
    clearTimeout(this.idle);
    this.hold(true);
    return new Promise<T>((resolve, reject) => {
      this.exchange = { onLine, last: "", resolve: resolve as (value: unknown) => void, reject };
      if (this.kept) this.child.send({ args });
    });
  }

  /** Lets the process go: it ends when its channel closes. */
  stop(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private read(chunk: Buffer): void {
    this.pending += chunk.toString("utf8");
    for (let end = this.pending.indexOf("\n"); end !== -1; end = this.pending.indexOf("\n")) {
      const line = JSON.parse(this.pending.slice(0, end)) as Line;
      this.pending = this.pending.slice(end + 1);
      const exchange = this.exchange;
      if (!exchange) continue;
      if (typeof line["checking"] === "string") exchange.last = line["checking"];
      exchange.onLine?.(line);
      if (!("done" in line || "failed" in line)) continue;
      exchange.answer = line as Answer;
      // A process of its own is answered once it has ended: nothing of it then still touches the store.
      if (!this.kept) continue;
      this.exchange = undefined;
      settle(exchange);
      this.hold(false);
      this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
    }
  }

  /** While it answers, the process keeps this one running; idle, it does not. */
  private hold(on: boolean): void {
    const pipes = [this.child.stdout, this.child.stderr] as (Socket | null)[]; // spawned with "pipe": sockets
    for (const handle of [this.child, ...pipes, this.child.channel])
      if (on) handle?.ref();
      else handle?.unref();
  }

  private end(error: Error | undefined, code?: number | null, signal?: NodeJS.Signals | null): void {
    this.ended = true;
    clearTimeout(this.idle);
    const exchange = this.exchange;
    this.exchange = undefined;
    if (!exchange) return;
    if (error) exchange.reject(error);
    else settle(exchange, code, signal);
  }
}

/** The command's `done` value, or the error its `failed` answer, or the process's end without one, says. */
function settle(exchange: Exchange, code?: number | null, signal?: NodeJS.Signals | null): void {
  const { answer, last } = exchange;
  if (answer?.done !== undefined) return exchange.resolve(answer.done);
  // The disk or the object store failed, not the store's files: nothing to repair, the check to run again.
  if (answer?.failed?.fault) return exchange.reject(new StorageFaultError(answer.failed.what, answer.failed.suggestion ?? ""));
  const why = answer?.failed
    ? `${answer.failed.what}${answer.failed.detail ? ` (${answer.failed.detail})` : ""}`
    : `LanceDB stopped the process (${signal ?? `exit ${code}`})${last ? ` while reading the "${last}" table, which is damaged` : ""}`;
  exchange.reject(
    new AppError("unavailable", `The store could not be checked: ${why}`, {
      suggestion: "Restore it from an export into a new store: `mnemo --store <new dir> import <export>`.",
    }),
  );
}

/** The kept process and the environment it was started with (a check of another store's settings starts another). */
let kept: { process: HealthProcess; env: string } | undefined;

/**
 * Runs a health command and returns its `done` value. `kept` (the checks): in the process kept for
 * them, when it is idle and started with the same environment; else in one of its own.
 */
export function inHealthProcess<T>(config: Config, args: string[], options: { onLine?: OnLine; kept?: boolean } = {}): Promise<T> {
  const env = {
    // Three I/O threads, as for maintenance: LanceDB's reads ahead take memory, not time, from a whole-table read.
    LANCE_IO_THREADS: "3",
    ...config.env,
    RUST_BACKTRACE: "0",
    LANCEDB_LOG: "error",
    MNEMO_STORAGE_OPTIONS: JSON.stringify(config.storage.options),
  };
  if (!options.kept) return new HealthProcess(env, args, false).ask(args, options.onLine);
  const key = JSON.stringify(env);
  if (kept && (!kept.process.open || kept.process.busy || kept.env !== key)) {
    if (!kept.process.busy) kept.process.stop();
    kept = undefined;
  }
  kept ??= { process: new HealthProcess(env, args, true), env: key };
  return kept.process.ask(args, options.onLine);
}
