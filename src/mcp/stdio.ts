import { Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { MnemoService } from "../core/index.js";
import { createMcpServer } from "./server.js";

export interface StdioOptions {
  /** The service, opened on the first call that needs it. */
  service: () => Promise<MnemoService>;
  /** Called once the client has gone, to close what `service` opened. */
  close: () => Promise<void>;
  log: (line: string) => void;
}

/**
 * Serves MCP on stdin/stdout until the client closes stdin (or a signal comes). stdout carries
 * the protocol and nothing else: whatever else writes to it (console.log in a dependency, a model
 * worker's output) goes to stderr.
 */
export async function serveStdio({ service, close, log }: StdioOptions): Promise<void> {
  const protocol = claimStdout();
  const server = createMcpServer({ service, log });
  // A line that is not JSON-RPC gets no answer; the client's log should still say why.
  server.server.onerror = (error) => log(`protocol error: ${error.message}`);
  await server.connect(new StdioServerTransport(process.stdin, protocol));
  // The transport does not watch for the end of stdin, and the open store would keep the process
  // alive until the client gives up and kills it (2 s with the SDK's client).
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stdin.off("end", stop);
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.stdin.once("end", stop);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  // Every answer written out before the caller may end the process.
  await new Promise<void>((resolve) => protocol.end(resolve));
  await close();
}

/** A stream that alone reaches the real stdout; process.stdout's own writes go to stderr from now on. */
function claimStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      write(chunk, (error) => done(error ?? null));
    },
  });
}
