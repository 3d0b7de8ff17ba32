import fs from "node:fs";
import type { Config } from "../config/load-config.js";
import { isRemoteUri } from "../config/paths.js";
import type { Embedder, ProgressReporter } from "../providers/embedder.js";
import {
  borrowed,
  chooseEmbedder,
  createCaptioner,
  createReranker,
  createSynthesizer,
  embedderMismatch,
  lazyEmbedder,
} from "../providers/create-providers.js";
import type { Reranker } from "../providers/reranker.js";
import { ImageFolder, ImageTable, type ImageBytes } from "../store/image-bytes.js";
import { readRecoveryRecord, updateRecoveryRecord } from "../store/recovery-record.js";
import { Store } from "../store/store.js";
import type { CoreContext, ImageUrlSigner } from "./context.js";
import { AppError } from "../shared/errors.js";
import { IndexWorker } from "./chat-history/index-worker.js";
import { Maintenance } from "./operations/maintenance.js";
import { absorbMemoryJournal } from "./memories/memory-journal.js";
import { createService, type MnemoService } from "./service.js";
import { addUser, credentialStamp, listUsers, removeUser, resolveUser, rotateToken, userForToken, type UserInfo } from "./users.js";
import { pathToFileURL } from "node:url";
import path from "node:path";

export interface AppOptions {
  maintenance?: "background" | "detached" | "off";
  /** Model download progress. */
  onProgress?: ProgressReporter;
  /** One-off facts worth telling the user (which embedder a new store chose). */
  onNotice?: (message: string) => void;
  imageUrl?: ImageUrlSigner;
  now?: () => Date;
  /** Open a store made with another embedder than the config names: for `mnemo reindex`, which moves it to that one. */
  reindexing?: boolean;
  /**
   * Leave the journal's records to the processes that wrote them (`mnemo maintain`, which only
   * compacts and indexes): absorbing another process's records means embedding those it
   * acknowledged before their text was embedded, and during a server's burst of writes the
   * maintenance process spent ~8 s on that and never indexed the table.
   */
  leaveJournal?: boolean;
  /**
   * An embedder already loaded, used for an existing store that records it (same id and dims), or
   * for a new store whose config chooses it (the spec equal to its id), and left open by the app:
   * for a process that opens many stores one after another (the corruption tests open 88, the
   * in-process CLI tests one a command), where loading the model again took ~0.2 s of CPU each time.
   */
  embedder?: Embedder;
  /**
   * Open a store that exists, else fail with noStoreError: a command that only reads (search, a
   * dry run) makes no store, and no folder, where there was none (a mistyped --store).
   */
  existing?: boolean;
}

export interface App {
  readonly config: Config;
  readonly context: CoreContext;
  readonly maintenance: Maintenance;
  /** Chunks and embeds queued conversations in this process once started (serve, import). */
  readonly indexer: IndexWorker;
  /** The service as seen by one user (the default user when no name is given). */
  service(userName?: string): Promise<MnemoService>;
  /** The user and service a bearer token grants, or undefined for an unknown token. */
  authenticate(token: string): Promise<{ user: UserInfo; service: MnemoService } | undefined>;
  users: {
    list(): Promise<UserInfo[]>;
    add(name: string): Promise<UserInfo>;
    remove(name: string): Promise<void>;
    resolve(name: string): Promise<UserInfo>;
    rotateToken(name: string): Promise<string>;
    /** What a signed-in session of the user rests on: changes when their token is rotated; undefined once they are removed. */
    credentialStamp(userId: string): Promise<string | undefined>;
  };
  close(): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  prepareDataDir(config, { make: !options.existing });
  if (options.existing && !isRemoteUri(config.storeUri) && !fs.existsSync(config.storeUri)) throw noStoreError(config);
  const { store, embedder } = await openStore(config, options);
  const maintenance = new Maintenance(
    store,
    config.paths.maintenanceLock,
    config.paths.reindexLock,
    options.maintenance ?? "off",
    isRemoteUri(config.storeUri) ? config.storeUri : config.paths.dataDir,
    config.env,
  );
  maintenance.lookSoon();
  let indexer: IndexWorker | undefined;
  let reranker: Promise<Reranker | undefined> | undefined;
  const captioner = createCaptioner(config);
  const images: ImageBytes = isRemoteUri(config.storeUri)
    ? new ImageTable(store, config.paths.images)
    : new ImageFolder(config.paths.images);
  const context: CoreContext = {
    store,
    images,
    embedder,
    reranker: () => (reranker ??= createReranker(config)),
    synthesizer: createSynthesizer(config),
    caption: (image) => captioner.caption(image),
    config,
    now: options.now ?? (() => new Date()),
    imageUrl:
      options.imageUrl ?? (async (_id, file) => pathToFileURL((await images.localPath(file)) ?? path.join(config.paths.images, file)).href),
    afterWrite: () => maintenance.afterWrite(),
    onQueued: () => indexer?.notify(),
    indexStalled: () => indexer?.stalled,
  };
  if (!options.leaveJournal) absorbMemoryJournal(context);
  indexer = new IndexWorker(context);
  const serviceFor = (user: UserInfo) => createService(context, user);

  return {
    config,
    context,
    maintenance,
    indexer,
    service: async (userName = config.user) => serviceFor(await resolveUser(context, userName)),
    authenticate: async (token) => {
      const user = await userForToken(context, token);
      return user && { user, service: serviceFor(user) };
    },
    users: {
      list: () => listUsers(context),
      add: (name) => addUser(context, name),
      remove: (name) => removeUser(context, name),
      resolve: (name) => resolveUser(context, name),
      rotateToken: (name) => rotateToken(context, name),
      credentialStamp: (userId) => credentialStamp(context, userId),
    },
    close: async () => {
      await indexer.stop();
      // Acknowledged memories go into the tables now, and this process's journal segment with them.
      await store.flushJournal().catch(() => undefined);
      await maintenance.close();
      await embedder.close();
      await (await reranker?.catch(() => undefined))?.close();
      await captioner.close();
      await store.flushChecksums();
      store.close();
    },
  };
}

/** Opens the store (creating it, and choosing its embedder, on first use) and its embedder. */
async function openStore(config: Config, options: AppOptions): Promise<{ store: Store; embedder: Embedder }> {
  const recorded = readRecoveryRecord(config.paths.recoveryRecord).meta;
  const existing = await Store.open(config.storeUri, config.paths.writeLock, config.storage.options, recorded, config.paths.journal);
  if (existing?.metaDamage) return openOnDamagedMeta(existing, config, options);
  if (existing) {
    const { embedderId, embedderSpec, dims } = existing.meta;
    if (!options.reindexing && config.embedder !== "auto" && config.embedder !== embedderSpec) {
      existing.close();
      throw embedderMismatch(embedderSpec, config.embedder);
    }
    await recordForRecovery(config, existing);
    return { store: existing, embedder: recordedEmbedder({ id: embedderId, spec: embedderSpec, dims }, config, options) };
  }
  if (options.existing) throw noStoreError(config);
  const choice = await chooseEmbedder(config, options.onProgress, options.embedder);
  const { embedder } = choice;
  const store = await Store.create(
    config.storeUri,
    config.paths.writeLock,
    { embedderId: embedder.id, embedderSpec: choice.spec, dims: embedder.dims, chunkTokens: config.chunkTokens },
    config.storage.options,
    config.paths.journal,
  );
  await recordForRecovery(config, store);
  if (store.meta.embedderId !== embedder.id) {
    // Another process created the store first, with another embedder.
    await embedder.close();
    return { store, embedder: lazyEmbedder({ id: store.meta.embedderId, spec: store.meta.embedderSpec, dims: store.meta.dims }, config) };
  }
  if (choice.reason)
    options.onNotice?.(
      `New store at ${isRemoteUri(config.storeUri) ? config.storeUri : config.paths.dataDir} uses the ${choice.spec} embedder (${choice.reason}).`,
    );
  return { store, embedder };
}

/** The embedder a store records: the one given, if it is that one (the app does not close it), else loaded when first used. */
function recordedEmbedder(expected: { id: string; spec: string; dims: number }, config: Config, options: AppOptions): Embedder {
  const given = options.embedder;
  if (given?.id === expected.id && given.dims === expected.dims) return borrowed(given);
  return lazyEmbedder(expected, config);
}

/**
 * A store whose meta table is damaged serves what its other tables hold, and says so: writes
 * refuse with the damage (Store.write reads the meta), as does embedding when not even the
 * recovery record knows the embedder.
 */
function openOnDamagedMeta(store: Store, config: Config, options: AppOptions): { store: Store; embedder: Embedder } {
  const damage = store.metaDamage!;
  options.onNotice?.(`${damage.message}; what the other tables hold can be read, nothing can be stored. ${damage.suggestion}`);
  const { embedderId: id, embedderSpec: spec, dims } = store.meta;
  if (spec) return { store, embedder: recordedEmbedder({ id, spec, dims }, config, options) };
  const refuse = async (): Promise<never> => {
    throw damage;
  };
  return { store, embedder: { id: "unknown", dims, embedDocuments: refuse, embedQuery: refuse, close: async () => undefined } };
}

/** The meta record and the users, copied for a repair of those tables (store/recovery-record.ts); never in the way. */
async function recordForRecovery(config: Config, store: Store): Promise<void> {
  const users = await store.select("users", {}).catch(() => undefined);
  try {
    updateRecoveryRecord(config.paths.recoveryRecord, { meta: store.meta, ...(users ? { users } : {}) });
  } catch {
    // A data dir that cannot be written fails the command's own writes, with their own message.
  }
}

/**
 * A local data dir must be empty, missing, or a mnemo store: never somebody's unrelated folder. A
 * missing one is made readable by its owner only: it holds their chat history, and a home folder
 * is often readable by every user of the machine. Unless `make` (a command that only reads), nothing is made or changed.
 */
function prepareDataDir(config: Config, { make }: { make: boolean }): void {
  const { dataDir, database, config: configFile } = config.paths;
  let entries: string[];
  try {
    entries = fs.readdirSync(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return make ? makeDataDir(dataDir) : undefined;
    if (code === "ENOTDIR") throw notAStore(dataDir, "it is a file");
    throw error;
  }
  // The database is in the bucket; this folder (the default data dir, not one the user named) holds
  // only this machine's state: models, locks, token, server.json, images.
  if (isRemoteUri(config.storeUri)) return;
  const isStore = fs.existsSync(database) || fs.existsSync(configFile);
  if (entries.length > 0 && !isStore) throw notAStore(dataDir, "it holds other files and no mnemo database");
  // An empty folder becomes a store now: as private as one mnemo makes.
  if (entries.length === 0 && make) fs.chmodSync(dataDir, 0o700);
}

/**
 * The data dir and its missing parents, one folder at a time: Node's `recursive` retries for ever
 * where a file system answers ENOENT for a parent that exists (`--store /proc/x` spun a core).
 */
function makeDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dataDir); !fs.existsSync(at) && path.dirname(at) !== at; at = path.dirname(at)) missing.unshift(at);
  try {
    for (const dir of missing) fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const { code, path: failed = dataDir } = error as NodeJS.ErrnoException;
    throw new AppError("invalid_input", `Cannot make the store's folder ${dataDir}: ${failed} cannot be created (${code})`, {
      suggestion: "Pass --store (or set MNEMO_STORE) to a folder you can write, or to an existing mnemo store.",
    });
  }
}

/** A store asked for (AppOptions.existing) that is not there: `details.noStore`, where it was looked for, tells it from other not_found errors. */
function noStoreError(config: Config): AppError {
  const where = isRemoteUri(config.storeUri) ? config.storeUri : config.paths.dataDir;
  return new AppError("not_found", `No store at ${where}: nothing is imported or remembered there yet`, {
    suggestion:
      "`mnemo import <export>` or `mnemo remember <text>` starts one there; or pass the store to use with --store (or MNEMO_STORE).",
    details: { noStore: where },
  });
}

/** A data dir that cannot be a store is a bad --store (or MNEMO_STORE): bad input, exit 2 as the README's rules say, not a failure. */
function notAStore(dir: string, why: string): AppError {
  return new AppError("invalid_input", `${dir} is not a mnemo store: ${why}`, {
    suggestion: "Pass --store (or set MNEMO_STORE) to an empty or new folder, or to an existing mnemo store.",
    details: { field: "store" },
  });
}
