import { fileSystemFault, StorageFaultError } from "./storage-faults.js";

const SETTINGS =
  "the endpoint (AWS_ENDPOINT, or aws_endpoint in config.json's storage.options), the region and the keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)";

/**
 * The marks of an object store's error in LanceDB's text: its debug form (`store: "S3"`) or its
 * display form ("Generic S3 error: …", which a failed commit's PUT gives), for the remote stores only.
 */
const OBJECT_STORE = /store: "\w+"|object_store|ObjectStore|Generic (S3|GCS|MicrosoftAzure|HTTP) error/;

/**
 * An object store's refusal or silence, said in a sentence, from the text LanceDB wraps it in
 * (a Rust debug dump of several hundred characters); undefined for any other error.
 */
export function objectStoreError(error: unknown, uri: string): StorageFaultError | undefined {
  if (!(error instanceof Error) || !OBJECT_STORE.test(error.message)) return undefined;
  const text = error.message;
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]+)<\/Message>/.exec(text)?.[1];
  const status = /status: (\d{3})/.exec(text)?.[1];
  if (code || status) return refused(uri, code, message, status, error);
  if (/Connect|connection|dns error|timed out|tcp connect|error sending request/i.test(text))
    return new ObjectStoreUnreachableError(uri, error);
  return undefined;
}

/**
 * A failed request of the AWS SDK's S3 client (store/bucket-objects.ts) in the same words: the
 * server's answer when there was one, else (a connection refused or cut, a timeout, no keys found)
 * the store cannot be reached. Every error of the client is one: none reaches the user raw.
 */
export function objectStoreClientError(error: unknown, uri: string): StorageFaultError {
  const failed = error instanceof Error ? error : new Error(String(error));
  const status = (failed as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status !== undefined) return refused(uri, failed.name, failed.message, String(status), failed);
  if (failed.name === "CredentialsProviderError")
    return new StorageFaultError(`No keys were found for the object store behind ${uri}`, `Check ${SETTINGS}.`, failed);
  return new ObjectStoreUnreachableError(uri, failed);
}

function refused(uri: string, code: string | undefined, message: string | undefined, status: string | undefined, error: Error) {
  const answer = [code, message].filter(Boolean).join(": ") || `status ${status}`;
  return new StorageFaultError(`The object store refused ${uri}: ${answer}`, refusalFix(code, status), error);
}

/** The object store did not answer at all (a connection refused or cut, a timeout): unlike a refusal, its other requests just now would not either. */
export class ObjectStoreUnreachableError extends StorageFaultError {
  constructor(uri: string, cause: Error) {
    super(
      `The object store behind ${uri} cannot be reached`,
      `Check that it runs and answers, and ${SETTINGS}; for an http:// endpoint set AWS_ALLOW_HTTP=true. What was stored before stays stored: run the command again once it answers.`,
      cause,
    );
  }
}

function refusalFix(code: string | undefined, status: string | undefined): string {
  if (code === "NoSuchBucket" || status === "404") return "Create the bucket first, or fix its name in --store (or MNEMO_STORE).";
  if (status?.startsWith("5") || /InternalError|ServiceUnavailable|SlowDown/.test(code ?? ""))
    return "The object store failed on its side: what was stored before stays stored; run the command again once it works (its own logs say why).";
  if (status === "403" || status === "401" || /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch/.test(code ?? "")) {
    return "Check the keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, or storage.options in config.json) and that they may read and write the bucket.";
  }
  return `Check ${SETTINGS}.`;
}

/**
 * A failing object store or file system under the store at `uri`, read from, as one error; undefined
 * for any other error (a damaged file among them: that is the store's, not the disk's).
 */
export function storageFaultOf(error: unknown, uri: string): StorageFaultError | undefined {
  if (error instanceof StorageFaultError) return error;
  return objectStoreError(error, uri) ?? fileSystemFault(error, uri, "read");
}
