import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, isolatedEnv, ROOT, runCli, spawnCli, startCommand, tempDir, type CliResult } from "../helpers.js";
import { writeChatsFile } from "../generated-chats.js";
import { startS3Server, type S3Server } from "../s3-server.js";

// s3rver checks the key id only, so each machine's secret is a marker no output may contain.
const ENV_SECRET = "env-secret-5f0c1d77";
const FILE_SECRET = "file-secret-9a7e3b42";
const STORE = "s3://mnemo/db";

/** A "machine": its own home (so its own local data dir), the store in the bucket. */
interface Machine {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** How its commands run: the CLI's program in this process, unless a test needs processes of their own. */
  run: typeof runCli;
}

/**
 * Credentials from the standard AWS_* variables, as LanceDB reads them: from its process's
 * environment, so that they are this process's while each of the machine's commands runs here
 * (a command spawned gets them in its own, as a user's shell gives them).
 */
function envMachine(s3: S3Server): Machine {
  const aws = {
    AWS_ENDPOINT: s3.endpoint,
    AWS_ALLOW_HTTP: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: ENV_SECRET,
  };
  const env = isolatedEnv({ MNEMO_STORE: STORE, MNEMO_EMBEDDER: "bundled", ...aws });
  const run: typeof runCli = async (args, options) => {
    const before = Object.fromEntries(Object.keys(aws).map((name) => [name, process.env[name]]));
    Object.assign(process.env, aws);
    try {
      return await runCli(args, options);
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  };
  return { env, dataDir: path.join(env["HOME"]!, ".mnemo"), run };
}

/** Credentials from `storage.options` in the local data dir's config.json. */
function fileMachine(s3: S3Server, store = STORE, extra: Record<string, string> = {}): Machine {
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const dataDir = path.join(env["HOME"]!, ".mnemo");
  fs.mkdirSync(dataDir, { recursive: true });
  const options = {
    aws_endpoint: s3.endpoint,
    allow_http: "true",
    region: "us-east-1",
    aws_access_key_id: "S3RVER",
    aws_secret_access_key: FILE_SECRET,
    ...extra,
  };
  fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ storage: { options } }));
  return { env, dataDir, run: runCli };
}

/**
 * `work`, the commands an outage meets, without the client's retries (`client_max_retries` 0, a
 * setting a user may choose): the outage outlasts any, and each cut command waited out the retries
 * of its first failed request (~4 s at one retry). The commands before and after keep their retry,
 * in case the server closes an idle connection as a request goes out on it.
 */
async function withoutRetries<T>(machine: Machine, work: () => Promise<T>): Promise<T> {
  const file = path.join(machine.dataDir, "config.json");
  const kept = fs.readFileSync(file, "utf8");
  const config = JSON.parse(kept) as { storage: { options: Record<string, string> } };
  config.storage.options["client_max_retries"] = "0";
  fs.writeFileSync(file, JSON.stringify(config));
  try {
    return await work();
  } finally {
    fs.writeFileSync(file, kept);
  }
}

const outputs: string[] = [];

async function cli(machine: Machine, args: string[]): Promise<CliResult> {
  const result = await machine.run(args, { env: machine.env });
  outputs.push(result.stdout, result.stderr);
  return result;
}

async function ok(machine: Machine, args: string[]): Promise<string> {
  const result = await cli(machine, args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** `mnemo doctor` finds nothing wrong: no rows twice, none that nothing refers to, none lost. */
async function expectHealthy(machine: Machine): Promise<void> {
  const doctor = await cli(machine, ["--json", "doctor"]);
  expect(doctor.code, doctor.stderr).toBe(0);
  expect((JSON.parse(doctor.stdout) as { findings: unknown[] }).findings).toEqual([]);
}

async function queried(machine: Machine, query: string): Promise<string[]> {
  const listed = JSON.parse(await ok(machine, ["--json", "memories", "--query", query])) as { memories: { text: string }[] };
  // A listed memory's text starts with the day it was stored.
  return listed.memories.map((memory) => memory.text.replace(/^\d{4}-\d{2}-\d{2} /, ""));
}

describe("a store on S3-compatible object storage (s3rver)", () => {
  let s3: S3Server;
  let laptop: Machine;
  let desktop: Machine;

  beforeAll(async () => {
    s3 = await startS3Server();
    laptop = envMachine(s3);
    desktop = fileMachine(s3);
  });
  afterAll(async () => {
    for (const text of outputs) {
      expect(text).not.toContain(ENV_SECRET);
      expect(text).not.toContain(FILE_SECRET);
    }
    await s3?.close();
  });

  it("is created on first use and reopened by every later command, on one machine and another", async () => {
    await ok(laptop, ["remember", "The ferry to the island leaves at noon"]);
    // The second command found "already exists" and "not a mnemo store" before the store probed its tables.
    await ok(laptop, ["remember", "Granny's birthday is on the third of May"]);
    expect(await queried(laptop, "ferry island")).toContain("The ferry to the island leaves at noon");
    // The database is in the bucket; the local data dir holds only this machine's state.
    expect(fs.existsSync(path.join(laptop.dataDir, "db"))).toBe(false);

    expect(await queried(desktop, "birthday")).toContain("Granny's birthday is on the third of May");
    await ok(desktop, ["remember", "The desk lamp needs an E14 bulb"]);
    expect(await queried(laptop, "lamp bulb")).toContain("The desk lamp needs an E14 bulb");
  });

  it("imports an export on one machine and lists its chats on the other", async () => {
    const summary = JSON.parse(await ok(laptop, ["--json", "import", path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip")]));
    expect(summary).toMatchObject({ rejected: 0, failed: 0 });
    expect(summary.new).toBeGreaterThan(0);
    const list = JSON.parse(await ok(desktop, ["--json", "chats", "list"])) as { items: { title: string }[] };
    expect(list.items).toHaveLength(summary.new);
    expect(list.items.some((item) => item.title.includes("Lisbon"))).toBe(true);
  });

  it("loses nothing when two machines write at once", async () => {
    const listed = async (machine: Machine) =>
      (JSON.parse(await ok(machine, ["--json", "memories", "--all", "--count", "1000"])) as { memories: { text: string }[] }).memories
        .length;
    const before = await listed(laptop);
    // Each command commits its memory while `mnemo maintain` commits its compaction and indexes.
    // Every command a process of its own: two writers on each machine and a maintenance run at once
    // (each process ~1 s of CPU: a third writer each met nothing two do not).
    const texts = ["laptop", "desktop"].flatMap((name) => [1, 2].map((n) => `Note ${n} written on the ${name}`));
    const machine = (text: string) => ({ ...(text.endsWith("laptop") ? laptop : desktop), run: spawnCli });
    await Promise.all([...texts.map((text) => ok(machine(text), ["remember", text])), ok({ ...desktop, run: spawnCli }, ["maintain"])]);
    expect(await listed(desktop)).toBe(before + texts.length);
    expect(await listed(laptop)).toBe(before + texts.length);
  });

  it("keeps image memories in the bucket: another machine shows, serves, exports and deletes them", async () => {
    const picture = path.join(ROOT, "fixtures", "images", "red-square.png");
    const bytes = fs.readFileSync(picture);
    const { memoryId } = JSON.parse(await ok(laptop, ["--json", "remember", "--image", picture, "--description", "the logo draft"]));
    // Nothing of it is kept on the laptop: the bytes went to the bucket.
    expect(fs.existsSync(path.join(laptop.dataDir, "images"))).toBe(false);

    type Listed = { memories: { id: string; image_url?: string }[] };
    const listed = JSON.parse(await ok(desktop, ["--json", "memories", "--type", "image"])) as Listed;
    const url = listed.memories.find((memory) => memory.id === memoryId)?.image_url;
    expect(url).toMatch(/^file:\/\//);
    expect(fs.readFileSync(new URL(url!))).toEqual(bytes);

    const server = await serve(desktop);
    try {
      const client = {
        env: isolatedEnv({ MNEMO_URL: server.url, MNEMO_TOKEN: server.token, MNEMO_STORE: tempDir() }),
        dataDir: "",
        run: runCli,
      };
      const served = JSON.parse(await ok(client, ["--json", "memories", "--type", "image"])) as Listed;
      const response = await fetch(served.memories.find((memory) => memory.id === memoryId)!.image_url!);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
    } finally {
      outputs.push(await server.stop());
    }

    const exported = path.join(tempDir(), "all.jsonl");
    await ok(desktop, ["export", exported]);
    expect(fs.readFileSync(exported, "utf8")).toContain(bytes.toString("base64"));

    await ok(desktop, ["memories", "delete", "--yes", memoryId]);
    const after = JSON.parse(await ok(laptop, ["--json", "memories", "--type", "image"])) as Listed;
    expect(after.memories.map((memory) => memory.id)).not.toContain(memoryId);
    expect(fs.existsSync(new URL(url!))).toBe(false);
  });

  it("compacts and indexes the store in the bucket", async () => {
    await ok(desktop, ["maintain"]);
    expect(await queried(laptop, "ferry island")).toContain("The ferry to the island leaves at noon");
  });

  it("re-embeds the store in the bucket, and checks it with doctor", async () => {
    await ok(desktop, ["reindex"]);
    expect(await queried(laptop, "ferry island")).toContain("The ferry to the island leaves at noon");
    const checked = await cli(desktop, ["doctor"]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain(`Store at ${STORE}`);
    expect(checked.stdout).toMatch(/memories_g1 +\d+ rows/);
    expect(checked.stderr).toContain("Nothing is wrong with the store");
  });

  it("serves it: what a client stores through `mnemo serve` another machine reads from the bucket", async () => {
    const server = await serve(desktop);
    try {
      const client = {
        env: isolatedEnv({ MNEMO_URL: server.url, MNEMO_TOKEN: server.token, MNEMO_STORE: tempDir() }),
        dataDir: "",
        run: runCli,
      };
      await ok(client, ["remember", "The spare key is under the blue flowerpot"]);
      expect(await queried(laptop, "spare key")).toContain("The spare key is under the blue flowerpot");
    } finally {
      outputs.push(await server.stop());
    }
  });

  it("a dry run or a command that reads, where the bucket holds no store, writes nothing there", async () => {
    const machine = fileMachine(s3, "s3://mnemo/not-yet");
    const before = s3.requests.length;
    const file = path.join(ROOT, "fixtures", "exports", "claude-export.zip");
    const dry = await cli(machine, ["--json", "import", "--dry-run", file]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ new: 3, dryRun: true });
    expect(dry.stderr).toContain("No store at s3://mnemo/not-yet yet (a dry run makes none)");
    const read = await cli(machine, ["search", "kanji"]);
    expect(read.code).toBe(1);
    expect(read.stderr).toContain("No store at s3://mnemo/not-yet: nothing is imported or remembered there yet");
    const writes = s3.requests.slice(before).filter((request) => request.method !== "GET" && request.method !== "HEAD");
    expect(writes).toEqual([]);
  });

  it("says what is wrong with a bucket it cannot reach, without the credentials", async () => {
    const lost = fileMachine(s3, "s3://no-such-bucket/db");
    const result = await cli(lost, ["memories"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("The object store refused s3://no-such-bucket/db: NoSuchBucket: The specified bucket does not exist");
    expect(result.stderr).toContain("Create the bucket first");
    expect(result.stderr).not.toContain("cargo");
    // Without the client's retries (a setting a user may choose): they only delay the same message (~7 s).
    const nowhere = fileMachine({ ...s3, endpoint: "http://127.0.0.1:1" }, STORE, { client_max_retries: "0" });
    const refused = await cli(nowhere, ["memories"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("The object store behind s3://mnemo/db cannot be reached");
    expect(refused.stderr).toContain("AWS_ALLOW_HTTP");
  });

  it("an object store lost mid-import: the same clear message as at the start, and the import run again finishes it", async () => {
    // Two retries over 5 s, not LanceDB's 10 over 3 minutes, for the commands before and after the outage.
    const machine = fileMachine(s3, "s3://mnemo/outage", { client_max_retries: "2", client_retry_timeout: "5" });
    await ok(machine, ["remember", "Written before the outage"]);
    // Two of the import's batches (200 conversations each); what they say is not what is tested, so short.
    const file = writeChatsFile(220, 2);
    // Down right after the second batch's messages commit: its messages stored, its conversations not.
    s3.downAfterMatching(/^PUT \S*outage\/conversation_messages\.lance\/_versions\//, 2);
    const { cut, repair } = await withoutRetries(machine, async () => {
      const cut = await new Promise<CliResult>((resolve) => {
        const child = spawn(process.execPath, [BIN, "import", file], { env: machine.env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
      // Once a request found the store unreachable, the import asked it nothing more (its lease's
      // release, another write, the closing maintenance each waited out the client's retries again).
      expect(s3.cut.filter((request) => /outage(%2F|\/)meta\.lance/.test(request.path))).toEqual([]);
      // A check, or a repair, in the outage says so: an unreachable table is not a damaged one to remake.
      return { cut, repair: await cli(machine, ["doctor", "--repair"]) };
    });
    expect(repair.code).toBe(1);
    expect(repair.stderr).toContain("The object store behind s3://mnemo/outage cannot be reached");
    expect(repair.stderr).not.toMatch(/damaged|made again|LanceError/);
    s3.setDown(false);
    outputs.push(cut.stdout, cut.stderr);
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toContain("The object store behind s3://mnemo/outage cannot be reached");
    expect(cut.stderr).toMatch(/run the command again once it answers/);
    expect(cut.stderr).not.toMatch(/LanceError|cargo|Caused by/);

    // The cut left a batch's messages without their conversations, as doctor says until a write comes.
    expect((await cli(machine, ["doctor"])).stderr).toMatch(/^! conversations: \d+ messages rows belong to no conversation/m);
    await ok(machine, ["import", file]);
    const counts = (JSON.parse(await ok(machine, ["--json", "chats", "status"])) as { counts: Record<string, number> }).counts;
    expect(counts).toMatchObject({ ready: 220, queued: 0, processing: 0, failed: 0 });
    expect(await queried(machine, "outage")).toContain("Written before the outage");
    // The import run again deleted them before it stored that batch anew: the store is as one run
    // without an outage would have left it.
    await expectHealthy(machine);
  }, 240_000);

  it("an object store lost between a remember's two commits: the remember run again stores the memory once, with one version", async () => {
    const machine = fileMachine(s3, "s3://mnemo/gap", { client_max_retries: "1", client_retry_timeout: "2" });
    await ok(machine, ["remember", "--no-date", "Written before the outage"]);
    // Down right after the version's commit, before the memory's.
    s3.downAfterMatching(/^PUT \S*gap\/memory_history\.lance\/_versions\//);
    const cut = await withoutRetries(machine, () => cli(machine, ["remember", "--no-date", "The boiler is serviced in October"]));
    s3.setDown(false);
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toContain("The object store behind s3://mnemo/gap cannot be reached");
    expect((await cli(machine, ["doctor"])).stderr).toMatch(/1 memories are gone but have versions/);
    await ok(machine, ["remember", "--no-date", "The boiler is serviced in October"]);
    const listed = JSON.parse(await ok(machine, ["--json", "memories", "--all"])) as { memories: { text: string }[] };
    expect(listed.memories.map((memory) => memory.text).sort()).toEqual(["The boiler is serviced in October", "Written before the outage"]);
    await expectHealthy(machine);
  }, 120_000); // the command run again waits out the writer lease the cut one could not give back (30 s)

  it("an object store lost at any point of a remember or an import: the same clear message, and the command run again finishes, each thing stored once", async () => {
    const machine = fileMachine(s3, "s3://mnemo/sweep", { client_max_retries: "1", client_retry_timeout: "2" });
    await ok(machine, ["remember", "--no-date", "Written before the outages"]);
    const file = writeChatsFile(20);
    const requestsOf = async (args: string[]) => {
      const seen = s3.requests.length;
      await ok(machine, args);
      return s3.requests.length - seen;
    };
    // How many requests each command makes on this store, then an outage at points through it (a
    // command may end before it, its last requests being housekeeping whose failure it can take).
    const commands = [
      {
        args: (i: number) => ["remember", "--no-date", `Remembered through outage ${i}`],
        requests: await requestsOf(["remember", "--no-date", "A measure"]),
      },
      { args: () => ["import", file], requests: await requestsOf(["import", writeChatsFile(1)]) },
    ];
    const remembered = ["A measure", "Written before the outages"];
    let point = 0;
    for (const command of commands) {
      let failed = 0;
      for (const share of [0.02, 0.1, 0.3, 0.5]) {
        const args = command.args(++point);
        s3.downAfter(Math.floor(command.requests * share));
        // A process of its own, as a user's command is: a lease stamp its cut release leaves is then
        // of an ended process, which the next command takes at once. Left by this process's main
        // thread, an import's worker thread here could not tell it from a held one (30 s).
        const cut = await withoutRetries(machine, () => cli({ ...machine, run: spawnCli }, args));
        s3.setDown(false);
        expect(cut.stderr, `${args.join(" ")}, down after ${share} of its requests`).not.toMatch(/LanceError|cargo|Caused by|panicked/);
        // The outage may come after the command's last request: then it has nothing to say.
        if (cut.code !== 0) {
          failed++;
          expect(cut.code, cut.stderr).toBe(1);
          expect(cut.stderr).toContain("The object store behind s3://mnemo/sweep cannot be reached");
          await ok(machine, args);
        }
        if (args[0] === "remember") remembered.push(args.at(-1)!);
      }
      expect(failed, "outages that met the command").toBeGreaterThanOrEqual(1);
    }
    const listed = JSON.parse(await ok(machine, ["--json", "memories", "--all"])) as { memories: { text: string }[] };
    expect(listed.memories.map((memory) => memory.text).sort()).toEqual(remembered.sort());
    const counts = (JSON.parse(await ok(machine, ["--json", "chats", "status"])) as { counts: Record<string, number> }).counts;
    expect(counts).toMatchObject({ ready: 20, queued: 0, processing: 0, failed: 0 });
    await expectHealthy(machine);
  }, 400_000); // some twenty commands, eight of them waiting out a client's retries

  it("blanks out an option's value that LanceDB quotes in an error", async () => {
    // The object store's parser quotes a bad value whole: here the secret, given where it does not belong.
    const misconfigured = fileMachine(s3, "s3://mnemo/other", { aws_conditional_put: FILE_SECRET });
    const result = await cli(misconfigured, ["remember", "anything"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Failed to parse "[redacted]"');
    expect(result.stderr).not.toContain(FILE_SECRET);
  });
});

/** `mnemo serve` on the machine's store, in this process (s3rver answers here too, asynchronously). */
async function serve(machine: Machine): Promise<{ url: string; token: string; stop(): Promise<string> }> {
  const server = await startCommand<{ url: string; tokenFile: string }>(["--json", "serve", "--port", "0"], machine.env);
  const { url, tokenFile } = server.printed;
  // The token file is local state: in the machine's data dir, not in the bucket.
  expect(path.dirname(tokenFile)).toBe(machine.dataDir);
  return {
    url,
    token: fs.readFileSync(tokenFile, "utf8").trim(),
    stop: async () => {
      await server.stop();
      return server.log();
    },
  };
}
