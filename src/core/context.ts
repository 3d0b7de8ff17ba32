import type { Config } from "../config/load-config.js";
import type { Embedder } from "../providers/embedder.js";
import type { Reranker } from "../providers/reranker.js";
import type { Synthesizer } from "../providers/synthesis/synthesizer.js";
import type { ImageBytes } from "../store/image-bytes.js";
import type { Store } from "../store/store.js";
import type { AppError } from "../shared/errors.js";

/** Turns a stored image file into the URL a client fetches it from (signed by the server, file:// locally). */
export type ImageUrlSigner = (memoryId: string, imageFile: string) => string | Promise<string>;

/** What every core module works with. Built once by createApp. */
export interface CoreContext {
  readonly store: Store;
  /** The bytes of image memories: files beside a local store, a table in the bucket for a remote one. */
  readonly images: ImageBytes;
  readonly embedder: Embedder;
  /** The configured reranker, loaded on first use; undefined when there is none. */
  reranker(): Promise<Reranker | undefined>;
  /** The configured synthesizer for recall. */
  readonly synthesizer: Synthesizer;
  /** A caption for an image from an image-to-text model, or undefined when none is available. */
  caption(image: Buffer): Promise<string | undefined>;
  readonly config: Config;
  now(): Date;
  /** Set by the server once it knows its address; file:// URLs otherwise. */
  imageUrl: ImageUrlSigner;
  /** Called after each committed write so background maintenance can keep fragments in check. */
  afterWrite(): void;
  /** Called when conversations were queued, so a running index worker picks them up at once. */
  onQueued(): void;
  /** Why this process's index worker cannot move the queue now (a full disk), if it cannot. */
  indexStalled(): AppError | undefined;
}
