import { Readable, Writable } from "node:stream";
import { type Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";

/** What a run that ends in commander (help, a usage error) prints, with the program given all commands or only the one named. */
async function printed(args: string[], whole: boolean): Promise<{ out: string; err: string; code: number }> {
  let out = "";
  let err = "";
  const sink = (add: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        add(chunk.toString());
        done();
      },
    });
  const io = {
    env: {},
    stdin: Readable.from([]),
    stdout: sink((text) => (out += text)),
    stderr: sink((text) => (err += text)),
    exitCode: 0,
  };
  let code = 0;
  try {
    await buildProgram(io, whole ? undefined : args).parseAsync(args, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode;
  }
  return { out, err, code };
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

describe("a run's program", () => {
  it("declares only the command it names, and says the same as the whole program would", async () => {
    expect(buildProgram(undefined, ["--store", "search", "recall", "x"]).commands.map((command) => command.name())).toEqual([
      "search",
      "recall",
    ]);
    expect(buildProgram(undefined, ["--json", "memories", "edit"]).commands.map((command) => command.name())).toEqual(["memories"]);
    // Help and completion list every command; a word that names none gets commander's suggestion among them all.
    for (const args of [["--help"], ["help", "search"], ["completion", "bash"], ["serach"], ["--", "search"]]) {
      expect(buildProgram(undefined, args).commands.length).toBe(buildProgram().commands.length);
    }
    for (const path of commandPaths(buildProgram())) {
      for (const args of [
        [...path, "--help"],
        [...path, "--no-such-option"],
        ["--store", "/tmp/x", ...path, "--help"],
      ]) {
        expect(await printed(args, false), args.join(" ")).toEqual(await printed(args, true));
      }
    }
  });
});

describe("help", () => {
  it("a subcommand's global options are mnemo's own, not the options its parent command lists by", async () => {
    const { out } = await printed(["memories", "move", "--help"], true);
    const [own, global] = out.split("Global Options:");
    expect(own).toMatch(/-t, --to <name\|id>/);
    expect(global).toMatch(/--store <dir\|uri>/);
    // `memories` lists by --query and --to <date>; move reads neither.
    expect(global).not.toMatch(/--query|--to <date>|--count/);
    expect((await printed(["memories", "--help"], true)).out).toMatch(/--to <date>[\s\S]*Global Options:[\s\S]*--store/);
  });
});

describe("a mistyped subcommand", () => {
  it("is named as an unknown command with the one meant, not as too many arguments of the default", async () => {
    for (const [args, meant] of [
      [["chats", "shwo", "conv_1"], "show"],
      [["memories", "mvoe", "mem_1"], "move"],
      [["buckets", "crate", "Recipes"], "create"],
      [["users", "lsit"], "list"],
    ] as const) {
      const { err } = await printed([...args], false);
      expect(err, args.join(" ")).toMatch(new RegExp(`^✖ unknown command '${args[1]}'\\n  → Did you mean ${meant}\\?`));
    }
    // Words given to a command that lists by --query: most likely a query.
    expect((await printed(["memories", "my", "dog"], false)).err).toMatch(
      /unknown command 'my'\n {2}→ To find memories by meaning: mnemo memories --query "my dog"/,
    );
    // A command that takes no arguments still says so.
    expect((await printed(["chats", "list", "extra"], false)).err).toMatch(/too many arguments for 'list'/);
    expect((await printed(["info", "extra"], false)).err).toMatch(/too many arguments for 'info'/);
  });
});

describe("help words", () => {
  it("import's own help does not send the reader to itself, and completion's words are described", async () => {
    const importHelp = (await printed(["import", "--help"], false)).out;
    expect(importHelp.split("Options:")[0]).not.toContain("mnemo import --help");
    expect((await printed(["--help"], true)).out).toContain("`mnemo import --help` lists the formats");
    expect((await printed(["completion", "--help"], true)).out).toMatch(/^ {2}words +with --complete: /m);
  });
});

describe("commander's own usage errors", () => {
  it("are said as the CLI's errors are, the problem and the fix, and exit 2", async () => {
    const missing = await printed(["search"], false);
    expect(missing.err).toBe(
      "✖ missing required argument 'query'\n  → Usage: mnemo search [options] <query...> (`mnemo search --help` says more)\n",
    );
    expect((await printed(["search", "--bogus", "x"], false)).err).toMatch(/^✖ unknown option '--bogus'\n {2}→ Usage: mnemo search /);
    expect((await printed(["info", "extra"], false)).err).toMatch(/^✖ too many arguments for 'info'.*\n {2}→ Usage: mnemo info /);
    const json = await printed(["--json", "search"], false);
    expect(JSON.parse(json.err)).toMatchObject({ error: "missing required argument 'query'", code: "invalid_input" });
    const { runProgram } = await import("../../src/cli/main.js");
    expect(
      await runProgram(["search"], { env: {}, stdin: Readable.from([]), stdout: new Writable(), stderr: sinkNowhere(), exitCode: 0 }),
    ).toBe(2);
  });
});

function sinkNowhere(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}
