import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { takeProcessLock } from "../../src/store/process-lock.js";
import { tempDir } from "../helpers.js";

const PROCESS_LOCK = new URL("../../dist/store/process-lock.js", import.meta.url).href;
// Timings under which the lock could only be taken by age after a minute, never in a test.
const SLOW_TO_GO_STALE = { stale: 60_000, update: 10_000 };

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function holderScript(lockPath: string): string {
  return `const { takeProcessLock } = await import(${JSON.stringify(PROCESS_LOCK)});
await takeProcessLock(${JSON.stringify(lockPath)}, ${JSON.stringify(SLOW_TO_GO_STALE)});
console.log("locked");
setInterval(() => {}, 1000);`;
}

/** A process that takes the lock, says so, and then holds it until it is killed. */
async function holder(lockPath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", holderScript(lockPath)], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  expect(line.toString().trim()).toBe("locked");
  return child;
}

/**
 * A holder killed by a parent that then blocks for 20 s without reaping it, as a script does that
 * kills a command and runs the next one synchronously. Resolves with the holder's pid.
 */
async function zombieHolder(lockPath: string): Promise<number> {
  const script = `const { spawn } = await import("node:child_process");
const child = spawn(process.execPath, ["--input-type=module", "-e", ${JSON.stringify(holderScript(lockPath))}], { stdio: ["ignore", "pipe", "inherit"] });
child.stdout.once("data", () => {
  child.kill("SIGKILL");
  console.log(child.pid);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000);
});`;
  const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(parent);
  const [line] = (await once(parent.stdout!, "data")) as [Buffer];
  const pid = Number(line.toString().trim());
  // SIGKILL is delivered asynchronously: wait until the holder has exited.
  while (!/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))) await sleep(20);
  return pid;
}

/** Makes the lock look last renewed 3 s ago: past the 2 s floor, far from the 60 s threshold. */
function renewedSecondsAgo(lockPath: string, seconds: number): void {
  const then = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(`${lockPath}.lock`, then, then);
}

describe("the lock between processes", () => {
  it("is taken over at once from a holder that was killed without releasing it", async () => {
    const lockPath = path.join(tempDir(), "write.lock");
    const child = await holder(lockPath);
    child.kill("SIGKILL");
    await once(child, "exit");
    renewedSecondsAgo(lockPath, 3);

    const release = await takeProcessLock(lockPath, SLOW_TO_GO_STALE);
    expect(fs.existsSync(`${lockPath}.lock`)).toBe(true);
    await release();
    expect(fs.existsSync(`${lockPath}.lock`)).toBe(false);
  });

  it("is taken over from a killed holder that its parent has not reaped yet (a zombie)", async () => {
    const lockPath = path.join(tempDir(), "write.lock");
    const zombie = await zombieHolder(lockPath);
    expect(fs.readFileSync(`/proc/${zombie}/stat`, "utf8")).toMatch(/\) Z /);
    renewedSecondsAgo(lockPath, 3);

    await (await takeProcessLock(lockPath, SLOW_TO_GO_STALE))();
  });

  it("is refused while its holder runs, however long since it renewed it", async () => {
    const lockPath = path.join(tempDir(), "write.lock");
    await holder(lockPath);
    renewedSecondsAgo(lockPath, 3);

    await expect(takeProcessLock(lockPath, SLOW_TO_GO_STALE)).rejects.toMatchObject({ code: "ELOCKED" });
  });

  it("is refused when its holder cannot be told, until it goes stale by its age", async () => {
    const lockPath = path.join(tempDir(), "write.lock");
    const child = await holder(lockPath);
    fs.writeFileSync(`${lockPath}.holder`, JSON.stringify({ pid: child.pid, host: "another-machine" }));
    child.kill("SIGKILL");
    await once(child, "exit");
    renewedSecondsAgo(lockPath, 3);

    await expect(takeProcessLock(lockPath, SLOW_TO_GO_STALE)).rejects.toMatchObject({ code: "ELOCKED" });
    renewedSecondsAgo(lockPath, 61);
    await (await takeProcessLock(lockPath, SLOW_TO_GO_STALE))();
  });
});
