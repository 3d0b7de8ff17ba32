import { fileURLToPath } from "node:url";

/**
 * The Settings page's MCP and editor snippets, in each client's format: the HTTP endpoint `/mcp`
 * with the bearer token, and Claude Desktop's stdio form (it starts local servers only). The same
 * shape as src/mcp/client-config.ts's ClientConfig, which is built beside this and replaces it.
 */
export interface Snippet {
  client: string;
  kind: "json" | "command";
  text: string;
  where: string;
}

export function mcpSnippets(baseUrl: string, token: string): Snippet[] {
  const url = new URL("mcp", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).href;
  const headers = { Authorization: `Bearer ${token}` };
  const bin = fileURLToPath(new URL("../../bin/mnemo.js", import.meta.url));
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      client: "Claude Code",
      kind: "command",
      text: `claude mcp add --transport http mnemo ${url} --header "Authorization: Bearer ${token}"`,
      where: "Run in a terminal.",
    },
    {
      client: "Cursor",
      kind: "json",
      text: json({ mcpServers: { mnemo: { url, headers } } }),
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project): merge into mcpServers.",
    },
    {
      client: "VS Code",
      kind: "json",
      text: json({ servers: { mnemo: { type: "http", url, headers } } }),
      where: ".vscode/mcp.json in a workspace (or MCP: Open User Configuration): merge into servers.",
    },
    {
      client: "Claude Desktop",
      kind: "json",
      text: json({
        mcpServers: { mnemo: { command: process.execPath, args: [bin, "mcp", "--remote", baseUrl], env: { MNEMO_TOKEN: token } } },
      }),
      where: "claude_desktop_config.json (Settings › Developer › Edit Config): merge into mcpServers, then restart Claude Desktop.",
    },
    {
      client: "REST API",
      kind: "command",
      text: `curl -H "Authorization: Bearer ${token}" "${new URL("api/v2/memory?latest=true", url).href}"`,
      where: `Any HTTP client; the whole API is described at ${new URL("openapi.json", url).href}.`,
    },
  ];
}
