import { z } from "zod";

// Ours: POST /api/token/rotate — the caller's own token ("regenerated in the same place", spec §5)
export const RotateTokenResponse = z.object({
  user: z.string(),
  /** Shown once: only its hash is stored. The old token stops working. */
  token: z.string(),
});
export type RotateTokenResponse = z.infer<typeof RotateTokenResponse>;

// Ours: GET /api/info — what the store runs with and holds, for the web app's Settings page and `mnemo info`
export const StoreInfo = z.object({
  user: z.string(),
  version: z.string(),
  dataDir: z.string(),
  /** The LanceDB location: the data dir's `db` folder, or a URI such as s3://… */
  storeUri: z.string(),
  embedder: z.object({ id: z.string(), spec: z.string(), dims: z.number().int() }),
  /** How the chat history is cut into chunks for search. */
  chunks: z.object({
    /** Most tokens in one chunk: the size the store's conversations were cut at. */
    tokens: z.number().int(),
    /** The size config.json's `chunkTokens` sets; `mnemo reindex --rechunk` makes the store's so. */
    setting: z.number().int(),
    /** When they differ: what that means, and the fix. */
    note: z.string().optional(),
  }),
  reranker: z.string(),
  synthesizer: z.string(),
  statistics: z.object({
    memories: z.number().int(),
    imageMemories: z.number().int(),
    buckets: z.number().int(),
    conversations: z.number().int(),
    messages: z.number().int(),
    tokens: z.number().int(),
    byStatus: z.object({
      queued: z.number().int(),
      processing: z.number().int(),
      ready: z.number().int(),
      failed: z.number().int(),
      rejected: z.number().int(),
    }),
    excluded: z.number().int(),
    pinned: z.number().int(),
    platforms: z.array(z.object({ id: z.string(), displayName: z.string().optional(), conversations: z.number().int() })),
    /** The whole data dir on disk (every user's data), or null for a store in object storage. */
    diskBytes: z.number().int().nullable(),
  }),
  /** What LanceDB's index and metadata caches hold in the serving process now (at most 512 + 64 MB). */
  cacheBytes: z.number().int(),
});
export type StoreInfo = z.infer<typeof StoreInfo>;
