import fs from "node:fs";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BucketObjects } from "../../src/store/bucket-objects.js";
import { StorageFaultError } from "../../src/store/storage-faults.js";
import { isolatedEnv, openTestApp, runCli } from "../helpers.js";
import { startS3Server, storageOptionsFor, type S3Server } from "../s3-server.js";

// The SDK's notice that its versions from 2027 need Node 22, which the repair's client leaves out too (store/bucket-objects.ts).
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] = "true";

/**
 * `mnemo doctor --repair` on a store in a bucket does what it does on a local store: it copies a
 * damaged table's objects aside first (in the bucket, below the store's prefix), and salvages the
 * trash, which nothing else holds, at its previous version when its newest version file is
 * damaged. One damaged bucket for every case: a repair cut by an outage, then one that finishes.
 */
describe("doctor --repair on a store on object storage (s3rver)", () => {
  let s3: S3Server;
  let env: NodeJS.ProcessEnv;
  let client: S3Client;
  const options = () => storageOptionsFor(s3);
  /** Every object of the damaged tables as the repair found them, by key below the store's prefix. */
  const damaged = new Map<string, Buffer>();

  const keysUnder = async (prefix: string) =>
    ((await client.send(new ListObjectsV2Command({ Bucket: "mnemo", Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
  const bytesOf = async (key: string) =>
    Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: "mnemo", Key: key }))).Body!.transformToByteArray());
  /** An object cut to half its length, as a write cut short leaves it. */
  const cut = async (key: string) => {
    const bytes = await bytesOf(key);
    await client.send(new PutObjectCommand({ Bucket: "mnemo", Key: key, Body: bytes.subarray(0, bytes.length >> 1) }));
  };
  /** The memories' texts and the trash's titles, read as a command reads them. */
  const contents = async () => {
    const app = await openTestApp({ store: "s3://mnemo/db" }, {}, env);
    try {
      const me = await app.service();
      const memories = (await me.memories.listV2({ all: true, includeIds: true })).memories as { text: string }[];
      return { memories: memories.map((memory) => memory.text), trash: (await me.trash.list()).items.map((item) => item.title).sort() };
    } finally {
      await app.close();
    }
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "x" },
    });
    env = isolatedEnv({ MNEMO_STORE: "s3://mnemo/db", MNEMO_EMBEDDER: "bundled" });
    const dataDir = path.join(env["HOME"]!, ".mnemo");
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ storage: { options: options() } }));
    const app = await openTestApp({ store: "s3://mnemo/db" }, {}, env);
    const me = await app.service();
    await me.memories.store({ text: "My dentist is Dr Silva" });
    // Two moves to the trash, two versions of it: the second one's version file is damaged below.
    for (const text of ["The old locker code was 4512", "The spare key is under the mat"])
      await me.trash.move({ memoryIds: [(await me.memories.store({ text })).memoryId] });
    await app.close();
    expect((await contents()).trash).toEqual(["The old locker code was 4512", "The spare key is under the mat"]);

    // Every data object of the memories table cut short, and the trash's newest version file: the
    // newest sorts first (LanceDB's names count down).
    for (const key of (await keysUnder("db/memories.lance/data/")).filter((k) => k.endsWith(".lance"))) await cut(key);
    const [newest] = (await keysUnder("db/trash.lance/_versions/")).filter((key) => key.endsWith(".manifest")).sort();
    await cut(newest!);
    for (const key of [...(await keysUnder("db/memories.lance/")), ...(await keysUnder("db/trash.lance/"))])
      damaged.set(key.slice("db/".length), await bytesOf(key));
  }, 120_000);
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
  });

  it("stops with the object store's message when the bucket goes away during the copy, the store untouched", async () => {
    s3.downAfterMatching(/^PUT \/mnemo\/db\/recovered\//);
    const repair = await runCli(["doctor", "--repair"], { env });
    s3.setDown(false);
    expect(repair.code).not.toBe(0);
    expect(repair.stderr).toContain("The object store behind s3://mnemo/db cannot be reached");
    expect(repair.stderr).not.toMatch(/ECONNRESET|socket hang up|\$metadata|at .*node_modules/);
    // Nothing was salvaged: every object of the damaged tables is as it was.
    for (const [key, bytes] of damaged) expect((await bytesOf(`db/${key}`)).equals(bytes), key).toBe(true);
  }, 60_000);

  it("copies the damaged tables aside in the bucket and salvages the trash at its previous version", async () => {
    const repair = await runCli(["--json", "doctor", "--repair"], { env });
    expect(repair.code, repair.stdout + repair.stderr).toBe(0);
    const { plan, actions, after } = JSON.parse(repair.stdout) as { plan: string[]; actions: string[]; after: { findings: [] } };
    expect(after.findings).toEqual([]);
    expect(plan.join("\n")).toContain("copied to s3://mnemo/db/recovered/<time>/ first");
    for (const table of ["memories", "trash"]) {
      const action = actions.find((line) => line.startsWith(`${table}:`)) ?? "";
      const copy = /its damaged files are in s3:\/\/mnemo\/(db\/recovered\/[^/]+\/)/.exec(action)?.[1];
      expect(copy, action).toBeDefined();
      // The copy holds every object the damaged table had, byte for byte.
      const copied = await keysUnder(`${copy}${table}.lance/`);
      const originals = [...damaged.keys()].filter((key) => key.startsWith(`${table}.lance/`));
      expect(copied.map((key) => key.slice(copy!.length)).sort()).toEqual(originals.sort());
      for (const key of originals) expect((await bytesOf(copy + key)).equals(damaged.get(key)!), key).toBe(true);
    }
    expect(actions.find((line) => line.startsWith("trash:"))).toContain("at its previous version");
    // The memory moved to the trash first is there; the one moved last went with the damaged version.
    expect(await contents()).toEqual({ memories: ["My dentist is Dr Silva"], trash: ["The old locker code was 4512"] });
  }, 120_000);

  it("finds the bucket through the AWS_* variables LanceDB reads, when config.json gives no options", async () => {
    const variables = { AWS_ENDPOINT: s3.endpoint, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "x" };
    const bucket = await BucketObjects.open("s3://mnemo/db/", {}, variables);
    try {
      expect(await bucket!.list("meta.lance/_versions/")).toContainEqual(expect.stringMatching(/^\d+\.manifest$/));
    } finally {
      bucket?.close();
    }
  });

  it("says no keys were found, naming the settings, when there are none anywhere", async () => {
    // The SDK's chain reads this process's environment: no keys, no profile file, no instance to ask.
    const saved = { ...process.env };
    const names = Object.keys(process.env).filter((name) => name.startsWith("AWS_") && !name.includes("WARNING"));
    for (const name of names) delete process.env[name];
    const unset = { AWS_EC2_METADATA_DISABLED: "true", AWS_SHARED_CREDENTIALS_FILE: "/nonexistent", AWS_CONFIG_FILE: "/nonexistent" };
    Object.assign(process.env, unset);
    const bucket = await BucketObjects.open("s3://mnemo/db", { aws_endpoint: s3.endpoint, region: "us-east-1" }, {});
    try {
      const refused = await bucket!.list("trash.lance/").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StorageFaultError);
      expect((refused as StorageFaultError).message).toBe("No keys were found for the object store behind s3://mnemo/db");
      expect((refused as StorageFaultError).suggestion).toContain("AWS_ACCESS_KEY_ID");
    } finally {
      bucket?.close();
      for (const name of Object.keys(unset)) delete process.env[name];
      for (const name of [...names, ...Object.keys(unset)]) if (saved[name] !== undefined) process.env[name] = saved[name];
    }
  });

  it("says the object store refused, naming the keys, when its keys are wrong", async () => {
    const bucket = await BucketObjects.open("s3://mnemo/db", { ...options(), aws_access_key_id: "NOBODY" }, {});
    try {
      const refused = await bucket!.list("trash.lance/").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StorageFaultError);
      expect((refused as StorageFaultError).message).toMatch(/^The object store refused s3:\/\/mnemo\/db: InvalidAccessKeyId/);
      expect((refused as StorageFaultError).suggestion).toContain("Check the keys");
    } finally {
      bucket?.close();
    }
  });
});
