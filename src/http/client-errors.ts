import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Requests Node's HTTP parser refuses before any route sees them, answered like every other error
 * (`{ "error": … }`) instead of Node's empty 400 and 431: a URL and headers over MAX_HEADER_BYTES,
 * a malformed request line or header, a request that took too long to arrive.
 */
/**
 * How long a request's URL and headers may be: a query's 4,000 characters percent-encoded are up to
 * 36 KB (9 bytes a character of Chinese or Japanese), and Node's 16 KB had refused 1,800 of them
 * with a 431 that said 4,000 were allowed.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

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
      { error: `The request's URL and headers are over ${MAX_HEADER_BYTES / 1024} KB: a query string is at most 4,000 characters of text` },
    ];
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout", { error: "The request did not arrive in time" }];
  return [400, "Bad Request", { error: `request: not a valid HTTP request (${code ?? "unknown"})`, field: "request" }];
}
