import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cliTarget, runCli, type CliResult } from "../helpers.js";

/** The built CLI run by /bin/sh, so that an argument can hold bytes that are not UTF-8 (`printf '\351'`). */
function runShell(script: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", script], { env: { ...env, MNEMO: `${process.execPath} ${BIN}` } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe.each(["embedded", "remote"] as const)("mnemo CLI: hostile input (%s)", (mode) => {
  let env: NodeJS.ProcessEnv;
  let stop: () => Promise<void>;
  const mnemo = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    ({ env, stop } = await cliTarget(mode));
    const first = await mnemo(["remember", "tram 28 climbs to Alfama"]);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => stop());

  it("searches with a query in double quotes as plain words (the HTTP suite sends every syntax character)", async () => {
    for (const query of ['"tram 28"', '""', '" OR ""="']) {
      const memories = await mnemo(["--json", "memories", "--query", query]);
      expect(memories.code, `${query}: ${memories.stderr}`).toBe(0);
      if (query === '"tram 28"') expect(JSON.parse(memories.stdout).memories[0].text).toContain("tram 28");
    }
    for (const command of ["search", "recall"]) {
      const result = await mnemo(["--json", command, '"tram 28"']);
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
  });

  it("refuses a --source with a line break or a direction override under the flag's name, and stores nothing", async () => {
    for (const source of ["plugin\nforged", "plugin\u202Enigulp"]) {
      const refused = await mnemo(["remember", "--source", source, "stored with a bad source"]);
      expect([refused.code, refused.stderr], JSON.stringify(source)).toEqual([2, expect.stringMatching(/--source: must not hold /)]);
    }
    expect((await mnemo(["--json", "memories", "--query", "stored with a bad source"])).stdout).not.toContain("bad source");
  });

  it("refuses an argument or stdin that is not UTF-8, saying which and how to fix it, and stores nothing", async () => {
    const argument = await runShell(`$MNEMO remember "$(printf 'caf\\351 au lait')"`, env);
    expect(argument.code).toBe(2);
    expect(argument.stderr).toContain('argument 2 ("caf\\xE9 au lait"): is not valid UTF-8 text');
    expect(argument.stderr).toContain("iconv");
    const stdin = await runShell(`printf 'caf\\351' | $MNEMO remember -`, env);
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain("stdin: is not valid UTF-8 text");
    const listed = JSON.parse((await mnemo(["--json", "memories", "--all"])).stdout);
    expect(listed.memories.map((m: { text: string }) => m.text).join()).not.toMatch(/caf/);
  });

  it("refuses stdin over 64 MB before holding it all, naming the limit, and stores nothing", async () => {
    const before = (await mnemo(["--json", "memories", "--all"])).stdout;
    for (const args of [
      ["remember", "-"],
      ["remember", "--lines", "-"],
    ]) {
      const huge = await mnemo(args, "a\n".repeat(32 * 1024 * 1024 + 1));
      expect(huge.code, args.join(" ")).toBe(2);
      expect(huge.stderr).toContain("stdin: is over 64 MB, more than mnemo reads");
    }
    expect((await mnemo(["--json", "memories", "--all"])).stdout).toBe(before);
  });

  if (mode === "remote") {
    it("takes a token with a line end around it (a token file saved on Windows), and names a token that holds a space or control character", async () => {
      const token = env["MNEMO_TOKEN"]!;
      for (const given of [`${token}\r`, ` ${token}\r\n`]) {
        const listed = await runCli(["buckets"], { env: { ...env, MNEMO_TOKEN: given } });
        expect(listed.code, listed.stderr).toBe(0);
      }
      for (const [flags, tokenEnv, source] of [
        [[], `${token.slice(0, 10)}\r${token.slice(10)}`, "MNEMO_TOKEN"],
        [["--token", `${token} x`], token, "--token"],
      ] as const) {
        const refused = await runCli([...flags, "buckets"], { env: { ...env, MNEMO_TOKEN: tokenEnv } });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`${source}: holds a character no token has`);
        expect(refused.stderr).toContain("Copy the token again");
      }
    });
  }
});
