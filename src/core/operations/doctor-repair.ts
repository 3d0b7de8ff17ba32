import type { Config } from "../../config/load-config.js";
import { createEmbedder } from "../../providers/create-providers.js";
import { ANY_INDEX, type StoreHealth } from "../../store/health.js";
import { TEXT_INDEX } from "../../store/migrations.js";
import { optimizeStore } from "../../store/maintenance.js";
import type { ConversationRow, StoredMessage, TableRows } from "../../store/rows.js";
import type { TableKey } from "../../store/schema.js";
import { sqlIn, sqlString } from "../../store/sql.js";
import { Store } from "../../store/store.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { createApp, type App } from "../app.js";
import { indexPending } from "../chat-history/index-worker.js";
import { diagnose, RECOVERED_PLATFORM, salvageInChild, type Diagnosis, type DoctorProgress } from "./doctor.js";
import { runningServer } from "./server-info.js";

/**
 * `mnemo doctor --repair`: rebuilds what the store itself can rebuild, in this order:
 * 1. a damaged meta record, written again for the embedder the user names;
 * 2. damaged tables, replaced by the rows of them that can still be read (store/salvage.ts), or
 *    made again empty when they cannot be opened at all; what is lost, an export restores;
 * 3. damaged indexes, dropped and built again from the rows;
 * 4. then, from a fresh check: rows stored twice (one kept), conversations whose row is gone but
 *    whose messages are not (rebuilt from those), rows nothing points at (deleted),
 *    buckets that memories are in but that are gone (made again), vectors that are not finite,
 *    zero or of another dimension (embedded again), conversations missing from the search index
 *    (their chunks rebuilt from their messages and embedded).
 * It refuses while `mnemo serve` runs on the store: replacing a table under a server's open
 * handles would give its requests errors.
 */

export interface RepairResult {
  /** What was done, one line each. */
  actions: string[];
  /** The check after the repair: what is still wrong needs an export. */
  after: Diagnosis;
}

/** The names LanceDB gives the indexes maintenance builds (`<column>_idx`), and the text index's. */
const OUR_INDEXES = [TEXT_INDEX, "vector_idx", "userId_idx", "conversationId_idx", "id_idx"];

/** Ids per delete or update: a predicate of a few hundred ids stays short. */
const IDS_PER_STEP = 500;

export async function repairStore(
  config: Config,
  diagnosis: Diagnosis,
  onProgress: DoctorProgress = () => undefined,
): Promise<RepairResult> {
  const server = runningServer(config.paths.serverInfo);
  if (server) {
    throw new AppError("conflict", `mnemo serve (pid ${server.pid}) is using this store`, {
      suggestion: "Stop it, run `mnemo doctor --repair`, then start it again.",
    });
  }
  const actions: string[] = [];
  if (diagnosis.health.meta.problem) actions.push(await repairMeta(config, diagnosis.health));
  const app = await createApp(config, { maintenance: "off" });
  try {
    actions.push(...(await repairTables(app, config, diagnosis.health, onProgress)));
    onProgress("Checking the store again");
    const fresh = await diagnose(config, onProgress);
    if (!fresh.health.relations) return { actions, after: fresh };
    actions.push(...(await repairRows(app, fresh.health, onProgress)));
  } finally {
    await app.close();
  }
  onProgress("Checking the repaired store");
  return { actions, after: await diagnose(config, onProgress) };
}

/** The meta record written again, for the embedder named with --embedder (its dimension checked against the vectors). */
async function repairMeta(config: Config, health: StoreHealth): Promise<string> {
  if (config.embedder === "auto") {
    throw AppError.invalid(
      "--embedder",
      "the store's meta record is damaged: name the embedder the store was made with",
      "Run `mnemo doctor --repair --embedder bundled` (or transformers:<model>, the one you chose); `mnemo doctor` says how many dimensions its vectors have.",
    );
  }
  const embedder = await createEmbedder(config.embedder, config);
  const { id, dims } = embedder;
  await embedder.close();
  if (health.meta.dims !== undefined && health.meta.dims !== dims) {
    throw AppError.invalid(
      "--embedder",
      `${config.embedder} makes ${dims} dimensions; the store's vectors have ${health.meta.dims}`,
      "Name the embedder the store was made with.",
    );
  }
  await Store.rewriteMeta(config.storeUri, config.paths.writeLock, {
    embedderId: id,
    embedderSpec: config.embedder,
    dims,
    // When the record is gone, so is the size: the chunks keep theirs, and new ones take this one.
    chunkTokens: health.meta.chunkTokens ?? config.chunkTokens,
    generation: health.meta.generation,
  });
  return `meta: written again for ${config.embedder} (${dims} dimensions)`;
}

/** Damaged tables salvaged or made again, and damaged indexes built again. */
async function repairTables(app: App, config: Config, health: StoreHealth, onProgress: DoctorProgress): Promise<string[]> {
  const { store } = app.context;
  const actions: string[] = [];
  const rebuild = new Set<TableKey>();
  // The meta table was written again above (repairMeta), never salvaged: a salvage records its progress there.
  for (const table of health.tables.filter((t) => t.problem && t.key !== "meta")) {
    onProgress(`Salvaging ${table.table}`);
    const result = await store.write(async () => {
      try {
        return await salvageInChild(config, table.table);
      } catch {
        await store.recreate(table.key);
        return undefined;
      } finally {
        store.reopen(table.key);
      }
    });
    rebuild.add(table.key);
    actions.push(
      result
        ? `${table.table}: kept the ${result.kept.toLocaleString("en")} rows that could be read${result.rows === undefined ? "" : ` of ${result.rows.toLocaleString("en")}`}`
        : `${table.table}: could not be opened at all; made again, empty`,
    );
  }
  for (const table of health.tables) {
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
  return actions;
}

/** From a check whose tables all read: duplicates, orphans, missing buckets, bad vectors, unindexed conversations. */
async function repairRows(app: App, health: StoreHealth, onProgress: DoctorProgress): Promise<string[]> {
  const { store } = app.context;
  const relations = health.relations!;
  const actions: string[] = [];
  const did = (count: number, text: string) => count > 0 && actions.push(`${count.toLocaleString("en")} ${text}`);
  for (const table of health.tables.filter((t) => t.duplicates.length > 0)) {
    onProgress(`Removing duplicates from ${table.table}`);
    await store.write(() => keepOneOfEach(app, table.key, table.duplicates));
    did(table.duplicates.length, `rows of ${table.table} stored twice: one of each kept`);
  }
  await inSteps(relations.orphanChunks, (ids) => store.write(() => store.delete("chunks", sqlIn("conversationId", ids))));
  did(relations.orphanChunks.length, "gone conversations' chunks deleted");
  await inSteps(relations.orphanMessages, (ids) => store.write(() => store.delete("messages", sqlIn("id", ids))));
  did(relations.orphanMessages.length, "messages rows of no conversation deleted");
  await inSteps(relations.lostConversations, (ids) => store.write(() => recoverConversations(app, ids)));
  did(
    relations.lostConversations.length,
    `conversations rebuilt from their messages (platform "${RECOVERED_PLATFORM}"), to be indexed again`,
  );
  await inSteps(relations.withoutMessages, (ids) =>
    store.write(async () => {
      await store.delete("chunks", sqlIn("conversationId", ids));
      await store.delete("conversations", sqlIn("id", ids));
    }),
  );
  did(relations.withoutMessages.length, "conversations without their messages removed (an export restores them)");
  await inSteps(relations.orphanHistory, (ids) => store.write(() => store.delete("memoryHistory", sqlIn("memoryId", ids))));
  did(relations.orphanHistory.length, "deleted memories' versions deleted");
  for (const { userId, bucketId } of relations.missingBuckets) {
    const row = {
      userId,
      id: bucketId,
      name: `Recovered ${bucketId}`,
      description: "made again by mnemo doctor --repair",
      createdAt: app.context.now().toISOString(),
    };
    await store.write(() => store.add("buckets", [row]));
  }
  did(relations.missingBuckets.length, "missing buckets made again (named Recovered <id>)");
  const memories = health.tables.find((t) => t.key === "memories")!.badVectors;
  await inSteps(memories, (ids) => reembedMemories(app, ids));
  did(memories.length, "memories embedded again");
  const chunks = health.tables.find((t) => t.key === "chunks")!.badVectors;
  const reindex = [...new Set([...chunks, ...relations.readyWithoutChunks])];
  if (reindex.length > 0 || relations.lostConversations.length > 0) {
    await inSteps(reindex, (ids) =>
      store.write(async () => {
        await store.delete("chunks", sqlIn("conversationId", ids));
        await store.update("conversations", sqlIn("id", ids), { status: sqlString("queued"), statusReason: "NULL" });
      }),
    );
    await indexAll(app, onProgress);
    did(reindex.length, "conversations' chunks rebuilt from their messages and embedded");
  }
  return actions;
}

/**
 * Conversations rebuilt from the messages rows they left (their row lost with a damaged table): the
 * latest revision's messages, the title from the first message, the dates from the messages, on the
 * platform `recovered`; queued, so the index worker makes their chunks again. A restore of an export
 * replaces each by the export's (core/jobs/restore.ts). Inside `write`.
 */
async function recoverConversations(app: App, ids: string[]): Promise<void> {
  const { store } = app.context;
  const now = app.context.now().toISOString();
  const latest = new Map<string, TableRows["messages"]>();
  for (const row of await store.select("messages", sqlIn("conversationId", ids))) {
    const known = latest.get(row.conversationId);
    if (!known || row.revision > known.revision) latest.set(row.conversationId, row);
  }
  const conversations: ConversationRow[] = [];
  for (const { conversationId, userId, revision, messagesJson } of latest.values()) {
    const messages = JSON.parse(messagesJson) as StoredMessage[];
    const times = messages.map((message) => message.timestamp).filter((time): time is string => Boolean(time));
    const first = messages.find((message) => message.text.trim() !== "")?.text.trim() ?? "";
    conversations.push({
      id: conversationId,
      userId,
      platform: RECOVERED_PLATFORM,
      platformConversationId: conversationId,
      importId: await recoveredImportId(app, userId),
      title: first.length > 80 ? `${first.slice(0, 79)}…` : first || "Recovered conversation",
      createdAt: times[0] ?? now,
      updatedAt: times.at(-1) ?? now,
      status: "queued",
      statusReason: null,
      pinned: false,
      excluded: false,
      quotaBlocked: false,
      messageCount: messages.length,
      tokenCount: messages.reduce((sum, message) => sum + (message.tokens ?? 0), 0),
      contentHash: "",
      revision,
      claimedAt: null,
      claimedBy: null,
      uploadedAt: now,
    });
  }
  const current = conversations.map((row) => `${row.id}:${row.revision}`);
  await store.delete("messages", `${sqlIn("conversationId", ids)} AND NOT (${sqlIn("id", current)})`);
  await store.delete("chunks", sqlIn("conversationId", ids));
  await store.add("conversations", conversations);
}

/** The import record of a user's rebuilt conversations, made on first use. Inside `write`. */
async function recoveredImportId(app: App, userId: string): Promise<string> {
  const { store } = app.context;
  const [found] = await store.select("platforms", `userId = ${sqlString(userId)} AND id = ${sqlString(RECOVERED_PLATFORM)}`);
  if (found) return found.importId;
  const row = {
    userId,
    id: RECOVERED_PLATFORM,
    displayName: "Rebuilt by mnemo doctor",
    importId: newId("imp"),
    createdAt: app.context.now().toISOString(),
  };
  await store.add("platforms", [row]);
  return row.importId;
}

/** One row of each duplicated key: the rows read, all deleted, one of each written back. Inside `write`. */
async function keepOneOfEach(app: App, key: TableKey, keys: string[]): Promise<void> {
  const { store } = app.context;
  for (const one of keys) {
    const where = keyPredicate(key, one);
    const [first] = (await store.select(key, where)) as TableRows[TableKey][];
    if (!first) continue;
    await store.delete(key, where);
    await store.add(key, [first] as never[]);
  }
}

/** The predicate of one key as health.ts builds it: `userId/id` for buckets and platforms, `key` for meta, `id` else. */
function keyPredicate(key: TableKey, value: string): string {
  if (key === "meta") return `key = ${sqlString(value)}`;
  if (key === "buckets" || key === "platforms") {
    const slash = value.indexOf("/");
    const id = value.slice(slash + 1);
    return `userId = ${sqlString(value.slice(0, slash))} AND id = ${key === "buckets" ? Number(id) : sqlString(id)}`;
  }
  return `id = ${sqlString(value)}`;
}

async function reembedMemories(app: App, ids: string[]): Promise<void> {
  const { store, embedder } = app.context;
  const rows = await store.select("memories", sqlIn("id", ids));
  const vectors = await embedder.embedDocuments(rows.map((row) => row.text));
  await store.write(() =>
    store.upsert(
      "memories",
      "id",
      rows.map((row, i) => ({ ...row, vector: vectors[i]! })),
    ),
  );
}

/** Runs the index worker until nothing is queued, telling how many are left. */
async function indexAll(app: App, onProgress: DoctorProgress): Promise<void> {
  await app.indexer.start();
  const { store } = app.context;
  while (await indexPending(store)) {
    if (app.indexer.stalled) throw app.indexer.stalled;
    onProgress(
      `Indexing: ${(await store.count("conversations", "status IN ('queued', 'processing') AND quotaBlocked = false")).toLocaleString("en")} conversations to go`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await app.indexer.stop();
}

async function inSteps(ids: string[], work: (ids: string[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < ids.length; i += IDS_PER_STEP) await work(ids.slice(i, i + IDS_PER_STEP));
}
