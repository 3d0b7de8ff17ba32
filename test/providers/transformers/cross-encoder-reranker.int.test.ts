import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AppError } from "../../../src/shared/errors.js";
import { createCrossEncoderReranker, isCrossEncoderModelCached } from "../../../src/providers/transformers/cross-encoder-reranker.js";
import type { Reranker } from "../../../src/providers/reranker.js";
import { ROOT } from "../../paths.js";

const root = ROOT;
const tinyCrossEncoder = path.join(root, "fixtures/models/tiny-cross-encoder");

describe("cross-encoder reranker (tiny-cross-encoder fixture)", () => {
  let reranker: Reranker;
  let cacheDir: string;

  beforeAll(async () => {
    cacheDir = mkdtempSync(path.join(tmpdir(), "mnemo-ce-"));
    reranker = await createCrossEncoderReranker({ model: tinyCrossEncoder, cacheDir, allowDownload: false });
  });

  afterAll(async () => {
    await reranker?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("has an id naming the folder and a hash of its weights", () => {
    expect(reranker.id).toMatch(/^cross-encoder:tiny-cross-encoder-[0-9a-f]{12}$/);
  });

  it("ranks a passage sharing the query's words above one sharing none", async () => {
    const scores = await reranker.rerank("where does the cat sleep", [
      "python code failed to connect to the database server",
      "my cat likes to sleep in the garden",
    ]);
    expect(scores).toHaveLength(2);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
  });

  it("orders passages by how much of the query they cover, scores in (0, 1)", async () => {
    const scores = await reranker.rerank("coffee and cake in the garden", [
      "we had coffee and cake in the garden", // all
      "nothing here matches at all", // none
      "coffee in the morning", // one word
      "cake and coffee", // two words
    ]);
    for (const s of scores) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThan(1);
    }
    expect(scores[0]).toBeGreaterThan(scores[3]!);
    expect(scores[3]).toBeGreaterThan(scores[2]!);
    expect(scores[2]).toBeGreaterThan(scores[1]!);
  });

  it("scores a batch like one pair at a time, in order, across batch boundaries", async () => {
    const passages = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? `the train to the airport ${i}` : `a recipe for pizza and bread number ${i}`,
    );
    const all = await reranker.rerank("train to the airport", passages);
    expect(all).toHaveLength(40);
    for (const i of [0, 1, 16, 17, 39]) {
      const [single] = await reranker.rerank("train to the airport", [passages[i]!]);
      expect(all[i]).toBeCloseTo(single!, 6);
    }
    expect(all[0]).toBeGreaterThan(all[1]!);
  });

  it("keeps the passage when the query is very long", async () => {
    const longQuery = `${Array.from({ length: 300 }, () => "music").join(" ")} garden`;
    const scores = await reranker.rerank(longQuery, ["music in the garden", "pizza recipe"]);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });

  it("keeps the query when a passage is very long", async () => {
    const longPassage = `the garden ${Array.from({ length: 500 }, () => "pizza").join(" ")}`;
    const scores = await reranker.rerank("garden", [longPassage, "pizza recipe"]);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });

  it("returns [] for no passages", async () => {
    expect(await reranker.rerank("anything", [])).toEqual([]);
  });

  it("reports the folder as available offline", async () => {
    expect(await isCrossEncoderModelCached(tinyCrossEncoder, cacheDir)).toBe(true);
    expect(await isCrossEncoderModelCached("Xenova/ms-marco-MiniLM-L-6-v2", cacheDir)).toBe(false);
  });

  it("fails at once with 'unavailable' for an uncached hub model when downloads are disabled", async () => {
    const started = performance.now();
    const error = await createCrossEncoderReranker({
      model: "Xenova/ms-marco-MiniLM-L-6-v2",
      cacheDir,
      allowDownload: false,
    }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("unavailable");
    expect((error as AppError).message).toContain("Xenova/ms-marco-MiniLM-L-6-v2");
  });

  it("fails fast with 'unavailable' when the hub cannot be reached", async () => {
    const error = await createCrossEncoderReranker({
      model: "Xenova/ms-marco-MiniLM-L-6-v2",
      cacheDir,
      allowDownload: true,
      remoteHost: "http://127.0.0.1:9/",
    }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("unavailable");
  });

  it("rejects calls after close", async () => {
    const r = await createCrossEncoderReranker({ model: tinyCrossEncoder, cacheDir, allowDownload: false });
    await r.close();
    await expect(r.rerank("cat", ["cat"])).rejects.toThrow(/closed/);
  });
});

describe("cross-encoder reranker download (fake hub on localhost)", () => {
  it("downloads into the cache with progress, then loads offline with the same id and scores", async () => {
    // Serves the fixture as /mnemo-test/tiny-cross-encoder/resolve/main/<file>, like huggingface.co.
    const server = createServer((req, res) => {
      const match = /^\/mnemo-test\/tiny-cross-encoder\/resolve\/main\/(.+)$/.exec(req.url ?? "");
      const file = match ? path.join(tinyCrossEncoder, match[1]!) : "";
      if (!match || !existsSync(file)) return void res.writeHead(404).end();
      const size = statSync(file).size;
      if (req.headers.range === "bytes=0-0") {
        res.writeHead(206, { "content-length": 1, "content-range": `bytes 0-0/${size}` });
        return void createReadStream(file, { start: 0, end: 0 }).pipe(res);
      }
      res.writeHead(200, { "content-length": size });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const cacheDir = mkdtempSync(path.join(tmpdir(), "mnemo-ce-dl-"));
    try {
      const files = new Set<string>();
      const downloaded = await createCrossEncoderReranker({
        model: "mnemo-test/tiny-cross-encoder",
        cacheDir,
        allowDownload: true,
        remoteHost: host,
        onProgress: (e) => files.add(e.file),
      });
      expect(downloaded.id).toBe("cross-encoder:mnemo-test/tiny-cross-encoder");
      expect(files.has("onnx/model.onnx")).toBe(true);
      expect(await isCrossEncoderModelCached("mnemo-test/tiny-cross-encoder", cacheDir)).toBe(true);
      server.close();

      const offline = await createCrossEncoderReranker({
        model: "mnemo-test/tiny-cross-encoder",
        cacheDir,
        allowDownload: false,
      });
      expect(offline.id).toBe(downloaded.id);
      const passages = ["cat in the garden", "database server"];
      expect(await offline.rerank("garden cat", passages)).toEqual(await downloaded.rerank("garden cat", passages));
      await downloaded.close();
      await offline.close();
    } finally {
      server.close();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
