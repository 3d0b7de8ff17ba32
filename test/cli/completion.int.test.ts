import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { valueKind } from "../../src/cli/completion.js";
import { BIN, isolatedEnv, runCli, serveStore, tempDir, type ServedStore } from "../helpers.js";

const has = (shell: string) => spawnSync(shell, ["-c", "true"]).status === 0;

/** A PATH whose `mnemo` is the built one, as after an install: the scripts call `mnemo` by name. */
function pathWithMnemo(): string {
  const dir = tempDir("mnemo-bin-");
  fs.writeFileSync(path.join(dir, "mnemo"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  return `${dir}:${process.env["PATH"]}`;
}

function commandsOf(command: Command, prefix = ""): string[] {
  return command.commands.flatMap((sub) => [`${prefix}${sub.name()}`, ...commandsOf(sub, `${prefix}${sub.name()} `)]);
}

describe("mnemo completion", () => {
  let env: NodeJS.ProcessEnv;
  let store: string;
  let served: ServedStore;
  let scripts: string;

  beforeAll(async () => {
    store = path.join(tempDir(), "store");
    env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "other"), PATH: pathWithMnemo() });
    const storeEnv = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
    expect((await runCli(["buckets", "create", "Travel plans"], { env: storeEnv })).code).toBe(0);
    served = await serveStore({ store, spawn: true });
    scripts = tempDir();
    for (const shell of ["bash", "zsh", "fish"]) {
      const printed = await runCli(["completion", shell], { env });
      expect(printed.code, printed.stderr).toBe(0);
      fs.writeFileSync(path.join(scripts, shell), printed.stdout);
    }
  });
  afterAll(async () => served?.stop());

  const candidates = async (...words: string[]) =>
    (await runCli(["completion", "--complete", "--", ...words], { env })).stdout.split("\n").filter(Boolean);

  it("offers every command and subcommand of the program, and each command's options with the global ones", async () => {
    const program = buildProgram();
    const top = program.commands.map((command) => command.name()).filter((name) => name !== "help");
    expect(await candidates("")).toEqual(top);
    expect(await candidates("chats", "")).toEqual(program.commands.find((c) => c.name() === "chats")!.commands.map((c) => c.name()));
    const options = await candidates("memories", "--");
    expect(options).toEqual(expect.arrayContaining(["--query", "--bucket", "--count", "--store", "--json", "--local", "--help"]));
    expect(await candidates("service", "install", "--")).toEqual(expect.arrayContaining(["--port", "--watch"]));
  });

  it("offers bucket names and conversation ids from the server that runs on the store named", async () => {
    expect(await candidates("--store", store, "memories", "--bucket", "")).toEqual(["General", "Travel plans"]);
    expect(await candidates(`--store=${store}`, "memories", "move", "mem_1", "--to", "")).toEqual(["General", "Travel plans"]);
    expect(await candidates("--store", store, "buckets", "delete", "")).toEqual(["General", "Travel plans"]);
    // No server on that store: nothing, rather than a second of opening the store at each Tab.
    expect(await candidates("memories", "--bucket", "")).toEqual([]);
  });

  it("names only options and arguments that exist", () => {
    const named: string[] = [];
    const visit = (command: Command, prefix: string) => {
      for (const sub of command.commands) {
        const at = `${prefix}${sub.name()}`;
        for (const option of sub.options) if (valueKind(at, option.attributeName())) named.push(`${at} --${option.attributeName()}`);
        for (const argument of sub.registeredArguments) if (valueKind(at, argument.name())) named.push(`${at} <${argument.name()}>`);
        visit(sub, `${at} `);
      }
    };
    visit(buildProgram(), "");
    expect(named.sort()).toEqual(
      [
        "buckets delete <bucket>",
        "buckets rename <bucket>",
        "chats delete <ids>",
        "chats exclude <ids>",
        "chats include <ids>",
        "chats pin <ids>",
        "chats show <id>",
        "chats unpin <ids>",
        "memories --bucket",
        "memories delete <ids>",
        "memories edit <id>",
        "memories history <id>",
        "memories move --to",
        "memories move <ids>",
        "remember --bucket",
      ].sort(),
    );
    expect(commandsOf(buildProgram())).toContain("service install");
  });

  it.skipIf(!has("bash"))("bash completes through its script", () => {
    const run = (words: string[], index: number) =>
      spawnSync(
        "bash",
        [
          "-c",
          `source "${path.join(scripts, "bash")}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${index}; _mnemo_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { env, encoding: "utf8" },
      ).stdout;
    expect(run(["mnemo", "rec"], 1)).toBe("recall\n");
    expect(run(["mnemo", "--store", store, "memories", "--bucket", "Tra"], 5)).toBe("Travel plans\n");
  });

  it.skipIf(!has("fish"))("fish completes through its script, with descriptions", () => {
    const run = (line: string) =>
      spawnSync("fish", ["--no-config", "-c", `source "${path.join(scripts, "fish")}"; complete -C "${line}"`], { env, encoding: "utf8" })
        .stdout;
    expect(run("mnemo rec")).toMatch(/^recall\ta short cited summary/m);
    expect(run(`mnemo --store ${store} buckets rename Tr`)).toBe("Travel plans\n");
  });

  it.skipIf(!has("zsh"))("zsh completes through its script (a terminal of its own, as Tab is pressed)", () => {
    const driver = `
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PS1=""; autoload -U compinit; compinit -u; source "${path.join(scripts, "zsh")}"'
zpty -w z $'mnemo memor\\t'
zpty -r z out '*mnemo memories*'
print -r -- "$out"
zpty -d z`;
    const screen = spawnSync("zsh", ["-f", "-c", driver], { env, encoding: "utf8", timeout: 30_000 }).stdout;
    expect(screen).toMatch(/mnemo memories/);
  });
});
