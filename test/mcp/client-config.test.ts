import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLIENTS, CLIENT_IDS, clientById, clientConfig, mcpUrl, stdioServer, type ClientConfig } from "../../src/mcp/client-config.js";
import { ROOT } from "../paths.js";

const local = stdioServer({ node: "/usr/bin/node", bin: "/opt/mnemo/bin/mnemo.js", store: "/home/a b/.mnemo" });
const TOKEN = "mnemo_secret";
const remote = {
  url: mcpUrl("http://127.0.0.1:7411"),
  token: () => TOKEN,
  bridge: stdioServer({ node: "/n", bin: "/b", remote: "http://127.0.0.1:7411" }),
};
const config = (id: string, target: "local" | "remote"): ClientConfig =>
  clientConfig(clientById(id)!, target === "local" ? { local } : { remote });

/**
 * Each snippet as the client's own kind of parser reads it: JSON, TOML (Python's tomllib) or YAML
 * (PyYAML), all of them in one Python process.
 */
function parsedAll(snippets: ClientConfig[]): unknown[] {
  const reader = [
    "import sys, json, tomllib, yaml",
    "out = []",
    "for s in json.load(sys.stdin):",
    "    out.append(json.loads(s['text']) if s['format'] == 'json' else tomllib.loads(s['text']) if s['format'] == 'toml' else yaml.safe_load(s['text']) if s['format'] == 'yaml' else s['text'])",
    "print(json.dumps(out))",
  ].join("\n");
  return JSON.parse(execFileSync("python3", ["-c", reader], { input: JSON.stringify(snippets), encoding: "utf8" })) as unknown[];
}

const everySnippet = (odd: ReturnType<typeof stdioServer>) =>
  CLIENTS.flatMap((entry) => [clientConfig(entry, { local }), clientConfig(entry, { remote }), clientConfig(entry, { local: odd })]);
const odd = stdioServer({ node: "/n", bin: "/b", store: `/home/it's: #"odd"\\ - [x]` });
let parsedSnippets: Map<string, unknown>;
beforeAll(() => {
  const snippets = everySnippet(odd);
  const values = parsedAll(snippets);
  parsedSnippets = new Map(snippets.map((snippet, i) => [snippet.text, values[i]]));
});
const parsed = (snippet: ClientConfig) => parsedSnippets.get(snippet.text);

/** Clients that read the token from a password prompt or their environment: it is never written into their snippet. */
const INDIRECT = ["claude-code", "cursor", "vscode", "windsurf", "codex", "gemini-cli", "continue", "goose"];

describe("the MCP clients", () => {
  it("starts `mnemo mcp` with absolute paths to node, the bin and the store, in each client's own format", () => {
    expect(local).toEqual({ command: "/usr/bin/node", args: ["/opt/mnemo/bin/mnemo.js", "mcp", "--store", "/home/a b/.mnemo"] });
    const expected: Record<string, unknown> = {
      "claude-desktop": { mcpServers: { mnemo: local } },
      cursor: { mcpServers: { mnemo: local } },
      vscode: { servers: { mnemo: { type: "stdio", ...local } } },
      windsurf: { mcpServers: { mnemo: local } },
      zed: { context_servers: { mnemo: { ...local, env: {} } } },
      codex: { mcp_servers: { mnemo: local } },
      "gemini-cli": { mcpServers: { mnemo: local } },
      cline: { mcpServers: { mnemo: { ...local, disabled: false } } },
      continue: { name: "mnemo", version: "0.0.1", schema: "v1", mcpServers: [{ name: "mnemo", type: "stdio", ...local, env: {} }] },
      goose: {
        extensions: {
          mnemo: {
            name: "mnemo",
            type: "stdio",
            enabled: true,
            cmd: local.command,
            args: local.args,
            envs: {},
            env_keys: [],
            timeout: 300,
          },
        },
      },
      "lm-studio": { mcpServers: { mnemo: local } },
      jetbrains: { mcpServers: { mnemo: local } },
    };
    for (const [id, value] of Object.entries(expected)) expect(parsed(config(id, "local")), id).toEqual(value);
    expect(config("claude-code", "local").text).toBe(
      `claude mcp add-json --scope user mnemo '{"type":"stdio","command":"/usr/bin/node","args":["/opt/mnemo/bin/mnemo.js","mcp","--store","/home/a b/.mnemo"]}'`,
    );
  });

  it("reaches a server with the token by a password prompt or a variable of the client's where it has one, never written in", () => {
    const bearer = (value: string) => ({ Authorization: `Bearer ${value}` });
    expect(parsed(config("vscode", "remote"))).toEqual({
      inputs: [{ type: "promptString", id: "mnemo-token", description: "mnemo API token", password: true }],
      servers: { mnemo: { type: "http", url: remote.url, headers: bearer(`\${input:mnemo-token}`) } },
    });
    expect(parsed(config("cursor", "remote"))).toEqual({
      mcpServers: { mnemo: { url: remote.url, headers: bearer(`\${env:MNEMO_TOKEN}`) } },
    });
    expect(parsed(config("windsurf", "remote"))).toEqual({
      mcpServers: { mnemo: { serverUrl: remote.url, headers: bearer(`\${env:MNEMO_TOKEN}`) } },
    });
    expect(parsed(config("codex", "remote"))).toEqual({ mcp_servers: { mnemo: { url: remote.url, bearer_token_env_var: "MNEMO_TOKEN" } } });
    expect(parsed(config("gemini-cli", "remote"))).toEqual({
      mcpServers: { mnemo: { httpUrl: remote.url, headers: bearer(`\${MNEMO_TOKEN}`) } },
    });
    expect(config("claude-code", "remote").text).toBe(
      `claude mcp add-json --scope user mnemo '{"type":"http","url":"http://127.0.0.1:7411/mcp","headers":{"Authorization":"Bearer \${MNEMO_TOKEN}"}}'`,
    );
    const bridge = { command: "/n", args: ["/b", "mcp", "--remote", "http://127.0.0.1:7411"] };
    expect(parsed(config("continue", "remote"))).toMatchObject({
      mcpServers: [{ ...bridge, type: "stdio", env: { MNEMO_TOKEN: `\${{ secrets.MNEMO_TOKEN }}` } }],
    });
    expect(parsed(config("goose", "remote"))).toMatchObject({
      extensions: { mnemo: { cmd: "/n", args: bridge.args, env_keys: ["MNEMO_TOKEN"], envs: {} } },
    });
    for (const id of INDIRECT) {
      const snippet = config(id, "remote");
      expect(snippet.text, id).not.toContain(TOKEN);
      expect(snippet.where, id).toMatch(/MNEMO_TOKEN|asks for your token/);
    }
  });

  it("writes the token in only for clients with neither, and says the file then holds it", () => {
    const bearer = { Authorization: `Bearer ${TOKEN}` };
    const bridge = { command: "/n", args: ["/b", "mcp", "--remote", "http://127.0.0.1:7411"], env: { MNEMO_TOKEN: TOKEN } };
    expect(parsed(config("claude-desktop", "remote"))).toEqual({ mcpServers: { mnemo: bridge } });
    expect(parsed(config("jetbrains", "remote"))).toEqual({ mcpServers: { mnemo: bridge } });
    expect(parsed(config("zed", "remote"))).toEqual({ context_servers: { mnemo: { url: remote.url, headers: bearer } } });
    expect(parsed(config("lm-studio", "remote"))).toEqual({ mcpServers: { mnemo: { url: remote.url, headers: bearer } } });
    expect(parsed(config("cline", "remote"))).toEqual({
      mcpServers: { mnemo: { type: "streamableHttp", url: remote.url, headers: bearer, disabled: false } },
    });
    const literal = CLIENTS.filter((entry) => !INDIRECT.includes(entry.id)).map((entry) => entry.id);
    for (const id of literal) expect(config(id, "remote").where, id).toMatch(/holds your token/);
  });

  it("quotes paths a shell, TOML or YAML would otherwise misread", () => {
    expect(clientConfig(clientById("claude-code")!, { local: odd }).text).toContain(`"--store","/home/it'\\''s: #\\"odd\\"\\\\ - [x]"`);
    for (const id of ["codex", "continue", "goose"]) {
      expect(JSON.stringify(parsed(clientConfig(clientById(id)!, { local: odd }))), id).toContain(JSON.stringify(odd.args[3]));
    }
  });

  it("says where each snippet goes and links the client's own documentation", () => {
    expect(new Set(CLIENT_IDS).size).toBe(CLIENTS.length);
    for (const entry of CLIENTS) {
      for (const target of ["local", "remote"] as const) expect(config(entry.id, target).where.length, entry.id).toBeGreaterThan(30);
      expect(entry.docs, entry.id).toMatch(/^https:\/\//);
    }
  });

  it("is the README's list of clients, one row each", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## MCP"), readme.indexOf("\n## ", readme.indexOf("\n## MCP") + 1));
    const rows = [...section.matchAll(/^\| `([\w-]+)` \| ([^|]+) \|/gm)].map(([, id, name]) => [id, name!.trim()]);
    expect(rows).toEqual(CLIENTS.map((entry) => [entry.id, `[${entry.name}](${entry.docs})`]));
  });
});
