import fs from "node:fs";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli } from "../helpers.js";
import { startS3Server, storageOptionsFor, type S3Server } from "../s3-server.js";

/**
 * `mnemo doctor` on a store in a bucket checks the pictures of image memories, which are rows of
 * its `images` table there, as it checks a local store's picture files.
 */
describe("doctor on a store on object storage (s3rver)", () => {
  let s3: S3Server;
  let env: NodeJS.ProcessEnv;
  const options = () => storageOptionsFor(s3);

  beforeAll(async () => {
    s3 = await startS3Server();
    env = isolatedEnv({ MNEMO_STORE: "s3://mnemo/db", MNEMO_EMBEDDER: "bundled" });
    const dataDir = path.join(env["HOME"]!, ".mnemo");
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ storage: { options: options() } }));
  });
  afterAll(async () => {
    await s3?.close();
  });

  it("names a picture whose bytes in the bucket are cut short, and keeps its memory", async () => {
    const picture = path.join(ROOT, "fixtures", "images", "red-square.png");
    const stored = await runCli(["--json", "remember", "--image", picture, "--description", "the logo draft"], { env });
    expect(stored.code, stored.stderr).toBe(0);
    const { memoryId } = JSON.parse(stored.stdout) as { memoryId: string };
    const healthy = await runCli(["doctor"], { env });
    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(0);

    // The row's bytes cut short, as a broken upload or a careless copy of the bucket leaves them.
    const db = await lancedb.connect("s3://mnemo/db", { storageOptions: options() });
    const images = await db.openTable("images");
    const [row] = (await images.query().toArray()) as { file: string; userId: string; data: Uint8Array }[];
    await images.delete(`file = '${row!.file}'`);
    await images.add([{ file: row!.file, userId: row!.userId, data: Buffer.from(row!.data).subarray(0, 40) }]);
    images.close();
    db.close();

    const doctor = await runCli(["--json", "doctor"], { env });
    expect(doctor.code).toBe(1);
    const { findings } = JSON.parse(doctor.stdout) as { findings: { table: string; what: string }[] };
    expect(findings).toEqual([expect.objectContaining({ table: "images", what: expect.stringContaining(memoryId) })]);
    const listed = await runCli(["--json", "memories", "--type", "image"], { env });
    expect(listed.stdout).toContain(memoryId);
  });
});
