import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { MnemoService } from "../core/index.js";
import { malformedRequestAnswer } from "./malformed.js";
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
  /** The body, already read and parsed by the server (which keeps bytes that are not UTF-8 visible for the core to refuse). */
  parsedBody?: unknown,
): Promise<Response> {
  const malformed = malformedRequestAnswer(parsedBody);
  // An answer to the request, as a handler's -32602 is (200): the SDK's client reads a 400's body as a failed POST, not as the answer.
  if (malformed) return Response.json(malformed);
  const server = createMcpServer({ service: async () => service, log });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    // The answer is complete in JSON mode, so closing now cuts nothing short.
    await server.close();
  }
}
