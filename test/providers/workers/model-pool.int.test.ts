import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../../src/providers/embedder.js";
import { createEmbedderPool } from "../../../src/providers/workers/model-pool.js";
import { modelsFolder } from "../../helpers.js";
import { ROOT } from "../../paths.js";
import { tempDir } from "../../temp-dirs.js";

const tinyBert = path.join(ROOT, "fixtures/models/tiny-bert");

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

describe.each([
  ["bundled", "bundled"],
  ["tiny-bert", `transformers:${tinyBert}`],
])("the embedder pool (%s)", (_name, spec) => {
  const pools: Embedder[] = [];
  afterAll(async () => Promise.all(pools.map((pool) => pool.close())));

  it("embeds queries that wait together in one call, each getting its own vector", async () => {
    const pool = await createEmbedderPool(spec, { workers: 1, cacheDir: modelsFolder(), allowDownload: false });
    pools.push(pool);
    const queries = Array.from({ length: 12 }, (_, i) => `what did we plan for trip number ${i} to Lisbon`);
    const alone: Float32Array[] = [];
    for (const query of queries) alone.push(await pool.embedQuery(query));
    // A long document batch keeps the one worker busy while the queries queue up behind it.
    const busy = pool.embedDocuments(Array.from({ length: 64 }, (_, i) => `a long note number ${i} about gardening `.repeat(20)));
    const together = await Promise.all(queries.map((query) => pool.embedQuery(query)));
    await busy;
    together.forEach((vector, i) => {
      expect(vector).toHaveLength(pool.dims);
      expect(cosine(vector, alone[i]!)).toBeGreaterThan(0.9999);
    });
    expect(cosine(together[0]!, together[1]!)).toBeLessThan(0.9999);
  });

  it("embeds an urgent batch ahead of the bulk batches queued before it, with its own vectors", async () => {
    const pool = await createEmbedderPool(spec, { workers: 1, cacheDir: modelsFolder(), allowDownload: false });
    pools.push(pool);
    const notes = ["the tram to Alfama", "sourdough starter", "marathon tempo run"];
    const alone = await pool.embedDocuments(notes);
    const finished: string[] = [];
    const bulk = pool
      .embedDocuments(Array.from({ length: 96 }, (_, i) => `a long note number ${i} about gardening `.repeat(20)))
      .then(() => finished.push("bulk"));
    const urgent = pool.embedDocuments(notes, { urgent: true }).then((vectors) => {
      finished.push("urgent");
      return vectors;
    });
    const vectors = await urgent;
    await bulk;
    expect(finished).toEqual(["urgent", "bulk"]);
    vectors.forEach((vector, i) => expect(cosine(vector, alone[i]!)).toBeGreaterThan(0.9999));
  });
});

describe("a model left unused", () => {
  // A process of its own (~1 s): in this one, other files' threads come and go.
  it.runIf(fs.existsSync("/proc/self/task"))("is released after its idle time and loads again on the next call", () => {
    const script = path.join(ROOT, "test/providers/workers/idle-pool.mjs");
    const pool = path.join(ROOT, "dist/providers/workers/model-pool.js");
    const out = execFileSync(process.execPath, [script, pool, modelsFolder()], { encoding: "utf8" });
    const seen = JSON.parse(out) as { running: number; released: number; reloaded: number; same: number };
    expect(seen.released).toBeLessThan(seen.running);
    expect(seen.reloaded).toBeGreaterThan(seen.released);
    expect(seen.same).toBeGreaterThan(0.9999);
  });

  it("fails the call that finds it gone from disk, rather than leaving the call waiting", async () => {
    const folder = path.join(tempDir("mnemo-model-"), "tiny-bert");
    fs.cpSync(tinyBert, folder, { recursive: true });
    const pool = await createEmbedderPool(`transformers:${folder}`, {
      workers: 1,
      cacheDir: modelsFolder(),
      allowDownload: false,
      idleMs: 100,
    });
    await pool.embedQuery("sourdough starter");
    await new Promise((resolve) => setTimeout(resolve, 600)); // the worker stops, its model released
    fs.rmSync(folder, { recursive: true });
    await expect(pool.embedQuery("sourdough starter")).rejects.toThrow();
    await pool.close();
  });
});
