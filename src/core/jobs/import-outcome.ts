/**
 * What an import did, in words: the one sentence every face prints for it (`mnemo import`, the watch
 * log, `mnemo service status`, the web app's import page and its recent imports). It leads with what
 * changed: a run again over the same files says "Nothing new: all 4 conversations were already
 * imported", not "Imported 4 conversations: 0 new", which reads as if 4 were imported.
 */
import { MAX_CONVERSATION_TOKENS } from "../../schemas/limits.js";

/** An import's counts of one kind of thing (conversations, memories); those not known are left out. */
export interface ImportCounts {
  new: number;
  updated: number;
  unchanged: number;
  rejected?: number;
  failed?: number;
  /** Conversations over the 100,000-token limit, stored in parts (core/jobs/conversation-parts.ts): each one's parts. */
  inParts?: readonly { parts: number }[];
}

export interface OutcomeWords {
  /** The thing counted, one and many: ["conversation", "conversations"]. */
  noun: readonly [string, string];
  /** A dry run: what the import would do. */
  dryRun?: boolean;
  /** The word for `failed` ("not read" for memories); "failed" when not given. */
  failed?: string;
  /** Where they went, after what became of them: `, in "Claude memories"`. */
  where?: string;
}

/** "Imported 2 new conversations, 1 updated; 1 unchanged", "Nothing new: all 4 conversations were already imported". */
export function importOutcome(counts: ImportCounts, words: OutcomeWords): string {
  const noun = (count: number) => `${number(count)} ${count === 1 ? words.noun[0] : words.noun[1]}`;
  const problems = [
    counts.rejected ? `${number(counts.rejected)} rejected` : "",
    counts.failed ? `${number(counts.failed)} ${words.failed ?? "failed"}` : "",
  ].filter(Boolean);
  const tail = problems.length > 0 ? `; ${problems.join(", ")}` : "";
  const said = [counts.new ? `${number(counts.new)} new` : "", counts.updated ? `${number(counts.updated)} updated` : ""].filter(Boolean);
  const where = words.where ?? "";
  if (said.length === 0) return `${nothingNew(counts.unchanged, problems.length > 0, noun, words)}${where}${tail}`;
  // The noun goes after the first count: "2 new conversations, 1 updated", "1 updated conversation".
  const first = counts.new || counts.updated;
  said[0] = `${said[0]} ${first === 1 ? words.noun[0] : words.noun[1]}`;
  const unchanged = counts.unchanged ? `; ${number(counts.unchanged)} unchanged` : "";
  return `${words.dryRun ? "Would import" : "Imported"} ${said.join(", ")}${inParts(counts, words)}${where}${unchanged}${tail}`;
}

/** " (1 conversation over 100,000 tokens in 2 parts)": why more were stored than the export held. */
function inParts(counts: ImportCounts, words: OutcomeWords): string {
  const long = counts.inParts ?? [];
  if (long.length === 0) return "";
  const parts = long.reduce((sum, conversation) => sum + conversation.parts, 0);
  const noun = long.length === 1 ? words.noun[0] : words.noun[1];
  return ` (${number(long.length)} ${noun} over ${number(MAX_CONVERSATION_TOKENS)} tokens in ${number(parts)} parts)`;
}

const number = (count: number) => count.toLocaleString("en-US");

/**
 * The conversations an import read from its files: not new + updated + …, since a conversation
 * that failed processing was new (or updated) as well.
 */
export function conversationsRead(files: readonly { conversations: number }[]): number {
  return files.reduce((sum, file) => sum + file.conversations, 0);
}

const CONVERSATIONS = ["conversation", "conversations"] as const;
const MEMORIES = ["memory", "memories"] as const;

/** What became of an import's conversations. */
export function conversationsOutcome(counts: ImportCounts, dryRun?: boolean): string {
  return importOutcome(counts, { noun: CONVERSATIONS, dryRun });
}

/**
 * What became of the memories an export held (Claude's memory, its projects), or undefined when it
 * held none; with `quotes`, the buckets they went to, each between them.
 */
export function memoriesOutcome(
  memories: ImportCounts & { buckets: readonly string[] },
  options: { dryRun?: boolean; quotes?: readonly [string, string] } = {},
): string | undefined {
  if (memories.new + memories.updated + memories.unchanged + (memories.failed ?? 0) === 0) return undefined;
  const [open, close] = options.quotes ?? ["", ""];
  const named = options.quotes !== undefined && memories.buckets.length > 0;
  const where = named ? `, in ${memories.buckets.map((bucket) => `${open}${bucket}${close}`).join(" and ")}` : "";
  return importOutcome(memories, { noun: MEMORIES, dryRun: options.dryRun, failed: "not read", where });
}

/** Nothing new or updated: those read were imported before (all of them, without problems), or there were none. */
function nothingNew(unchanged: number, problems: boolean, noun: (count: number) => string, words: OutcomeWords): string {
  const nothing = words.dryRun ? "Nothing would be imported" : "Nothing imported";
  if (unchanged === 0) return problems ? nothing : `${nothing}: no ${words.noun[1]} to import`;
  const were = words.dryRun ? (unchanged === 1 ? "is" : "are") : unchanged === 1 ? "was" : "were";
  const which = problems ? noun(unchanged) : unchanged === 1 ? `the ${words.noun[0]}` : `all ${noun(unchanged)}`;
  return `Nothing new: ${which} ${were} already imported`;
}
