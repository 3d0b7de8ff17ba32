import { AppError } from "../shared/errors.js";
import { TABLE, type TableKey } from "./schema.js";

/**
 * LanceDB's errors when a table's files are not what it wrote: cut short, zeroed, overwritten with
 * other bytes, or gone. Its own text ("LanceError(IO): … failed to fill whole buffer, /rustc/…") says
 * nothing a user can act on; these become one error that names the table and the way out. Each
 * pattern was produced by damaging a store's files (test/store/damage.int.test.ts).
 */
const DAMAGE: { pattern: RegExp; what: string }[] = [
  { pattern: /_indices\//, what: "an index of it is damaged or missing (`mnemo doctor --repair` rebuilds it from the rows)" },
  {
    pattern: /failed to fill whole buffer|Invalid range \d+\.\.\d+ for object of size|does not have sufficient data|file size is too small/,
    what: "a file of it is cut short",
  },
  {
    pattern: /does not appear to be a Lance file|invalid magic/,
    what: "a file of it does not hold what LanceDB wrote (zeroed or overwritten)",
  },
  {
    pattern:
      /failed to decode Protobuf|Encountered corrupt file|corrupt file|Empty buffers but expected|panicked with message|Panic in async function|out of range for slice|out of bounds/i,
    what: "a file of it holds bytes that cannot be decoded (zeroed or overwritten)",
  },
  // A version file (manifest) with a flipped bit can still decode, into a schema that makes no sense.
  {
    pattern: /references parent id -?\d+|Unsupported logical type|projection specified the column index \d+ more than once/,
    what: "its version file (manifest) holds bytes that cannot be decoded (overwritten)",
  },
  {
    pattern: /Not found: \S+\.(lance|manifest|txn|idx)\b|Not found: \S+_versions|exists but could not be loaded/,
    what: "a file of it is missing",
  },
  { pattern: /^Table '[^']+' was not found/, what: "its folder is missing" },
];

/**
 * A file that never changes once written whose bytes are not those recorded (store/checksums.ts):
 * Lance keeps no checksums of its pages, so a flipped bit in a value reads as another value.
 */
export const changedFileWhat = (kind: "data" | "deletions" | "index") =>
  `${{ data: "a data", deletions: "a deletion", index: "an index" }[kind]} file of it has changed since it was written (a bit flipped on disk?)`;

/**
 * Errors that mean a column the table always has is missing: what a zeroed version file (manifest)
 * gives, since LanceDB then reads a table with no columns. Confirmed against the table's schema
 * before they are called damage: the same words could come from a query of ours that is wrong.
 */
export const SCHEMA_LOSS = /No field named|Column \S+ not found|Found field not in schema|No vector column found/;
export const SCHEMA_LOSS_WHAT = "its version file (manifest) does not describe its columns (zeroed or overwritten)";

/** What each table holds, as a user would say it: what becomes unreachable while it is damaged. */
const HOLDS: Record<TableKey, string> = {
  meta: "the store's own record (schema version, embedder)",
  users: "users and their tokens",
  buckets: "buckets",
  memories: "memories",
  memoryHistory: "memories' edit history",
  platforms: "platforms and import records",
  conversations: "conversations",
  messages: "conversations' messages",
  chunks: "the search index of conversations (rebuilt from their messages by `mnemo doctor --repair`)",
  images: "the pictures of image memories",
  trash: "what was moved to the trash",
};

export const DOCTOR_SUGGESTION =
  "Run `mnemo doctor`: it checks every table, says what is damaged and how to recover (`mnemo doctor --repair` rebuilds what can be rebuilt; an export restores the rest with `mnemo import <file>`).";

/** A table of the store cannot be read (503 from the server, exit 1 from the CLI). */
export class DamagedTableError extends AppError {
  readonly table: string;
  readonly key: TableKey;
  readonly what: string;

  constructor(key: TableKey, what: string, cause?: unknown) {
    super(
      "unavailable",
      `The store's "${TABLE[key]}" table is damaged: ${what}. It holds ${HOLDS[key]}, which cannot be read until it is repaired`,
      {
        suggestion: DOCTOR_SUGGESTION,
        details: { table: TABLE[key] },
        cause,
      },
    );
    this.table = TABLE[key];
    this.key = key;
    this.what = what;
  }
}

/** A panic inside LanceDB: damaged pages cause them, and so may a fault that passes. */
export function isPanic(error: unknown): boolean {
  return error instanceof Error && /panicked with message|Panic in async function/i.test(error.message);
}

/** What is wrong with a table, from LanceDB's error; undefined for an error that is not damage. */
export function damageOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error instanceof AppError) return undefined;
  return DAMAGE.find(({ pattern }) => pattern.test(error.message))?.what;
}

/** LanceDB's text without its source locations and repeated causes: for a report, never for a user's first line. */
export function lanceText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split(/\s+Caused by:\s+/)[0]!
    .replace(/,?\s*\/(rustc|usr|root|home)\/\S+:\d+:\d+/g, "")
    .replace(/^Failed to get next batch from stream: /, "")
    .replace(/^(lance error: )?LanceError\(\w+\): /, "")
    .replace(/^Generic [\w/]+ error: /, "")
    .replace(/Wrapped error: /g, "")
    .replace(/(Not found: )+/, "Not found: ")
    .trim();
}
