/**
 * Most tokens in one chunk of chat history (config.json's `chunkTokens`): the default, measured on
 * LoCoMo (src/README.md, "Chunks of up to 192 tokens"), and the sizes a store may be cut at. Apart
 * from load-config.ts, so that a command's help can say it without loading zod.
 */
export const CHUNK_TOKENS = { default: 192, min: 32, max: 1024, range: "must be 32 to 1024" } as const;
