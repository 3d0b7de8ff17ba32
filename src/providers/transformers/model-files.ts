/**
 * Finding a transformers.js model's files: a local folder or a Hugging Face hub id, and which files
 * a folder must hold for a dtype.
 *
 * - A local folder (absolute path, `./`, `../`, `~/`, or an existing directory) is loaded
 *   straight from disk by its absolute path. transformers.js treats any string that is not a
 *   valid hub id (an absolute path never is) as a path and reads `<dir>/config.json`,
 *   `<dir>/tokenizer.json`, `<dir>/tokenizer_config.json` and `<dir>/onnx/model<suffix>.onnx`
 *   (suffix "" for dtype fp32, "_quantized" for q8, "_fp16", ...).
 * - A hub id ("Xenova/all-MiniLM-L6-v2") is looked up in the cache folder, in the same layout
 *   transformers.js's file cache writes: `<cacheDir>/<owner>/<name>/<file>`. When every file is
 *   there the folder is loaded like a local one, with no network access at all (download.ts).
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { AppError } from "../../shared/errors.js";

/** ONNX weight variants transformers.js knows, with the file-name suffix each one loads. */
export const DTYPE_SUFFIX = {
  fp32: "",
  fp16: "_fp16",
  q8: "_quantized",
  int8: "_int8",
  uint8: "_uint8",
  q4: "_q4",
  q4f16: "_q4f16",
  bnb4: "_bnb4",
} as const;
export type ModelDtype = keyof typeof DTYPE_SUFFIX;

/** Where a model comes from. `dir` is where its files are (or will be, once downloaded). */
export type ModelSource = { kind: "local"; dir: string } | { kind: "hub"; id: string; dir: string };
// Same rule transformers.js uses (utils/hub/constants.js REPO_ID_REGEX + isValidHfModelId).
const REPO_ID_REGEX = /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/;

export function isValidHubId(model: string): boolean {
  return (
    REPO_ID_REGEX.test(model) && !model.includes("..") && !model.includes("--") && !model.endsWith(".git") && !model.endsWith(".ipynb")
  );
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

export function expandHome(p: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/") || p.startsWith("~\\")) return path.join(homedir(), p.slice(2));
  return p;
}

function looksLikePath(model: string): boolean {
  return (
    path.isAbsolute(model) ||
    model === "." ||
    model === ".." ||
    model.startsWith("./") ||
    model.startsWith("../") ||
    model.startsWith(".\\") ||
    model.startsWith("..\\") ||
    model.startsWith("~") ||
    /^[A-Za-z]:[\\/]/.test(model)
  );
}

/** The folder a hub model is cached in: `<cacheDir>/<owner>/<name>`. */
export function hubModelDir(cacheDir: string, id: string): string {
  return path.join(path.resolve(expandHome(cacheDir)), ...id.split("/"));
}

/**
 * Decides whether `model` is a local folder or a hub id. Anything that looks like a path, or
 * names an existing directory, is a local folder; otherwise it must be a valid hub id.
 */
export async function resolveModelSource(model: string, cacheDir: string): Promise<ModelSource> {
  const trimmed = model.trim();
  if (trimmed === "") throw AppError.invalid("model", "is empty");
  if (looksLikePath(trimmed) || (await isDirectory(trimmed))) {
    const dir = path.resolve(expandHome(trimmed));
    if (!(await isDirectory(dir))) {
      throw new AppError("not_found", `model folder ${dir} does not exist`, {
        suggestion: "pass the folder that holds config.json, tokenizer.json and onnx/model.onnx, or a Hugging Face model id",
        details: { model: dir },
      });
    }
    return { kind: "local", dir };
  }
  if (!isValidHubId(trimmed)) {
    throw AppError.invalid("model", `"${model}" is neither an existing folder nor a Hugging Face model id (owner/name)`);
  }
  return { kind: "hub", id: trimmed, dir: hubModelDir(cacheDir, trimmed) };
}

/** Relative paths of the files a text model needs in the given dtype (external data chunks from config.json included). */
export async function requiredModelFiles(dir: string, dtype: ModelDtype): Promise<string[]> {
  const onnxFile = `model${DTYPE_SUFFIX[dtype]}.onnx`;
  const files = ["config.json", "tokenizer.json", "tokenizer_config.json", `onnx/${onnxFile}`];
  // Large models keep their weights in `<file>.onnx_data[_N]`, announced in config.json.
  try {
    const config = JSON.parse(await readFile(path.join(dir, "config.json"), "utf8")) as Record<string, unknown>;
    const custom = config["transformers.js_config"] as Record<string, unknown> | undefined;
    const ext = custom?.["use_external_data_format"];
    let chunks = 0;
    if (typeof ext === "boolean" || typeof ext === "number") chunks = Number(ext);
    else if (ext && typeof ext === "object") {
      const byFile = ext as Record<string, unknown>;
      chunks = Number(byFile[onnxFile] ?? byFile["model"] ?? 0);
    }
    for (let i = 0; i < chunks; i++) files.push(`onnx/${onnxFile}_data${i === 0 ? "" : `_${i}`}`);
  } catch {
    // No (readable) config.json: the caller will find it missing.
  }
  return files;
}

export async function missingModelFiles(dir: string, dtype: ModelDtype): Promise<string[]> {
  const missing: string[] = [];
  for (const file of await requiredModelFiles(dir, dtype)) {
    if (!(await isFile(path.join(dir, file)))) missing.push(file);
  }
  return missing;
}

/**
 * The dtype to load from a local folder: the requested one, or else the first whose ONNX file
 * exists, preferring full precision (fp32, then q8, fp16, ...).
 */
export async function pickLocalDtype(dir: string, requested: ModelDtype | undefined): Promise<ModelDtype> {
  if (requested) return requested;
  for (const dtype of Object.keys(DTYPE_SUFFIX) as ModelDtype[]) {
    if (await isFile(path.join(dir, "onnx", `model${DTYPE_SUFFIX[dtype]}.onnx`))) return dtype;
  }
  return "fp32";
}

/** True when `model` is a local folder with a loadable model, or a hub id fully present in `cacheDir`. */
export async function isModelAvailableOffline(model: string, cacheDir: string, dtype?: ModelDtype): Promise<boolean> {
  let source: ModelSource;
  try {
    source = await resolveModelSource(model, cacheDir);
  } catch {
    return false;
  }
  const chosen = source.kind === "local" ? await pickLocalDtype(source.dir, dtype) : (dtype ?? "fp32");
  return (await missingModelFiles(source.dir, chosen)).length === 0;
}

/** First 12 hex digits of the SHA-256 of a file (streamed; models can be hundreds of MB). */
export async function shortFileHash(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex").slice(0, 12);
}

/**
 * Names a loaded model precisely: `<prefix>:<hub id>[:<dtype>]`, or for a folder
 * `<prefix>:<folder name>-<hash of its weights>`, so a changed model is not mistaken for the old one.
 */
export async function modelId(prefix: string, source: ModelSource, dtype: ModelDtype): Promise<string> {
  if (source.kind === "hub") return `${prefix}:${source.id}${dtype === "fp32" ? "" : `:${dtype}`}`;
  const onnx = path.join(source.dir, "onnx", `model${DTYPE_SUFFIX[dtype]}.onnx`);
  return `${prefix}:${path.basename(source.dir)}-${await shortFileHash(onnx)}`;
}
