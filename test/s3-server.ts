import http from "node:http";
import type { AddressInfo } from "node:net";
import S3rver from "s3rver";
import { tempDir } from "./temp-dirs.js";

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** While down, every request's connection is cut as it arrives, as a server lost mid-command cuts them. */
  setDown(down: boolean): void;
  /** Down once `count` more requests have come (each one answered): an outage at a chosen point of a command. */
  downAfter(count: number): void;
  /** Down once the `nth` request from now whose method and path match has come (it is answered): an outage right after a chosen commit. */
  downAfterMatching(pattern: RegExp, nth?: number): void;
  /** The method and path of each request, in order. */
  requests: { method: string; path: string }[];
  /** Those of each request cut while down, in order. */
  cut: { method: string; path: string }[];
  close(): Promise<void>;
}

/**
 * An S3-compatible server in this process on a random port of 127.0.0.1, with `bucket` made: s3rver
 * (files in a temp dir) behind a front that gives it what S3 guarantees and it lacks, so that tests
 * can run writers on several machines at once. s3rver ignores `If-None-Match: *` on a PUT (LanceDB
 * commits each version that way, and a second commit of one version silently replaced the first)
 * and writes an object in place, readable and listed half-written. The front answers such a PUT of
 * an existing key with 412, as S3 does, and holds reads and listings while objects are being written. It accepts any
 * secret for its one key id, S3RVER. Children that use it must be spawned asynchronously: a
 * synchronous child blocks its event loop.
 */
export async function startS3Server(bucket = "mnemo"): Promise<S3Server> {
  const backend = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory: tempDir("s3rver-"),
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port: backendPort } = await backend.run();
  let down = false;
  let downAt = Number.POSITIVE_INFINITY;
  let downAfterMatch: { pattern: RegExp; left: number } | undefined;
  const requests: S3Server["requests"] = [];
  const cut: S3Server["cut"] = [];
  const front = http.createServer((request, response) => {
    if (down || requests.length >= downAt) {
      down = true;
      cut.push({ method: request.method ?? "", path: request.url ?? "" });
      return void request.socket.destroy();
    }
    requests.push({ method: request.method ?? "", path: request.url ?? "" });
    if (downAfterMatch?.pattern.test(`${request.method} ${request.url}`) && --downAfterMatch.left === 0) {
      downAfterMatch = undefined;
      downAt = requests.length;
    }
    frontRequest(backendPort, request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const { port } = front.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    setDown: (value) => {
      down = value;
      downAt = Number.POSITIVE_INFINITY;
      downAfterMatch = undefined;
      if (value) front.closeAllConnections();
    },
    downAfter: (count) => {
      downAt = requests.length + count;
    },
    downAfterMatching: (pattern, nth = 1) => {
      downAfterMatch = { pattern, left: nth };
    },
    requests,
    cut,
    close: async () => {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await backend.close();
    },
  };
}

/** The storage options that reach `s3` with its one key id, as config.json's `storage.options` gives them. */
export function storageOptionsFor(s3: S3Server): Record<string, string> {
  return {
    aws_endpoint: s3.endpoint,
    allow_http: "true",
    region: "us-east-1",
    aws_access_key_id: "S3RVER",
    aws_secret_access_key: "any-secret",
  };
}

/** Writes under way, by object path: a later write of the key waits for them, a read too. */
const writing = new Map<string, Promise<void>>();

/**
 * Holders of one kind at a time, any number of them: listings and writes exclude each other, as
 * s3rver lists an object it is still writing, with the size it has so far (LanceDB then read a
 * version file of 0 bytes: "Range started at 0 and ended at 0").
 */
class KindLock<Kind extends string> {
  private kind: Kind | undefined;
  private holders = 0;
  private readonly waiting: { kind: Kind; start: () => void }[] = [];

  async take(kind: Kind): Promise<void> {
    if (this.holders === 0 || (this.kind === kind && this.waiting.length === 0)) {
      this.kind = kind;
      this.holders++;
      return;
    }
    await new Promise<void>((start) => this.waiting.push({ kind, start }));
  }

  release(): void {
    if (--this.holders > 0 || this.waiting.length === 0) return;
    this.kind = this.waiting[0]!.kind;
    for (const next of this.waiting.filter((entry) => entry.kind === this.kind)) {
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.holders++;
      next.start();
    }
  }
}

const listingsOrWrites = new KindLock<"list" | "write">();

async function frontRequest(backendPort: number, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://front");
  const key = url.pathname;
  // A part of a multipart upload is not the object yet; its completion (POST ?uploadId) is.
  const writes =
    (request.method === "PUT" && !url.searchParams.has("uploadId")) || (request.method === "POST" && url.searchParams.has("uploadId"));
  if (writes) return write(backendPort, key, request, response);
  const lists = request.method === "GET" && key.split("/").filter(Boolean).length <= 1;
  if (!lists) {
    await writing.get(key);
    return forward(backendPort, request, response);
  }
  await listingsOrWrites.take("list");
  try {
    await forward(backendPort, request, response);
  } finally {
    listingsOrWrites.release();
  }
}

async function write(backendPort: number, key: string, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const before = writing.get(key) ?? Promise.resolve();
  let done: () => void = () => undefined;
  const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  writing.set(key, mine);
  await before;
  await listingsOrWrites.take("write");
  try {
    if (request.headers["if-none-match"] === "*" && (await exists(backendPort, key))) return await preconditionFailed(request, response);
    await forward(backendPort, request, response);
  } finally {
    listingsOrWrites.release();
    done();
    if (writing.get(key) === mine) writing.delete(key);
  }
}

function forward(backendPort: number, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const upstream = http.request(
      { host: "127.0.0.1", port: backendPort, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.on("end", resolve);
        answer.on("error", reject);
      },
    );
    upstream.on("error", reject);
    request.pipe(upstream);
  });
}

function exists(backendPort: number, key: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const head = http.request({ host: "127.0.0.1", port: backendPort, method: "HEAD", path: key }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    head.on("error", reject);
    head.end();
  });
}

async function preconditionFailed(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  for await (const _ of request); // the body is not wanted, but must be read before the answer
  response.writeHead(412, { "content-type": "application/xml" });
  response.end(
    '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>',
  );
}
