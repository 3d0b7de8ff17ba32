import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, isolatedEnv, ROOT, runCli, tempDir } from "../helpers.js";

// What only a terminal shows: the CLI runs under util-linux's `script`, which gives it a
// pseudo-terminal and passes our writes to it as typed keys.
const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

interface TerminalRun {
  code: number;
  screen: string;
}

/** Runs a shell command line on a pseudo-terminal; `keys` are typed once `prompt` has appeared. */
function onTerminal(commandLine: string, env: NodeJS.ProcessEnv, keys?: { prompt: string; type: string }): Promise<TerminalRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qefc", commandLine, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    let typed = false;
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
      if (keys && !typed && screen.includes(keys.prompt)) {
        typed = true;
        child.stdin.write(keys.type);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, screen }));
  });
}

/** The command line of a mnemo command, killed after 50 s should it hang, so no failure leaves it running. */
const mnemo = (store: string, args: string) =>
  `timeout --foreground -s KILL 50 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --store ${JSON.stringify(store)} ${args}`;

describe.skipIf(!hasScript)("on a terminal", () => {
  it("Ctrl-C at a confirmation exits 130 and changes nothing", async () => {
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv();
    const remembered = await runCli(["--store", store, "remember", "--no-date", "keep me"], { env });
    const id = remembered.stdout.trim();

    const run = await onTerminal(mnemo(store, `memories delete ${id}`), env, { prompt: "Delete this memory?", type: "\u0003" });
    expect(run.code).toBe(130);
    expect(run.screen).toMatch(/Nothing was changed/);
    const listed = await runCli(["--store", store, "--json", "memories"], { env });
    expect(JSON.parse(listed.stdout).memories.map((m: { id: string }) => m.id)).toEqual([id]);
  });

  it("a terminal that reports no width gets no spinner (ora then erased lines without end)", async () => {
    const store = path.join(tempDir(), "store");
    const env = isolatedEnv();
    delete env["NO_COLOR"]; // the spinner's own condition: colour is allowed
    const file = path.join(ROOT, "fixtures", "exports", "chatgpt", "conversations.json");

    const run = await onTerminal(`stty cols 0 rows 0; ${mnemo(store, `import ${JSON.stringify(file)}`)}`, env);
    expect(run.code).toBe(0);
    expect(run.screen).toMatch(/Imported 4 new conversations/);
    expect(run.screen).not.toContain("\u001b[1A"); // a spinner's redraw moves the cursor up

    // In colour, search marks the words of the query in each hit (piped, it runs no highlighter).
    const search = await onTerminal(mnemo(store, "search tram -n 1"), env);
    expect(search.code).toBe(0);
    expect(search.screen).toMatch(/\u001b\[1m\u001b\[33m[Tt]ram\u001b\[39m\u001b\[22m/);
  });
});
