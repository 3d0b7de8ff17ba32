import path from "node:path";
import { breakNote, type MnemoExportReader } from "../../importers/mnemo-export.js";
import type {
  ExportBucket,
  ExportConversation,
  ExportHeader,
  ExportMemory,
  ExportPlatform,
  ExportRecord,
  ExportUser,
} from "../../schemas/export.js";
import {
  messagesRowId,
  type ChunkRow,
  type ConversationRow,
  type MemoryHistoryRow,
  type MemoryRow,
  type MessagesRow,
  type UserRow,
} from "../../store/rows.js";
import { CHUNK_TOKENS_UNRECORDED } from "../../store/schema.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import { sameBucketName } from "../../text/bucket-names.js";
import type { CoreContext } from "../context.js";
import { DEFAULT_BUCKET, ensureDefaultBucket, listBucketRows } from "../memories/buckets.js";
import { storedImageProblem } from "../memories/image-types.js";
import { REBUILT_HASH, RECOVERED_PLATFORM } from "../operations/doctor.js";
import { decodeVector } from "./vectors.js";

/**
 * Restores a mnemo export into the store (the format, and what a restore keeps or adds, is
 * described in core/jobs/export.ts). Records are stored in batches of one commit per table; each
 * batch first leaves out what the store already holds, so a restore that stopped half-way can be
 * run again, and restoring into a store that holds some of it adds only the rest.
 */

export interface RestoreOptions {
  /** Restore a one-user export into this (existing) user instead of the user it names. */
  intoUser?: string | undefined;
  /** Read and check every line, store nothing. */
  dryRun?: boolean;
  onProgress?: (progress: RestoreProgress) => void;
}

export interface RestoreProgress {
  records: number;
  bytesRead: number;
  totalBytes: number;
}

type Kind = "bucket" | "memory" | "platform" | "conversation";

export interface RestoreSummary {
  file: string;
  /** The users restored into, and whether the restore created them. */
  users: { name: string; created: boolean }[];
  /** Records stored, by kind. */
  added: Record<Kind, number>;
  /** Records the store already held, left as they were. */
  present: Record<Kind, number>;
  /** Pictures of image memories the store held without them (missing or damaged files), put back from the file. */
  pictures: number;
  /** Whether the vectors in the file were used (same embedder) or everything is embedded again. */
  vectors: "carried" | "recomputed";
  /** Whether the file's chunks were used (its vectors are, and they were cut at the store's chunk size) or are cut again. */
  chunks: "carried" | "recomputed";
  /** Conversations queued to be chunked and embedded again (the file had no vectors for them, another embedder's, or chunks of another size). */
  queued: number;
  /** Lines that could not be read, records that could not be placed, a file cut short. */
  problems: string[];
  /** Whether the file ended with its `end` record. */
  complete: boolean;
}

/** Memories or conversations stored per batch (a batch is one commit per table). */
const MEMORY_BATCH = 200;
const CONVERSATION_BATCH = 100;
/** Characters of messages and chunk text per conversation batch, at most: a batch of long ones stays a few MB. */
const CONVERSATION_BATCH_CHARS = 4_000_000;

interface Target {
  userId: string;
  /** The file's bucket ids → this store's. */
  buckets: Map<number, number>;
  /** Platform id → this store's import record id for it. */
  importIds: Map<string, string>;
}

export async function restoreExport(
  ctx: CoreContext,
  file: string,
  reader: MnemoExportReader,
  options: RestoreOptions = {},
): Promise<RestoreSummary> {
  if (options.dryRun) return checkExport(file, reader, options);
  const { header } = reader;
  const { meta } = ctx.store;
  const vectors = header.vectors && header.embedder.id === meta.embedderId && header.embedder.dims === meta.dims;
  const carry = { memories: vectors, chunks: vectors && (header.chunkTokens ?? CHUNK_TOKENS_UNRECORDED) === meta.chunkTokens };
  const summary: RestoreSummary = {
    file,
    users: [],
    added: { bucket: 0, memory: 0, platform: 0, conversation: 0 },
    present: { bucket: 0, memory: 0, platform: 0, conversation: 0 },
    pictures: 0,
    vectors: carry.memories ? "carried" : "recomputed",
    chunks: carry.chunks ? "carried" : "recomputed",
    queued: 0,
    problems: [],
    complete: false,
  };
  const restorer = new Restorer(ctx, header, carry, summary);
  let records = 0;
  let lastLine = 1;
  let broken = false;
  try {
    for await (const { record, line } of reader.records((problem) => summary.problems.push(problem.message))) {
      await restorer.take(record, line, options.intoUser);
      lastLine = line;
      options.onProgress?.({ records: ++records, bytesRead: reader.bytesRead(), totalBytes: reader.totalBytes });
    }
  } catch (error) {
    // A gzip stream cut or damaged: what was read before it is stored below, like a plain file cut short.
    const note = breakNote(error);
    if (note === undefined) throw error;
    broken = true;
    summary.problems.push(note);
  }
  await restorer.flush();
  summary.complete = reader.complete();
  if (!summary.complete && !broken) {
    summary.problems.push(
      `${file}: the file ends without its "end" record after line ${lastLine}: it was cut short, and the records up to there are restored`,
    );
  }
  if (summary.queued > 0) ctx.onQueued();
  return summary;
}

/** A dry run: every line read and checked, nothing stored; `added` counts what the file holds. */
/** A dry run: what the file holds, read through and counted, the store left alone. */
export async function checkExport(file: string, reader: MnemoExportReader, options: RestoreOptions): Promise<RestoreSummary> {
  const summary: RestoreSummary = {
    file,
    users: [],
    added: { bucket: 0, memory: 0, platform: 0, conversation: 0 },
    present: { bucket: 0, memory: 0, platform: 0, conversation: 0 },
    pictures: 0,
    vectors: reader.header.vectors ? "carried" : "recomputed",
    chunks: reader.header.vectors ? "carried" : "recomputed",
    queued: 0,
    problems: [],
    complete: false,
  };
  let records = 0;
  let broken = false;
  try {
    for await (const { record } of reader.records((problem) => summary.problems.push(problem.message))) {
      if (record.type === "user") summary.users.push({ name: options.intoUser ?? record.name, created: false });
      else if (record.type !== "end") summary.added[record.type]++;
      options.onProgress?.({ records: ++records, bytesRead: reader.bytesRead(), totalBytes: reader.totalBytes });
    }
  } catch (error) {
    const note = breakNote(error, true);
    if (note === undefined) throw error;
    broken = true;
    summary.problems.push(note);
  }
  summary.complete = reader.complete();
  if (!summary.complete && !broken) summary.problems.push(`${file}: the file ends without its "end" record: it was cut short`);
  return summary;
}

class Restorer {
  private target: Target | undefined;
  private memories: ExportMemory[] = [];
  private conversations: ExportConversation[] = [];
  private conversationChars = 0;

  constructor(
    private readonly ctx: CoreContext,
    private readonly header: ExportHeader,
    /** Whether the file's vectors of memories, and its chunks with theirs, are stored as they are. */
    private readonly carry: { memories: boolean; chunks: boolean },
    private readonly summary: RestoreSummary,
  ) {}

  async take(record: ExportRecord, line: number, intoUser: string | undefined): Promise<void> {
    if (record.type === "user") {
      await this.flush();
      if (intoUser !== undefined && this.summary.users.length > 0) {
        throw AppError.invalid(
          "--user",
          "restores a one-user export; this one holds several users",
          "Leave out --user to restore each into its own user.",
        );
      }
      this.target = await this.user(record, intoUser);
      return;
    }
    if (record.type === "end") return;
    const target = this.target;
    if (!target) {
      this.summary.problems.push(`line ${line}: a ${record.type} record before any user record; it is skipped`);
      return;
    }
    if (record.type === "bucket") return this.bucket(target, record);
    if (record.type === "platform") return this.platform(target, record);
    if (record.type === "memory") {
      this.memories.push(record);
      if (this.memories.length >= MEMORY_BATCH) await this.flushMemories(target);
      return;
    }
    this.conversations.push(record);
    this.conversationChars += record.messages.reduce((sum, message) => sum + message.text.length, 0);
    this.conversationChars += (record.chunks ?? []).reduce((sum, chunk) => sum + chunk.text.length + 3 * 4 * this.header.embedder.dims, 0);
    if (this.conversations.length >= CONVERSATION_BATCH || this.conversationChars >= CONVERSATION_BATCH_CHARS)
      await this.flushConversations(target);
  }

  /** Stores what is pending for the current user, who then has a default bucket whatever the file held. */
  async flush(): Promise<void> {
    const target = this.target;
    if (!target) return;
    await this.flushMemories(target);
    await this.flushConversations(target);
    await this.ctx.store.write(() => ensureDefaultBucket(this.ctx, target.userId));
  }

  /**
   * The user the records that follow belong to: found by name, or created with the file's id (when
   * free) and token hash. An existing user without a token takes the file's; one with a token keeps it.
   */
  private async user(record: ExportUser, intoUser: string | undefined): Promise<Target> {
    const name = intoUser ?? record.name;
    const { store } = this.ctx;
    const result = await store.write(async () => {
      const [existing] = await store.select("users", { name });
      if (existing) {
        if (!existing.tokenHash && record.tokenHash && intoUser === undefined) {
          await store.update("users", { id: existing.id }, { tokenHash: record.tokenHash });
        }
        return { userId: existing.id, created: false };
      }
      if (intoUser !== undefined) {
        throw new AppError("not_found", `user "${intoUser}" does not exist`, {
          suggestion: `Add it first with \`mnemo users add ${intoUser}\`.`,
        });
      }
      const idTaken = (await store.count("users", { id: record.id })) > 0;
      const row: UserRow = { id: idTaken ? newId("usr") : record.id, name, tokenHash: record.tokenHash, createdAt: record.createdAt };
      // Its buckets, the default one too, come from the file (finishUser makes the default one if not).
      await store.add("users", [row]);
      return { userId: row.id, created: true };
    });
    this.summary.users.push({ name, created: result.created });
    const platforms = await store.select("platforms", { userId: result.userId });
    return { userId: result.userId, buckets: new Map(), importIds: new Map(platforms.map((row) => [row.id, row.importId])) };
  }

  /**
   * A bucket of the same name is the same bucket, and so is one of the same id made at the same
   * moment (renamed since the file was written: restoring it had added an empty bucket of the old
   * name); else it keeps its id when that is free.
   */
  private async bucket(target: Target, record: ExportBucket): Promise<void> {
    const id = await this.ctx.store.write(async () => {
      const existing = await listBucketRows(this.ctx, target.userId);
      const same =
        existing.find((row) => sameBucketName(row.name, record.name)) ??
        existing.find((row) => row.id === record.id && row.createdAt === record.createdAt);
      if (same) {
        this.summary.present.bucket++;
        return same.id;
      }
      const free = !existing.some((row) => row.id === record.id);
      const next = free ? record.id : Math.max(DEFAULT_BUCKET.id, ...existing.map((row) => row.id)) + 1;
      const { name, description, createdAt } = record;
      await this.ctx.store.add("buckets", [{ userId: target.userId, id: next, name, description, createdAt }]);
      this.summary.added.bucket++;
      return next;
    });
    target.buckets.set(record.id, id);
  }

  /** An import record: the store's own for the platform when it has one (its conversations then join it). */
  private async platform(target: Target, record: ExportPlatform): Promise<void> {
    if (target.importIds.has(record.id)) {
      this.summary.present.platform++;
      return;
    }
    const { id, displayName, importId, createdAt } = record;
    await this.ctx.store.write(() => this.ctx.store.add("platforms", [{ userId: target.userId, id, displayName, importId, createdAt }]));
    target.importIds.set(id, importId);
    this.summary.added.platform++;
  }

  private async flushMemories(target: Target): Promise<void> {
    const batch = this.memories;
    this.memories = [];
    if (batch.length === 0) return;
    const held = await this.ctx.store.select("memories", { id: batch.map((record) => record.id) }, { columns: ["id", "userId"] });
    const heldIds = new Set(held.map((row) => row.id));
    const fresh = batch.filter((record) => !heldIds.has(record.id));
    this.summary.present.memory += batch.length - fresh.length;
    this.noteHeldByOthers(target, "memory", held);
    const freshIds = new Set(fresh.map((record) => record.id));
    await this.putBackPictures(batch.filter((record) => record.image && !freshIds.has(record.id)));
    if (fresh.length === 0) return;
    // Embedded before the write lock is taken: a server on the store keeps writing meanwhile.
    const vectors = await this.memoryVectors(fresh);
    const rows = fresh.map((record, i) => this.memoryRow(target, record, vectors[i]!));
    const written = await this.ctx.store.write(async () => {
      const still = new Set((await this.missing("memories", rows)).map((row) => row.id));
      const mine = rows.filter((row) => still.has(row.id));
      const history = fresh.filter((record) => still.has(record.id)).flatMap((record) => this.historyRows(target, record));
      // The history first, as a new memory's is: a crash in between leaves versions nobody sees.
      await this.ctx.store.delete("memoryHistory", { memoryId: [...still] });
      await this.ctx.store.add("memoryHistory", history);
      // Its image before the row, as a new image memory's: no row names bytes that are not stored.
      for (const record of fresh) if (still.has(record.id) && record.image) await this.writeImage(target, record.image);
      await this.ctx.store.add("memories", mine);
      return mine.length;
    });
    this.summary.added.memory += written;
    this.summary.present.memory += rows.length - written;
    this.ctx.afterWrite();
  }

  /** The file's pictures of image memories the store holds, where the store's own are missing or damaged. */
  private async putBackPictures(records: ExportMemory[]): Promise<void> {
    if (records.length === 0) return;
    const { store, images } = this.ctx;
    const held = await store.select(
      "memories",
      { id: records.map((record) => record.id), contentType: "image" },
      { columns: ["id", "imageFile"] },
    );
    const files = new Map(held.map((row) => [row.id, row.imageFile]));
    for (const record of records) {
      const file = files.get(record.id);
      if (!file || !record.image) continue;
      const stored = await images.read(file);
      if (stored && !storedImageProblem(stored)) continue;
      await store.write(() => images.write(file, Buffer.from(record.image!.data, "base64")));
      this.summary.pictures++;
    }
  }

  private async memoryVectors(records: ExportMemory[]): Promise<Float32Array[]> {
    const { dims } = this.header.embedder;
    const vectors = records.map((record) =>
      this.carry.memories && record.vector ? decodeVector(record.vector, dims, `memory ${record.id}`) : undefined,
    );
    const needed = records.filter((_, i) => !vectors[i]);
    const embedded = needed.length > 0 ? await this.ctx.embedder.embedDocuments(needed.map((record) => record.text)) : [];
    let next = 0;
    return vectors.map((vector) => vector ?? embedded[next++]!);
  }

  private memoryRow(target: Target, record: ExportMemory, vector: Float32Array): MemoryRow {
    return {
      id: record.id,
      userId: target.userId,
      bucketId: this.bucketOf(target, record.bucketId, `memory ${record.id}`),
      text: record.text,
      contentType: record.contentType,
      imageFile: record.image ? imageFileOf(target, record.image) : null,
      imageDescription: record.imageDescription,
      source: record.source,
      version: record.version,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      vector,
    };
  }

  private historyRows(target: Target, record: ExportMemory): MemoryHistoryRow[] {
    return record.history.map((entry) => ({
      id: entry.id,
      userId: target.userId,
      memoryId: record.id,
      version: entry.version,
      text: entry.text,
      bucketId: target.buckets.get(entry.bucketId) ?? entry.bucketId,
      changedAt: entry.changedAt,
    }));
  }

  /** The store's bucket for a file's bucket id; the default bucket when the file did not hold that bucket. */
  private bucketOf(target: Target, fileId: number, what: string): number {
    const id = target.buckets.get(fileId);
    if (id !== undefined) return id;
    if (fileId !== DEFAULT_BUCKET.id)
      this.summary.problems.push(`${what}: its bucket ${fileId} is not in the file; it goes to the default bucket`);
    return DEFAULT_BUCKET.id;
  }

  private async writeImage(target: Target, image: { name: string; data: string }): Promise<void> {
    await this.ctx.images.write(imageFileOf(target, image), Buffer.from(image.data, "base64"));
  }

  private async flushConversations(target: Target): Promise<void> {
    const batch = this.conversations;
    this.conversations = [];
    this.conversationChars = 0;
    if (batch.length === 0) return;
    await this.ensurePlatforms(target, batch);
    const parts = batch.map((record) => this.conversationParts(target, record));
    const written = await this.ctx.store.write(async () => {
      const fresh = await this.newConversations(target, parts);
      const ids = fresh.map(({ row }) => row.id);
      if (ids.length === 0) return fresh;
      // Left by a restore that stopped between its commits: replaced, never doubled.
      await this.ctx.store.delete("messages", { conversationId: ids });
      await this.ctx.store.delete("chunks", { conversationId: ids });
      // The messages and chunks first: a crash in between leaves rows nothing points at, never a
      // conversation without its messages.
      await this.ctx.store.add(
        "messages",
        fresh.map(({ messages }) => messages),
      );
      await this.ctx.store.add(
        "chunks",
        fresh.flatMap(({ chunks }) => chunks),
      );
      await this.ctx.store.add(
        "conversations",
        fresh.map(({ row }) => row),
      );
      return fresh;
    });
    this.summary.added.conversation += written.length;
    this.summary.present.conversation += parts.length - written.length;
    this.summary.queued += written.filter(({ row }) => row.status === "queued" && !row.quotaBlocked).length;
    this.ctx.afterWrite();
  }

  /** Import records for platforms the file's conversations name without the file holding one. */
  private async ensurePlatforms(target: Target, batch: ExportConversation[]): Promise<void> {
    for (const record of batch) {
      if (target.importIds.has(record.platform)) continue;
      const { platform: id, importId } = record;
      await this.ctx.store.write(() =>
        this.ctx.store.add("platforms", [{ userId: target.userId, id, displayName: null, importId, createdAt: record.uploadedAt }]),
      );
      target.importIds.set(id, importId);
      this.summary.added.platform++;
    }
  }

  /**
   * A conversation's rows. Its chunks come with it when their vectors can be used and they were cut
   * at the store's chunk size; otherwise a conversation that was ready is queued, and the index
   * worker chunks and embeds it again.
   */
  private conversationParts(
    target: Target,
    record: ExportConversation,
  ): { row: ConversationRow; messages: MessagesRow; chunks: ChunkRow[] } {
    const carried = this.carry.chunks && record.chunks !== undefined;
    const status = record.status === "processing" || (record.status === "ready" && !carried) ? "queued" : record.status;
    const row: ConversationRow = {
      id: record.id,
      userId: target.userId,
      platform: record.platform,
      platformConversationId: record.platformConversationId,
      importId: target.importIds.get(record.platform) ?? record.importId,
      title: record.title,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      status,
      statusReason: record.statusReason,
      pinned: record.pinned,
      excluded: record.excluded,
      quotaBlocked: record.quotaBlocked,
      messageCount: record.messageCount,
      tokenCount: record.tokenCount,
      contentHash: record.contentHash,
      revision: record.revision,
      claimedAt: null,
      claimedBy: null,
      uploadedAt: record.uploadedAt,
    };
    const messages: MessagesRow = {
      id: messagesRowId(row),
      userId: target.userId,
      conversationId: row.id,
      revision: row.revision,
      messagesJson: JSON.stringify(record.messages),
    };
    const { dims } = this.header.embedder;
    const chunks: ChunkRow[] = !carried
      ? []
      : record.chunks!.map((chunk) => ({
          ...chunk,
          userId: target.userId,
          conversationId: row.id,
          platform: row.platform,
          vector: decodeVector(chunk.vector, dims, `conversation ${row.id}, chunk ${chunk.chunkIndex}`),
        }));
    return { row, messages, chunks };
  }

  /**
   * The conversations the store holds neither by id nor by platform and platform conversation id.
   * One that `mnemo doctor --repair` rebuilt from what was left (platform `recovered`, or marked
   * REBUILT_HASH) is replaced by the export's, which has all its text, its title and dates: its row
   * is deleted here. Inside `write`.
   */
  private async newConversations<T extends { row: ConversationRow }>(target: Target, parts: T[]): Promise<T[]> {
    const { store } = this.ctx;
    const ids = parts.map(({ row }) => row.id);
    const held = await store.select("conversations", { id: ids }, { columns: ["id", "userId", "platform", "contentHash"] });
    this.noteHeldByOthers(target, "conversation", held);
    // Only the target user's own: another user's rebuilt conversation is theirs, not to be replaced.
    const wasRebuilt = (row: { userId: string; platform: string; contentHash: string }) =>
      row.userId === target.userId && (row.platform === RECOVERED_PLATFORM || row.contentHash === REBUILT_HASH);
    const rebuilt = held.filter(wasRebuilt).map((row) => row.id);
    if (rebuilt.length > 0) await store.delete("conversations", { id: rebuilt });
    const byId = new Set(held.filter((row) => !wasRebuilt(row)).map((row) => row.id));
    const key = (platform: string, id: string) => `${platform}\u0000${id}`;
    const byPlatform = new Set(
      (
        await store.select(
          "conversations",
          { userId: target.userId, platformConversationId: parts.map(({ row }) => row.platformConversationId) },
          { columns: ["platform", "platformConversationId"] },
        )
      ).map((row) => key(row.platform, row.platformConversationId)),
    );
    const seen = new Set<string>();
    return parts.filter(({ row }) => {
      const both = key(row.platform, row.platformConversationId);
      if (byId.has(row.id) || byPlatform.has(both) || seen.has(both)) return false;
      seen.add(both);
      return true;
    });
  }

  /**
   * Ids are store-wide: a record held by another user of the store (a one-user export restored with
   * `--user` into the store it came from) is not restored, and the summary must not pass it off as
   * the target user's.
   */
  private noteHeldByOthers(target: Target, kind: "memory" | "conversation", held: { userId: string }[]): void {
    const others = held.filter((row) => row.userId !== target.userId).length;
    if (others === 0) return;
    const user = this.summary.users.at(-1)?.name ?? "this user";
    this.summary.problems.push(
      `${others} ${others === 1 ? kind : kind === "memory" ? "memories" : "conversations"} of the file ${others === 1 ? "is" : "are"} another user's in this store (ids are store-wide): not restored into ${user}; restore the file into another store to copy them`,
    );
  }

  /** The records whose id the table does not hold yet. */
  private async missing<T extends { id: string }>(key: "memories", records: T[]): Promise<T[]> {
    const found = new Set(
      (await this.ctx.store.select(key, { id: records.map((record) => record.id) }, { columns: ["id"] })).map((row) => row.id),
    );
    return records.filter((record) => !found.has(record.id));
  }
}

/** Where a restored image is kept: the user's folder, by its name in the file (its memory's id). */
function imageFileOf(target: Target, image: { name: string }): string {
  return path.join(target.userId, image.name);
}
