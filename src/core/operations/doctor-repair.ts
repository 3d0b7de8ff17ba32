import fs from "node:fs";
import path from "node:path";
import type { Config } from "../../config/load-config.js";
import { isRemoteUri } from "../../config/paths.js";
import { createEmbedder } from "../../providers/create-providers.js";
import type { Embedder } from "../../providers/embedder.js";
import { BucketObjects, s3Location, s3Uri } from "../../store/bucket-objects.js";
import { ANY_INDEX, lostRowsKey, rowsOfKey, type StoreHealth, type TableHealth } from "../../store/health.js";
import { TEXT_INDEX } from "../../store/migrations.js";
import { optimizeStore } from "../../store/maintenance.js";
import { alteredDataFiles } from "../../store/checksums.js";
import { journalDamage } from "../../store/journal.js";
import { readRecoveryRecord } from "../../store/recovery-record.js";
import type { Salvaged } from "../../store/salvage.js";
import type { TableRows } from "../../store/rows.js";
import type { StoreMeta, TableKey } from "../../store/schema.js";
import { StorageFaultError } from "../../store/storage-faults.js";
import { Store } from "../../store/store.js";
import { AppError } from "../../shared/errors.js";
import { createApp, type App } from "../app.js";
import { indexPending } from "../chat-history/index-worker.js";
import {
  conversationsFromChunks,
  conversationsFromMessages,
  embedAndStore,
  keepTextless,
  memoriesFromHistory,
  messagesRowsFromChunks,
  messagesRowsFromEarlier,
  rebuildUsers,
} from "./doctor-rebuild.js";
import {
  diagnose,
  filesToRebuild,
  LEFTOVERS_DIR,
  RECOVERED_PLATFORM,
  rowsLost,
  salvageInChild,
  type Diagnosis,
  type DoctorProgress,
} from "./doctor.js";
import { runningServer } from "../../config/server-info.js";

/**
 * `mnemo doctor --repair`: rebuilds what is missing from what the store still holds, and deletes
 * nothing that can be read. It says first what it will do (`repairPlan`, all that `--dry-run` does),
 * then, in this order:
 * 1. a damaged meta record, written again for the embedder named with --embedder or recorded in the data dir;
 * 2. damaged tables: their files copied to <data dir>/recovered/<time>/ (a local store; on S3 their
 *    objects to recovered/<time>/ below the store's prefix), then each table made again from the rows
 *    of it that can still be read (store/salvage.ts);
 * 3. damaged indexes, dropped and built again from the rows;
 * 4. then, from a fresh check (doctor-rebuild.ts): users made again from their rows' ids; rows stored
 *    twice (the newest kept); conversations and their messages rebuilt from their chunks or their
 *    messages; conversations whose text is gone kept with their titles; memories lost with their
 *    table rebuilt from their newest version; buckets that memories are in made again; vectors that
 *    are not finite, zero or of another dimension embedded again; conversations missing from the
 *    search index chunked again. Deleted: only what nothing reads and a newer copy is stored of (a
 *    conversation's earlier revision). Rows that refer to a conversation or memory that is gone,
 *    while its table is whole, were left by a write cut short between two commits (a delete the
 *    user asked for, an upload or remember that failed and was run again): they are moved to a file
 *    in <data dir>/recovered/<time>/, not rebuilt, which would bring back a deleted thing or store
 *    an uploaded one twice.
 * It refuses while `mnemo serve` runs on the store: replacing a table under a server's open
 * handles would give its requests errors.
 */

export interface RepairOptions {
  /** `--yes`: replace damaged tables on an object store where mnemo cannot copy their files aside. */
  withoutCopies?: boolean;
  /**
   * A model already loaded in this process (the CLI's io.embedder, AppOptions.embedder), used where
   * the store records it: the corruption probe repairs 44 stores, and the model loaded again for
   * each one's embedding or meta record took ~0.5 s of CPU.
   */
  embedder?: Embedder | undefined;
}

export interface RepairResult {
  /** What the repair was to do, one line each, said before it started. */
  plan: string[];
  /** What was done, one line each. */
  actions: string[];
  /** The check after the repair: what is still wrong needs an export. */
  after: Diagnosis;
}

/** The names LanceDB gives the indexes maintenance builds (`<column>_idx`), and the text index's. */
const OUR_INDEXES = [TEXT_INDEX, "vector_idx", "userId_idx", "conversationId_idx", "id_idx"];

/**
 * Tables salvaged at an earlier version when their newest version file is damaged: those nothing
 * else holds a copy of. Every other table is rebuilt from the others instead: an earlier version
 * brings back what the newest change deleted (in the corruption probe, a conversation moved to the
 * trash came back as a failed one from an earlier conversations table, and from its chunks).
 */
const FROM_EARLIER_VERSION: TableKey[] = ["trash"];

/** Ids per delete or update: a predicate of a few hundred ids stays short. */
const IDS_PER_STEP = 500;

/** What `repairStore` will do with this diagnosis, one line each, in order: what `--dry-run` prints. */
export function repairPlan(config: Config, diagnosis: Diagnosis): string[] {
  const { health } = diagnosis;
  const plan: string[] = [];
  const count = (n: number, text: string) => n > 0 && plan.push(`${n.toLocaleString("en")} ${text}`);
  if (health.meta.problem) plan.push(`meta: written again for the ${metaFor(config, health).embedderSpec} embedder`);
  for (const table of damagedTables(health)) plan.push(salvagePlan(config, table));
  for (const table of health.tables.filter((t) => !damagedTables(health).includes(t)))
    for (const index of table.indexes.filter((i) => i.problem))
      plan.push(
        `${table.table}: ${index.name === ANY_INDEX ? "its indexes" : `index ${index.name}`} dropped and built again from the rows`,
      );
  const relations = health.relations;
  for (const table of health.tables) count(table.duplicates.length, `rows of ${table.table} stored twice: the newest of each kept`);
  const strays = [...new Set(relations.withoutUser.flatMap((entry) => entry.userIds))];
  count(strays.length, "users made again from their rows' ids (names and tokens as the data dir recorded them)");
  count(relations.missingPlatforms.length, "platforms' import records made again from their conversations");
  count(
    relations.lostConversations.length,
    rowsLost(health, "conversations")
      ? `conversations rebuilt from their messages (platform "${RECOVERED_PLATFORM}")`
      : `messages rows of no conversation (an upload or a delete cut short) moved to a file in ${LEFTOVERS_DIR}`,
  );
  count(relations.orphanChunks.length, "conversations rebuilt with their messages from their chunks' text");
  const { fromChunks, fromEarlier, lost } = relations.withoutMessages;
  count(fromChunks.length, "conversations' messages rebuilt from their chunks' text");
  count(fromEarlier.length, "conversations' messages taken from their previous revision, to be indexed again");
  count(lost.length, "conversations whose text is gone kept with their titles, marked failed (an export restores them)");
  count(relations.orphanMessages.length, "messages rows of an earlier revision deleted (the current one is stored)");
  count(
    relations.orphanHistory.length,
    rowsLost(health, "memories")
      ? "memories rebuilt from their newest version (embedded again)"
      : `versions of no memory (a delete or a remember cut short) moved to a file in ${LEFTOVERS_DIR}`,
  );
  count(relations.missingBuckets.length, "missing buckets made again (named Recovered <id>)");
  count(vectorsOf(health, "memories").length, "memories embedded again");
  count(reindexed(health).length, "conversations chunked and embedded again");
  count(diagnosis.journal, `memory writes the journal cannot read: their lines moved to ${LEFTOVERS_DIR} (an export restores them)`);
  count(diagnosis.images.length, "image memories' pictures are damaged or missing: kept as they are (an export restores them)");
  return plan;
}

function salvagePlan(config: Config, table: TableHealth): string {
  const bucket = s3Location(config.storeUri);
  const copy = bucket
    ? `(its objects copied to ${s3Uri(bucket, `${BUCKET_RECOVERED}/<time>/`)} first)`
    : isRemoteUri(config.storeUri)
      ? "(its damaged files are not kept: mnemo copies them aside on S3 only, and replaces them here only with --yes)"
      : `(its files copied to ${recoveredDir(config, "<time>")} first)`;
  if (table.rows === undefined && FROM_EARLIER_VERSION.includes(table.key))
    return `${table.table}: cannot be opened; made again from its newest version that opens (else empty) ${copy}`;
  if (table.rows === undefined) return `${table.table}: cannot be opened; made again empty, its rows rebuilt from the other tables ${copy}`;
  const altered = filesToRebuild(table).length;
  if (altered > 0)
    return `${table.table}: made again from the rows of its files that have not changed; the rows of the ${altered} changed ones are moved to a file in ${LEFTOVERS_DIR} as they read, and what the other tables hold of them is rebuilt ${copy}`;
  const lost = table.rows - table.read;
  const asRead =
    alteredDataFiles(table.changedFiles).length > 0 ? " (those of its changed files as they read: nothing else holds them)" : "";
  return `${table.table}: made again from the ${table.read.toLocaleString("en")} of its ${table.rows.toLocaleString("en")} rows that can be read${asRead}${lost > 0 ? `; what the other tables hold of the ${lost.toLocaleString("en")} others is rebuilt` : ""} ${copy}`;
}

/** `withoutCopies`: the user has said (`--yes`) to go on where a damaged table's files cannot be copied aside (gs://, az://). */
export async function repairStore(
  config: Config,
  diagnosis: Diagnosis,
  onProgress: DoctorProgress = () => undefined,
  options: RepairOptions = {},
): Promise<RepairResult> {
  const server = runningServer(config.paths.serverInfo);
  if (server) {
    throw new AppError("conflict", `mnemo serve (pid ${server.pid}) is using this store`, {
      suggestion: "Stop it, run `mnemo doctor --repair`, then start it again.",
    });
  }
  if (!options.withoutCopies) refuseToReplaceUncopied(config, diagnosis.health);
  const plan = repairPlan(config, diagnosis);
  const actions: string[] = [];
  if (diagnosis.health.meta.problem) actions.push(await repairMeta(config, diagnosis.health, options.embedder));
  const app = await createApp(config, { maintenance: "off", embedder: options.embedder });
  try {
    // This process is the one to open what others found damaged and kept away from (store.ts).
    for (const table of diagnosis.health.tables) app.context.store.reopen(table.key);
    const time = new Date().toISOString().replaceAll(":", "-");
    const recovered = recoveredDir(config, time);
    actions.push(...(await repairTables(app, config, diagnosis.health, time, onProgress)));
    onProgress("Checking the store again");
    const fresh = await diagnose(config, onProgress);
    actions.push(...(await repairRows(app, fresh, recovered, onProgress)));
    actions.push(...(await keepJournalDamage(app, recovered)));
  } finally {
    await app.close();
  }
  onProgress("Checking the repaired store");
  return { plan, actions, after: await diagnose(config, onProgress) };
}

function damagedTables(health: StoreHealth): TableHealth[] {
  // The meta table is written again (repairMeta), never salvaged: a salvage records its progress there.
  return health.tables.filter((table) => table.problem && table.key !== "meta");
}

/** The meta record to write: for the embedder named with --embedder, else the one the data dir recorded. */
function metaFor(config: Config, health: StoreHealth): Omit<StoreMeta, "schemaVersion" | "embedderId"> & { embedderId?: string } {
  const recorded = readRecoveryRecord(config.paths.recoveryRecord).meta;
  // When the record is gone, so is the size: the chunks keep theirs, and new ones take the setting's.
  const chunkTokens = health.meta.chunkTokens ?? recorded?.chunkTokens ?? config.chunkTokens;
  if (config.embedder !== "auto")
    return { embedderSpec: config.embedder, dims: health.meta.dims ?? 0, generation: health.meta.generation, chunkTokens };
  if (recorded && (health.meta.dims === undefined || recorded.dims === health.meta.dims)) return { ...recorded, chunkTokens };
  throw AppError.invalid(
    "--embedder",
    "the store's meta record is damaged and the data dir holds no record of its embedder: name the embedder the store was made with",
    `Run \`mnemo doctor --repair --embedder bundled\` (or transformers:<model>, the one you chose)${health.meta.dims ? `; its vectors have ${health.meta.dims} dimensions` : ""}.`,
  );
}

/** The meta record written again, its embedder's dimension checked against the vectors. */
async function repairMeta(config: Config, health: StoreHealth, loaded: Embedder | undefined): Promise<string> {
  const wanted = metaFor(config, health);
  let { embedderId, dims } = wanted;
  if (embedderId === undefined && loaded?.id === wanted.embedderSpec) ({ id: embedderId, dims } = loaded);
  else if (embedderId === undefined) {
    const embedder = await createEmbedder(wanted.embedderSpec, config);
    ({ id: embedderId, dims } = embedder);
    await embedder.close();
  }
  if (health.meta.dims !== undefined && health.meta.dims !== dims) {
    throw AppError.invalid(
      "--embedder",
      `${wanted.embedderSpec} makes ${dims} dimensions; the store's vectors have ${health.meta.dims}`,
      "Name the embedder the store was made with.",
    );
  }
  await Store.rewriteMeta(
    config.storeUri,
    config.paths.writeLock,
    {
      embedderId,
      embedderSpec: wanted.embedderSpec,
      dims,
      chunkTokens: wanted.chunkTokens,
      generation: wanted.generation,
    },
    config.storage.options,
  );
  return `meta: written again for ${wanted.embedderSpec} (${dims} dimensions)`;
}

function recoveredDir(config: Config, time: string): string {
  return path.join(config.paths.dataDir, "recovered", time);
}

/** Where, below a store's prefix on S3, the copies of its damaged tables go: beside the tables, which LanceDB takes for none (no `.lance`). */
const BUCKET_RECOVERED = "recovered";

/** Damaged tables salvaged (their files copied aside first) or made again, and damaged indexes built again. */
async function repairTables(app: App, config: Config, health: StoreHealth, time: string, onProgress: DoctorProgress): Promise<string[]> {
  const { store } = app.context;
  const recovered = recoveredDir(config, time);
  const actions: string[] = [];
  const rebuild = new Set<TableKey>();
  for (const table of damagedTables(health)) {
    onProgress(`Salvaging ${table.table}`);
    const copied = await keepDamagedFiles(config, table.table, time);
    const key = table.key;
    if (key === "memories" || key === "conversations") await store.write(() => store.setMeta({ [lostRowsKey(key)]: recovered }));
    // A table no version of which opens with its columns is made again empty: its rows are not
    // there to read in the columns they had.
    const result = await store.write(async () => {
      try {
        // A failing disk or object store stops the repair: the table is not remade for an outage.
        const earlier = FROM_EARLIER_VERSION.includes(table.key);
        const salvaged = await salvageInChild(config, table, health.meta.dims, earlier, changedRowsFile(recovered, table.table)).catch(
          (error: unknown) => {
            if (error instanceof StorageFaultError) throw error;
            return undefined;
          },
        );
        if (!salvaged) await store.recreate(table.key);
        return salvaged;
      } finally {
        store.reopen(table.key);
      }
    });
    rebuild.add(table.key);
    const asRead =
      filesToRebuild(table).length < alteredDataFiles(table.changedFiles).length
        ? "; those of its changed data files as they read (nothing else holds them: a value may differ from what was written)"
        : "";
    const kept = `${asRead}${copied ? `; its damaged files are in ${copied}` : ""}`;
    actions.push(
      result
        ? salvaged(table.table, result, kept, recovered)
        : `${table.table}: could not be opened at all; made again, empty, for what the other tables hold of it${kept}`,
    );
  }
  // A salvaged table was made again without indexes: optimizeStore below builds them.
  for (const table of health.tables.filter((t) => !damagedTables(health).includes(t))) {
    for (const index of table.indexes.filter((i) => i.problem)) {
      onProgress(`Dropping the damaged index ${index.name} of ${table.table}`);
      const names = index.name === ANY_INDEX ? OUR_INDEXES : [index.name];
      await store.write(() =>
        store.guard(table.key, async (handle) => {
          for (const name of names)
            await handle.dropIndex(name).catch((error: unknown) => (names.length > 1 ? undefined : Promise.reject(error)));
        }),
      );
      rebuild.add(table.key);
      actions.push(`${table.table}: ${index.name === ANY_INDEX ? "its indexes" : `index ${index.name}`} dropped and built again`);
    }
  }
  if (rebuild.size > 0) {
    onProgress("Building indexes");
    await optimizeStore(store, [...rebuild]);
  }
  // Replaced, or no longer read (a dropped index's files stay until old versions are cleaned up).
  await store.forgetChecksums(health.tables.flatMap((t) => (t.changedFiles ?? []).map((changed) => changed.file)));
  return actions;
}

/** Where a salvage writes the rows of a table's changed data files (store/salvage.ts). */
function changedRowsFile(recovered: string, table: string): string {
  return path.join(recovered, `${table}-rows-of-changed-files.jsonl`);
}

function salvaged(table: string, result: Salvaged, kept: string, recovered: string): string {
  const of = result.rows === undefined ? "" : ` of ${result.rows.toLocaleString("en")}`;
  const n = result.olderBy;
  const older =
    n === 0
      ? ""
      : n === 1
        ? " at its previous version (its newest version file is damaged: the last change to it is undone, unless the other tables hold it)"
        : ` at its version ${n} before the newest (its ${n} newest version files are damaged: their changes are undone, unless the other tables hold them)`;
  const aside =
    result.setAside > 0
      ? `; the ${result.setAside.toLocaleString("en")} rows of its changed data files, which a flipped bit may have altered, moved to ${changedRowsFile(recovered, table)} as they read (what the other tables hold of them is rebuilt)`
      : "";
  return `${table}: kept the ${result.kept.toLocaleString("en")} rows that could be read${of}${older}${aside}${kept}`;
}

/**
 * A repair replaces a damaged table's files, which it copies aside first, on a local store and on
 * S3 only: on another object store it goes on only once told to, the files copied by the user's own tool.
 */
function refuseToReplaceUncopied(config: Config, health: StoreHealth): void {
  if (!isRemoteUri(config.storeUri) || s3Location(config.storeUri)) return;
  const folders = damagedTables(health).map((table) => `${config.storeUri.replace(/\/$/, "")}/${table.table}.lance/`);
  if (folders.length === 0) return;
  throw new AppError(
    "conflict",
    `The repair would replace damaged files that mnemo cannot copy aside on this object store: ${folders.join(", ")}`,
    {
      suggestion: "To keep them, copy those folders with your object store's own tool first; then run `mnemo --yes doctor --repair`.",
    },
  );
}

/**
 * A copy of a damaged table's folder, for what no repair can read: where it is, or undefined with
 * none to copy or on an object store other than S3. On S3 a copy in the bucket, server-side: the
 * bytes never pass through this machine, a table larger than its disk is kept too, and the copy
 * stays with the store, under the store's own access.
 */
async function keepDamagedFiles(config: Config, table: string, time: string): Promise<string | undefined> {
  const folder = `${table}.lance`;
  if (isRemoteUri(config.storeUri)) {
    const bucket = await BucketObjects.open(config.storeUri, config.storage.options, config.env);
    if (!bucket) return undefined;
    try {
      const to = `${BUCKET_RECOVERED}/${time}/${folder}/`;
      return (await bucket.copyFolder(`${folder}/`, to)) > 0 ? bucket.uriOf(to) : undefined;
    } finally {
      bucket.close();
    }
  }
  const from = path.join(config.paths.database, folder);
  if (!fs.existsSync(from)) return undefined;
  const to = path.join(recoveredDir(config, time), folder);
  fs.cpSync(from, to, { recursive: true });
  return to;
}

/** From a fresh check: what the rows that are left can rebuild, in the order the plan says it. */
async function repairRows(app: App, diagnosis: Diagnosis, recovered: string, onProgress: DoctorProgress): Promise<string[]> {
  const { store } = app.context;
  const { health } = diagnosis;
  const relations = health.relations;
  const actions: string[] = [];
  const did = (count: number, text: string) => count > 0 && actions.push(`${count.toLocaleString("en")} ${text}`);
  const inWrite = (ids: string[], work: (ids: string[]) => Promise<unknown>) => inSteps(ids, (step) => store.write(() => work(step)));

  for (const table of health.tables.filter((t) => t.duplicates.length > 0)) {
    onProgress(`Removing duplicates from ${table.table}`);
    await store.write(() => keepNewestOfEach(app, table.key, table.duplicates));
    did(table.duplicates.length, `rows of ${table.table} stored twice: the newest of each kept`);
  }
  const strays = [...new Set(relations.withoutUser.flatMap((entry) => entry.userIds))];
  if (strays.length > 0) {
    onProgress("Making users again");
    const names = await store.write(() => rebuildUsers(app, strays));
    actions.push(`${counted(names.length, "user")} made again from their rows' ids: ${names.join(", ")}`);
  }
  // Before the conversations are rebuilt: those find their platform's import record.
  const now = app.context.now().toISOString();
  const platforms = relations.missingPlatforms.map(({ userId, platform, importId }) => ({
    userId,
    id: platform,
    displayName: null,
    importId,
    createdAt: now,
  }));
  if (platforms.length > 0) await store.write(() => store.add("platforms", platforms));
  did(platforms.length, "platforms' import records made again from their conversations");
  onProgress("Rebuilding conversations");
  const conversationsLost = rowsLost(health, "conversations");
  if (conversationsLost) {
    await inWrite(relations.lostConversations, (ids) => conversationsFromMessages(app, ids));
    did(
      relations.lostConversations.length,
      `conversations rebuilt from their messages (platform "${RECOVERED_PLATFORM}"), to be indexed again`,
    );
  } else {
    const file = path.join(recovered, "conversation_messages-of-no-conversation.jsonl");
    await inWrite(relations.lostConversations, async (ids) => {
      await keepRows(file, await store.select("messages", { conversationId: ids }));
      await store.delete("messages", { conversationId: ids });
      await store.delete("chunks", { conversationId: ids });
    });
    did(relations.lostConversations.length, `conversations' messages rows of no conversation moved to ${file}`);
  }
  await inWrite(relations.orphanChunks, (ids) => conversationsFromChunks(app, ids));
  did(relations.orphanChunks.length, "conversations rebuilt with their messages from their chunks' text");
  const { fromChunks, fromEarlier, lost } = relations.withoutMessages;
  await inWrite(fromChunks, (ids) => messagesRowsFromChunks(app, ids));
  did(fromChunks.length, "conversations' messages rebuilt from their chunks' text");
  await inWrite(fromEarlier, (ids) => messagesRowsFromEarlier(app, ids));
  did(fromEarlier.length, "conversations' messages taken from their previous revision, to be indexed again");
  await inWrite(lost, (ids) => keepTextless(app, ids));
  did(lost.length, "conversations whose text is gone kept with their titles, marked failed (an export restores them)");
  await inWrite(relations.orphanMessages, (ids) => store.delete("messages", { id: ids }));
  did(relations.orphanMessages.length, "messages rows of an earlier revision deleted (the current one is stored)");

  const memoriesLost = rowsLost(health, "memories");
  if (memoriesLost) {
    onProgress("Rebuilding memories from their versions");
    await inSteps(relations.orphanHistory, (ids) => memoriesFromHistory(app, ids));
    did(relations.orphanHistory.length, "memories rebuilt from their newest version (embedded again)");
  } else {
    const file = path.join(recovered, "memory_history-of-no-memory.jsonl");
    await inWrite(relations.orphanHistory, async (ids) => {
      await keepRows(file, await store.select("memoryHistory", { memoryId: ids }));
      await store.delete("memoryHistory", { memoryId: ids });
    });
    did(relations.orphanHistory.length, `memories' versions of no memory moved to ${file}`);
  }
  // Memories rebuilt just now may be in buckets that are gone too: from the rows as they are now.
  const missingBuckets = memoriesLost ? (await diagnose(app.config)).health.relations.missingBuckets : relations.missingBuckets;
  for (const { userId, bucketId } of missingBuckets) {
    const row = {
      userId,
      id: bucketId,
      name: `Recovered ${bucketId}`,
      description: "made again by mnemo doctor --repair",
      createdAt: app.context.now().toISOString(),
    };
    await store.write(() => store.add("buckets", [row]));
  }
  did(missingBuckets.length, "missing buckets made again (named Recovered <id>)");

  const memories = vectorsOf(health, "memories");
  await inSteps(memories, (ids) => reembedMemories(app, ids));
  did(memories.length, "memories embedded again");
  const reindex = reindexed(health);
  if (reindex.length > 0 || (conversationsLost && relations.lostConversations.length > 0) || fromEarlier.length > 0) {
    await inWrite(reindex, async (ids) => {
      await store.delete("chunks", { conversationId: ids });
      await store.update("conversations", { id: ids }, { status: "queued", statusReason: null });
    });
    await indexAll(app, onProgress);
    did(reindex.length, "conversations chunked and embedded again");
  }
  await store.write(() => store.delete("meta", { key: [lostRowsKey("memories"), lostRowsKey("conversations")] }));
  return actions;
}

/**
 * The journal's lines that cannot be read, moved to `recovered` once every record that can be read
 * is absorbed (which keeps the others in the journal's `damaged/` folder): the store has no more of them.
 */
async function keepJournalDamage(app: App, recovered: string): Promise<string[]> {
  const { store, config } = app.context;
  await store.settle();
  const { lines, folder } = journalDamage(config.paths.journal);
  if (lines === 0 || !fs.existsSync(folder)) return [];
  const to = path.join(recovered, "journal-damaged");
  fs.mkdirSync(recovered, { recursive: true });
  fs.renameSync(folder, to);
  return [`${counted(lines, "memory write")} the journal could not read: their lines moved to ${to} (an export restores them)`];
}

/** Rows taken out of the store, appended to `file` as JSON lines before they are deleted. */
async function keepRows(file: string, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.appendFile(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
}

function vectorsOf(health: StoreHealth, key: "memories" | "chunks"): string[] {
  return health.tables.find((t) => t.key === key)?.badVectors ?? [];
}

/** Conversations whose chunks are built again: those with bad vectors, and ready ones with none. */
function reindexed(health: StoreHealth): string[] {
  return [...new Set([...vectorsOf(health, "chunks"), ...health.relations.readyWithoutChunks])];
}

function counted(count: number, noun: string): string {
  return `${count.toLocaleString("en")} ${noun}${count === 1 ? "" : "s"}`;
}

/** The newest row of each duplicated key (by version or revision): all deleted, that one written back. Inside `write`. */
async function keepNewestOfEach(app: App, key: TableKey, keys: string[]): Promise<void> {
  const { store } = app.context;
  const age = (row: object) => (row as { version?: number }).version ?? (row as { revision?: number }).revision ?? 0;
  for (const one of keys) {
    const where = rowsOfKey(key, one);
    const rows = (await store.select(key, where)) as TableRows[TableKey][];
    const newest = rows.reduce<TableRows[TableKey] | undefined>((best, row) => (!best || age(row) > age(best) ? row : best), undefined);
    if (!newest) continue;
    await store.delete(key, where);
    await store.add(key, [newest] as never[]);
  }
}

async function reembedMemories(app: App, ids: string[]): Promise<void> {
  await embedAndStore(app, await app.context.store.select("memories", { id: ids }));
}

/**
 * Runs the index worker until nothing is queued, telling how many are left when that changes. Looks
 * every 100 ms: a repair's few conversations are indexed in well under the 500 ms it waited before.
 */
async function indexAll(app: App, onProgress: DoctorProgress): Promise<void> {
  await app.indexer.start();
  const { store } = app.context;
  let told: number | undefined;
  while (await indexPending(store)) {
    if (app.indexer.stalled) throw app.indexer.stalled;
    const left = await store.count("conversations", { status: ["queued", "processing"], quotaBlocked: false });
    if (left !== told) onProgress(`Indexing: ${left.toLocaleString("en")} conversations to go`);
    told = left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await app.indexer.stop();
}

async function inSteps(ids: string[], work: (ids: string[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < ids.length; i += IDS_PER_STEP) await work(ids.slice(i, i + IDS_PER_STEP));
}
