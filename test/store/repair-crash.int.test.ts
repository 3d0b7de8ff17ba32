import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { titledChats } from "../generated-chats.js";
import { BIN, isolatedEnv, openTestApp, runCli, settled, tempDir } from "../helpers.js";

/**
 * `mnemo doctor --repair` killed with kill -9 (the OOM killer, a power cut of that process alone)
 * while it salvages a damaged table, then run again: the second run ends where one uninterrupted
 * repair ends, and nothing of the first keeps working on the store behind it. Seconds: each repair
 * checks the store in a process of its own and salvages in another.
 */

let pristine: string;

beforeAll(async () => {
  pristine = path.join(tempDir(), "store");
  const app = await openTestApp({ store: pristine });
  const me = await app.service();
  await me.memories.store({ text: "The tram 28 goes up to Graça" });
  await me.conversations.uploadMany(titledChats(["Lisbon", "Snakes", "Bread", "Tiles", "Fado"]));
  await app.indexer.start();
  await settled(me);
  await app.close();
});

/** A copy of the pristine store whose conversations table has a data file cut short. */
function damagedCopy(): { env: NodeJS.ProcessEnv; db: string } {
  const store = path.join(tempDir(), "store");
  fs.cpSync(pristine, store, { recursive: true });
  const data = path.join(store, "db", "conversations.lance", "data");
  for (const file of fs.readdirSync(data)) fs.truncateSync(path.join(data, file), 100);
  return { env: isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" }), db: path.join(store, "db") };
}

/** Every file under `dir` with its size and modification time: what changes when anything writes there. */
function filesOf(dir: string): string {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .sort()
    .map((file) => {
      const stat = fs.statSync(path.join(dir, file), { throwIfNoEntry: false });
      return `${file} ${stat?.size} ${stat?.mtimeMs}`;
    })
    .join("\n");
}

/** What the store holds as a user sees it. */
async function contents(env: NodeJS.ProcessEnv): Promise<string> {
  const chats = await runCli(["--json", "chats", "list"], { env });
  const memories = await runCli(["--json", "memories"], { env });
  expect(chats.code, chats.stderr).toBe(0);
  expect(memories.code, memories.stderr).toBe(0);
  const titles = (JSON.parse(chats.stdout) as { items: { title: string }[] }).items.map((c) => c.title).sort();
  return JSON.stringify({
    titles,
    memories: (JSON.parse(memories.stdout) as { memories: { text: string }[] }).memories.map((m) => m.text),
  });
}

/** The pid of a process whose command line holds every one of `words`, once one runs. */
async function processNaming(words: string[], until: () => boolean): Promise<number | undefined> {
  while (!until()) {
    for (const pid of fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
      let line = "";
      try {
        line = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        continue; // ended meanwhile
      }
      if (words.every((word) => line.includes(word))) return Number(pid);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return undefined;
}

const runs = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));

describe.runIf(process.platform === "linux")("a repair killed mid-salvage", () => {
  it("stops its salvage process with it, and run again ends as one uninterrupted repair", async () => {
    const reference = damagedCopy();
    const whole = await runCli(["--yes", "doctor", "--repair"], { env: reference.env });
    expect(whole.code, whole.stderr).toBe(0);

    const cut = damagedCopy();
    const doctor = spawn(process.execPath, [BIN, "--yes", "doctor", "--repair"], { env: cut.env, stdio: "ignore" });
    // The salvage process is caught as it starts (Node takes tens of ms to load it) and held while
    // the doctor is killed, so that what it does next is what a salvage whose doctor died does.
    const salvage = await processNaming(["health-process", "salvage", cut.db], () => doctor.exitCode !== null);
    expect(salvage, "the repair started a salvage").toBeDefined();
    process.kill(salvage!, "SIGSTOP");
    const atTheKill = filesOf(cut.db);
    doctor.kill("SIGKILL");
    await new Promise((resolve) => doctor.once("close", resolve));
    process.kill(salvage!, "SIGCONT");
    const started = Date.now();
    while (runs(salvage!) && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs(salvage!), "the salvage process ended").toBe(false);
    // Left working, it would race the repair run next on the same table.
    expect(filesOf(cut.db), "nothing wrote to the store once the doctor was killed").toBe(atTheKill);

    const again = await runCli(["--yes", "doctor", "--repair"], { env: cut.env });
    expect(again.code, again.stderr).toBe(0);
    expect(await contents(cut.env)).toBe(await contents(reference.env));
    const check = await runCli(["doctor"], { env: cut.env });
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 180_000);
});
