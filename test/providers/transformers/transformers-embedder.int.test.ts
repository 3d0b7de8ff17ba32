import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AppError } from "../../../src/shared/errors.js";
import type { Embedder } from "../../../src/providers/embedder.js";
import { configureHubTimeouts, fetchWithTimeouts } from "../../../src/providers/transformers/library.js";
import { createTransformersEmbedder, isTransformersModelCached } from "../../../src/providers/transformers/transformers-embedder.js";
import { ROOT } from "../../paths.js";

const root = ROOT;
const tinyBert = path.join(root, "fixtures/models/tiny-bert");

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

/** A stand-in for huggingface.co: serves fixture folders as `/<owner>/<name>/resolve/main/<file>`. */
function startFakeHub(repos: Record<string, string>): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(decodeURIComponent(req.url ?? ""));
    const repo = match ? repos[match[1]!] : undefined;
    const file = repo && match ? path.join(repo, match[2]!) : undefined;
    if (!file || !existsSync(file)) {
      res.writeHead(404).end("Entry not found");
      return;
    }
    const size = statSync(file).size;
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), size - 1);
      res.writeHead(206, { "content-length": end - start + 1, "content-range": `bytes ${start}-${end}/${size}` });
      createReadStream(file, { start, end }).pipe(res);
      return;
    }
    res.writeHead(200, { "content-length": size });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}/`, requests });
    });
  });
}

describe("transformers embedder (tiny-bert fixture)", () => {
  let embedder: Embedder;
  let cacheDir: string;

  beforeAll(async () => {
    cacheDir = mkdtempSync(path.join(tmpdir(), "mnemo-tjs-"));
    embedder = await createTransformersEmbedder({ model: tinyBert, cacheDir, allowDownload: false });
  });

  afterAll(async () => {
    await embedder?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("has an id naming the folder and a hash of its weights, and dims from the model", () => {
    expect(embedder.id).toMatch(/^transformers:tiny-bert-[0-9a-f]{12}$/);
    expect(embedder.dims).toBe(32);
  });

  it("accepts a relative folder path and gives the same id", async () => {
    const relative = path.relative(process.cwd(), tinyBert);
    const again = await createTransformersEmbedder({ model: relative, cacheDir, allowDownload: false });
    expect(again.id).toBe(embedder.id);
    await again.close();
  });

  it("returns normalised Float32Array vectors of the right size", async () => {
    const vectors = await embedder.embedDocuments(["the cat sat in the garden", "", "Hello, World!"]);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(embedder.dims);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  it("is deterministic", async () => {
    const a = await embedder.embedQuery("python code has a bug in the database server");
    const b = await embedder.embedQuery("python code has a bug in the database server");
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it("puts texts that share words closer than texts that share none", async () => {
    const [anchor, sharing, unrelated] = await embedder.embedDocuments([
      "my cat sleeps in the garden every summer",
      "the garden is where the cat plays in summer",
      "python code failed to connect to the database server",
    ]);
    expect(dot(anchor!, sharing!)).toBeGreaterThan(dot(anchor!, unrelated!) + 0.2);

    const query = await embedder.embedQuery("database server error");
    const [db, pets] = await embedder.embedDocuments([
      "the database server returned an error after the update",
      "my dog and my cat like the park",
    ]);
    expect(dot(query, db!)).toBeGreaterThan(dot(query, pets!));
  });

  it("gives the same vectors in a batch as one at a time, in input order", async () => {
    const texts = Array.from({ length: 70 }, (_, i) =>
      i % 3 === 0 ? `short text ${i}` : `a much longer text number ${i} about coffee, trains, music and the weather today`,
    );
    const batch = await embedder.embedDocuments(texts);
    for (const i of [0, 1, 2, 33, 69]) {
      const single = await embedder.embedQuery(texts[i]!);
      for (let d = 0; d < single.length; d++) expect(batch[i]![d]).toBeCloseTo(single[d]!, 5);
    }
  });

  it("copies vectors out of the output tensor", async () => {
    const [a, b] = await embedder.embedDocuments(["cat", "dog"]);
    expect(a!.buffer).not.toBe(b!.buffer);
    expect(a!.byteOffset).toBe(0);
    expect(a!.buffer.byteLength).toBe(embedder.dims * 4);
  });

  it("handles texts longer than the model's 128 tokens", async () => {
    const long = Array.from({ length: 400 }, (_, i) => (i % 2 ? "garden" : "cat")).join(" ");
    const [v] = await embedder.embedDocuments([long]);
    expect(norm(v!)).toBeCloseTo(1, 5);
    // Everything past the limit is ignored, so adding more text changes nothing.
    const [w] = await embedder.embedDocuments([`${long} python database`]);
    for (let d = 0; d < v!.length; d++) expect(w![d]).toBeCloseTo(v![d]!, 6);
  });

  it("reports a local folder as cached, and an uncached hub id as not", async () => {
    expect(await isTransformersModelCached(tinyBert, cacheDir)).toBe(true);
    expect(await isTransformersModelCached("Xenova/all-MiniLM-L6-v2", cacheDir)).toBe(false);
    expect(await isTransformersModelCached(path.join(cacheDir, "nope"), cacheDir)).toBe(false);
    expect(await isTransformersModelCached("not a model id!", cacheDir)).toBe(false);
  });

  it("fails at once with 'unavailable' for an uncached hub id when downloads are disabled", async () => {
    const started = performance.now();
    const error = await createTransformersEmbedder({
      model: "Xenova/all-MiniLM-L6-v2",
      cacheDir,
      allowDownload: false,
    }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("unavailable");
    expect((error as AppError).message).toContain("Xenova/all-MiniLM-L6-v2");
    expect((error as AppError).message).toContain("downloads are off (allowDownload: false)");
    expect((error as AppError).suggestion).toMatch(/^Set "allowDownload": true in the data dir's config\.json to download it, or /);
    expect((error as AppError).suggestion).toContain("--embedder bundled");
    expect((error as AppError).suggestion).toContain("--embedder transformers:");
  });

  it("fails fast with 'unavailable' when the hub cannot be reached", async () => {
    const started = performance.now();
    const error = await createTransformersEmbedder({
      model: "Xenova/all-MiniLM-L6-v2",
      cacheDir,
      allowDownload: true,
      remoteHost: "http://127.0.0.1:9/", // discard port: connection refused
    }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(5000);
    expect((error as AppError).code).toBe("unavailable");
    expect((error as AppError).message).toContain("Xenova/all-MiniLM-L6-v2");
    expect((error as AppError).message).toContain("unreachable");
  });

  it("fails with 'not_found' for a missing local folder and for a folder without a model", async () => {
    const missing = await createTransformersEmbedder({
      model: path.join(cacheDir, "no-such-model"),
      cacheDir,
      allowDownload: false,
    }).catch((e: unknown) => e);
    expect((missing as AppError).code).toBe("not_found");

    const empty = await createTransformersEmbedder({ model: cacheDir, cacheDir, allowDownload: false }).catch((e: unknown) => e);
    expect((empty as AppError).code).toBe("not_found");
    expect((empty as AppError).message).toContain("onnx/model.onnx");
  });

  it("rejects calls after close", async () => {
    const e = await createTransformersEmbedder({ model: tinyBert, cacheDir, allowDownload: false });
    await e.close();
    await expect(e.embedQuery("cat")).rejects.toThrow(/closed/);
    await e.close(); // idempotent
  });
});

describe("transformers embedder downloads (fake hub on localhost)", () => {
  let hub: Awaited<ReturnType<typeof startFakeHub>>;
  let cacheDir: string;

  beforeAll(async () => {
    hub = await startFakeHub({ "mnemo-test/tiny-bert": tinyBert });
    cacheDir = mkdtempSync(path.join(tmpdir(), "mnemo-tjs-dl-"));
  });

  afterAll(async () => {
    await new Promise((resolve) => hub.server.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("downloads a hub model into the cache with progress, then loads it offline", async () => {
    expect(await isTransformersModelCached("mnemo-test/tiny-bert", cacheDir)).toBe(false);
    const events: Array<{ file: string; loaded: number; total: number }> = [];
    const downloaded = await createTransformersEmbedder({
      model: "mnemo-test/tiny-bert",
      cacheDir,
      allowDownload: true,
      remoteHost: hub.url,
      onProgress: (e) => events.push(e),
    });
    expect(downloaded.id).toBe("transformers:mnemo-test/tiny-bert");
    expect(downloaded.dims).toBe(32);
    for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"]) {
      expect(existsSync(path.join(cacheDir, "mnemo-test", "tiny-bert", file))).toBe(true);
    }
    const onnxEvents = events.filter((e) => e.file === "onnx/model.onnx");
    expect(onnxEvents.length).toBeGreaterThan(0);
    const size = statSync(path.join(tinyBert, "onnx/model.onnx")).size;
    expect(onnxEvents.at(-1)).toEqual({ file: "onnx/model.onnx", loaded: size, total: size });
    expect(await isTransformersModelCached("mnemo-test/tiny-bert", cacheDir)).toBe(true);

    const requestsBefore = hub.requests.length;
    const offline = await createTransformersEmbedder({
      model: "mnemo-test/tiny-bert",
      cacheDir,
      allowDownload: false,
      remoteHost: "http://127.0.0.1:9/",
    });
    expect(hub.requests.length).toBe(requestsBefore); // no network at all
    expect(offline.id).toBe(downloaded.id);
    const a = await downloaded.embedQuery("cat in the garden");
    const b = await offline.embedQuery("cat in the garden");
    expect(Array.from(b)).toEqual(Array.from(a));
    await downloaded.close();
    await offline.close();
  });

  it("says 'not_found' for a model the hub does not have", async () => {
    const error = await createTransformersEmbedder({
      model: "mnemo-test/no-such-model",
      cacheDir,
      allowDownload: true,
      remoteHost: hub.url,
    }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("not_found");
    expect((error as AppError).message).toContain("mnemo-test/no-such-model");
  });

  it("gives up on a hub that accepts connections but never answers", async () => {
    const silent = createServer(() => {
      /* never respond */
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    configureHubTimeouts({ connectMs: 300 });
    try {
      const started = performance.now();
      const error = await createTransformersEmbedder({
        model: "mnemo-test/tiny-bert-2",
        cacheDir,
        allowDownload: true,
        remoteHost: `http://127.0.0.1:${port}/`,
      }).catch((e: unknown) => e);
      expect(performance.now() - started).toBeLessThan(3000);
      expect((error as AppError).code).toBe("unavailable");
      expect((error as AppError).message).toMatch(/no response/);
    } finally {
      configureHubTimeouts({ connectMs: 15_000 });
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("aborts a download whose body stalls", async () => {
    const stalling = createServer((_req, res) => {
      res.writeHead(200, { "content-length": 1000 });
      res.write("x".repeat(10)); // then nothing
    });
    await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
    const { port } = stalling.address() as AddressInfo;
    try {
      const response = await fetchWithTimeouts(fetch, `http://127.0.0.1:${port}/file`, {}, 1000, 300);
      await expect(response.arrayBuffer()).rejects.toThrow(/stalled/);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });
});

describe("transformers embedder inside a worker_thread", () => {
  it("loads and embeds there, giving the same vectors as the main thread", async () => {
    const dist = path.join(root, "dist/providers/transformers/transformers-embedder.js");
    expect(existsSync(dist), "run `npx tsc -p tsconfig.json` first").toBe(true);
    const code = `
      const { parentPort, workerData } = require("node:worker_threads");
      (async () => {
        try {
          const { createTransformersEmbedder } = await import(workerData.moduleUrl);
          const e = await createTransformersEmbedder({ model: workerData.model, cacheDir: workerData.cacheDir, allowDownload: false });
          const vectors = await e.embedDocuments(workerData.texts);
          parentPort.postMessage({ id: e.id, dims: e.dims, vectors: vectors.map((v) => Array.from(v)) });
          await e.close();
        } catch (error) {
          parentPort.postMessage({ error: String(error && error.stack || error) });
        }
      })();
    `;
    const texts = ["the cat sat in the garden", "python database server error"];
    const cacheDir = mkdtempSync(path.join(tmpdir(), "mnemo-tjs-w-"));
    const worker = new Worker(code, {
      eval: true,
      workerData: { moduleUrl: pathToFileURL(dist).href, model: tinyBert, cacheDir, texts },
    });
    try {
      const result = await new Promise<{ id?: string; dims?: number; vectors?: number[][]; error?: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      expect(result.error).toBeUndefined();
      const local = await createTransformersEmbedder({ model: tinyBert, cacheDir, allowDownload: false });
      expect(result.id).toBe(local.id);
      expect(result.dims).toBe(local.dims);
      const mine = await local.embedDocuments(texts);
      result.vectors!.forEach((v, i) => v.forEach((x, d) => expect(x).toBeCloseTo(mine[i]![d]!, 6)));
      await local.close();
    } finally {
      await worker.terminate();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
