import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../src/mcp/tools.js";
import { BIN, isolatedEnv, ROOT, serveStore, tempDir, type ServedStore } from "../helpers.js";
import { rest } from "./mcp-helpers.js";

/**
 * The official MCP Inspector's CLI (`mcp-inspector --cli`, a devDependency) on `mnemo mcp`: a
 * client nobody here wrote. 0.15.0 is its last version that runs on Node 20 (every later one
 * declares node >= 22.7.5); its CLI has no option for an HTTP header, so it reaches a server's
 * store through `mnemo mcp --remote`, and /mcp itself is tested with the SDK's client
 * (http.int.test.ts). Each call starts the Inspector and `mnemo mcp` anew: a few seconds each, so
 * calls that do not depend on each other go side by side. Its CLI client is run as `mcp-inspector
 * --cli` runs it, without that launcher (one node process less a call, ~0.3 s of CPU).
 */
const INSPECTOR = path.join(ROOT, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "index.js");
const run = promisify(execFile);

let served: ServedStore;
const store = () => path.join(tempDir(), "store");
let local: string;

async function inspect(env: NodeJS.ProcessEnv, target: string[], ...method: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, process.execPath, BIN, ...target, ...method], { env, timeout: 120_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  served = await serveStore();
  await rest(served, served.token, "POST", "/api/memory", { text: "2025-01-02 I prefer window seats on long train rides" });
  local = store();
}, 120_000);
afterAll(() => served?.stop());

describe("the MCP Inspector's CLI", () => {
  const env = () => isolatedEnv({ MNEMO_EMBEDDER: "bundled" });

  it("lists every tool, the resources and the prompt, and sets the log level, on this machine's store", async () => {
    const method = (...args: string[]) => inspect(env(), ["mcp", "--store", local], "--method", ...args);
    const [{ tools }, { resources }, { prompts }, level] = (await Promise.all([
      method("tools/list"),
      method("resources/list"),
      method("prompts/list"),
      method("logging/setLevel", "--log-level", "debug"),
    ])) as [{ tools: { name: string }[] }, { resources: { uri: string }[] }, { prompts: { name: string }[] }, Record<string, unknown>];
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(resources.map((resource) => resource.uri)).toEqual(["mnemo://buckets", "mnemo://buckets/1"]);
    expect(prompts.map((prompt) => prompt.name)).toEqual(["memories_about"]);
    expect(level).toEqual({});
  });

  it("calls tools: a store, a near-duplicate it offers to update, and a page past the end", async () => {
    const call = (name: string, ...args: string[]) =>
      inspect(
        env(),
        ["mcp", "--store", local],
        "--method",
        "tools/call",
        "--tool-name",
        name,
        ...args.flatMap((arg) => ["--tool-arg", arg]),
      );
    const stored = await call("store_memory", "text=2025-05-01 The Inspector stored this");
    expect(stored["structuredContent"]).toMatchObject({ done: "ok", memoryId: expect.stringMatching(/^mem_/) });
    // The near-duplicate is not stored: the page past the end counts the one memory either way.
    const [again, past] = await Promise.all([
      call("store_memory", "text=2025-05-02 The Inspector stored this"),
      call("get_memories_and_buckets", "skip=5"),
    ]);
    expect(again["structuredContent"]).toMatchObject({
      done: "exists",
      memoryId: (stored["structuredContent"] as { memoryId: string }).memoryId,
    });
    expect(past).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "skip: is past the last memory: there is 1 memory\nFix: Ask with skip 0 to 0." }],
    });
  });

  it("reaches a running server's store through `mnemo mcp --remote`", async () => {
    const result = await inspect(
      { ...served.env, MNEMO_EMBEDDER: "bundled" },
      ["mcp"],
      "--method",
      "tools/call",
      "--tool-name",
      "search_memories",
      "--tool-arg",
      "query=train seats",
    );
    expect(result["structuredContent"]).toMatchObject({ memories: [{ text: "2025-01-02 I prefer window seats on long train rides" }] });
  });
});
