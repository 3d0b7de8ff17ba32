import { execFileSync } from "node:child_process";
import path from "node:path";
import { ROOT } from "./paths.js";
import { tempDir } from "./temp-dirs.js";

/**
 * A file system that fails on cue, for fault tests: test/fault-fs.c, compiled once per test file
 * with the system's C compiler and preloaded into a mnemo process (LD_PRELOAD). LanceDB's Rust I/O
 * writes through libc's write() and commits a version by link(); its renames are raw system calls
 * that no preload sees, so a commit is failed at its link.
 */
export interface Fault {
  /** A part of the paths whose calls fail (`/db/chunks.lance/`). */
  path: string;
  ops?: ("write" | "link" | "rename" | "fsync")[];
  /** Matching calls that succeed first. */
  after?: number;
  errno?: "EIO" | "ENOSPC" | "EROFS";
  /** Calls fail only while this file exists. */
  arm?: string;
}

let shim: string | undefined;

function faultShim(): string {
  if (shim) return shim;
  const out = path.join(tempDir("fault-fs-"), "fault-fs.so");
  execFileSync("cc", ["-shared", "-fPIC", "-O2", "-o", out, path.join(ROOT, "test", "fault-fs.c"), "-ldl"]);
  shim = out;
  return out;
}

/** `env` for a process whose store's file system fails as `fault` says. */
export function withFault(env: NodeJS.ProcessEnv, fault: Fault): NodeJS.ProcessEnv {
  return {
    ...env,
    LD_PRELOAD: faultShim(),
    FAULT_FS_PATH: fault.path,
    FAULT_FS_OPS: (fault.ops ?? ["write", "link"]).join(","),
    FAULT_FS_AFTER: String(fault.after ?? 0),
    FAULT_FS_ERRNO: fault.errno ?? "EIO",
    ...(fault.arm ? { FAULT_FS_ARM: fault.arm } : {}),
  };
}
