import { describe, expect, it } from "vitest";
import { objectStoreError, storageFaultOf } from "../../src/store/object-store-errors.js";
import { fileSystemFault } from "../../src/store/storage-faults.js";

/** LanceDB's texts as an S3-compatible server lost or refusing gave them (test/store/object-storage.int.test.ts). */
const SEEN = {
  commitCut:
    "lance error: LanceError(IO): Generic S3 error: Error performing PUT http://127.0.0.1:46167/mnemo/outage/conversations.lance/_versions/18446744073709551613.manifest in 288.165518ms, after 2 retries, max_retries: 2, retry_timeout: 5s  - HTTP error: error sending request, /usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-table-10.0.0/src/io/commit.rs:1519:50  Caused by: client error (SendRequest)  Caused by: connection closed before message completed",
  noBucket:
    'Generic { store: "S3", source: ListRequest { source: RetryError { status: Some(404), body: Some("<?xml version=\\"1.0\\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>") } } }',
  serverError:
    'Generic { store: "S3", source: RetryError { status: Some(503), body: Some("<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate</Message></Error>") } }',
  localIo:
    "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to rename file: Input/output error (os error 5), /usr/local/cargo/registry/src/x.rs:1:2",
};

describe("objectStoreError", () => {
  it("says in a sentence what the object store did, with the URI and what to check", () => {
    const say = (text: string) => objectStoreError(new Error(text), "s3://mnemo/db");
    expect(say(SEEN.commitCut)?.message).toBe("The object store behind s3://mnemo/db cannot be reached");
    expect(say(SEEN.commitCut)?.suggestion).toMatch(/run the command again once it answers/);
    expect(say(SEEN.noBucket)?.message).toBe("The object store refused s3://mnemo/db: NoSuchBucket: The specified bucket does not exist");
    expect(say(SEEN.serverError)?.suggestion).toMatch(/failed on its side: what was stored before stays stored/);
    expect(say(SEEN.localIo)).toBeUndefined();
  });

  it("a local disk's fault is the file system's, read or written; a damaged file is neither", () => {
    expect(fileSystemFault(new Error(SEEN.localIo), "/data")?.message).toBe(
      'The store at /data could not be written: its file system answered "Input/output error"',
    );
    expect(storageFaultOf(new Error(SEEN.localIo), "/data")?.message).toMatch(/could not be read/);
    expect(storageFaultOf(new Error("Generic LocalFileSystem error: failed to fill whole buffer"), "/data")).toBeUndefined();
  });
});
