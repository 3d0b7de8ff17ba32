import { describe, expect, it } from "vitest";
import { clientConfig, mcpUrl, MCP_CLIENTS, stdioServer } from "../../src/mcp/client-config.js";

const local = stdioServer({ node: "/usr/bin/node", bin: "/opt/mnemo/bin/mnemo.js", store: "/home/a b/.mnemo" });
const http = { url: mcpUrl("http://127.0.0.1:7411"), token: "mnemo_secret" };

describe("clientConfig", () => {
  it("starts `mnemo mcp` with absolute paths to node, the bin and the store", () => {
    expect(local).toEqual({ command: "/usr/bin/node", args: ["/opt/mnemo/bin/mnemo.js", "mcp", "--store", "/home/a b/.mnemo"] });
    expect(JSON.parse(clientConfig("claude-desktop", local).text)).toEqual({ mcpServers: { mnemo: local } });
    expect(JSON.parse(clientConfig("cursor", local).text)).toEqual({ mcpServers: { mnemo: local } });
    expect(JSON.parse(clientConfig("vscode", local).text)).toEqual({ servers: { mnemo: { type: "stdio", ...local } } });
  });

  it("gives Claude Code a command, quoted for the shell", () => {
    const { kind, text } = clientConfig("claude-code", local);
    expect(kind).toBe("command");
    expect(text).toBe(
      `claude mcp add-json --scope user mnemo '{"type":"stdio","command":"/usr/bin/node","args":["/opt/mnemo/bin/mnemo.js","mcp","--store","/home/a b/.mnemo"]}'`,
    );
    const quoted = clientConfig("claude-code", { command: "/n", args: ["it's"] }).text;
    expect(quoted).toContain(`'{"type":"stdio","command":"/n","args":["it'\\''s"]}'`);
  });

  it("points HTTP clients at /mcp with the bearer token", () => {
    expect(http.url).toBe("http://127.0.0.1:7411/mcp");
    const headers = { Authorization: "Bearer mnemo_secret" };
    expect(JSON.parse(clientConfig("cursor", http).text)).toEqual({ mcpServers: { mnemo: { url: http.url, headers } } });
    expect(JSON.parse(clientConfig("vscode", http).text)).toEqual({ servers: { mnemo: { type: "http", url: http.url, headers } } });
    expect(clientConfig("claude-code", http).text).toBe(
      `claude mcp add-json --scope user mnemo '{"type":"http","url":"http://127.0.0.1:7411/mcp","headers":{"Authorization":"Bearer mnemo_secret"}}'`,
    );
  });

  it("bridges Claude Desktop to a server with `mnemo mcp --remote`, the token in its environment", () => {
    expect(() => clientConfig("claude-desktop", http)).toThrow(/Claude Desktop starts servers on this machine/);
    const bridge = stdioServer({ node: "/n", bin: "/b", store: "/ignored", remote: { url: "http://h:1", token: "t" } });
    expect(bridge).toEqual({ command: "/n", args: ["/b", "mcp", "--remote", "http://h:1"], env: { MNEMO_TOKEN: "t" } });
  });

  it("says where each snippet goes", () => {
    for (const client of MCP_CLIENTS) expect(clientConfig(client, local).where.length).toBeGreaterThan(20);
  });
});
