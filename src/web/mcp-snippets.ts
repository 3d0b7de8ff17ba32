import { fileURLToPath } from "node:url";
import { CLIENTS, clientConfig, mcpUrl, stdioServer, type SnippetFormat } from "../mcp/client-config.js";

/** A snippet on the Settings page: what to paste where. */
export interface Snippet {
  client: string;
  format: SnippetFormat;
  text: string;
  where: string;
  /** The client's own documentation of it. */
  docs?: string;
}

/**
 * The Settings page's MCP and editor snippets: every client of mcp/client-config.ts's registry,
 * in its own format, as `mnemo mcp --remote <this server> --print-config <client>` prints them
 * (this server's `/mcp`, or the local bridge for a client that starts local servers only). And a
 * REST call.
 */
export function mcpSnippets(baseUrl: string, token: string): Snippet[] {
  const remote = {
    url: mcpUrl(baseUrl),
    token: () => token,
    bridge: stdioServer({ node: process.execPath, bin: fileURLToPath(new URL("../../bin/mnemo.js", import.meta.url)), remote: baseUrl }),
  };
  const clients = CLIENTS.map((entry) => {
    const config = clientConfig(entry, { remote });
    return { client: config.name, format: config.format, text: config.text, where: config.where, docs: config.docs };
  });
  return [
    ...clients,
    {
      client: "REST API",
      format: "command",
      text: `curl -H "Authorization: Bearer ${token}" "${new URL("api/v2/memory?latest=true", remote.url).href}"`,
      where: `Any HTTP client; the whole API is described at ${new URL("openapi.json", remote.url).href}.`,
    },
  ];
}
