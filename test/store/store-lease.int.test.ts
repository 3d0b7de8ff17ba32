import * as lancedb from "@lancedb/lancedb";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { threadId } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableSchema } from "../../src/store/schema.js";
import { runInThread } from "../../src/cli/thread.js";
import { AppError } from "../../src/shared/errors.js";
import { machineId, StoreLease } from "../../src/store/store-lease.js";
import { startS3Server, type S3Server } from "../s3-server.js";

/** Two "machines": two connections to one meta table in the bucket, each with its lease. */
async function machines(s3: S3Server, uri: string, leaseMs?: number) {
  const storageOptions = {
    aws_endpoint: s3.endpoint,
    allow_http: "true",
    region: "us-east-1",
    aws_access_key_id: "S3RVER",
    aws_secret_access_key: "x",
  };
  const first = await lancedb.connect(uri, { readConsistencyInterval: 0, storageOptions });
  const meta = await first.createEmptyTable("meta", tableSchema("meta", 4));
  await meta.add([{ key: "counter", value: "0" }]);
  const second = await lancedb.connect(uri, { readConsistencyInterval: 0, storageOptions });
  const tables = [meta, await second.openTable("meta")];
  return {
    meta,
    leases: tables.map((table, i) => new StoreLease((work) => work(table), `${i}a`, leaseMs)),
    close: () => [first, second].forEach((db) => db.close()),
  };
}

/** The id of a worker thread the CLI's runInThread ran (one that says its id and ends), once it has ended. */
async function threadThatEnded(): Promise<number> {
  const stdout = new PassThrough();
  const io = { env: {}, stdin: new PassThrough(), stdout, stderr: new PassThrough(), exitCode: 0 };
  const module = new URL(
    `data:text/javascript,${encodeURIComponent('import { threadId } from "node:worker_threads"; console.log(threadId);')}`,
  );
  const options = {
    module,
    job: {},
    oldGenerationMb: 64,
    youngGenerationMb: 16,
    outOfMemory: () => new AppError("internal", "out of memory"),
    what: "the thread",
  };
  // It sends no result: runInThread says it stopped unexpectedly, after its exit.
  await expect(runInThread(options, { status: () => undefined, notice: () => undefined }, io)).rejects.toThrow(/stopped unexpectedly/);
  return Number(String(stdout.read()).trim());
}

/** A read-then-write no other writer may interleave with: the counter goes up by one, unconditionally. */
async function increment(meta: lancedb.Table): Promise<void> {
  const [row] = await meta.query().where("key = 'counter'").toArray();
  await meta.update({ where: "key = 'counter'", valuesSql: { value: `'${Number(row.value) + 1}'` } });
}

async function counter(meta: lancedb.Table): Promise<number> {
  const [row] = await meta.query().where("key = 'counter'").toArray();
  return Number(row.value);
}

describe("the writer lease of a store on object storage", () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it("lets one machine's read-then-write run at a time: no increment is lost", async () => {
    const { meta, leases, close } = await machines(s3, "s3://mnemo/turns");
    await Promise.all(
      leases.map(async (lease) => {
        for (let i = 0; i < 8; i++) {
          const release = await lease.acquire();
          await increment(meta).finally(release);
        }
      }),
    );
    expect(await counter(meta)).toBe(16);
    close();
  });

  it("stays exclusive when both machines add the first lease row at once", async () => {
    const { meta, leases, close } = await machines(s3, "s3://mnemo/twin-rows");
    await meta.add([
      { key: "writer", value: "" },
      { key: "writer", value: "" },
    ]);
    await Promise.all(
      leases.map(async (lease) => {
        for (let i = 0; i < 5; i++) {
          const release = await lease.acquire();
          await increment(meta).finally(release);
        }
      }),
    );
    expect(await counter(meta)).toBe(10);
    close();
  });

  it("is taken over from a holder that stopped renewing it", async () => {
    const { meta, leases, close } = await machines(s3, "s3://mnemo/takeover", 600);
    await meta.add([{ key: "writer", value: "gone-host:1234:0" }]);
    const release = await leases[0]!.acquire();
    const [row] = await meta.query().where("key = 'writer'").toArray();
    expect(row.value).toMatch(/^[^:@]+@0a:\d+:t\d+:[0-9a-f-]{36}$/);
    expect(row.value.startsWith("gone-host")).toBe(false);
    await release();
    expect((await meta.query().where("key = 'writer'").toArray()).map((lease) => lease.value)).toEqual([""]);
    close();
  });

  it("left behind by this process, or a process of this machine that has ended (its release cut by an outage), is taken again at once; another's is waited out", async () => {
    const { meta, close } = await machines(s3, "s3://mnemo/left-here");
    const hour = 3_600_000;
    let reachable = true;
    const cut = new StoreLease(
      (work) => (reachable ? work(meta) : Promise.reject(new Error("the object store cannot be reached"))),
      "0b",
      hour,
    );
    const release = await cut.acquire();
    reachable = false;
    await release();
    reachable = true;
    const [left] = (await meta.query().where("key = 'writer'").toArray()).map((lease) => lease.value as string);
    expect(left).toMatch(new RegExp(`@0b:${process.pid}:`));
    const soon = <T>(work: Promise<T>) =>
      Promise.race([work.then(() => "taken"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 3_000))]);
    // Not an hour: nobody holds it, and this process knows.
    const next = new StoreLease((work) => work(meta), "0b", hour);
    const taking = next.acquire();
    expect(await soon(taking)).toBe("taken");
    await (await taking)();
    const ended = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    const stampOf = (machine: string, pid: number, thread = threadId) =>
      left!.replace(`@0b:${process.pid}:t${threadId}:`, `@${machine}:${pid}:t${thread}:`);
    const held = async (stamp: string) => {
      await meta.update({ where: "key = 'writer'", valuesSql: { value: `'${stamp}'` } });
      const acquiring = next.acquire();
      const state = await soon(acquiring);
      await meta.update({ where: "key = 'writer'", valuesSql: { value: "''" } });
      await (await acquiring)();
      return state;
    };
    // A process of this machine that has ended holds nothing, nor a thread of this process that has
    // ended (an import's worker thread, recorded as the CLI's runInThread records it).
    expect(await held(stampOf("0b", ended))).toBe("taken");
    const endedThread = await threadThatEnded();
    expect(await held(stampOf("0b", process.pid, endedThread))).toBe("taken");
    // Another process of this machine that runs, another thread of this process that may run, or
    // another machine's process may hold it (a pid here says nothing of a process there).
    for (const other of [stampOf("0b", process.ppid), stampOf("0b", process.pid, endedThread + 1), stampOf("1c", ended)]) {
      expect(await held(other), other).toBe("waiting");
    }
    close();
  });

  it("keeps the machine's id in its data dir, readable by its owner only", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-machine-"));
    const id = machineId(dir);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(machineId(dir)).toBe(id);
    expect(fs.statSync(path.join(dir, "machine-id")).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true });
  });
});
