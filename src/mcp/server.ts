import { createRequire } from "node:module";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type LoggingLevel, LoggingLevelSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { MnemoService } from "../core/index.js";
// zod's issues in plain words before the SDK parses a first request's params (paramsErrorsAsInvalid):
// over stdio nothing else has loaded them by then. It loads zod alone, which the SDK has loaded.
import "../schemas/messages.js";
import { AppError } from "../shared/errors.js";
import { protocolError, type McpLog } from "./errors.js";
import { registerPrompts, registerResources } from "./resources.js";
import { registerTools } from "./tool-handlers.js";

export interface McpServerOptions {
  /**
   * The user's service, asked for on the first call that needs it: over stdio that call opens the
   * store (LanceDB, the model), so `initialize` is answered without either.
   */
  service: () => Promise<MnemoService>;
  /** Where warnings and errors go besides the client: stderr, or the server's log. */
  log: (line: string) => void;
}

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));
const severity = (level: LoggingLevel) => SEVERITY.get(level) ?? 0;
/** What a client is sent before it asks for a level (logging/setLevel): not each call's debug line. */
const DEFAULT_LEVEL: LoggingLevel = "info";

/** Read by every client at `initialize`; a model sees it beside the tools. Short, as they are. */
const INSTRUCTIONS =
  "mnemo holds the user's saved memories (short facts, in buckets) and their imported AI chat history. Search them before answering questions about the user's past, preferences or earlier conversations; store a memory when the user asks you to remember something.";

/** One MCP server on one user's service: the tools, the resources, the prompt and logging. */
export function createMcpServer({ service, log }: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: "mnemo", title: "mnemo", version: packageVersion() },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const report = logging(server, log);
  // A line that is not JSON-RPC gets no answer; the client's log should still say why.
  server.server.onerror = (error) => report(`protocol error: ${protocolProblem(error)}`, "warning");
  registerTools(server.server, service, report);
  registerResources(server, service, report);
  registerPrompts(server, service, report);
  paramsErrorsAsInvalid(server.server, report);
  return server;
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * A request whose params fail the SDK's schema for its method (`resources/read` without `params`,
 * `"uri": 5`, `initialize` without params) is the client's error: the protocol layer's parse threw
 * zod's error, which it answered as -32603, an internal error of the server's, with the issues as
 * thirty lines of JSON. Every handler, once all are registered, answers it as -32602 naming the
 * field, as the API does. Only an issue under `params` is: any other zod error stays ours.
 */
function paramsErrorsAsInvalid(server: Server, log: McpLog): void {
  // The SDK keeps its handlers here (Protocol, since 0.x); a test holds every method to -32602.
  const handlers = (server as unknown as { _requestHandlers: Map<string, RequestHandler> })._requestHandlers;
  for (const [method, handler] of handlers) {
    const precheck = PRECHECKED[method];
    handlers.set(method, async (request, extra) => {
      try {
        precheck?.parse(request);
        return await handler(request, extra);
      } catch (error) {
        const issue = paramsIssue(error);
        throw issue ? protocolError(AppError.invalid(issue.field, issue.message), log) : error;
      }
    });
  }
}

/**
 * The Server checks every tools/call against this schema inside the handler it registers, and
 * throws its failure as -32602 with zod's issues as JSON in the message ("Invalid tools/call
 * request: [{ "expected": "string", … }]"), past any handler of ours. Parsed here first, with the
 * same schema, its failure is named as every other method's params are.
 */
const PRECHECKED: Record<string, { parse(value: unknown): unknown }> = { "tools/call": CallToolRequestSchema };

/** The first issue of a zod error about a request's params, its path as `params.arguments` (schemas/parse.ts loads after `initialize`). */
function paramsIssue(error: unknown): { field: string; message: string } | undefined {
  if (!(error instanceof Error) || !/^\$?ZodError$/.test(error.name)) return undefined;
  const [issue] = (error as Error & { issues: { path: PropertyKey[]; message: string }[] }).issues;
  if (issue?.path[0] !== "params") return undefined;
  const field = issue.path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
    .join("")
    .slice(1);
  return { field, message: issue.message };
}

/**
 * Logging as the protocol has it: each line goes to the client as notifications/message at or
 * above the level it asked for (logging/setLevel; `info` until it does), and warnings and errors
 * to `log` too. Over /mcp, whose answers are plain JSON, there is nowhere to send them: the level
 * is taken, and lines go to the server's log alone.
 */
function logging(server: McpServer, log: (line: string) => void): McpLog {
  let minimum = DEFAULT_LEVEL;
  // Parsed loosely, then checked: a level the protocol does not have is the caller's error
  // (-32602), where the SDK's own parse made it an internal one (-32603).
  server.server.setRequestHandler(SetLevelRequestSchema.extend({ params: z.looseObject({}) }), async (request) => {
    const level = LoggingLevelSchema.safeParse(request.params["level"]);
    if (!level.success) {
      const problem = `must be one of ${LoggingLevelSchema.options.join(", ")}, not ${JSON.stringify(request.params["level"])}`;
      throw protocolError(AppError.invalid("level", problem), log);
    }
    minimum = level.data;
    return {};
  });
  return (line, level = "error") => {
    if (severity(level) >= severity("warning")) log(line);
    if (severity(level) < severity(minimum) || !server.isConnected()) return;
    // The first line: a stack trace is for the log on this machine, not for the client.
    server.server.sendLoggingMessage({ level, logger: "mnemo", data: line.split("\n")[0] }).catch(() => undefined);
  };
}

/**
 * What was wrong with a message the protocol layer could not take. JSON that is not a JSON-RPC
 * message (`"id": {}`, an array) failed the SDK's schema, whose message is its issues as JSON: 40
 * lines on stderr for one `[`-deep array, and the client was sent their first line, "[".
 */
function protocolProblem(error: Error): string {
  if (error.name !== "ZodError") return error.message;
  return 'a message that is JSON but not JSON-RPC: it must be an object with "jsonrpc": "2.0", a "method", and an "id" that is a string or a number (none for a notification)';
}

let version: string | undefined;
function packageVersion(): string {
  version ??= (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  return version;
}
