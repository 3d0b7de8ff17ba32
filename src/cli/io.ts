import type { Readable, Writable } from "node:stream";
import type { Command } from "commander";
import type { Embedder } from "../core/index.js";

/** A stream the CLI writes to, and whether a terminal (of what width) is on the other end. */
export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean };

/**
 * What one run of the CLI reads and writes: the process's own, or (in tests) an environment and
 * streams of its own, so that the program runs in process. Code under cli/ reads these, never
 * `process.env` or the process's stdio, and sets `exitCode` rather than the process's.
 */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: InStream;
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** The code the run ends with, as `process.exitCode`: a command that partly failed sets it and carries on. */
  exitCode: number;
  /**
   * An embedder already loaded, for the stores this run opens when they use that one (AppOptions.embedder):
   * tests running many commands in one process load the bundled model once. A user's run has none.
   */
  readonly embedder?: Embedder;
  /**
   * Settles when a command that runs until stopped (serve, ui, watch) should stop, as SIGINT and
   * SIGTERM do: tests serve a store in their own process and stop it with this.
   */
  readonly stopped?: Promise<void>;
}

export function processIo(): CliIo {
  return {
    env: process.env,
    // Made when first read: setting up the process's stdin is ~1 ms that most commands never need.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    exitCode: 0,
  };
}

const bound = new WeakMap<Command, CliIo>();

/** Ties the io to the program (buildProgram does); its commands find it with `ioOf`. */
export function bindIo(program: Command, io: CliIo): void {
  bound.set(program, io);
}

/** The io of the program a command belongs to. */
export function ioOf(command: Command): CliIo {
  for (let at: Command | null = command; at; at = at.parent) {
    const io = bound.get(at);
    if (io) return io;
  }
  throw new Error(`${command.name()} is not part of a program made by buildProgram`);
}
