import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, isolatedEnv, runCli, tempDir } from "../../helpers.js";

describe("mnemo mcp --print-config", () => {
  const home = tempDir();
  const env = isolatedEnv({ HOME: home });

  it("gives each client absolute paths to node, the bin and the store", async () => {
    const store = path.join(tempDir(), "my store");
    const local = { command: process.execPath, args: [fs.realpathSync(BIN), "mcp", "--store", store] };
    const desktop = await runCli(["mcp", "--store", store, "--print-config", "claude-desktop"], { env });
    expect(desktop.code, desktop.stderr).toBe(0);
    expect(JSON.parse(desktop.stdout)).toEqual({ mcpServers: { mnemo: local } });
    expect(desktop.stderr).toMatch(/claude_desktop_config\.json/);
    expect(JSON.parse((await runCli(["mcp", "--store", store, "--print-config", "cursor"], { env })).stdout)).toEqual({
      mcpServers: { mnemo: local },
    });
    expect(JSON.parse((await runCli(["mcp", "--store", store, "--print-config", "vscode"], { env })).stdout)).toEqual({
      servers: { mnemo: { type: "stdio", ...local } },
    });
    const code = await runCli(["mcp", "--store", store, "--print-config", "claude-code"], { env });
    expect(code.stdout.trim()).toBe(`claude mcp add-json --scope user mnemo '${JSON.stringify({ type: "stdio", ...local })}'`);
    // Without --store: the default data dir, by its absolute path all the same.
    const defaults = JSON.parse((await runCli(["--json", "mcp", "--print-config", "cursor"], { env })).stdout);
    expect(JSON.parse(defaults.text).mcpServers.mnemo.args).toEqual([fs.realpathSync(BIN), "mcp", "--store", path.join(home, ".mnemo")]);
    // A relative --store is made absolute: the client starts mnemo in a folder of its own.
    const relative = await runCli(["mcp", "--store", "rel/store", "--print-config", "cursor"], { env });
    expect(JSON.parse(relative.stdout).mcpServers.mnemo.args[3]).toBe(path.resolve("rel/store"));
  });

  it("points at a server's /mcp, the token in a variable or a prompt where the client has one; a bridge for a client of local servers", async () => {
    const remote = isolatedEnv({ MNEMO_URL: "http://127.0.0.1:7411", MNEMO_TOKEN: "mnemo_t0ken" });
    const cursor = await runCli(["mcp", "--print-config", "cursor"], { env: remote });
    expect(JSON.parse(cursor.stdout)).toEqual({
      mcpServers: { mnemo: { url: "http://127.0.0.1:7411/mcp", headers: { Authorization: `Bearer \${env:MNEMO_TOKEN}` } } },
    });
    expect(cursor.stderr).toMatch(/Set MNEMO_TOKEN to your mnemo token[\s\S]*\(https:\/\/cursor\.com\/docs\/context\/mcp\)/);
    const zed = JSON.parse((await runCli(["mcp", "--print-config", "zed"], { env: remote })).stdout);
    expect(zed).toEqual({
      context_servers: { mnemo: { url: "http://127.0.0.1:7411/mcp", headers: { Authorization: "Bearer mnemo_t0ken" } } },
    });
    const desktop = JSON.parse((await runCli(["mcp", "--print-config", "claude-desktop"], { env: remote })).stdout);
    expect(desktop.mcpServers.mnemo).toEqual({
      command: process.execPath,
      args: [fs.realpathSync(BIN), "mcp", "--remote", "http://127.0.0.1:7411"],
      env: { MNEMO_TOKEN: "mnemo_t0ken" },
    });
    const codex = await runCli(["mcp", "--print-config", "codex"], { env: remote });
    expect(codex.stdout.trim()).toBe('[mcp_servers.mnemo]\nurl = "http://127.0.0.1:7411/mcp"\nbearer_token_env_var = "MNEMO_TOKEN"');
    // VS Code prompts for the token: none is needed to print its snippet; Zed's holds it, so it is.
    const vscode = await runCli(["mcp", "--remote", "http://127.0.0.1:7411", "--print-config", "vscode"], { env });
    expect(vscode.code, vscode.stderr).toBe(0);
    expect(JSON.parse(vscode.stdout).servers.mnemo.headers).toEqual({ Authorization: `Bearer \${input:mnemo-token}` });
    const noToken = await runCli(["mcp", "--remote", "http://127.0.0.1:7411", "--print-config", "zed"], { env });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/--token: is needed to reach a server/);
  });

  it("refuses a client it does not know, naming the ones it does", async () => {
    const result = await runCli(["mcp", "--print-config", "emacs"], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--print-config: must be one of claude-desktop, claude-code, cursor, vscode, windsurf, zed, codex, gemini-cli, cline, continue, goose, lm-studio, jetbrains, not "emacs"/,
    );
  });
});
