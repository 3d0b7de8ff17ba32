import { createRequire } from "node:module";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { MnemoService } from "../core/index.js";
import { registerPrompts, registerResources } from "./resources.js";
import { registerTools } from "./tool-handlers.js";

export interface McpServerOptions {
  /**
   * The user's service, asked for on the first call that needs it: over stdio that call opens the
   * store (LanceDB, the model), so `initialize` is answered without either.
   */
  service: () => Promise<MnemoService>;
  /** Where errors the client cannot see go: stderr, or the server's log. */
  log: (line: string) => void;
}

/** Read by every client at `initialize`; a model sees it beside the tools. Short, as they are. */
const INSTRUCTIONS =
  "mnemo holds the user's saved memories (short facts, in buckets) and their imported AI chat history. Search them before answering questions about the user's past, preferences or earlier conversations; store a memory when the user asks you to remember something.";

/** One MCP server on one user's service: the twelve tools, the resources and the prompt. */
export function createMcpServer({ service, log }: McpServerOptions): McpServer {
  const server = new McpServer({ name: "mnemo", title: "mnemo", version: packageVersion() }, { instructions: INSTRUCTIONS });
  registerTools(server.server, service, log);
  registerResources(server, service, log);
  registerPrompts(server, service, log);
  return server;
}

let version: string | undefined;
function packageVersion(): string {
  version ??= (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  return version;
}
