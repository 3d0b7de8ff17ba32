import * as lancedb from "@lancedb/lancedb";
import { toArrowRows } from "./convert.js";
import { messagesRowId, type MessagesRow } from "./rows.js";
import { tableExists } from "./probe.js";
import { TABLE, tableSchema, VECTOR_TABLES, type StoreMade, type StoreMeta, type TableKey } from "./schema.js";

/**
 * Numbered migrations. Each runs once, in order, under the write lock; the meta table records the
 * last one applied. Add new ones at the end; never edit one that has shipped. The first creates
 * every table as the code now defines it, so on a new store the later ones find nothing to do; they
 * bring older stores forward, and each can run again after a crash half-way.
 */
const MIGRATIONS: ((db: lancedb.Connection, meta: StoreMeta) => Promise<void>)[] = [
  // 1: every table, with full-text indexes on the searchable text.
  async (db, meta) => {
    // Each table asked for by name, not looked for in `tableNames()`: an object store's listing can miss tables.
    for (const key of Object.keys(TABLE) as TableKey[]) {
      if (await tableExists(db, TABLE[key])) continue;
      await db.createEmptyTable(TABLE[key], tableSchema(key, meta.dims));
    }
    for (const key of VECTOR_TABLES) await createTextIndex(await db.openTable(TABLE[key]));
  },
  // 2: messages move out of the conversation rows into their own table.
  async (db, meta) => {
    if (!(await tableExists(db, TABLE.messages))) {
      await db.createEmptyTable(TABLE.messages, tableSchema("messages", meta.dims));
    }
    const conversations = await db.openTable(TABLE.conversations);
    if (!(await conversations.schema()).fields.some((field) => field.name === "messagesJson")) return;
    const messages = await db.openTable(TABLE.messages);
    const schema = await messages.schema();
    const columns = ["id", "userId", "revision", "messagesJson"];
    for await (const batch of conversations.query().select(columns)) {
      const rows: MessagesRow[] = batch.toArray().map((row) => ({
        id: messagesRowId({ id: row.id, revision: row.revision }),
        userId: row.userId,
        conversationId: row.id,
        revision: row.revision,
        messagesJson: row.messagesJson,
      }));
      if (rows.length === 0) continue;
      // By id, so a run that starts again after a crash rewrites rather than duplicates.
      await messages.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(toArrowRows(rows, schema));
    }
    await conversations.dropColumns(["messagesJson"]);
  },
  // 3: a table for the bytes of image memories, which a store on object storage keeps in the bucket.
  async (db, meta) => {
    if (!(await tableExists(db, TABLE.images))) await db.createEmptyTable(TABLE.images, tableSchema("images", meta.dims));
  },
  // 4: the trash, where the web app's deletes go for 30 days (core/trash/).
  async (db, meta) => {
    if (!(await tableExists(db, TABLE.trash))) await db.createEmptyTable(TABLE.trash, tableSchema("trash", meta.dims));
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export async function runMigrations(db: lancedb.Connection, meta: StoreMeta): Promise<void> {
  for (let version = meta.schemaVersion + 1; version <= SCHEMA_VERSION; version++) {
    await MIGRATIONS[version - 1]!(db, meta);
    await writeMeta(db, { schemaVersion: String(version), ...metaEntries(meta) });
  }
}

/** The meta table's rows for what the live tables were made with, and which generation they are. */
export function metaEntries(meta: StoreMade & Pick<StoreMeta, "generation">): Record<string, string> {
  return {
    embedderId: meta.embedderId,
    embedderSpec: meta.embedderSpec,
    embedderDims: String(meta.dims),
    chunkTokens: String(meta.chunkTokens),
    generation: String(meta.generation),
  };
}

/** The text index's name: LanceDB's own default for the column, so stores made before it was named match. */
export const TEXT_INDEX = "text_idx";

export async function createTextIndex(table: lancedb.Table): Promise<void> {
  await table.createIndex("text", { config: lancedb.Index.fts({ withPosition: false }), name: TEXT_INDEX, replace: true });
}

export async function writeMeta(db: lancedb.Connection, entries: Record<string, string>): Promise<void> {
  const table = await db.openTable(TABLE.meta);
  await table
    .mergeInsert("key")
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute(Object.entries(entries).map(([key, value]) => ({ key, value })));
  table.close();
}
