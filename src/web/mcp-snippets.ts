import { fileURLToPath } from "node:url";
import { clientConfig, MCP_CLIENTS, mcpUrl, stdioServer, type McpClient } from "../mcp/client-config.js";

/** A snippet on the Settings page: what to paste where. */
export interface Snippet {
  client: string;
  kind: "json" | "command";
  text: string;
  where: string;
}

const NAMES: Record<McpClient, string> = {
  "claude-desktop": "Claude Desktop",
  cursor: "Cursor",
  vscode: "VS Code",
  "claude-code": "Claude Code",
};

/**
 * The Settings page's MCP and editor snippets: each client's own format from mcp/client-config.ts
 * (what `mnemo mcp --print-config` prints), for this server's `/mcp` and the token; Claude Desktop,
 * which starts local servers only, gets `mnemo mcp --remote` as a bridge. And a REST call.
 */
export function mcpSnippets(baseUrl: string, token: string): Snippet[] {
  const http = { url: mcpUrl(baseUrl), token };
  const bridge = stdioServer({
    node: process.execPath,
    bin: fileURLToPath(new URL("../../bin/mnemo.js", import.meta.url)),
    remote: { url: baseUrl, token },
  });
  const clients = MCP_CLIENTS.map((client) => {
    const config = clientConfig(client, client === "claude-desktop" ? bridge : http);
    return { client: NAMES[client], kind: config.kind, text: config.text, where: config.where };
  });
  return [
    ...clients,
    {
      client: "REST API",
      kind: "command",
      text: `curl -H "Authorization: Bearer ${token}" "${new URL("api/v2/memory?latest=true", http.url).href}"`,
      where: `Any HTTP client; the whole API is described at ${new URL("openapi.json", http.url).href}.`,
    },
  ];
}
