import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { MnemoService } from "../core/index.js";
import type { McpLog } from "./errors.js";

/**
 * tools/list and tools/call are ours, not McpServer's: its tools/list spends tokens on boilerplate
 * (`$schema` and `execution` on every tool, zod's 400-character date-time regex: two and a half
 * times the tokens of ours, test/bench/README.md) and its argument check answers in zod's words
 * behind an "MCP error -32602" prefix, where the REST API names the field and the problem. The
 * tools and their schemas load with the first call for them, after `initialize` is answered.
 */
export function registerTools(server: Server, service: () => Promise<MnemoService>, log: McpLog): void {
  const calls = () => import("./tool-calls.js");
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await calls()).listTools() }));
  server.setRequestHandler(LooseCallToolRequest, async (request) =>
    // The Server's own check has passed by now: the name is a string, the arguments an object or absent.
    (await calls()).callTool(
      request.params["name"] as string,
      request.params["arguments"] as Record<string, unknown> | undefined,
      service,
      log,
    ),
  );
}

/**
 * tools/call as the protocol layer parses it before the handler: loosely. The SDK's Server checks
 * every tools/call against its own schema and answers a malformed one (`"arguments": "text"`, no
 * name) with -32602 Invalid params; registered with that same schema, the protocol layer's parse
 * ran first and failed it as -32603, an internal error of the server's, which it is not.
 */
const LooseCallToolRequest = CallToolRequestSchema.extend({
  params: z.looseObject({}),
});
