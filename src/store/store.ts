import * as lancedb from "@lancedb/lancedb";
import path from "node:path";
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { ObjectStoreUnreachableError, objectStoreError } from "./object-store-errors.js";
import { AppError } from "../shared/errors.js";
import { DamagedTableError, damageOf, isPanic, SCHEMA_LOSS, SCHEMA_LOSS_WHAT } from "./damage.js";
import { DamageRecord, damageRecordFile, versionStamp } from "./damage-record.js";
import { ChecksumRecord } from "./checksums.js";
import { createTextIndex, metaEntries, runMigrations, SCHEMA_VERSION, writeMeta } from "./migrations.js";
import { fromArrowTable, toArrowRows } from "./convert.js";
import type { TableRows } from "./rows.js";
import {
  CHUNK_TOKENS_UNRECORDED,
  TABLE,
  tableSchema,
  VECTOR_TABLES,
  type StoreMade,
  type StoreMeta,
  type TableKey,
  type VectorTableKey,
} from "./schema.js";
import { openCommitted, tableExists } from "./probe.js";
import { storageFaultOr, WriteLock } from "./write-lock.js";
import { Journal, type Absorber } from "./journal.js";
import { machineId, StoreLease } from "./store-lease.js";
import { WriteIntents, type WriteIntent } from "./write-intents.js";
import { isRemoteUri } from "../config/paths.js";
import { type Column, type Filter, predicate, type Values, valuesSql, type Where } from "./where.js";

/** Which columns of the rows a select reads, in what order, and which page of them. */
export interface SelectOptions<K extends TableKey = TableKey> {
  limit?: number;
  offset?: number;
  columns?: string[];
  orderBy?: { column: Column<K>; ascending: boolean }[];
}

/**
 * LanceDB's caches default to 6 GB (indexes) and 1 GB (metadata): more than a laptop tool should
 * hold. The index cache still fits the vector and text indexes of a few hundred thousand chunks.
 */
const INDEX_CACHE_BYTES = 512n * 1024n * 1024n;
const METADATA_CACHE_BYTES = 64n * 1024n * 1024n;

/**
 * How long a connection replaced by `renewCaches` stays open: queries started on it finish first
 * (a search takes milliseconds, a few seconds at worst while an index is rebuilt).
 */
const RETIRE_AFTER_MS = 30_000;
/**
 * How long after a request found the object store unreachable the store's next requests fail at
 * once with that error: each would wait out the client's retries again (a cut import spent 17 s
 * on its lease's release, another write and the closing maintenance after its first failure).
 */
const OUTAGE_HOLD_MS = 10_000;

/** A LanceDB connection with its caches (the session) and the table handles opened through it. */
interface Connection {
  db: lancedb.Connection;
  session: lancedb.Session;
  handles: Map<string, lancedb.Table>;
}

/**
 * Options LanceDB hands to the object store of an `s3://`, `gs://` or `az://` store (endpoint,
 * region, credentials): from config.json's `storage.options`, over the standard AWS_*, GOOGLE_*,
 * AZURE_* variables LanceDB reads itself. They hold secrets: never printed, and taken out of errors.
 */
export type StorageOptions = Record<string, string>;

async function connect(uri: string, storageOptions: StorageOptions = {}): Promise<Connection> {
  // Maintenance reads the vector index's statistics for its segment count, not its centroids.
  process.env["LANCE_INCLUDE_VECTOR_CENTROIDS"] ??= "false";
  const session = new lancedb.Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES);
  // In the options: @lancedb/lancedb 0.37 ignores a session given as connect's third argument,
  // and the connection then has caches of its own at the default sizes.
  const db = await lancedb.connect(uri, { readConsistencyInterval: 0, session, storageOptions });
  return { db, session, handles: new Map() };
}

function closeConnection(connection: Connection): void {
  for (const handle of connection.handles.values()) handle.close();
  connection.handles.clear();
  connection.db.close();
}

/** Set while a write section runs: its reads see the journal absorbed at its start, and must not wait for the lock it holds. */
const inWrite = new AsyncLocalStorage<true>();

/** Set while a read shows the journal's pending records itself (besideJournal): its reads of the journal's tables do not absorb first. */
const besideJournalScope = new AsyncLocalStorage<true>();

/**
 * When the journal is absorbed without being asked: once its oldest record has waited this long,
 * or as soon as this many records wait; and by a write section, and by a read of the journal's
 * tables that does not show the pending records itself. Each absorb is two commits (a fragment
 * each), and every few a compaction rewrites the memories: absorbed 200 ms after each store, an
 * assistant storing a memory every few seconds made a commit per memory.
 */
const ABSORB_AFTER_MS = 30_000;
/** The files written are checksummed this long after a write section ends (store/checksums.ts), off its path. */
const CHECKSUM_AFTER_MS = 1_000;
const ABSORB_BATCH = 256;
/** Pending records a read shows beside the tables at most, by default; past it, the read absorbs them first. */
const PENDING_LIMIT = 2_048;

export function vectorTableName(key: VectorTableKey, generation: number): string {
  return generation === 0 ? TABLE[key] : `${TABLE[key]}_g${generation}`;
}

/** The embedded LanceDB database: typed table access, the write lock, and the meta record. */
export class Store {
  private readonly retired = new Set<Connection>();
  private readonly memos = new Map<string, { stamp: string; value: Promise<unknown> }>();
  private readonly columnLists = new Map<string, string[]>();
  /**
   * Tables found damaged, with the stamp of their versions then (store/damage-record.ts; the version
   * on object storage): asked again only once that changes (a repair). A local store's are shared
   * with every process on its data dir.
   */
  private readonly damaged = new Map<string, { stamp: string | number | undefined; error: DamagedTableError }>();
  private readonly damageRecord: DamageRecord | undefined;
  /** A local store's checksums of its files (store/checksums.ts), recorded soon after each write section. */
  private readonly checksums: ChecksumRecord | undefined;
  private checksumTimer: NodeJS.Timeout | undefined;
  private checksumming: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly lock: WriteLock;
  /** This data dir's writes that commit more than one table, until their last commit (store/write-intents.ts). */
  private readonly intents: WriteIntents;
  /** The meta table's version when `currentMeta` was read: a write section reads it again only once it changes. */
  private metaVersion: number | undefined;
  /**
   * The write-ahead journal of a local store (store/journal.ts); a store on object storage has none:
   * a journal on one machine's disk would hide its writes from the others.
   */
  readonly journal: Journal | undefined;
  private absorber: Absorber | undefined;
  private afterAbsorb: (() => void) | undefined;
  private readonly journalTables = new Set<TableKey>();
  private absorbTimer: NodeJS.Timeout | undefined;
  private unabsorbed = 0;
  /** The absorb round that has not started yet, which every caller until it starts joins. */
  private nextRound: Promise<void> | undefined;
  private lastRound: Promise<void> = Promise.resolve();

  /**
   * Why the meta table cannot be read, when it cannot: the store is open on the recorded meta (or
   * what its vector tables say), for reading; every write refuses with this error (`write` reads the meta).
   */
  metaDamage: DamagedTableError | undefined;

  /** The object store found unreachable, and until when requests are not sent to it (OUTAGE_HOLD_MS). */
  private outage: { error: ObjectStoreUnreachableError; until: number } | undefined;

  private constructor(
    private live: Connection,
    private readonly uri: string,
    private readonly lockPath: string,
    private currentMeta: StoreMeta,
    private readonly storageOptions: StorageOptions,
    journalDir: string | undefined,
  ) {
    // The lock file serialises one machine's writers; a store in a bucket is shared with others.
    const shared = isRemoteUri(uri) ? new StoreLease((work) => this.guard("meta", work), machineId(path.dirname(lockPath))) : undefined;
    this.lock = new WriteLock(lockPath, shared);
    this.journal = journalDir && !isRemoteUri(uri) ? new Journal(journalDir) : undefined;
    this.intents = new WriteIntents(path.join(path.dirname(lockPath), "unfinished-writes"));
    this.damageRecord = isRemoteUri(uri) ? undefined : new DamageRecord(damageRecordFile(path.dirname(lockPath)));
    this.checksums = isRemoteUri(uri) ? undefined : new ChecksumRecord(uri, path.join(path.dirname(lockPath), "checksums.json"));
    this.followDamageRecord();
  }

  /** The damage other processes recorded (a doctor's check, a command that met it): what this one knows, when the file changed. */
  private followDamageRecord(): void {
    const recorded = this.damageRecord?.changed();
    if (!recorded) return;
    this.damaged.clear();
    for (const [name, seen] of recorded) this.damaged.set(name, { stamp: seen.stamp, error: new DamagedTableError(seen.key, seen.what) });
  }

  /**
   * Has `absorber` store the journal's records, into `tables`: a read of those tables first waits
   * for every record appended before it, and every write section absorbs what is there as it starts.
   * `afterAbsorb` is called once a write section that absorbed records is over.
   */
  absorbJournalWith(tables: TableKey[], absorber: Absorber, afterAbsorb?: () => void): void {
    this.absorber = absorber;
    this.afterAbsorb = afterAbsorb;
    for (const key of tables) this.journalTables.add(key);
  }

  /** Appends records to the journal (durable when it resolves); they are absorbed soon after, or by the next read. */
  async appendToJournal(records: unknown[]): Promise<void> {
    if (!this.journal) throw new Error("This store has no journal");
    await this.refuseIfJournalTablesDamaged();
    await this.journal.append(records).catch((error: unknown) => {
      throw storageFaultOr(error, path.dirname(this.lockPath));
    });
    this.unabsorbed += records.length;
    if (this.unabsorbed >= ABSORB_BATCH) return void this.settle().catch(() => undefined);
    if (this.absorbTimer) return;
    this.absorbTimer = setTimeout(() => {
      this.absorbTimer = undefined;
      void this.settle().catch(() => undefined);
    }, ABSORB_AFTER_MS);
    this.absorbTimer.unref();
  }

  /**
   * A record appended while the meta table or a table it goes into is damaged could not be
   * absorbed until a repair: the append is refused, as a write section is (a table's damage is
   * asked again only if it was seen, and holds until its version files change).
   */
  private async refuseIfJournalTablesDamaged(): Promise<void> {
    if (this.metaDamage) throw this.metaDamage;
    this.followDamageRecord();
    for (const key of this.journalTables) {
      const name = this.liveName(key);
      if (this.damaged.has(name)) await this.guardNamed(key, name, async () => undefined);
    }
  }

  /**
   * Runs `read` with the journal's records that are not absorbed yet (in any process), each
   * decoded once; reads of the journal's tables inside it do not absorb first, so `read` shows
   * those records itself, beside the tables' rows. The records are listed before the tables are
   * read: one absorbed meanwhile is then in both (the table's row counts), never in neither;
   * `moved()` says whether any may have been. Past `limit` records, the journal is absorbed first.
   */
  async besideJournal<P, T>(
    decode: (record: unknown) => P,
    read: (pending: P[], moved: () => boolean) => Promise<T>,
    limit = PENDING_LIMIT,
  ): Promise<T> {
    const journal = this.journal;
    if (!journal || !this.absorber || inWrite.getStore()) return read([], () => false);
    let pending = journal.pending(decode);
    // What cannot be absorbed now (a full disk) is shown as it is; the next write section reports it.
    if (pending.records.length > limit) {
      await this.settle().catch(() => undefined);
      pending = journal.pending(decode);
    }
    // An absorb under way in another process, or one that stopped midway, may have stored some of
    // them already: the read then looks (waiting for it meant waiting for the other's whole burst).
    const { records, stamp, interrupted } = pending;
    const moved = () => records.length > 0 && (interrupted || journal.progressStamp() !== stamp);
    return besideJournalScope.run(true, () => read(records, moved));
  }

  /**
   * Absorbs every journal record appended before this call (in any process). Callers that arrive
   * together share one round; a round under way may have started before their record was written,
   * so they wait for the next one.
   */
  settle(): Promise<void> {
    if (!this.journal || !this.absorber || this.closed) return Promise.resolve();
    if (!this.journal.hasPending() && !this.journal.hasSealed()) return Promise.resolve();
    if (this.nextRound) return this.nextRound;

    const round = this.lastRound.then(() => {
      this.nextRound = undefined;
      this.unabsorbed = 0;
      return this.write(async () => undefined);
    });
    this.nextRound = round;
    this.lastRound = round.catch(() => undefined);
    return round;
  }

  /**
   * Seals this process's journal segment and absorbs it, so that it is deleted (before `close`),
   * with what processes that have exited left. A process that appended nothing leaves a running
   * one's records to it: a command that only read waited for the write lock and embedded a server's
   * records at its exit.
   */
  async flushJournal(): Promise<void> {
    if (this.absorbTimer) clearTimeout(this.absorbTimer);
    this.journal?.seal();
    if (this.journal?.hasSealed() || this.journal?.hasOrphaned()) await this.settle();
  }

  /** What LanceDB's index and metadata caches hold now, in bytes (bounded by the sizes above). */
  cacheBytes(): number {
    return Number(this.live.session.sizeBytes());
  }

  /**
   * Moves to a fresh connection with empty caches, and closes the old one a little later (resolves
   * then). For when another process has rebuilt or extended the indexes: the index cache otherwise
   * keeps their old versions, which no query reads again, until it is full.
   */
  async renewCaches(retireAfterMs = RETIRE_AFTER_MS): Promise<void> {
    const fresh = await connect(this.uri, this.storageOptions);
    if (this.closed) return closeConnection(fresh);
    const old = this.live;
    this.live = fresh;
    this.retired.add(old);
    await sleep(retireAfterMs, undefined, { ref: false });
    if (this.retired.delete(old)) closeConnection(old); // else the store was closed meanwhile
  }

  get meta(): StoreMeta {
    return this.currentMeta;
  }

  /**
   * Opens an existing store; `undefined` when the database holds no mnemo tables yet. A store whose
   * meta table is damaged opens for reading on `recorded` (store/recovery-record.ts), with `metaDamage` set.
   */
  static open(
    uri: string,
    lockPath: string,
    storageOptions: StorageOptions = {},
    recorded?: StoreMeta,
    journalDir?: string,
  ): Promise<Store | undefined> {
    return withoutSecrets(storageOptions, () => Store.openUnredacted(uri, lockPath, storageOptions, recorded, journalDir)).catch(
      (error: unknown) => {
        throw objectStoreError(error, uri) ?? error;
      },
    );
  }

  private static async openUnredacted(
    uri: string,
    lockPath: string,
    storageOptions: StorageOptions,
    recorded: StoreMeta | undefined,
    journalDir: string | undefined,
  ): Promise<Store | undefined> {
    const live = await connect(uri, storageOptions);
    let meta: StoreMeta | undefined;
    try {
      // The meta table is opened, not looked for in `tableNames()`: an S3-compatible server may answer
      // that listing with nothing (s3rver does), and the store would then be created again on top of itself.
      if (!(await tableExists(live.db, TABLE.meta))) {
        const names = await live.db.tableNames();
        // Empty, or a creation cut short before the meta table committed (its folder is listed):
        // Store.create finishes it.
        if (names.length === 0 || names.includes(TABLE.meta)) {
          closeConnection(live);
          return undefined;
        }
        throw new AppError("store_mismatch", `${uri} holds tables but is not a mnemo store (no meta table)`, {
          suggestion: "Point --store (or MNEMO_STORE) at an empty folder or at an existing mnemo store.",
        });
      }
      // A creation cut short (a full disk, a crash) wrote no meta rows: Store.create finishes it.
      // A store whose other tables hold rows was finished: its meta table is damaged, not unfinished.
      meta = await finishedMeta(live.db);
      if (!meta && (await anyTableHoldsRows(live.db)))
        throw new DamagedTableError("meta", "it holds no record of the store (schema version, embedder) though other tables hold data");
    } catch (error) {
      const damage = error instanceof DamagedTableError ? error : metaDamageOf(error);
      if (!damage) {
        closeConnection(live);
        throw error;
      }
      const store = new Store(live, uri, lockPath, await fallbackMeta(live.db, recorded), storageOptions, journalDir);
      store.metaDamage = damage;
      return store;
    }
    if (!meta) {
      closeConnection(live);
      return undefined;
    }
    const store = new Store(live, uri, lockPath, meta, storageOptions, journalDir);
    if (store.meta.schemaVersion < SCHEMA_VERSION) {
      await store.write(() => runMigrations(live.db, store.meta));
      store.currentMeta = await store.readMeta();
    }
    return store;
  }

  /** Creates a new store whose vectors and chunks are `made` so. */
  static create(uri: string, lockPath: string, made: StoreMade, storageOptions: StorageOptions = {}, journalDir?: string): Promise<Store> {
    return withoutSecrets(storageOptions, () => Store.createUnredacted(uri, lockPath, made, storageOptions, journalDir)).catch(
      (error: unknown) => {
        throw objectStoreError(error, uri) ?? error;
      },
    );
  }

  private static async createUnredacted(
    uri: string,
    lockPath: string,
    made: StoreMade,
    storageOptions: StorageOptions,
    journalDir: string | undefined,
  ): Promise<Store> {
    const live = await connect(uri, storageOptions);
    const { db } = live;
    const lock = new WriteLock(lockPath);
    const meta: StoreMeta = { schemaVersion: 0, ...made, generation: 0 };
    await lock.run(async () => {
      // Another process may have created it while we waited for the lock.
      if (await finishedMeta(db)) return;
      await dropUnfinishedTables(db);
      await runMigrations(db, meta);
    });
    const store = new Store(live, uri, lockPath, meta, storageOptions, journalDir);
    store.currentMeta = await store.readMeta();
    return store;
  }

  /** The table's handle, for the store's own modules: run what reads or writes it inside `guard`. */
  /**
   * Writes the meta record of a store whose meta table is damaged (`mnemo doctor --repair`): the
   * table made again, with the current schema version and the embedder the user names.
   */
  static async rewriteMeta(
    uri: string,
    lockPath: string,
    meta: Omit<StoreMeta, "schemaVersion">,
    storageOptions: StorageOptions = {},
  ): Promise<void> {
    const { db } = await connect(uri, storageOptions);
    try {
      await new WriteLock(lockPath).run(async () => {
        await db.dropTable(TABLE.meta).catch(() => undefined);
        await db.createEmptyTable(TABLE.meta, tableSchema("meta", meta.dims));
        await writeMeta(db, { schemaVersion: String(SCHEMA_VERSION), ...metaEntries(meta) });
      });
    } finally {
      db.close();
    }
  }

  /** Call only inside `write`: the live table `key` dropped and made again, empty (a repair of one that cannot be opened). */
  async recreate(key: TableKey): Promise<void> {
    const name = this.liveName(key);
    this.reopen(key);
    await this.live.db.dropTable(name).catch(() => undefined);
    const table = await this.live.db.createEmptyTable(name, tableSchema(key, this.meta.dims), { mode: "overwrite" });
    if (isVectorTable(key)) await createTextIndex(table);
    table.close();
  }

  /** Forgets the handle and any damage seen of table `key`: another process (a repair) has replaced it. */
  reopen(key: TableKey): void {
    const name = this.liveName(key);
    this.forget(name);
    this.forgetDamage(name);
  }

  async table(key: TableKey): Promise<lancedb.Table> {
    return this.guard(key, async (table) => table);
  }

  /**
   * Runs `work` on the live table `key`. LanceDB's errors that mean the table's files are damaged
   * become one DamagedTableError naming it and pointing at `mnemo doctor`; once seen, the table is
   * not read again (a damaged page can make LanceDB panic, and print its panic, on every read) until
   * its version changes, as a repair from another process changes it.
   */
  async guard<T>(key: TableKey, work: (table: lancedb.Table) => Promise<T>): Promise<T> {
    if (this.journalTables.has(key) && !inWrite.getStore() && !besideJournalScope.getStore()) {
      // What cannot be absorbed now (a full disk) stays in the journal; the read shows the rest, and
      // the next write section reports the failure.
      await this.settle().catch(() => undefined);
    }
    return this.guardNamed(key, this.liveName(key), work);
  }

  private liveName(key: TableKey): string {
    return isVectorTable(key) ? vectorTableName(key, this.meta.generation) : TABLE[key];
  }

  private async guardNamed<T>(key: TableKey, name: string, work: (table: lancedb.Table) => Promise<T>): Promise<T> {
    if (this.outage && Date.now() < this.outage.until) throw this.outage.error;
    this.followDamageRecord();
    const known = this.damaged.get(name);
    if (known) {
      if ((await this.versionStampOf(name)) === known.stamp) throw known.error;
      this.forgetDamage(name);
    }
    let table: lancedb.Table | undefined;
    try {
      table = await this.open(name);
      return await work(table);
    } catch (first) {
      let error = first;
      if (isPanic(first) && !inWrite.getStore()) {
        // A read that made LanceDB panic is read once more before the table is called damaged: a
        // damaged page panics every time, a fault that passes does not. (Writes run in write
        // sections and are not tried twice.)
        try {
          table ??= await this.open(name);
          return await work(table);
        } catch (again) {
          error = again;
        }
      }
      const damage = await this.damage(key, table, error);
      if (!damage) throw this.objectStoreFault(error);
      const stamp = await this.versionStampOf(name, table);
      this.damaged.set(name, { stamp, error: damage });
      if (typeof stamp === "string") this.damageRecord?.set(name, { key, what: damage.what, stamp });
      throw damage;
    }
  }

  /** What tells a damaged table's repair: a local table's version files, read without LanceDB; the version on object storage. */
  private async versionStampOf(name: string, table?: lancedb.Table): Promise<string | number | undefined> {
    if (!this.damageRecord) return (table ?? (await this.open(name).catch(() => undefined)))?.version().catch(() => undefined);
    return versionStamp(this.uri, name);
  }

  private forgetDamage(name: string): void {
    if (this.damaged.delete(name)) this.damageRecord?.set(name, undefined);
  }

  private async damage(key: TableKey, table: lancedb.Table | undefined, error: unknown): Promise<DamagedTableError | undefined> {
    const what = damageOf(error);
    if (what) return new DamagedTableError(key, what, error);
    if (!(error instanceof Error) || !SCHEMA_LOSS.test(error.message) || !table) return undefined;
    const names = new Set(
      await table
        .schema()
        .then((schema) => schema.fields.map((field) => field.name))
        .catch(() => []),
    );
    const lost = tableSchema(key, this.meta.dims).fields.some((field) => !names.has(field.name));
    return lost ? new DamagedTableError(key, SCHEMA_LOSS_WHAT, error) : undefined;
  }

  private async open(name: string): Promise<lancedb.Table> {
    const { db, handles } = this.live;
    let handle = handles.get(name);
    if (!handle) {
      handle = await db.openTable(name);
      handles.set(name, handle);
    }
    return handle;
  }

  /** Runs `work` as the only writer of the store (in this process and across processes). */
  async write<T>(work: () => Promise<T>): Promise<T> {
    if (this.metaDamage) throw this.metaDamage;
    let absorbed = 0;
    try {
      return await this.lock.run(() =>
        inWrite.run(true, async () => {
          await this.checkGeneration();
          // What a write of this data dir cut short between its commits left is finished first.
          await this.intents.settle(this);
          // Writes acknowledged before this section go first, in the order they were acknowledged.
          if (this.absorber && (this.journal?.hasPending() || this.journal?.hasSealed()))
            absorbed = await this.journal!.absorb(this.absorber);
          return work();
        }),
      );
    } catch (error) {
      throw this.objectStoreFault(error);
    } finally {
      if (absorbed > 0) this.afterAbsorb?.();
      this.checksumSoon();
    }
  }

  /** The files the last write sections made, checksummed a moment later: the first section since the last record starts the timer. */
  private checksumSoon(): void {
    if (!this.checksums || this.closed || this.checksumTimer) return;
    this.checksumTimer = setTimeout(() => void this.recordChecksums(), CHECKSUM_AFTER_MS);
    this.checksumTimer.unref();
  }

  /** What the timer would record, recorded now: a closing process that wrote leaves none behind (one that only read pays nothing). */
  flushChecksums(): Promise<void> {
    return this.checksumTimer ? this.recordChecksums() : this.checksumming;
  }

  /** Records the checksums of the store's files not recorded yet. */
  private recordChecksums(): Promise<void> {
    if (this.checksumTimer) clearTimeout(this.checksumTimer);
    this.checksumTimer = undefined;
    return this.withChecksums((record) => record.record());
  }

  /** Forgets the checksums of `files` (a repair replaced them), after any record under way in this process. */
  forgetChecksums(files: string[]): Promise<void> {
    return this.withChecksums((record) => record.forget(files));
  }

  private withChecksums(work: (record: ChecksumRecord) => unknown): Promise<void> {
    const record = this.checksums;
    if (!record) return Promise.resolve();
    this.checksumming = this.checksumming
      .then(() => work(record))
      .then(
        () => undefined,
        () => undefined, // a data dir that cannot be read or written now: the next write or check records them
      );
    return this.checksumming;
  }

  /**
   * Records, before a write commits more than one table for `intent`'s rows, what a cut in between
   * would leave; the function returned, called after its last commit, clears the record. A record
   * not cleared is settled by the next write on this data dir (store/write-intents.ts). Inside `write`.
   */
  intend(intent: WriteIntent): () => void {
    const file = this.intents.record(intent);
    return () => this.intents.done(file);
  }

  /** An object store's failure at any point (the lease, a read, a commit), said once with the URI and what to check. */
  private objectStoreFault(error: unknown): unknown {
    const fault = isRemoteUri(this.uri) ? (objectStoreError(error, this.uri) ?? error) : error;
    // Only a new finding starts the hold: the held error passing out again does not prolong it.
    if (fault instanceof ObjectStoreUnreachableError && fault !== this.outage?.error)
      this.outage = { error: fault, until: Date.now() + OUTAGE_HOLD_MS };
    return fault;
  }

  /** Refuses to write once another process has re-indexed the store; the meta rows are read again only when they change. */
  private async checkGeneration(): Promise<void> {
    const version = await this.guard("meta", (table) => table.version());
    if (version === this.metaVersion) return;
    const current = await this.readMeta();
    if (current.generation !== this.meta.generation) {
      throw new AppError("store_mismatch", "The store was re-indexed by another process while this one had it open", {
        suggestion: "Run the command again (restart `mnemo serve` if it is running).",
      });
    }
    this.metaVersion = version;
  }

  async select<K extends TableKey>(key: K, where: Filter<K>, options: SelectOptions<K> = {}): Promise<TableRows[K][]> {
    return this.guard(key, (table) => selectFrom(table, predicate(where), options));
  }

  /**
   * Every row of a table with ids, `size` at a time in id order: a page starts after the last id of
   * the one before (keyset paging), so rows written meanwhile move no page. With `generation`, the
   * vector table of that generation (reindex).
   */
  async *pagesById<K extends "conversations" | VectorTableKey>(
    key: K,
    options: { size: number; columns?: string[]; generation?: number },
  ): AsyncGenerator<TableRows[K][]> {
    let after: string | undefined;
    for (;;) {
      const where = { id: { after } } as Where<K>;
      const select: SelectOptions<K> = { orderBy: [{ column: "id" as Column<K>, ascending: true }], limit: options.size };
      if (options.columns) select.columns = options.columns;
      const page =
        options.generation === undefined
          ? await this.select(key, where, select)
          : ((await this.selectIn(
              key as VectorTableKey,
              options.generation,
              where as Where<VectorTableKey>,
              select as SelectOptions<VectorTableKey>,
            )) as TableRows[K][]);
      if (page.length === 0) return;
      yield page;
      after = (page[page.length - 1] as { id: string }).id;
    }
  }

  /**
   * The rows matching `where`, a batch at a time as LanceDB reads them: for reading a whole table
   * (an export, a check) in bounded memory. A batch is one of LanceDB's (up to ~1,000 rows).
   */
  async *scan<K extends TableKey>(key: K, where: Filter<K>, options: { columns?: string[] } = {}): AsyncGenerator<TableRows[K][]> {
    const batches = await this.guard(key, async (table) => {
      const query = table.query().where(predicate(where));
      return (options.columns ? query.select(options.columns) : query)[Symbol.asyncIterator]();
    });
    for (;;) {
      const next = await this.guard(key, () => batches.next());
      if (next.done) return;
      yield fromArrowTable(next.value as unknown as Parameters<typeof fromArrowTable>[0]) as TableRows[K][];
    }
  }

  // Generations: `mnemo reindex` builds vector tables for a new embedder beside the live ones.

  async selectIn<K extends VectorTableKey>(
    key: K,
    generation: number,
    where: Filter<K>,
    options: SelectOptions<K> = {},
  ): Promise<TableRows[K][]> {
    return this.guardNamed(key, vectorTableName(key, generation), (table) => selectFrom(table, predicate(where), options));
  }

  async countIn<K extends VectorTableKey>(key: K, generation: number, where: Filter<K>): Promise<number> {
    return this.guardNamed(key, vectorTableName(key, generation), (table) => table.countRows(predicate(where)));
  }

  async addIn<K extends VectorTableKey>(key: K, generation: number, rows: TableRows[K][]): Promise<void> {
    await this.guardNamed(key, vectorTableName(key, generation), (table) => insert(table, rows));
  }

  async deleteIn<K extends VectorTableKey>(key: K, generation: number, where: Filter<K>): Promise<void> {
    await this.guardNamed(key, vectorTableName(key, generation), (table) => table.delete(predicate(where)));
  }

  /** Empty vector tables for `generation` (any half-built ones from an interrupted run are replaced). */
  async createGeneration(generation: number, dims: number): Promise<void> {
    for (const key of VECTOR_TABLES) {
      const name = vectorTableName(key, generation);
      this.forget(name);
      const table = await this.live.db.createEmptyTable(name, tableSchema(key, dims), { mode: "overwrite" });
      await createTextIndex(table);
      this.live.handles.set(name, table);
    }
  }

  /** Call only inside `write`: makes `generation` the live one, `made` so. */
  async switchGeneration(generation: number, made: StoreMade): Promise<void> {
    await this.setMeta(metaEntries({ ...made, generation }));
    this.currentMeta = await this.readMeta();
  }

  async dropGeneration(generation: number): Promise<void> {
    for (const key of VECTOR_TABLES) {
      const name = vectorTableName(key, generation);
      this.forget(name);
      await this.live.db.dropTable(name).catch(() => undefined);
    }
  }

  /** Vector tables of generations the meta does not point at: the partial one of an interrupted reindex. */
  async staleGenerations(): Promise<string[]> {
    const live = (await this.readMeta()).generation;
    return (await this.live.db.tableNames()).filter((name) => {
      const generation = generationOf(name);
      return generation !== undefined && generation !== live;
    });
  }

  /** Call only while no reindex runs (its lock held): drops the tables `staleGenerations` names. */
  async dropStaleGenerations(): Promise<void> {
    for (const name of await this.staleGenerations()) {
      this.forget(name);
      await this.live.db.dropTable(name);
    }
  }

  private forget(name: string): void {
    this.live.handles.get(name)?.close();
    this.live.handles.delete(name);
    this.columnLists.delete(name);
  }

  /** A table's columns but the vector, read once per table (a table's schema never changes). */
  async columns(key: TableKey): Promise<string[]> {
    return this.guard(key, async (table) => {
      let names = this.columnLists.get(table.name);
      if (!names) {
        names = (await table.schema()).fields.map((field) => field.name).filter((name) => name !== "vector");
        this.columnLists.set(table.name, names);
      }
      return names;
    });
  }

  /**
   * `compute()`'s answer, reused until one of `tables` changes (in any process): checking a table's
   * version costs a tenth of a millisecond, the queries it saves several.
   */
  async memo<T>(name: string, tables: TableKey[], compute: () => Promise<T>): Promise<T> {
    const stamp = (await Promise.all(tables.map((key) => this.guard(key, (table) => table.version())))).join(".");
    const cached = this.memos.get(name);
    if (cached?.stamp === stamp) return cached.value as Promise<T>;
    const value = compute();
    this.memos.delete(name);
    if (this.memos.size >= MEMO_LIMIT) this.memos.delete(this.memos.keys().next().value!);
    this.memos.set(name, { stamp, value });
    value.catch(() => this.memos.delete(name));
    return value;
  }

  /** Drops a memoised answer (what it holds goes once no caller holds it either). */
  forgetMemo(name: string): void {
    this.memos.delete(name);
  }

  /** Which of these conversations have no chunk at all. */
  async unchunked(conversationIds: readonly string[]): Promise<Set<string>> {
    if (conversationIds.length === 0) return new Set();
    const chunked = await this.select("chunks", { conversationId: conversationIds }, { columns: ["conversationId"] });
    const has = new Set(chunked.map((row) => row.conversationId));
    return new Set(conversationIds.filter((id) => !has.has(id)));
  }

  async count<K extends TableKey>(key: K, where: Filter<K>): Promise<number> {
    return this.guard(key, (table) => table.countRows(predicate(where)));
  }

  /** Call only inside `write`. */
  async add<K extends TableKey>(key: K, rows: TableRows[K][]): Promise<void> {
    await this.guard(key, (table) => insert(table, rows));
  }

  /** Call only inside `write`. Inserts or replaces rows by `on`. */
  async upsert<K extends TableKey>(key: K, on: string, rows: TableRows[K][]): Promise<void> {
    if (rows.length === 0) return;
    await this.guard(key, (table) => merge(table, on, rows));
  }

  /**
   * Call only inside `write`. In ONE commit: the rows matching `scope` become exactly `rows`
   * (matched ones updated, new ones inserted, the others in scope deleted), so a reader sees the
   * old set or the new one, never a mix.
   */
  async replaceScope<K extends TableKey>(key: K, on: string, scope: Filter<K>, rows: TableRows[K][]): Promise<void> {
    await this.guard(key, async (table) => {
      if (rows.length === 0) await table.delete(predicate(scope));
      else await merge(table, on, rows, predicate(scope));
    });
  }

  /** Call only inside `write`. Returns the number of rows deleted. */
  async delete<K extends TableKey>(key: K, where: Filter<K>): Promise<number> {
    const result = await this.guard(key, (table) => table.delete(predicate(where)));
    return Number(result.numDeletedRows ?? 0);
  }

  /** Call only inside `write`. Sets these columns of the rows matching `where`. */
  async update<K extends TableKey>(key: K, where: Filter<K>, values: Values<K>): Promise<number> {
    const result = await this.guard(key, (table) => table.update({ where: predicate(where), valuesSql: valuesSql(values) }));
    return Number(result.rowsUpdated ?? 0);
  }

  async setMeta(entries: Record<string, string>): Promise<void> {
    await this.upsert(
      "meta",
      "key",
      Object.entries(entries).map(([key, value]) => ({ key, value })),
    );
  }

  async readMeta(): Promise<StoreMeta> {
    return parseMeta(await this.select("meta", "true"));
  }

  /** Whether close() has run: what fails after it is the shutdown, not a fault. */
  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    if (this.absorbTimer) clearTimeout(this.absorbTimer);
    if (this.checksumTimer) clearTimeout(this.checksumTimer);
    for (const connection of [...this.retired, this.live]) closeConnection(connection);
    this.retired.clear();
  }
}

/** The generation a vector table's name belongs to; undefined for any other table. */
function generationOf(name: string): number | undefined {
  for (const key of VECTOR_TABLES) {
    if (name === TABLE[key]) return 0;
    const match = new RegExp(`^${TABLE[key]}_g(\\d+)$`).exec(name);
    if (match) return Number(match[1]);
  }
  return undefined;
}

export function isVectorTable(key: TableKey): key is VectorTableKey {
  return (VECTOR_TABLES as readonly string[]).includes(key);
}

/** Memoised answers kept at most (the oldest goes first). */
const MEMO_LIMIT = 500;

/**
 * The store's meta record, once its creation has finished: migration 1 writes the meta rows last,
 * so a store without them (or without a committed meta table) was never finished.
 */
async function finishedMeta(db: lancedb.Connection): Promise<StoreMeta | undefined> {
  const table = await openCommitted(db, TABLE.meta);
  if (!table) return undefined;
  try {
    const meta = parseMeta(await selectFrom<{ key: string; value: string }, "meta">(table, "true", {}));
    return meta.schemaVersion > 0 ? meta : undefined;
  } finally {
    table.close();
  }
}

/** A damaged meta table's error as one naming it; undefined for an error that is not damage. */
function metaDamageOf(error: unknown): DamagedTableError | undefined {
  const what = damageOf(error) ?? (error instanceof Error && SCHEMA_LOSS.test(error.message) ? SCHEMA_LOSS_WHAT : undefined);
  return what === undefined ? undefined : new DamagedTableError("meta", what, error);
}

/**
 * The meta of a store whose meta table is damaged: the recorded one when the vector tables agree
 * with it, else the generation and dimension the vector tables show, with the embedder unknown
 * (spec ""): what needs it then refuses with the damage.
 */
async function fallbackMeta(db: lancedb.Connection, recorded: StoreMeta | undefined): Promise<StoreMeta> {
  const names = await db.tableNames().catch(() => [] as string[]);
  const generations = [...new Set(names.map(generationOf).filter((generation) => generation !== undefined))];
  const generation =
    recorded && (generations.length === 0 || generations.includes(recorded.generation))
      ? recorded.generation
      : generations.length === 1
        ? generations[0]!
        : 0;
  const dims = await db
    .openTable(vectorTableName("memories", generation))
    .then(async (table) => {
      const field = (await table.schema()).fields.find((f) => f.name === "vector");
      table.close();
      return (field?.type as { listSize?: number } | undefined)?.listSize;
    })
    .catch(() => undefined);
  if (recorded && recorded.generation === generation && (dims === undefined || dims === recorded.dims))
    return { ...recorded, chunkTokens: recorded.chunkTokens || CHUNK_TOKENS_UNRECORDED, schemaVersion: SCHEMA_VERSION };
  return {
    schemaVersion: SCHEMA_VERSION,
    embedderId: "",
    embedderSpec: "",
    dims: dims ?? 0,
    generation,
    chunkTokens: CHUNK_TOKENS_UNRECORDED,
  };
}

/**
 * What a creation cut short left: table folders with no committed version (LanceDB makes the folder,
 * then fails to write the manifest) and empty tables. None holds a row; they go, and the migrations
 * make them again (with this embedder's dims).
 */
async function dropUnfinishedTables(db: lancedb.Connection): Promise<void> {
  const listed = await db.tableNames();
  // mnemo's own tables are probed by name too: an object store's listing may miss them (see `open`).
  for (const name of new Set([...listed, ...Object.values(TABLE)])) {
    const table = await openCommitted(db, name);
    // Not listed and not committed: there is nothing (a listed one is a folder without a version).
    if (!table && !listed.includes(name)) continue;
    const empty = !table || (await table.countRows()) === 0;
    table?.close();
    if (empty) await db.dropTable(name);
  }
}

/** Whether a table other than meta holds rows, or cannot be read (it then held something once). */
async function anyTableHoldsRows(db: lancedb.Connection): Promise<boolean> {
  for (const name of await db.tableNames()) {
    if (name === TABLE.meta) continue;
    try {
      const table = await openCommitted(db, name);
      const rows = table ? await table.countRows() : 0;
      table?.close();
      if (rows > 0) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/**
 * `work`'s errors with every storage option's value (a secret key, a token) blanked out: the
 * object store's messages can quote what it was given, and they end up on screen and in logs.
 */
/** Runs `work`, blanking the options' values (keys, secrets) out of any error it throws: LanceDB quotes them. */
export async function withoutSecrets<T>(storageOptions: StorageOptions, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const secrets = Object.values(storageOptions).filter((value) => value.length >= 8);
    if (!(error instanceof Error) || secrets.length === 0) throw error;
    for (const secret of secrets) {
      error.message = error.message.split(secret).join("[redacted]");
      if (error.stack) error.stack = error.stack.split(secret).join("[redacted]");
    }
    throw error;
  }
}

function parseMeta(rows: { key: string; value: string }[]): StoreMeta {
  const values = new Map(rows.map((row) => [row.key, row.value]));
  const number = (key: string) => Number(values.get(key) ?? "0");
  return {
    schemaVersion: number("schemaVersion"),
    embedderId: values.get("embedderId") ?? "",
    embedderSpec: values.get("embedderSpec") ?? "",
    dims: number("embedderDims"),
    chunkTokens: number("chunkTokens") || CHUNK_TOKENS_UNRECORDED,
    generation: number("generation"),
  };
}

/**
 * The largest offset LanceDB reads as it is: it takes an offset as a u32, so 2^32 + 25 read as 25,
 * and page 4,294,967,297 of the conversation list answered with the rows of page 2. No table here
 * holds that many rows for a user, so an offset past it selects nothing.
 */
const MAX_OFFSET = 2 ** 32 - 1;

async function selectFrom<R, K extends TableKey>(table: lancedb.Table, where: string, options: SelectOptions<K>): Promise<R[]> {
  if (options.offset !== undefined && options.offset > MAX_OFFSET) return [];
  let query = table.query().where(where);
  if (options.columns) query = query.select(options.columns);
  if (options.orderBy) {
    query = query.orderBy(options.orderBy.map(({ column, ascending }) => ({ columnName: column, ascending })));
  }
  if (options.offset) query = query.offset(options.offset);
  query = query.limit(options.limit ?? Number.MAX_SAFE_INTEGER);
  return fromArrowTable(await query.toArrow()) as R[];
}

async function insert(table: lancedb.Table, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  await table.add(toArrowRows(rows, await table.schema()));
}

/** Matched rows updated, new ones inserted, and with `scope` the unmatched rows in it deleted: one commit. */
async function merge(table: lancedb.Table, on: string, rows: object[], scope?: string): Promise<void> {
  const builder = table.mergeInsert(on).whenMatchedUpdateAll().whenNotMatchedInsertAll();
  const scoped = scope === undefined ? builder : builder.whenNotMatchedBySourceDelete({ where: scope });
  await scoped.execute(toArrowRows(rows, await table.schema()));
}
