import type { S3Client } from "@aws-sdk/client-s3";
import { objectStoreClientError } from "./object-store-errors.js";

/**
 * The objects of a store in an S3 bucket, for the two repair steps LanceDB cannot do: copying a
 * damaged table's objects aside, and moving a damaged version file aside. The AWS SDK is imported
 * when a repair first needs it (~150 ms, 22 MB), never by a command's start. It is given the
 * settings LanceDB is: `storage.options` over the AWS_* variables, path-style addressing for a
 * custom endpoint as LanceDB uses, and without keys the SDK's own chain (profiles, SSO, instance
 * roles), as LanceDB's. Every failure is the house's object-store message (object-store-errors.ts).
 */
export class BucketObjects {
  private constructor(
    private readonly client: S3Client,
    private readonly sdk: typeof import("@aws-sdk/client-s3"),
    private readonly uri: string,
    readonly bucket: string,
    /** The store's key prefix: "" for a store at the bucket's root, else ending in "/". */
    readonly prefix: string,
  ) {}

  /** The objects of the store at `uri` (s3://bucket/path), or undefined for a store elsewhere (local, gs://, az://). */
  static async open(uri: string, options: Record<string, string>, env: NodeJS.ProcessEnv): Promise<BucketObjects | undefined> {
    const location = s3Location(uri);
    if (!location) return undefined;
    // Its warning that versions from 2027 need Node 22 is for its own users, not mnemo's (mnemo says which Node it needs).
    process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
    const sdk = await import("@aws-sdk/client-s3");
    return new BucketObjects(new sdk.S3Client(clientSettings(options, env)), sdk, uri, location.bucket, location.prefix);
  }

  /** The s3:// URI of a key below the store's, for the user. */
  uriOf(key: string): string {
    return s3Uri({ bucket: this.bucket, prefix: this.prefix }, key);
  }

  /** The names of the objects under `folder` (a key prefix below the store's, ending in "/"), relative to it. */
  async list(folder: string): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.answer(
        this.client.send(
          new this.sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + folder, ContinuationToken: token }),
        ),
      );
      for (const { Key } of page.Contents ?? []) if (Key) names.push(Key.slice(this.prefix.length + folder.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return names;
  }

  /** Every object under `from` copied, in the bucket, to the same name under `to` (both folders below the store's); how many. */
  async copyFolder(from: string, to: string): Promise<number> {
    const names = await this.list(from);
    for (const name of names) await this.copy(from + name, to + name);
    return names.length;
  }

  /** An object renamed: copied, then the original deleted. */
  async move(from: string, to: string): Promise<void> {
    await this.copy(from, to);
    await this.answer(this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + from })));
  }

  close(): void {
    this.client.destroy();
  }

  /** A server-side copy: the bytes never pass through this machine. */
  private async copy(from: string, to: string): Promise<void> {
    // The source is "bucket/key", URL-encoded but for its slashes.
    const source = `${this.bucket}/${(this.prefix + from).split("/").map(encodeURIComponent).join("/")}`;
    await this.answer(this.client.send(new this.sdk.CopyObjectCommand({ Bucket: this.bucket, Key: this.prefix + to, CopySource: source })));
  }

  /** A request's answer, or the house's message for its failure. */
  private async answer<T>(request: Promise<T>): Promise<T> {
    try {
      return await request;
    } catch (error) {
      throw objectStoreClientError(error, this.uri);
    }
  }
}

/** The bucket and key prefix ("" at the root, else ending in "/") of a store on S3 (s3://, s3+ddb://); undefined for any other. */
export function s3Location(uri: string): { bucket: string; prefix: string } | undefined {
  const found = /^s3(\+ddb)?:\/\/([^/?]+)\/?([^?]*)/i.exec(uri);
  if (!found) return undefined;
  const path = found[3]!.replace(/\/+$/, "");
  return { bucket: found[2]!, prefix: path ? `${path}/` : "" };
}

/** The s3:// URI of `key` below the store's prefix. */
export function s3Uri(location: { bucket: string; prefix: string }, key: string): string {
  return `s3://${location.bucket}/${location.prefix}${key}`;
}

/**
 * The S3 client's settings from LanceDB's: each of its option names (object_store's, any case),
 * then the AWS_* variable it reads. Without an endpoint, the SDK finds AWS's own.
 */
function clientSettings(options: Record<string, string>, env: NodeJS.ProcessEnv) {
  const given = new Map(Object.entries(options).map(([key, value]) => [key.toLowerCase(), value]));
  const setting = (names: string[]) => names.map((name) => given.get(name) ?? given.get(`aws_${name}`)).find(Boolean);
  const fromEnv = (names: string[]) => names.map((name) => env[`AWS_${name.toUpperCase()}`]).find(Boolean);
  const value = (...names: string[]) => setting(names) ?? fromEnv(names);
  const endpoint = value("endpoint", "endpoint_url");
  const accessKeyId = value("access_key_id");
  const secretAccessKey = value("secret_access_key");
  const sessionToken = value("session_token", "token");
  const virtualHosted = value("virtual_hosted_style_request") === "true";
  return {
    region: value("region", "default_region") ?? "us-east-1",
    ...(endpoint ? { endpoint, forcePathStyle: !virtualHosted } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, sessionToken } } : {}),
    followRegionRedirects: true,
    // Checksums only where S3 requires them: S3-compatible servers (older Ceph, MinIO) refuse the newer headers.
    requestChecksumCalculation: "WHEN_REQUIRED" as const,
    responseChecksumValidation: "WHEN_REQUIRED" as const,
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  };
}
