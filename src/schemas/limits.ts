// Limits an upload's conversation keeps, on their own without the schema library: an import's summary
// words them, and what `--help` loads (core/index.ts) must not load zod.

/** The most tokens a conversation may hold to be searched (spec: larger ones are rejected in processing). */
export const MAX_CONVERSATION_TOKENS = 100_000;
/** The longest id of a conversation or message an upload takes (importers shorten an export's longer ones). */
export const MAX_ID_CHARS = 500;
/** The longest conversation title an upload takes (importers cut an export's longer ones to it). */
export const MAX_TITLE_CHARS = 1_000;

/** The longest text a memory holds, its date included (the CLI words it before loading the schemas). */
export const MAX_MEMORY_CHARS = 20_000;
