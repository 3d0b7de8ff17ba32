import fs from "node:fs";
import type { Config } from "../../config/load-config.js";
import { isRemoteUri } from "../../config/paths.js";
import path from "node:path";
import { ANY_INDEX, eachStoredImage, type LostRowsTable, type StoreHealth, type TableHealth } from "../../store/health.js";
import { storedImageProblem } from "../memories/image-types.js";
import { journalDamage } from "../../store/journal.js";
import { recordCheckedTables } from "../../store/damage-record.js";
import type { Salvaged } from "../../store/salvage.js";
import type { TableKey } from "../../store/schema.js";
import { alteredDataFiles } from "../../store/checksums.js";
import { AppError } from "../../shared/errors.js";
import { chunkSizes } from "../chat-history/chunking.js";
import { inHealthProcess } from "./health-child.js";

/**
 * `mnemo doctor`: what is wrong with a store, and the way out of each thing. The store is read in a
 * child process (store/health-process.ts, started by health-child.ts), so that nothing LanceDB prints when a damaged page
 * makes it panic reaches the user; only the findings do. The repair is doctor-repair.ts.
 */

export type Severity =
  /** Data that cannot be rebuilt from the store itself: an export restores it. */
  | "damaged"
  /** `mnemo doctor --repair` rebuilds it from what the store holds. */
  | "repairable";

export interface Finding {
  table: string;
  severity: Severity;
  what: string;
  /** How to recover, as the user would do it. */
  fix: string;
  /** LanceDB's own words, for a report. */
  detail?: string | undefined;
}

/** An image memory whose picture is gone or is not the image that was stored. */
export interface ImageProblem {
  memoryId: string;
  file: string;
  what: string;
}

export interface Diagnosis {
  health: StoreHealth;
  /** Pictures are files of a local store's data dir, rows of the `images` table of one on object storage. */
  images: ImageProblem[];
  /** Memory writes in the journal (store/journal.ts) whose lines cannot be read: a disk changed them. */
  journal: number;
  findings: Finding[];
  /** Nothing wrong, but worth knowing: the store made otherwise than the settings now ask. */
  notes: string[];
}

export type DoctorProgress = (text: string) => void;

/** The platform of conversations `mnemo doctor --repair` rebuilt from their messages: a restore replaces them. */
export const RECOVERED_PLATFORM = "recovered";

/**
 * The content hash of a conversation `mnemo doctor --repair` rebuilt from what was left (its chunks'
 * text, an earlier revision) or kept without its text: no upload has it, so a new import of the
 * conversation replaces it, and a restore replaces it by the export's.
 */
export const REBUILT_HASH = "rebuilt-by-mnemo-doctor";

/** Where a repair keeps what it takes out of the store: a damaged table's files, the rows nothing refers to. */
export const LEFTOVERS_DIR = "<data dir>/recovered/";
/** What finishes a write cut short between its commits by itself (store/write-intents.ts). */
const NEXT_WRITE_SETTLES = "the next command that writes to the store from the machine where it was cut short deletes them";

const RESTORE = "then `mnemo import <your latest export>` puts back what the export holds (what the store has is left as it is)";

/** Checks every table of the store (in a child process) and says what is wrong and how to recover. */
export async function diagnose(config: Config, onProgress?: DoctorProgress): Promise<Diagnosis> {
  if (!isRemoteUri(config.storeUri) && !fs.existsSync(config.storeUri)) {
    throw new AppError("not_found", `There is no store at ${config.paths.dataDir}`, {
      suggestion: "Pass the store to check with --store (or MNEMO_STORE).",
    });
  }
  const checksums = isRemoteUri(config.storeUri) ? [] : [config.paths.checksums];
  const health = await inHealthProcess<StoreHealth>(config, ["check", config.storeUri, ...checksums], {
    kept: true,
    onLine: (line) => {
      if (typeof line["checking"] === "string") onProgress?.(`Checking ${line["checking"]}`);
    },
  });
  const chunks = health.meta.chunkTokens === undefined ? undefined : chunkSizes(health.meta.chunkTokens, config.chunkTokens).note;
  const images = isRemoteUri(config.storeUri)
    ? await storedImageProblems(config, health)
    : imageProblems(config.paths.images, health.relations.images);
  const journal = isRemoteUri(config.storeUri) ? 0 : journalDamage(config.paths.journal).lines;
  if (!isRemoteUri(config.storeUri)) keepChangedTables(config, health);
  return { health, images, journal, findings: findingsOf(health, images, journal), notes: chunks ? [chunks] : [] };
}

/**
 * Tables whose data or deletion files changed since they were written are refused by every command
 * from now on, naming the damage and the doctor (their rows may read as other values); those
 * found sound are read again.
 */
function keepChangedTables(config: Config, health: StoreHealth): void {
  const rowsChanged = (table: TableHealth) => table.changedFiles?.some((file) => file.kind !== "index") ?? false;
  const found = health.tables.flatMap((table) =>
    rowsChanged(table) && table.problem ? [{ name: table.table, key: table.key, what: table.problem.what }] : [],
  );
  const sound = health.tables.filter((table) => !table.problem).map((table) => table.table);
  recordCheckedTables(config.paths.database, config.paths.dataDir, found, sound);
}

/** Each image memory's file read and checked to its end (and a PNG's checksums). */
function imageProblems(dir: string, images: StoreHealth["relations"]["images"]): ImageProblem[] {
  return images.flatMap(({ memoryId, file }) => {
    let data: Buffer;
    try {
      data = fs.readFileSync(path.join(dir, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return [{ memoryId, file, what: code === "ENOENT" ? "is missing" : `cannot be read (${code})` }];
    }
    const what = storedImageProblem(data);
    return what ? [{ memoryId, file, what }] : [];
  });
}

/**
 * The same check of a store on object storage, whose pictures are rows of its `images` table. A
 * picture the table lacks may be a file on the machine that stored it (before schema 3); a damaged
 * table is a finding of its own, not read again here.
 */
async function storedImageProblems(config: Config, health: StoreHealth): Promise<ImageProblem[]> {
  if (health.tables.some((table) => table.key === "images" && table.problem)) return [];
  const found = new Map<string, string | undefined>();
  await eachStoredImage(config.storeUri, config.storage.options, (file, data) => found.set(file, storedImageProblem(data)));
  const local = imageProblems(
    config.paths.images,
    health.relations.images.filter(({ file }) => !found.has(file)),
  );
  const stored = health.relations.images.flatMap(({ memoryId, file }) => {
    const what = found.get(file);
    return what ? [{ memoryId, file, what }] : [];
  });
  return [...stored, ...local];
}

/**
 * Tables whose rows nothing else can bring back (a memory's earlier versions, what is in the trash):
 * the rows of their data files changed in place are kept as they read, one value possibly other than
 * was written, rather than moved out of the store.
 */
const NOTHING_ELSE_HOLDS: TableKey[] = ["memoryHistory", "trash"];

/** The table's data files changed in place whose rows a repair moves to a file and rebuilds from the other tables. */
export function filesToRebuild(table: TableHealth): string[] {
  return NOTHING_ELSE_HOLDS.includes(table.key) ? [] : alteredDataFiles(table.changedFiles);
}

/**
 * A damaged table salvaged (store/salvage.ts) in a child process: rows kept, of how many, and, with
 * `earlier`, at how many versions before the newest (whose version files do not open). The rows of
 * its changed data files are written to `rowsFile` instead.
 */
export function salvageInChild(
  config: Config,
  table: TableHealth,
  dims: number | undefined,
  earlier: boolean,
  rowsFile: string,
): Promise<Salvaged> {
  const altered = filesToRebuild(table);
  const setAside = altered.length > 0 ? [JSON.stringify(altered), rowsFile] : [];
  return inHealthProcess(config, [
    "salvage",
    config.storeUri,
    table.table,
    table.key,
    String(dims ?? ""),
    earlier ? "earlier" : "newest",
    ...setAside,
  ]);
}

/**
 * Whether `table`'s rows are lost (it is damaged, or a repair cut short had salvaged it): what refers
 * to them is then their text to rebuild them from, rather than what a write cut short left.
 */
export function rowsLost(health: StoreHealth, table: LostRowsTable): boolean {
  return health.tables.some((t) => t.key === table && t.problem) || (health.meta.lostRows ?? []).includes(table);
}

/** What each problem means for the user, and what to do about it. */
export function findingsOf(health: StoreHealth, images: ImageProblem[] = [], journal = 0): Finding[] {
  const findings: Finding[] = [];
  if (health.meta.problem) {
    findings.push({
      table: "meta",
      severity: "damaged",
      what: health.meta.problem.what,
      detail: health.meta.problem.detail,
      fix: `\`mnemo doctor --repair\` writes it again for the embedder recorded in the data dir, or the one named with --embedder <spec> (bundled, or transformers:<model>${health.meta.dims ? `; its vectors have ${health.meta.dims} dimensions` : ""})`,
    });
  }
  // A damaged meta table is told once, above, with its own way out.
  for (const table of health.tables.filter((t) => !(t.key === "meta" && health.meta.problem))) findings.push(...tableFindings(table));
  const relations = health.relations;
  const add = (table: string, severity: Severity, count: number, what: string, fix: string) => {
    if (count > 0) findings.push({ table, severity, what: `${count.toLocaleString("en")} ${what}`, fix });
  };
  add(
    "chunks",
    "repairable",
    relations.orphanChunks.length,
    "conversations are gone, their messages too, but their chunks hold their text",
    `\`mnemo doctor --repair\` rebuilds them and their messages from the chunks; ${REPLACED}`,
  );
  add(
    "conversation_messages",
    "repairable",
    relations.orphanMessages.length,
    "messages rows are of a conversation's earlier revision (its current one is stored)",
    "`mnemo doctor --repair` deletes them",
  );
  const conversationsDamaged = rowsLost(health, "conversations");
  add(
    "conversations",
    "repairable",
    relations.lostConversations.length,
    conversationsDamaged
      ? "conversations cannot be read but their messages are still stored"
      : "messages rows belong to no conversation (an upload or a delete cut short between its commits)",
    conversationsDamaged
      ? `\`mnemo doctor --repair\` rebuilds them from their messages (platform "${RECOVERED_PLATFORM}", titled by the first message); ${REPLACED}`
      : `${NEXT_WRITE_SETTLES}; \`mnemo doctor --repair\` moves them to a file in ${LEFTOVERS_DIR}: running the upload again stores its conversations anew`,
  );
  const { fromChunks, fromEarlier, lost } = relations.withoutMessages;
  add(
    "conversation_messages",
    "repairable",
    fromChunks.length,
    "conversations have lost their messages, which their chunks still hold",
    `\`mnemo doctor --repair\` rebuilds the messages from the chunks' text; ${REPLACED}`,
  );
  add(
    "conversation_messages",
    "repairable",
    fromEarlier.length,
    "conversations have lost their messages but not those of their previous revision",
    `\`mnemo doctor --repair\` puts the previous revision's messages back and indexes them; ${REPLACED}`,
  );
  add(
    "conversations",
    "damaged",
    lost.length,
    "conversations have lost their messages and chunks: their titles are all that is left",
    `\`mnemo doctor --repair\` keeps them, marked failed with the reason; ${RESTORE}`,
  );
  add(
    "chunks",
    "repairable",
    relations.readyWithoutChunks.length,
    "conversations are not in the search index (no chunks)",
    "`mnemo doctor --repair` indexes them again from their messages",
  );
  const stray = relations.missingBuckets.reduce((sum, entry) => sum + entry.memories, 0);
  add(
    "memories",
    "repairable",
    stray,
    "memories are in a bucket that does not exist",
    "`mnemo doctor --repair` makes the bucket again (named Recovered <id>)",
  );
  const memoriesDamaged = rowsLost(health, "memories");
  add(
    "memory_history",
    "repairable",
    relations.orphanHistory.length,
    memoriesDamaged
      ? "memories cannot be read but have versions"
      : "memories are gone but have versions (a delete, or a remember, stopped between its two commits)",
    memoriesDamaged
      ? "`mnemo doctor --repair` rebuilds each memory from its newest version (embedding it again)"
      : `${NEXT_WRITE_SETTLES}; \`mnemo doctor --repair\` moves the versions to a file in ${LEFTOVERS_DIR}`,
  );
  add(
    "platforms",
    "repairable",
    relations.missingPlatforms.length,
    "platforms hold conversations but have no import record",
    "`mnemo doctor --repair` makes each again from its conversations",
  );
  const strays = new Set(relations.withoutUser.flatMap((entry) => entry.userIds));
  for (const { table, rows } of relations.withoutUser) {
    add(
      table,
      "repairable",
      rows,
      `rows belong to ${strays.size === 1 ? "a user" : `${strays.size} users`} the users table does not hold`,
      "`mnemo doctor --repair` makes those users again from their ids (with their names and tokens where the data dir recorded them)",
    );
  }
  if (journal > 0) {
    findings.push({
      table: "journal",
      severity: "damaged",
      what: `${journal.toLocaleString("en")} memory writes in the journal cannot be read (their bytes changed on disk): they are not in the store`,
      fix: `\`mnemo doctor --repair\` moves their lines, as they are, to ${LEFTOVERS_DIR}; \`mnemo import <your latest export>\` puts back what it holds of them`,
    });
  }
  for (const image of images) {
    findings.push({
      table: "images",
      severity: "damaged",
      what: `the picture of image memory ${image.memoryId} (${image.file}) ${image.what}`,
      fix: `the memory and its description are kept; \`mnemo import <your latest export>\` puts its picture back`,
    });
  }
  return findings;
}

const REPLACED = "`mnemo import <your latest export>` then replaces each rebuilt one by the export's";

function tableFindings(table: TableHealth): Finding[] {
  const findings: Finding[] = [];
  if (table.problem) {
    const read = table.rows === undefined ? "" : ` (${table.read.toLocaleString("en")} of ${table.rows.toLocaleString("en")} rows read)`;
    findings.push({
      table: table.table,
      severity: table.key === "chunks" ? "repairable" : "damaged",
      what: `${table.problem.what}${read}`,
      detail: table.problem.detail,
      fix:
        table.key === "chunks"
          ? "`mnemo doctor --repair` keeps the chunks that can be read and rebuilds the rest from the conversations' messages (re-embedding them)"
          : filesToRebuild(table).length > 0
            ? `\`mnemo doctor --repair\` moves the rows of the changed files, as they read, to a file in ${LEFTOVERS_DIR}, keeps the others, rebuilds what the other tables hold of the moved ones, and keeps a copy of the damaged files; ${RESTORE}`
            : `\`mnemo doctor --repair\` keeps the rows that can still be read${alteredDataFiles(table.changedFiles).length > 0 ? " (those of the changed files as they read: nothing else holds them)" : ""}, rebuilds what it can of the rest from the other tables, and keeps a copy of the damaged files; ${RESTORE}`,
    });
  }
  for (const index of table.indexes.filter((i) => i.problem)) {
    findings.push({
      table: table.table,
      severity: "repairable",
      what:
        index.name === ANY_INDEX
          ? `one of its indexes is damaged: ${index.problem!.what}`
          : `its index ${index.name} (${index.columns.join(", ")}) is damaged: ${index.problem!.what}`,
      detail: index.problem!.detail,
      fix: "`mnemo doctor --repair` builds it again from the rows",
    });
  }
  if (table.badVectors.length > 0) {
    const whose = table.key === "chunks" ? "chunks have" : "memories have";
    findings.push({
      table: table.table,
      severity: "repairable",
      what: `${table.badVectors.length.toLocaleString("en")} ${whose} a vector that is not finite, is all zero or has another dimension`,
      fix: `\`mnemo doctor --repair\` embeds ${table.key === "chunks" ? "their conversations" : "them"} again`,
    });
  }
  if (table.duplicates.length > 0) {
    findings.push({
      table: table.table,
      severity: "repairable",
      what: `${table.duplicates.length.toLocaleString("en")} rows are stored twice (the same id)`,
      fix: "`mnemo doctor --repair` keeps one of each",
    });
  }
  return findings;
}
