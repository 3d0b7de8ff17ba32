import S3rver from "s3rver";
import { tempDir } from "./temp-dirs.js";

export interface S3Server {
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

/**
 * An S3-compatible server in this process (s3rver, files in a temp dir) on a random port of
 * 127.0.0.1, with `bucket` made. Good for one writer at a time only: it ignores conditional PUTs
 * and writes objects in place, so it cannot stand in for S3 under concurrent commits. It accepts
 * any secret for its one key id, S3RVER. Children that use it must be spawned asynchronously: a
 * synchronous child blocks its event loop.
 */
export async function startS3Server(bucket = "mnemo"): Promise<S3Server> {
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory: tempDir("s3rver-"),
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, bucket, close: () => server.close() };
}
