import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { MnemoService } from "../core/index.js";

/**
 * tools/list and tools/call are ours, not McpServer's: its tools/list spends tokens on boilerplate
 * (`$schema` and `execution` on every tool, zod's 400-character date-time regex: two and a half
 * times the tokens of ours, test/bench/README.md) and its argument check answers in zod's words
 * behind an "MCP error -32602" prefix, where the REST API names the field and the problem. The
 * tools and their schemas load with the first call for them, after `initialize` is answered.
 */
export function registerTools(server: Server, service: () => Promise<MnemoService>, log: (line: string) => void): void {
  const calls = () => import("./tool-calls.js");
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await calls()).listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    (await calls()).callTool(request.params.name, request.params.arguments, service, log),
  );
}
