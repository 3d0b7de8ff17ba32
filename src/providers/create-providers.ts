import fs from "node:fs";
import type { Config } from "../config/load-config.js";
import { AppError, isAppError } from "../shared/errors.js";
import { BUNDLED_DIMS, BUNDLED_EMBEDDER_ID } from "./bundled/bundled-embedder.js";
import type { Embedder, ProgressReporter } from "./embedder.js";
import {
  DEFAULT_CAPTIONER,
  DEFAULT_CROSS_ENCODER,
  DEFAULT_TRANSFORMERS_MODEL,
  parseEmbedderSpec,
  parseRerankerSpec,
} from "./workers/local-models.js";
import { createCaptionerPool, createEmbedderPool, createRerankerPool } from "./workers/model-pool.js";
import type { ImageCaptioner } from "./transformers/image-captioner.js";
import { hubModelDir, isModelAvailableOffline } from "./transformers/model-files.js";
import { DEFAULT_REMOTE_HOST } from "./transformers/download.js";
import { fetchWithTimeouts } from "./transformers/library.js";
import { createExtractiveSynthesizer } from "./synthesis/extractive.js";
import type { Reranker } from "./reranker.js";
import type { Synthesizer } from "./synthesis/synthesizer.js";

export interface EmbedderChoice {
  embedder: Embedder;
  spec: string;
  /** Why `auto` picked it, for the one line the CLI prints when a store is created. */
  reason?: string;
}

/** How long a loaded model may sit unused (config's `modelIdleSeconds`; null: for ever). */
const idleOf = (config: Config): { idleMs?: number } =>
  config.modelIdleSeconds === null ? {} : { idleMs: config.modelIdleSeconds * 1000 };

export function createEmbedder(spec: string, config: Config, onProgress?: ProgressReporter): Promise<Embedder> {
  parseEmbedderSpec(spec); // a bad spec fails here, before a worker starts
  return createEmbedderPool(spec, {
    workers: config.embedderWorkers,
    ...(config.embedderThreads ? { threads: config.embedderThreads } : {}),
    cacheDir: config.paths.models,
    allowDownload: config.allowDownload,
    ...idleOf(config),
    ...(onProgress ? { onProgress } : {}),
  });
}

/**
 * The embedder for a new store. `auto` means the default transformers model when it is cached or
 * can be downloaded, else the bundled model that ships in npm. A `loaded` embedder stands for the
 * spec equal to its id (the bundled one's is "bundled"), and is borrowed rather than loaded again.
 */
export async function chooseEmbedder(config: Config, onProgress?: ProgressReporter, loaded?: Embedder): Promise<EmbedderChoice> {
  const create = (spec: string) => (loaded?.id === spec ? Promise.resolve(borrowed(loaded)) : createEmbedder(spec, config, onProgress));
  if (config.embedder !== "auto") return { embedder: await create(config.embedder), spec: config.embedder };
  const transformersSpec = `transformers:${DEFAULT_TRANSFORMERS_MODEL}`;
  const silent = await hubSilence(config);
  if (silent) {
    // Loaded when first used, by the index worker: the new store is made (and stores) meanwhile.
    const bundled = { id: BUNDLED_EMBEDDER_ID, spec: BUNDLED_EMBEDDER_ID, dims: BUNDLED_DIMS };
    const embedder = loaded?.id === BUNDLED_EMBEDDER_ID ? borrowed(loaded) : lazyEmbedder(bundled, config);
    return { embedder, spec: BUNDLED_EMBEDDER_ID, reason: silent };
  }
  try {
    const embedder = await create(transformersSpec);
    return { embedder, spec: transformersSpec, reason: `${DEFAULT_TRANSFORMERS_MODEL} is available` };
  } catch (error) {
    if (!isAppError(error) || error.code !== "unavailable") throw error;
    const embedder = await create(BUNDLED_EMBEDDER_ID);
    return { embedder, spec: BUNDLED_EMBEDDER_ID, reason: whyNotTransformers(config) };
  }
}

/**
 * How long `auto` waits for the hub to answer a one-byte request before it takes the bundled model.
 * The download's own deadline (15 s, library.ts) is for a model asked for by name; here a new store
 * waits for the answer before it can store anything, and a hub whose address never answered kept
 * the first import of a new store from storing any conversation for 15 s.
 */
const AUTO_HUB_ANSWER_MS = 3_000;

/**
 * Why `auto` takes the bundled model without trying the default one: the default one is not
 * downloaded and the hub does not answer. Undefined when it is cached, downloads are off (its
 * worker says so), or the hub answers. Asked here, before a worker loads transformers.js (~1 s).
 */
async function hubSilence(config: Config): Promise<string | undefined> {
  if (!config.allowDownload || (await isModelAvailableOffline(DEFAULT_TRANSFORMERS_MODEL, config.paths.models))) return undefined;
  const host = process.env["HF_ENDPOINT"] ?? DEFAULT_REMOTE_HOST; // as the worker's download reads it
  const url = `${host.endsWith("/") ? host : `${host}/`}${DEFAULT_TRANSFORMERS_MODEL}/resolve/main/config.json`;
  try {
    const response = await fetchWithTimeouts(fetch, url, { headers: { Range: "bytes=0-0" } }, AUTO_HUB_ANSWER_MS, AUTO_HUB_ANSWER_MS);
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  } catch (error) {
    const why = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return (
      `the model that ships with mnemo, as ${DEFAULT_TRANSFORMERS_MODEL} is not downloaded and ${new URL(url).host} did not answer (${why}); ` +
      `to move to it once online: \`mnemo reindex --embedder transformers:${DEFAULT_TRANSFORMERS_MODEL}\``
    );
  }
}

/** An embedder loaded by somebody else, used here and left open by `close` (its owner closes it). */
export function borrowed(embedder: Embedder): Embedder {
  return { ...embedder, close: async () => undefined };
}

/** Why `auto` did not take the default transformers model, and how to have it after all. */
function whyNotTransformers(config: Config): string {
  if (config.allowDownload)
    return (
      `the model that ships with mnemo, as ${DEFAULT_TRANSFORMERS_MODEL} could not be downloaded from the Hugging Face hub; ` +
      `to move to it once online: \`mnemo reindex --embedder transformers:${DEFAULT_TRANSFORMERS_MODEL}\``
    );
  const dir = hubModelDir(config.paths.models, DEFAULT_TRANSFORMERS_MODEL);
  return (
    `${DEFAULT_TRANSFORMERS_MODEL} is not in ${dir} and downloads are off (allowDownload: false in config.json); ` +
    `to move to it, set allowDownload to true or put its files in that folder, then run \`mnemo reindex --embedder transformers:${DEFAULT_TRANSFORMERS_MODEL}\``
  );
}

/**
 * An embedder that loads its model on first use, for a store that already records which one it
 * needs: commands that embed nothing (listing, counting, deleting) never pay for the model.
 */
export function lazyEmbedder(expected: { id: string; spec: string; dims: number }, config: Config): Embedder {
  let loading: Promise<Embedder> | undefined;
  const load = () => {
    loading ??= createEmbedder(expected.spec, config).then(async (embedder) => {
      if (embedder.id === expected.id && embedder.dims === expected.dims) return embedder;
      await embedder.close();
      throw embedderMismatch(expected.id, `${expected.spec} now loads as ${embedder.id} (${embedder.dims} dims)`);
    });
    return loading;
  };
  return {
    id: expected.id,
    dims: expected.dims,
    embedDocuments: async (texts, options) => (await load()).embedDocuments(texts, options),
    embedQuery: async (text) => (await load()).embedQuery(text),
    close: async () => {
      if (loading) await (await loading.catch(() => undefined))?.close();
    },
  };
}

export function embedderMismatch(storeEmbedder: string, requested: string): AppError {
  return new AppError("store_mismatch", `This store's vectors were made by ${storeEmbedder}, not ${requested}`, {
    suggestion: `Re-embed the store with \`mnemo reindex --embedder ${requested.split(" ")[0]}\`, or drop --embedder to keep using ${storeEmbedder}.`,
  });
}

/**
 * The reranker the config asks for, or undefined for none. `auto` uses the default cross-encoder
 * only when it is already on disk: search must not stall on a download. `llm` asks the chat model
 * of the `llm` settings.
 */
export async function createReranker(config: Config): Promise<Reranker | undefined> {
  if (config.reranker === "none") return undefined;
  if (config.reranker === "llm") {
    const { createLlmReranker } = await import("./llm/llm-reranker.js");
    return createLlmReranker(config.llm);
  }
  const spec = config.reranker === "auto" ? await autoReranker(config) : config.reranker;
  if (spec === undefined) return undefined;
  parseRerankerSpec(spec);
  return createRerankerPool(spec, { cacheDir: config.paths.models, allowDownload: config.allowDownload, ...idleOf(config) });
}

/**
 * What reranks search results, as `info` says it, without loading a model: `auto` is the
 * cross-encoder when its model is on disk, else nothing.
 */
export async function rerankerInUse(config: Config): Promise<string> {
  if (config.reranker !== "auto") return config.reranker;
  const spec = await autoReranker(config);
  return spec === undefined ? "none (auto: the cross-encoder's model is not downloaded)" : `${spec} (auto)`;
}

/** What `auto` reranks with: the default cross-encoder when it is on disk, else nothing (createReranker says why). */
async function autoReranker(config: Config): Promise<string | undefined> {
  const { isCrossEncoderModelCached } = await import("./transformers/cross-encoder-reranker.js");
  return (await isCrossEncoderModelCached(DEFAULT_CROSS_ENCODER, config.paths.models))
    ? `cross-encoder:${DEFAULT_CROSS_ENCODER}`
    : undefined;
}

/** The synthesizer recall uses: extractive (offline, the default) or an OpenAI-compatible endpoint. */
export function createSynthesizer(config: Config): Synthesizer {
  if (config.synthesizer === "extractive") return createExtractiveSynthesizer();
  const { llm } = config;
  let loaded: Promise<Synthesizer> | undefined;
  return {
    id: `openai:${llm.model}`,
    synthesize: async (request) => {
      loaded ??= import("./synthesis/openai.js").then(({ createOpenAiSynthesizer }) => createOpenAiSynthesizer(llm));
      return (await loaded).synthesize(request);
    },
  };
}

/**
 * Captions images with the default image-to-text model when it is on disk; otherwise (or if it
 * fails) answers undefined and the caller describes the image another way. A model put on disk
 * while a server runs is picked up by the next image.
 */
export function createCaptioner(config: Config): { caption(image: Buffer): Promise<string | undefined>; close(): Promise<void> } {
  let loading: Promise<ImageCaptioner | undefined> | undefined;
  const onDisk = () => fs.existsSync(hubModelDir(config.paths.models, DEFAULT_CAPTIONER));
  const load = () => {
    if (!loading && !onDisk()) return Promise.resolve(undefined);
    return (loading ??= createCaptionerPool(DEFAULT_CAPTIONER, {
      cacheDir: config.paths.models,
      allowDownload: false,
      ...idleOf(config),
    }).catch(() => undefined));
  };
  return {
    caption: async (image) => {
      const captioner = await load();
      const text = await captioner?.caption(image).catch(() => undefined);
      return text || undefined;
    },
    close: async () => {
      if (loading) await (await loading)?.close();
    },
  };
}
