import fs from "node:fs";
import { AppError } from "../../shared/errors.js";
import { loadTransformers } from "./library.js";
import { hubModelDir } from "./model-files.js";

/** Describes an image in a sentence (for image memories given without a description). */
export interface ImageCaptioner {
  readonly id: string;
  caption(image: Buffer): Promise<string>;
  close(): Promise<void>;
}

interface CaptionPipeline {
  (image: unknown): Promise<{ generated_text: string }[]>;
  dispose(): Promise<void>;
}

interface VisionLib {
  pipeline(task: "image-to-text", model: string, options: Record<string, unknown>): Promise<CaptionPipeline>;
  RawImage: { fromBlob(blob: Blob): Promise<unknown> };
}

/**
 * An image-to-text model (e.g. Xenova/vit-gpt2-image-captioning) through transformers.js,
 * loaded only from disk — a local folder, or a hub model already in the cache — so storing a
 * memory never waits on a download.
 */
export async function createImageCaptioner(spec: { model: string; cacheDir: string }): Promise<ImageCaptioner> {
  const dir = fs.existsSync(spec.model) ? spec.model : hubModelDir(spec.cacheDir, spec.model);
  if (!fs.existsSync(dir)) {
    throw new AppError("unavailable", `image-to-text model "${spec.model}" is not on disk (${dir})`, {
      suggestion: "Give image memories a --description, or put the model files in that folder.",
    });
  }
  const lib = (await loadTransformers()) as unknown as VisionLib;
  const captioner = await lib.pipeline("image-to-text", dir, { local_files_only: true, device: "cpu" });
  return {
    id: `captioner:${spec.model}`,
    async caption(image) {
      const raw = await lib.RawImage.fromBlob(new Blob([image]));
      const [first] = await captioner(raw);
      return (first?.generated_text ?? "").trim();
    },
    close: () => captioner.dispose(),
  };
}
