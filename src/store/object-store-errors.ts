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
  if (code || status) {
    const answer = [code, message].filter(Boolean).join(": ") || `status ${status}`;
    return new StorageFaultError(`The object store refused ${uri}: ${answer}`, refusalFix(code, status), error);
  }
  if (/Connect|connection|dns error|timed out|tcp connect|error sending request/i.test(text)) {
    return new StorageFaultError(
      `The object store behind ${uri} cannot be reached`,
      `Check that it runs and answers, and ${SETTINGS}; for an http:// endpoint set AWS_ALLOW_HTTP=true. What was stored before stays stored: run the command again once it answers.`,
      error,
    );
  }
  return undefined;
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
  return objectStoreError(error, uri) ?? fileSystemFault(error, uri, "read");
}
