/**
 * What an MCP client needs to reach mnemo, in each client's own format: `mnemo mcp --print-config`
 * prints it, and the web app's Settings page shows it. Pure: no SDK, no store, cheap to import.
 */
import { AppError } from "../shared/errors.js";

export const MCP_CLIENTS = ["claude-desktop", "cursor", "vscode", "claude-code"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** A server the client starts itself and talks to over stdin/stdout. */
export interface StdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** A running `mnemo serve` the client reaches over Streamable HTTP. */
export interface HttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:7411/mcp (mcpUrl builds it). */
  url: string;
  token: string;
}

export interface ClientConfig {
  client: McpClient;
  /** JSON to merge into a config file, or a command to run in a terminal. */
  kind: "json" | "command";
  text: string;
  /** Where it goes, in a sentence. */
  where: string;
}

/**
 * `mnemo mcp` as a client starts it: absolute paths to node and to mnemo's bin, since a client's
 * PATH is not the user's shell's (Claude Desktop's has no nvm node), and the store by its absolute
 * path or the server with its token (in the environment, which these clients keep out of logs).
 */
export function stdioServer(target: {
  node: string;
  bin: string;
  store?: string | undefined;
  user?: string | undefined;
  remote?: { url: string; token: string } | undefined;
}): StdioServer {
  const args = [target.bin, "mcp"];
  if (target.remote) args.push("--remote", target.remote.url);
  else if (target.store) args.push("--store", target.store);
  if (target.user && !target.remote) args.push("--user", target.user);
  return { command: target.node, args, ...(target.remote ? { env: { MNEMO_TOKEN: target.remote.token } } : {}) };
}

/** The MCP endpoint of a server at `baseUrl` (what `mnemo serve` prints). */
export function mcpUrl(baseUrl: string): string {
  return new URL("mcp", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).href;
}

const isHttp = (server: StdioServer | HttpServer): server is HttpServer => "url" in server;

/** The snippet for one client. Claude Desktop starts local servers only: give it a StdioServer (with `remote` for a server). */
export function clientConfig(client: McpClient, server: StdioServer | HttpServer, name = "mnemo"): ClientConfig {
  const headers = isHttp(server) ? { Authorization: `Bearer ${server.token}` } : undefined;
  const stdio = isHttp(server) ? undefined : { command: server.command, args: server.args, ...(server.env ? { env: server.env } : {}) };
  switch (client) {
    case "claude-desktop":
      if (!stdio) {
        throw AppError.invalid(
          "client",
          "Claude Desktop starts servers on this machine from its config file; it is not given a URL there",
          "Use the stdio form: `mnemo mcp --remote <url> --print-config claude-desktop` starts a local bridge to the server.",
        );
      }
      return json(
        client,
        { mcpServers: { [name]: stdio } },
        "claude_desktop_config.json (Claude Desktop: Settings › Developer › Edit Config; on macOS in ~/Library/Application Support/Claude/, on Windows in %APPDATA%\\Claude\\): merge into mcpServers, then restart Claude Desktop.",
      );
    case "cursor":
      return json(
        client,
        { mcpServers: { [name]: stdio ?? { url: (server as HttpServer).url, headers } } },
        "~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project): merge into mcpServers.",
      );
    case "vscode":
      return json(
        client,
        { servers: { [name]: stdio ? { type: "stdio", ...stdio } : { type: "http", url: (server as HttpServer).url, headers } } },
        ".vscode/mcp.json in a workspace, or your user mcp.json (command palette: MCP: Open User Configuration): merge into servers.",
      );
    case "claude-code": {
      const entry = stdio ? { type: "stdio", ...stdio } : { type: "http", url: (server as HttpServer).url, headers };
      return {
        client,
        kind: "command",
        text: `claude mcp add-json --scope user ${shellQuote(name)} ${shellQuote(JSON.stringify(entry))}`,
        where: "Run it in a terminal; --scope user makes mnemo available in every project.",
      };
    }
  }
}

function json(client: McpClient, value: object, where: string): ClientConfig {
  return { client, kind: "json", text: JSON.stringify(value, null, 2), where };
}

/** A word for a POSIX shell: as it is when that is safe, else in single quotes. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
