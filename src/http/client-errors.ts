import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Requests Node's HTTP parser refuses before any route sees them, answered like every other error
 * (`{ "error": … }`) instead of Node's empty 400 and 431: a URL and headers over Node's 16 KB,
 * a malformed request line or header, a request that took too long to arrive.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const [status, reason, body] = answerFor(error.code);
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}

function answerFor(code: string | undefined): [number, string, { error: string; field?: string }] {
  if (code === "HPE_HEADER_OVERFLOW") {
    return [
      431,
      "Request Header Fields Too Large",
      { error: "The request's URL and headers are over 16 KB: a query string is at most 4,000 characters of text" },
    ];
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout", { error: "The request did not arrive in time" }];
  return [400, "Bad Request", { error: `request: not a valid HTTP request (${code ?? "unknown"})`, field: "request" }];
}
