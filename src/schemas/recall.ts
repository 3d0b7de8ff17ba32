import { z } from "zod";
import { CHAT_PLATFORM_IDS } from "./chat-platforms.js";
import { Provider } from "./chat-history.js";
import { DateFilter, DateTime, MAX_QUERY_CHARS, QUERY_TOO_LONG, queryBool, queryInt } from "./common.js";
import { hasVisibleText, ONLY_INVISIBLE } from "../text/visible.js";
import { withFix } from "./fixes.js";

export const MAX_RECALL_TOKENS = 2000;
export const MAX_PARALLEL_QUERIES = 15;
export const DEFAULT_RECALL_TOKENS = 1000;

const QUERY_EMPTY_FIX = 'Say what to look for: a few words or a question, such as "where did we stay in Lisbon".';
const QUERY_EMPTY = withFix("query", "must not be empty", QUERY_EMPTY_FIX);
// Accents composed (NFC): "café" typed as e and U+0301 (macOS, some keyboards) scored 0.92 against the composed text's 1.
const QueryText = z
  .string()
  .trim()
  .normalize("NFC")
  .min(1, QUERY_EMPTY)
  .max(MAX_QUERY_CHARS, QUERY_TOO_LONG)
  .refine((query) => query === "" || hasVisibleText(query), withFix("query", ONLY_INVISIBLE, QUERY_EMPTY_FIX));
// Numbers written as strings ("5") are read too, as in every query string: models send them so.
const MaxTokens = queryInt(z.int().min(1, "must be at least 1").max(MAX_RECALL_TOKENS, `must be at most ${MAX_RECALL_TOKENS}`));

export const SearchLimit = z.int().min(1, "must be 1 to 100").max(100, "must be 1 to 100");
export const ContextChunks = z.int().min(0, "must be 0 to 20").max(20, "must be 0 to 20");

// POST /api/chat-history/search. Not strict, as the bodies that write are: a read's unknown field
// stores nothing, and the spec leaves fields unnamed (recall's platform hint) that clients send.
export const SearchRequest = z.object({
  query: QueryText,
  limit: queryInt(SearchLimit.default(20)),
  provider: Provider,
  contextChunks: queryInt(ContextChunks.default(4)),
  skipRerank: queryBool(z.boolean().default(false)),
  /** An addition: also the hits under the "probably unrelated" threshold, which are left out by default. */
  includeUnrelated: queryBool(z.boolean().default(false)),
  /** An addition: only passages said on or after this day (or date-time). */
  dateFrom: DateFilter.optional(),
  /** An addition: only passages said on or before this day (or date-time). */
  dateTo: DateFilter.optional(),
});
export type SearchRequest = z.input<typeof SearchRequest>;

/** One message's words in a passage: who said them and when. */
const PassagePart = z.object({
  text: z.string(),
  sender: z.string(),
  timestamp: z.string(),
});
/**
 * One message of the chunks around a hit (a chunk that holds several messages gives one item per
 * message, so each item's sender and time are its own).
 */
const ContextItem = PassagePart.extend({
  /** An addition: where the message stands relative to the hit (timestamps can tie, or be missing). */
  position: z.enum(["before", "after"]),
});
export const SearchResult = z.object({
  conversationId: z.string(),
  /** An addition: the message of the hit that `sender` and `timestamp` describe (the web app opens the conversation there). */
  messageId: z.string(),
  title: z.string(),
  text: z.string(),
  /** How relevant, 0–1, on one scale for every query (under 0.5: probably unrelated). */
  score: z.number(),
  /** An addition: under the threshold (only with `includeUnrelated`). */
  probablyUnrelated: z.boolean(),
  timestamp: DateTime,
  sender: z.string(),
  /** An addition: the hit's text message by message, each with its own sender and time. */
  parts: z.array(PassagePart),
  context: z.array(ContextItem),
});
export type SearchResult = z.infer<typeof SearchResult>;
export const SearchResponse = z.object({
  results: z.array(SearchResult),
  totalResults: z.number().int(),
  /** An addition: hits found but probably unrelated; left out of `results` unless `includeUnrelated`. */
  unrelatedResults: z.number().int(),
  query: z.string(),
  provider: z.string(),
  processingTime: z.number(),
});
export type SearchResponse = z.infer<typeof SearchResponse>;

/** The fields of a recall request; RecallRequest adds the rule between `query` and `queries`. */
export const RecallFields = z.object({
  query: QueryText.optional(),
  maxTokens: MaxTokens.default(DEFAULT_RECALL_TOKENS),
  platform: z.enum(CHAT_PLATFORM_IDS).optional(),
  conversationContext: z.string().max(8000, "must be at most 8000 characters").optional(),
  conversationHistory: z
    .array(z.object({ content: z.string().max(8000, "must be at most 8000 characters"), role: z.string().max(100).optional() }))
    .max(100, "must have at most 100 turns")
    .optional(),
  queries: z
    .array(z.object({ query: QueryText, maxTokens: MaxTokens.optional() }))
    .min(1, "must list at least one query")
    .max(MAX_PARALLEL_QUERIES, `must list at most ${MAX_PARALLEL_QUERIES} queries`)
    .optional(),
  /** An addition: only what was said on or after this day (or date-time), for every query. */
  dateFrom: DateFilter.optional(),
  /** An addition: only what was said on or before this day (or date-time). */
  dateTo: DateFilter.optional(),
});

/** `query` or `queries`, one of the two. */
export function queryOrQueries(value: { query?: string | undefined; queries?: unknown[] | undefined }, ctx: z.RefinementCtx): void {
  if (value.query === undefined && value.queries === undefined) {
    ctx.addIssue({ code: "custom", path: ["query"], message: "is required (or give queries)" });
  }
  if (value.query !== undefined && value.queries !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["queries"],
      message: "cannot be given with query: send one question as query, or every question in queries",
    });
  }
}

// POST /api/chat-history/inject
export const RecallRequest = RecallFields.superRefine(queryOrQueries);
export type RecallRequest = z.input<typeof RecallRequest>;

export const RecallSource = z.object({
  conversationId: z.string(),
  conversationTitle: z.string(),
  messageId: z.string(),
  date: z.string(),
  relevanceScore: z.number(),
  /** An addition: who wrote the cited message, `human` or `assistant`. */
  sender: z.string(),
});
export type RecallSource = z.infer<typeof RecallSource>;
export const RecallPart = z.object({
  content: z.string(),
  sources: z.array(RecallSource),
  tokenCount: z.number().int(),
});
export const RecallResponse = RecallPart.extend({
  processingTime: z.string(),
  model: z.string(),
  /** With `queries`: one answer per query, in order (the top level merges them). */
  results: z.array(RecallPart.extend({ query: z.string(), model: z.string() })).optional(),
});
export type RecallResponse = z.infer<typeof RecallResponse>;
