import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { MnemoService } from "../core/index.js";
import { type ErrorAnswer, malformedMemberAnswer, malformedRequestAnswer } from "./malformed.js";
import { createMcpServer } from "./server.js";

/**
 * One POST to /mcp of `mnemo serve`, for the user its bearer token names. Stateless: a server and
 * a transport for this request alone (building them takes well under a millisecond), so no
 * session can outlive its token or reach another user's service. Answers are plain JSON.
 */
export async function handleMcpRequest(
  request: Request,
  service: MnemoService,
  log: (line: string) => void,
  /**
   * The body, already read and parsed by the server (which keeps bytes that are not UTF-8 visible for
   * the core to refuse); undefined when it is not JSON.
   */
  parsedBody: unknown,
): Promise<Response> {
  // The headers first (Accept 406, Content-Type 415, MCP-Protocol-Version 400), as the SDK checks them
  // before the body: our answers about the body came first. The SDK's own checks, on an empty batch
  // (which passes them with a 202), in a transport of their own: a stateless one handles one request.
  const headers = await newTransport().handleRequest(request, { parsedBody: [] });
  if (headers.status !== 202) return headers;
  if (parsedBody === undefined) return refused(ErrorCode.ParseError, "Parse error: the body is not a JSON-RPC message");
  if (Array.isArray(parsedBody) && parsedBody.length === 0) return refused(ErrorCode.InvalidRequest, "message: is an empty batch");
  const server = createMcpServer({ service: async () => service, log });
  const transport = newTransport();
  await server.connect(transport);
  try {
    return await answer(request, transport, parsedBody);
  } finally {
    // The answer is complete in JSON mode, so closing now cuts nothing short.
    await server.close();
  }
}

const newTransport = () => new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });

const refused = (code: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status: 400 });

/**
 * The SDK's answer, but to a message its schema refuses ours: one request's, as a handler's -32602
 * is (200: the SDK's client reads a 400's body as a failed POST, not as the answer); in a batch, each
 * refused member's beside the answers to the others, which the SDK answered -32700 together.
 */
async function answer(request: Request, transport: WebStandardStreamableHTTPServerTransport, body: unknown): Promise<Response> {
  if (!Array.isArray(body)) {
    const malformed = malformedRequestAnswer(body);
    return malformed ? Response.json(malformed) : transport.handleRequest(request, { parsedBody: body });
  }
  const answers = body.map((member) => malformedMemberAnswer(member));
  const errors = answers.filter((found): found is ErrorAnswer => found !== undefined);
  if (errors.length === 0) return transport.handleRequest(request, { parsedBody: body });
  const rest = body.filter((_, index) => answers[index] === undefined);
  if (rest.length === 0) return Response.json(errors);
  const answered = await transport.handleRequest(request, { parsedBody: rest });
  // 202: the rest were notifications and answers, which get none.
  if (answered.status === 202) return Response.json(errors);
  if (answered.status !== 200) return answered;
  const results: unknown = await answered.json();
  return Response.json([...(Array.isArray(results) ? results : [results]), ...errors]);
}
