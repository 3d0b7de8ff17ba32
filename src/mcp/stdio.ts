import { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { MnemoService } from "../core/index.js";
import { malformedRequestAnswer } from "./malformed.js";
import { LineLimit, MAX_MESSAGE_BYTES, type OverLongLine } from "./line-limit.js";
import { createMcpServer } from "./server.js";

export interface StdioOptions {
  /** The service, opened on the first call that needs it. */
  service: () => Promise<MnemoService>;
  /** Called once the client has gone, to close what `service` opened. */
  close: () => Promise<void>;
  log: (line: string) => void;
}

/**
 * Serves MCP on stdin/stdout until the client goes: it closes stdin, stops reading stdout (a write
 * fails with EPIPE), or a signal comes. Either way the server closes what it opened and the
 * process can end with 0: a client that goes away mid-call is not a failure of the server, and
 * an unhandled EPIPE had ended it with a stack trace and exit 1. stdout carries the protocol and
 * nothing else: whatever else writes to it (console.log in a dependency, a model worker's output)
 * goes to stderr.
 */
export async function serveStdio({ service, close, log }: StdioOptions): Promise<void> {
  // Nowhere left to report a failed log line to: a client that closed stderr does not read it.
  process.stderr.on("error", () => undefined);
  const protocol = claimStdout();
  const server = createMcpServer({ service, log });
  const lines = new LineLimit(
    (line) => void refuseOverLong(transport, line, log),
    MAX_MESSAGE_BYTES,
    (line) => answeredMalformed(transport, line, log),
  );
  const transport = new StdioServerTransport(process.stdin.pipe(lines), protocol, { maxBufferSize: MAX_MESSAGE_BYTES });
  await server.connect(transport);
  const calls = trackCalls(transport);
  // The transport does not watch for the end of stdin, and the open store would keep the process
  // alive until the client gives up and kills it (2 s with the SDK's client).
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stdin.off("end", stop);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      protocol.off("error", gone);
      resolve();
    };
    const gone = (error: NodeJS.ErrnoException) => {
      log(`the client stopped reading (${error.code ?? error.message}): closing`);
      stop();
    };
    process.stdin.once("end", stop);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    protocol.once("error", gone);
  });
  // A call the client made is finished, its write stored, though no one may read the answer.
  await calls.settled(SETTLE_MS);
  await server.close();
  // Every answer written out before the caller may end the process, unless no one reads them.
  if (!protocol.destroyed) await new Promise<void>((resolve) => protocol.end(resolve));
  await close();
}

/**
 * A stream that alone reaches the real stdout; process.stdout's own writes go to stderr from now
 * on. A failed write (EPIPE: the client closed its end) is this stream's error, which serveStdio
 * takes as the client gone; process.stdout's own error event is then expected, not a crash.
 */
function claimStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  // The CLI ends the process on EPIPE (`mnemo search … | head`); here the protocol stream's error
  // says the client has gone, and the server closes what it opened first.
  process.stdout.removeAllListeners("error");
  process.stdout.on("error", () => undefined);
  const protocol = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      write(chunk, (error) => done(error ?? null));
    },
  });
  // Once stopped, later answers (calls still running when the client went) fail quietly.
  protocol.on("error", () => undefined);
  return protocol;
}

/**
 * A message too long to read is answered, when its id shows, as a request the server cannot take
 * (-32600), saying the limit; the server reads on. Without an id there is no one to answer: the log says it.
 */
async function refuseOverLong(transport: StdioServerTransport, { bytes, id }: OverLongLine, log: (line: string) => void): Promise<void> {
  const message = `The message is ${bytes.toLocaleString("en")} bytes: mnemo mcp reads at most ${MAX_MESSAGE_BYTES.toLocaleString("en")} bytes a message. Send less text (a memory holds at most 20,000 characters, a query 4,000).`;
  log(`protocol error: ${message}`);
  if (id !== undefined) await transport.send({ jsonrpc: "2.0", id, error: { code: -32600, message } });
}

/**
 * A request the SDK's transport would drop unanswered (its schema refuses the message whole) is
 * answered here with its id, saying what is wrong; the client waited for ever. Whatever else the
 * line is, the transport reads it as before.
 */
function answeredMalformed(transport: StdioServerTransport, line: Buffer, log: (line: string) => void): boolean {
  let message: unknown;
  try {
    message = JSON.parse(line.toString("utf8"));
  } catch {
    return false; // not JSON: the transport's parse error is logged as it was
  }
  const answer = malformedRequestAnswer(message);
  if (!answer) return false;
  log(`protocol error: ${answer.error.message}`);
  void transport.send(answer);
  return true;
}

/** How long calls still running when the client goes may take to finish before the store is closed under them. */
const SETTLE_MS = 10_000;

/**
 * Counts the requests the client made that have no answer yet, by watching the transport: a
 * request has an id and a method, its answer the same id and none. `settled` waits for none to be
 * left (or `ms`).
 */
function trackCalls(transport: StdioServerTransport): { settled(ms: number): Promise<void> } {
  const open = new Set<string | number>();
  let idle: (() => void) | undefined;
  const received = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message && "id" in message) open.add(message.id);
    received?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if (!("method" in message) && "id" in message && message.id !== undefined) open.delete(message.id);
    if (open.size === 0) idle?.();
    return send(message);
  };
  return {
    settled: (ms) =>
      open.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            idle = () => {
              clearTimeout(timer);
              resolve();
            };
          }),
  };
}
