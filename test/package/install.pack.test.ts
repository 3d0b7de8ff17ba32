import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, tempDir } from "../helpers.js";

/**
 * The package as a user gets it: `npm pack` of the built project, installed with `npm install -g`
 * into a prefix of its own from the registry alone, then run from that prefix's bin. Slow (the
 * install fetches or copies ~300 packages, about 1 GB): the `package` project of the suite.
 */
const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");

function npm(args: string[], cwd: string): string {
  const result = spawnSync("npm", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" },
  });
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

/** Runs the installed mnemo to its end. */
function mnemo(bin: string, args: string[], env: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(bin, args, { env, encoding: "utf8", timeout: 300_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A long-running mnemo (serve, ui): resolves with its child once it has printed a line that matches. */
function startMnemo(bin: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve({ child, output });
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    child.on("exit", (code) => reject(new Error(`mnemo ${args.join(" ")} exited with ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

describe("the npm package", () => {
  let bin: string;
  let env: NodeJS.ProcessEnv;
  let tarball: string;

  beforeAll(() => {
    const packed = tempDir("mnemo-pack-");
    // The suite has built dist/ already; packing again must not rebuild it under the other tests' feet.
    const name = npm(["pack", "--ignore-scripts", "--pack-destination", packed], ROOT).trim().split("\n").at(-1)!;
    tarball = path.join(packed, name);
    const prefix = tempDir("mnemo-prefix-");
    // As the README says: dependencies' install scripts are not needed (onnxruntime-node's only
    // downloads CUDA libraries, from outside the registry).
    npm(["install", "--global", "--prefix", prefix, "--ignore-scripts", tarball], tempDir());
    bin = path.join(prefix, "bin", "mnemo");
    env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
  });

  it("holds the program and nothing of the repository's tests or fixtures", () => {
    const listing = spawnSync("tar", ["tzf", tarball], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    expect(listing).toEqual(
      expect.arrayContaining(["package/bin/mnemo.js", "package/dist/cli/main.js", "package/dist/web/assets/app.js", "package/README.md"]),
    );
    expect(listing.filter((file) => !/^package\/(bin|dist)\//.test(file)).sort()).toEqual(["package/README.md", "package/package.json"]);
  });

  it("mnemo --help, import and recall work from the installed bin", () => {
    const help = mnemo(bin, ["--help"], env);
    expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/^Usage: mnemo /)]);
    const imported = mnemo(bin, ["--json", "import", EXPORT], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ new: 4, failed: 0 });
    const recalled = mnemo(bin, ["recall", "what did we plan for Lisbon?"], env);
    expect([recalled.code, recalled.stdout]).toEqual([0, expect.stringMatching(/Lisbon long weekend in May/)]);
  });

  it("mnemo serve answers over HTTP, and the CLI through it", async () => {
    const { child, output } = await startMnemo(bin, ["--json", "serve", "--port", "0"], env, /"url": "http:\/\/127\.0\.0\.1:\d+"/);
    try {
      const url = /"url": "(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)![1]!;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const searched = mnemo(bin, ["--json", "search", "tram 28"], env);
      expect(JSON.parse(searched.stdout).results[0].title).toBe("Lisbon long weekend in May");
    } finally {
      await stop(child);
    }
  });

  it("mnemo mcp serves the MCP SDK's own client over stdio", async () => {
    const client = new Client({ name: "package-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: bin, args: ["mcp"], env: env as Record<string, string> }));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain("recall_chat_history");
      const answer = await client.callTool({ name: "search_chat_history", arguments: { query: "tram 28" } });
      expect(JSON.stringify(answer.content)).toMatch(/Lisbon long weekend in May/);
    } finally {
      await client.close();
    }
  });

  it("mnemo ui serves the web app and prints its sign-in link", async () => {
    const { child, output } = await startMnemo(bin, ["ui", "--no-open", "--port", "0"], env, /http:\/\/127\.0\.0\.1:\d+\/auth\?code=\S+/);
    try {
      const link = /(http:\/\/127\.0\.0\.1:\d+\/auth\?code=\S+)/.exec(output)![1]!;
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    } finally {
      await stop(child);
    }
  });

  afterAll(() => {
    if (tarball) fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
  });
});
