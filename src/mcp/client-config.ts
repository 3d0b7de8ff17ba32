/**
 * What each MCP client needs to reach mnemo, in that client's own format: one entry per client
 * (CLIENTS), from which `mnemo mcp --print-config` and the web app's Settings page take their
 * lists and snippets. Each entry was checked against the client's documentation, linked beside
 * it. Pure: no SDK, no store, cheap to import.
 *
 * A client is given one of two servers:
 * - on this machine's store, `mnemo mcp --store …` over stdio (no token: the store is the user's);
 * - through a running `mnemo serve`, its `/mcp` over Streamable HTTP with the bearer token, or,
 *   for a client that starts local servers only, `mnemo mcp --remote <url>` as a bridge.
 * Where a client has a password prompt or reads a variable of its environment, the snippet
 * names the variable (MNEMO_TOKEN) or prompts, and the token is never written into it; where it
 * has neither, the token is written in, and `where` says the file holds it.
 */

/** A server the client starts itself and talks to over stdin/stdout. */
export interface StdioServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** A running `mnemo serve` as a client reaches it. */
export interface RemoteServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:7411/mcp (mcpUrl builds it). */
  url: string;
  /** The token, asked for only by a client whose snippet holds it (the others prompt or read a variable). */
  token(): string;
  /** `mnemo mcp --remote <server>` on this machine, for a client that only starts local servers (no env yet). */
  bridge: StdioServer;
}

export type SnippetFormat = "json" | "toml" | "yaml" | "command";

export interface ClientConfig {
  client: string;
  /** The client's name, as its users know it. */
  name: string;
  format: SnippetFormat;
  text: string;
  /** Where it goes, and what else to do, in a sentence or two. */
  where: string;
  /** The client's own documentation of it. */
  docs: string;
}

interface Snippet {
  format: SnippetFormat;
  text: string;
  where: string;
}

export interface McpClientEntry {
  id: string;
  name: string;
  docs: string;
  local(server: StdioServer): Snippet;
  remote(server: RemoteServer): Snippet;
}

/** The server's name in every client's config. */
const NAME = "mnemo";
/** The environment variable a snippet names where the client reads one, instead of the token itself. */
export const TOKEN_VARIABLE = "MNEMO_TOKEN";
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const SET_TOKEN = `Set ${TOKEN_VARIABLE} to your mnemo token in the environment the client starts from (the token is in the file \`token\` of the server's data dir)`;
const HOLDS_TOKEN = "The file then holds your token: keep it private.";

const json = (value: object, where: string): Snippet => ({ format: "json", text: JSON.stringify(value, null, 2), where });
const withEnv = (server: StdioServer, env: Record<string, string>): StdioServer => ({ ...server, env: { ...server.env, ...env } });
const tokenEnv = (server: RemoteServer) => withEnv(server.bridge, { [TOKEN_VARIABLE]: server.token() });

export const CLIENTS: McpClientEntry[] = [
  {
    // Starts local servers from its file only; no variables or secret prompt in it.
    id: "claude-desktop",
    name: "Claude Desktop",
    docs: "https://modelcontextprotocol.io/docs/develop/connect-local-servers",
    local: (server) => json({ mcpServers: { [NAME]: server } }, CLAUDE_DESKTOP),
    remote: (server) => json({ mcpServers: { [NAME]: tokenEnv(server) } }, `${CLAUDE_DESKTOP} ${HOLDS_TOKEN}`),
  },
  {
    // `${NAME}` is expanded in command, args, env, url and headers.
    id: "claude-code",
    name: "Claude Code",
    docs: "https://code.claude.com/docs/en/mcp",
    local: (server) =>
      claudeCode({ type: "stdio", ...server }, "Run it in a terminal; --scope user makes mnemo available in every project."),
    remote: (server) =>
      claudeCode(
        { type: "http", url: server.url, headers: bearer(`\${${TOKEN_VARIABLE}}`) },
        `Run it in a terminal (--scope user: every project). ${SET_TOKEN}: Claude Code reads \${${TOKEN_VARIABLE}} from it.`,
      ),
  },
  {
    id: "cursor",
    name: "Cursor",
    docs: "https://cursor.com/docs/context/mcp",
    local: (server) => json({ mcpServers: { [NAME]: server } }, CURSOR),
    remote: (server) =>
      json(
        { mcpServers: { [NAME]: { url: server.url, headers: bearer(`\${env:${TOKEN_VARIABLE}}`) } } },
        `${CURSOR} ${SET_TOKEN}: Cursor reads \${env:${TOKEN_VARIABLE}}.`,
      ),
  },
  {
    // `inputs` with `password: true`: VS Code asks once and keeps the answer in its secret storage.
    id: "vscode",
    name: "VS Code",
    docs: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
    local: (server) => json({ servers: { [NAME]: { type: "stdio", ...server } } }, VSCODE),
    remote: (server) =>
      json(
        {
          inputs: [{ type: "promptString", id: "mnemo-token", description: "mnemo API token", password: true }],
          servers: { [NAME]: { type: "http", url: server.url, headers: bearer(`\${input:mnemo-token}`) } },
        },
        `${VSCODE} VS Code asks for your token when it first starts the server and keeps it in its secret storage.`,
      ),
  },
  {
    // Remote servers take `serverUrl`; `${env:NAME}` is read in command, args, env, serverUrl, url and headers.
    id: "windsurf",
    name: "Windsurf",
    docs: "https://docs.windsurf.com/windsurf/cascade/mcp",
    local: (server) => json({ mcpServers: { [NAME]: server } }, WINDSURF),
    remote: (server) =>
      json(
        { mcpServers: { [NAME]: { serverUrl: server.url, headers: bearer(`\${env:${TOKEN_VARIABLE}}`) } } },
        `${WINDSURF} ${SET_TOKEN}: Windsurf reads \${env:${TOKEN_VARIABLE}}.`,
      ),
  },
  {
    // `context_servers` in settings.json; a remote one takes url and headers. No variables in settings.
    id: "zed",
    name: "Zed",
    docs: "https://zed.dev/docs/ai/mcp",
    local: (server) => json({ context_servers: { [NAME]: { command: server.command, args: server.args, env: server.env ?? {} } } }, ZED),
    remote: (server) =>
      json({ context_servers: { [NAME]: { url: server.url, headers: bearer(server.token()) } } }, `${ZED} ${HOLDS_TOKEN}`),
  },
  {
    // TOML; a Streamable HTTP server's bearer token comes from the variable `bearer_token_env_var` names.
    id: "codex",
    name: "Codex",
    docs: "https://developers.openai.com/codex/mcp",
    local: (server) => toml({ command: server.command, args: server.args, ...(server.env ? { env: server.env } : {}) }, CODEX),
    remote: (server) =>
      toml({ url: server.url, bearer_token_env_var: TOKEN_VARIABLE }, `${CODEX} ${SET_TOKEN}: Codex sends it as the bearer token.`),
  },
  {
    // `httpUrl` for Streamable HTTP; string values in settings.json may name variables ($NAME or ${NAME}).
    id: "gemini-cli",
    name: "Gemini CLI",
    docs: "https://geminicli.com/docs/tools/mcp-server",
    local: (server) => json({ mcpServers: { [NAME]: server } }, GEMINI),
    remote: (server) =>
      json(
        { mcpServers: { [NAME]: { httpUrl: server.url, headers: bearer(`\${${TOKEN_VARIABLE}}`) } } },
        `${GEMINI} ${SET_TOKEN}: Gemini CLI reads \${${TOKEN_VARIABLE}}.`,
      ),
  },
  {
    // cline_mcp_settings.json; `type: "streamableHttp"` for a remote server (without it, SSE). No variables.
    id: "cline",
    name: "Cline",
    docs: "https://docs.cline.bot/mcp/configuring-mcp-servers",
    local: (server) => json({ mcpServers: { [NAME]: { ...server, disabled: false } } }, CLINE),
    remote: (server) =>
      json(
        { mcpServers: { [NAME]: { type: "streamableHttp", url: server.url, headers: bearer(server.token()), disabled: false } } },
        `${CLINE} ${HOLDS_TOKEN}`,
      ),
  },
  {
    // YAML blocks in .continue/mcpServers/; `${{ secrets.NAME }}` reads a secret (locally, from ~/.continue/.env)
    // into a stdio server's env; its documented remote form takes no headers, so the bridge carries the token.
    id: "continue",
    name: "Continue",
    docs: "https://docs.continue.dev/customize/deep-dives/mcp",
    local: (server) => continueBlock(server, CONTINUE),
    remote: (server) =>
      continueBlock(
        withEnv(server.bridge, { [TOKEN_VARIABLE]: `\${{ secrets.${TOKEN_VARIABLE} }}` }),
        `${CONTINUE} Put ${TOKEN_VARIABLE}=<your token> in ~/.continue/.env: Continue reads it as secrets.${TOKEN_VARIABLE}.`,
      ),
  },
  {
    // config.yaml `extensions`; `env_keys` names variables goose takes from its secret store (the keyring) or
    // the environment and passes to a stdio extension, so the bridge carries the token.
    id: "goose",
    name: "goose",
    docs: "https://block.github.io/goose/docs/guides/config-files",
    local: (server) => gooseExtension(server, [], GOOSE),
    remote: (server) =>
      gooseExtension(
        server.bridge,
        [TOKEN_VARIABLE],
        `${GOOSE} Store ${TOKEN_VARIABLE} (your mnemo token) with \`goose configure\`, or set it in goose's environment.`,
      ),
  },
  {
    // mcp.json in Cursor's notation: command and args, or url and headers. No variables.
    id: "lm-studio",
    name: "LM Studio",
    docs: "https://lmstudio.ai/docs/app/mcp",
    local: (server) => json({ mcpServers: { [NAME]: server } }, LM_STUDIO),
    remote: (server) =>
      json({ mcpServers: { [NAME]: { url: server.url, headers: bearer(server.token()) } } }, `${LM_STUDIO} ${HOLDS_TOKEN}`),
  },
  {
    // Claude Desktop's JSON; its documented transport is stdio, so a server is reached through the bridge.
    id: "jetbrains",
    name: "JetBrains AI Assistant",
    docs: "https://www.jetbrains.com/help/ai-assistant/mcp.html",
    local: (server) => json({ mcpServers: { [NAME]: server } }, JETBRAINS),
    remote: (server) => json({ mcpServers: { [NAME]: tokenEnv(server) } }, `${JETBRAINS} ${HOLDS_TOKEN}`),
  },
];

const CLAUDE_DESKTOP =
  "claude_desktop_config.json (Claude Desktop: Settings › Developer › Edit Config; on macOS in ~/Library/Application Support/Claude/, on Windows in %APPDATA%\\Claude\\): merge into mcpServers, then restart Claude Desktop.";
const CURSOR = "~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project): merge into mcpServers.";
const VSCODE =
  ".vscode/mcp.json in a workspace, or your user mcp.json (command palette: MCP: Open User Configuration): merge into servers (and inputs).";
const WINDSURF =
  "~/.codeium/windsurf/mcp_config.json (Windsurf Settings › Cascade › MCP servers › View raw config): merge into mcpServers, then refresh.";
const ZED = "Zed's settings.json (zed: open settings file): merge into context_servers.";
const CODEX = "~/.codex/config.toml (every project) or .codex/config.toml (a trusted project): add the table.";
const GEMINI = "~/.gemini/settings.json (every project) or .gemini/settings.json (one project): merge into mcpServers.";
const CLINE = "cline_mcp_settings.json (Cline: MCP Servers › Configure › Configure MCP Servers): merge into mcpServers.";
const CONTINUE = "Save as .continue/mcpServers/mnemo.yaml in your workspace (Continue's agent mode uses it).";
const GOOSE =
  "~/.config/goose/config.yaml (on Windows %APPDATA%\\Block\\goose\\config\\config.yaml): merge into extensions, then restart goose.";
const LM_STUDIO = "LM Studio's mcp.json (Program tab › Install › Edit mcp.json): merge into mcpServers.";
const JETBRAINS = "Settings › Tools › AI Assistant › Model Context Protocol (MCP) › Add › As JSON: paste it.";

function claudeCode(entry: object, where: string): Snippet {
  return { format: "command", text: `claude mcp add-json --scope user ${shellQuote(NAME)} ${shellQuote(JSON.stringify(entry))}`, where };
}

/** A block file of Continue's own (name, version and schema are required in one). */
function continueBlock(server: StdioServer, where: string): Snippet {
  const lines = [
    `name: ${yamlString(NAME)}`,
    "version: 0.0.1",
    "schema: v1",
    "mcpServers:",
    `  - name: ${yamlString(NAME)}`,
    "    type: stdio",
    `    command: ${yamlString(server.command)}`,
    "    args:",
    ...server.args.map((arg) => `      - ${yamlString(arg)}`),
    ...yamlMap("    env", server.env),
  ];
  return { format: "yaml", text: lines.join("\n"), where };
}

function gooseExtension(server: StdioServer, envKeys: string[], where: string): Snippet {
  const lines = [
    "extensions:",
    `  ${NAME}:`,
    `    name: ${yamlString(NAME)}`,
    "    type: stdio",
    "    enabled: true",
    `    cmd: ${yamlString(server.command)}`,
    "    args:",
    ...server.args.map((arg) => `      - ${yamlString(arg)}`),
    ...yamlMap("    envs", server.env),
    `    env_keys: [${envKeys.map(yamlString).join(", ")}]`,
    "    timeout: 300",
  ];
  return { format: "yaml", text: lines.join("\n"), where };
}

function yamlMap(key: string, values: Record<string, string> | undefined): string[] {
  if (!values || Object.keys(values).length === 0) return [`${key}: {}`];
  const indent = key.match(/^ */)![0];
  return [`${key}:`, ...Object.entries(values).map(([name, value]) => `${indent}  ${yamlString(name)}: ${yamlString(value)}`)];
}

/**
 * A YAML scalar, double-quoted: a JSON string is one (YAML 1.2 reads JSON), whatever a path holds
 * (`:`, `#`, a leading `-` would each change a plain scalar's meaning).
 */
const yamlString = (value: string) => JSON.stringify(value);

/**
 * Codex's `[mcp_servers.mnemo]` table. Values are strings, arrays of strings and one inline table:
 * a JSON string is a TOML basic string (the same escapes), so no TOML writer is needed for them.
 */
function toml(table: Record<string, string | string[] | Record<string, string>>, where: string): Snippet {
  const value = (v: string | string[] | Record<string, string>): string => {
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map((item) => JSON.stringify(item)).join(", ")}]`;
    return `{ ${Object.entries(v)
      .map(([k, item]) => `${tomlKey(k)} = ${JSON.stringify(item)}`)
      .join(", ")} }`;
  };
  const lines = [`[mcp_servers.${tomlKey(NAME)}]`, ...Object.entries(table).map(([key, v]) => `${tomlKey(key)} = ${value(v)}`)];
  return { format: "toml", text: lines.join("\n"), where };
}

const tomlKey = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));

/** A word for a POSIX shell: as it is when that is safe, else in single quotes. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export const CLIENT_IDS = CLIENTS.map((client) => client.id);
const BY_ID = new Map(CLIENTS.map((client) => [client.id, client]));
export const clientById = (id: string): McpClientEntry | undefined => BY_ID.get(id);

/** The snippet of one client for this machine's store (a StdioServer) or a running server. */
export function clientConfig(entry: McpClientEntry, target: { local: StdioServer } | { remote: RemoteServer }): ClientConfig {
  const snippet = "local" in target ? entry.local(target.local) : entry.remote(target.remote);
  return { client: entry.id, name: entry.name, docs: entry.docs, ...snippet };
}

/**
 * `mnemo mcp` as a client starts it: absolute paths to node and to mnemo's bin, since a client's
 * PATH is not the user's shell's (Claude Desktop's has no nvm node), and the store by its absolute
 * path, or the server to bridge to.
 */
export function stdioServer(target: {
  node: string;
  bin: string;
  store?: string | undefined;
  user?: string | undefined;
  remote?: string;
}): StdioServer {
  const args = [target.bin, "mcp"];
  if (target.remote) args.push("--remote", target.remote);
  else if (target.store) args.push("--store", target.store);
  if (target.user && !target.remote) args.push("--user", target.user);
  return { command: target.node, args };
}

/** The MCP endpoint of a server at `baseUrl` (what `mnemo serve` prints). */
export function mcpUrl(baseUrl: string): string {
  return new URL("mcp", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).href;
}
