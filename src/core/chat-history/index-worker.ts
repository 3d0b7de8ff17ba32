import os from "node:os";
import { MAX_CONVERSATION_TOKENS } from "../../schemas/chat-history.js";
import type { ChunkRow, ConversationRow, StoredMessage } from "../../store/rows.js";
import { optimizeTable } from "../../store/maintenance.js";
import type { Where } from "../../store/where.js";
import { DamagedTableError } from "../../store/damage.js";
import { StorageFaultError } from "../../store/storage-faults.js";
import type { Store } from "../../store/store.js";
import { chunkConversation, chunkRow, type ChunkDraft } from "./chunking.js";
import { processRuns } from "../../shared/processes.js";
import type { CoreContext } from "../context.js";
import { readMessages } from "./conversations.js";
import { releaseQuotas } from "./quota.js";
import { loadTokenizer } from "../../text/tokens.js";

/** A claim older than this is taken over even if its owner seems alive (hung, or on another host). */
const LEASE_MS = 10 * 60_000;
/** How often an idle worker looks for work queued by other processes. */
const POLL_MS = 1_000;
/** How often a worker stalled on a full or failing disk (or object store) tries again: each try embeds a batch for nothing. */
const STALLED_RETRY_MS = 10_000;
/** Conversations per batch, at most. */
const BATCH_CONVERSATIONS = 1_000;
/** Chunk tokens per batch: the first batch's size, and the least any batch aims at. */
const MIN_BATCH_TOKENS = 24_000;
/**
 * Beyond this a batch's messages, rows and vectors weigh on memory for little gain: with a fast
 * model, 400,000 raised a long import's peak by 90 MB over 100,000 for about 15% more speed.
 */
const MAX_BATCH_TOKENS = 100_000;
/** Seconds of embedding a batch aims at (see nextBatchTokens). */
const BATCH_SECONDS = 10;
/** Batches in flight at once: one embedding while the next is read and chunked, or committed. */
const PIPELINE = 2;
/**
 * Batches between compactions of the conversations table. Each batch rewrites its rows twice
 * (claimed, done), and LanceDB's memory grows with a table's fragments; the rows are small (the
 * messages live elsewhere), so compacting them costs little.
 */
const COMPACT_EVERY = 10;

const OWNER = `${os.hostname()}:${process.pid}`;
/** Conversations waiting for a worker (quota-blocked ones wait for room, not for a worker). */
const PENDING: Where<"conversations"> = { quotaBlocked: false, status: ["queued", "processing"] };

/** The `claimedAt` a worker wrote when it claimed a conversation: while the row still holds it (and OWNER), the claim is its. */
type ClaimStamp = { claim: string };

type Claimed = Pick<ConversationRow, "id" | "userId" | "platform" | "revision" | "tokenCount"> &
  ClaimStamp & {
    messagesJson: string;
    /**
     * Queued with no chunks yet: at its first revision (a failed or interrupted attempt leaves it
     * `failed` or `processing`, and a re-upload makes a new revision), or restored without them; its
     * chunks are appended.
     */
    firstIndexing: boolean;
  };

/** Whether conversations are waiting for, or in the hands of, an index worker in any process. */
export async function indexPending(store: Store): Promise<boolean> {
  return (await store.count("conversations", PENDING)) > 0;
}

/**
 * The durable index queue's worker. The queue is the conversations table itself: `queued` rows
 * are claimed (→ `processing`, with owner and time), chunked, embedded and swapped into the chunks
 * table in one commit per batch (→ `ready`), or marked `rejected` / `failed` with the reason.
 * A process that dies leaves its claims behind; they are taken over on the next start.
 */
export class IndexWorker {
  private running = false;
  private batchTokens = MIN_BATCH_TOKENS;
  private batchesSinceCompaction = 0;
  private loops: Promise<void>[] = [];
  private wake: (() => void) | undefined;
  private stalledBy: StorageFaultError | DamagedTableError | undefined;

  constructor(private readonly ctx: CoreContext) {}

  /** Starts the loops; resolves once conversations the quota now has room for are queued. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // Settings are read as a process starts, so a quota raised or removed since conversations
      // were blocked shows first here; within a process only a delete makes room, and releases it.
      if ((await releaseQuotas(this.ctx)) > 0) this.ctx.afterWrite();
    } catch (error) {
      // A damaged table stops the queue, not the server: memories stay reachable (mnemo doctor repairs it).
      if (!(error instanceof DamagedTableError)) throw error;
      this.stalledBy = error;
    } finally {
      this.loops = Array.from({ length: PIPELINE }, () => this.loop());
    }
  }

  /** New work was queued in this process: look now rather than at the next poll. */
  notify(): void {
    this.wake?.();
  }

  /**
   * Why the worker cannot make progress now (the disk is full, a table is damaged), until a round
   * succeeds again. It keeps trying (a server carries on once space is freed or the table repaired);
   * a command waiting on it gives up.
   */
  get stalled(): StorageFaultError | DamagedTableError | undefined {
    return this.stalledBy;
  }

  /** Finishes the batches in flight, then stops. What is still queued stays queued, durably. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let batch: Claimed[] = [];
      try {
        batch = await this.claim();
        if (batch.length > 0) {
          await this.process(batch);
          await this.compactQueue();
        }
        this.stalledBy = undefined;
      } catch (error) {
        if (error instanceof StorageFaultError || error instanceof DamagedTableError) this.stalledBy = error;
        await this.fail(batch, error).catch((failure: unknown) => {
          if (failure instanceof StorageFaultError || failure instanceof DamagedTableError) this.stalledBy = failure;
        });
      }
      if (this.running && (batch.length === 0 || this.stalledBy)) await this.idle(this.stalledBy ? STALLED_RETRY_MS : POLL_MS);
    }
  }

  /** Waits `ms`, or until new work is queued. */
  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const previous = this.wake;
      this.wake = done;
      function done() {
        clearTimeout(timer);
        previous?.();
        resolve();
      }
    });
  }

  /** Takes the oldest queued conversations (and any a dead process left in `processing`). */
  private async claim(): Promise<Claimed[]> {
    const { store } = this.ctx;
    // An idle worker looks every second: without the write lock, unless there is something to take.
    if (!(await indexPending(store))) return [];
    return store.write(async () => {
      const candidates = (await store.select("conversations", PENDING, {
        columns: ["id", "userId", "platform", "revision", "tokenCount", "status", "claimedAt", "claimedBy", "uploadedAt"],
        orderBy: [{ column: "uploadedAt", ascending: true }],
      })) as Pick<ConversationRow, "id" | "userId" | "platform" | "revision" | "tokenCount" | "status" | "claimedAt" | "claimedBy">[];
      const now = this.ctx.now();
      const claimable = candidates.filter((row) => row.status === "queued" || isAbandoned(row.claimedAt, row.claimedBy, now));
      const chosen: typeof claimable = [];
      let tokens = 0;
      for (const row of claimable) {
        if (chosen.length >= BATCH_CONVERSATIONS || (chosen.length > 0 && tokens + row.tokenCount > this.batchTokens)) break;
        chosen.push(row);
        tokens += Math.min(row.tokenCount, MAX_CONVERSATION_TOKENS);
      }
      if (chosen.length === 0) return [];
      const claimed = await this.take(chosen, now.toISOString());
      // Conversations over the limit are rejected unread: their messages are not needed.
      const messages = await readMessages(
        this.ctx,
        claimed.filter((row) => row.tokenCount <= MAX_CONVERSATION_TOKENS),
      );
      // Re-queued without chunks (restored without vectors, `mnemo doctor --repair`, a removal cut short):
      // theirs are appended too, sparing a merge that scans the whole table.
      const unchunked = await this.ctx.store.unchunked(
        claimed.filter((row) => row.status === "queued" && row.revision > 1).map((row) => row.id),
      );
      return claimed.map((row) => ({
        ...row,
        messagesJson: messages.get(row.id) ?? "[]",
        firstIndexing: row.status === "queued" && (row.revision === 1 || unchunked.has(row.id)),
      }));
    });
  }

  /**
   * Claims the rows still as they were read (queued, or held by the same abandoned claim), with a
   * claim stamp of this worker's, and returns those it got, as they are now, with the state they
   * had. The update's condition makes the claim atomic: of two workers claiming a row at once
   * (on two machines), one changes it and the other finds it changed, so no conversation is
   * indexed twice.
   */
  private async take<R extends Pick<ConversationRow, "id" | "status" | "claimedAt">>(
    chosen: R[],
    claimedAt: string,
  ): Promise<(R & ClaimStamp)[]> {
    const { store } = this.ctx;
    const ids = chosen.map((row) => row.id);
    const heldBefore = chosen.flatMap((row) => (row.status === "processing" && row.claimedAt ? [row.claimedAt] : []));
    const unchanged = { anyOf: [{ status: "queued" }, { status: "processing", claimedAt: [null, ...heldBefore] }] } as const;
    const claim = { claimedAt, claimedBy: OWNER };
    if ((await store.update("conversations", { id: ids, ...unchanged }, { status: "processing", ...claim })) === 0) return [];
    const ours = await store.select("conversations", { id: ids, ...claim }, { columns: ["id", "revision", "tokenCount"] });
    const before = new Map(chosen.map((row) => [row.id, row]));
    return ours.map((row) => ({ ...before.get(row.id)!, revision: row.revision, tokenCount: row.tokenCount, claim: claimedAt }));
  }

  private async process(batch: Claimed[]): Promise<void> {
    const tokenizer = await loadTokenizer();
    const rejected = batch.filter((row) => row.tokenCount > MAX_CONVERSATION_TOKENS);
    const accepted = batch.filter((row) => row.tokenCount <= MAX_CONVERSATION_TOKENS);
    const drafts = accepted.map((row) =>
      chunkConversation(JSON.parse(row.messagesJson) as StoredMessage[], tokenizer, { maxTokens: this.ctx.store.meta.chunkTokens }),
    );
    const vectorOf = await this.embedChunks(accepted, drafts.flat());

    await this.ctx.store.write(async () => {
      // Only conversations still at the revision we chunked: a re-upload meanwhile queued them again.
      const current = await this.stillClaimed(batch);
      const done = accepted.filter((row) => current.has(row.id));
      const draftsOf = new Map(accepted.map((row, i) => [row.id, drafts[i]!]));
      await this.writeChunks(done, (row) =>
        draftsOf.get(row.id)!.map((draft) => chunkRow(row, !current.get(row.id)!.excluded, draft, vectorOf(draft))),
      );
      await this.setStatus(
        done.map((row) => row.id),
        "ready",
        null,
      );
      for (const row of rejected.filter((r) => current.has(r.id))) {
        await this.setStatus([row.id], "rejected", overLimitReason(row.tokenCount));
      }
    });
    this.ctx.afterWrite();
  }

  /**
   * New conversations' chunks are appended. The others' replace the chunks they had in one merge,
   * so a search sees the old version or the new one. A merge scans the whole chunks table: 500
   * rows into 130k took 250 MB more for a moment and 120 ms, an append nothing and 27 ms (the whole
   * 600 MB import merging every batch peaked at 1.28 GB).
   */
  private async writeChunks(done: Claimed[], chunksOf: (row: Claimed) => ChunkRow[]): Promise<void> {
    const replaced = done.filter((row) => !row.firstIndexing);
    await this.ctx.store.add("chunks", done.filter((row) => row.firstIndexing).flatMap(chunksOf));
    if (replaced.length === 0) return;
    await this.ctx.store.replaceScope("chunks", "id", { conversationId: replaced.map((row) => row.id) }, replaced.flatMap(chunksOf));
  }

  /**
   * A vector for every draft. A chunk whose text the conversation's current chunks already have
   * keeps its vector: a re-upload that adds messages re-embeds only the chunks that changed
   * (chunks are cut from the first message on, so most of an extended conversation's are unchanged).
   */
  private async embedChunks(conversations: Claimed[], drafts: ChunkDraft[]): Promise<(draft: ChunkDraft) => Float32Array> {
    const known = await this.currentVectors(conversations);
    const fresh = drafts.filter((draft) => !known.has(draft.text));
    const started = performance.now();
    const vectors = await this.ctx.embedder.embedDocuments(fresh.map((draft) => draft.text));
    const tokens = fresh.reduce((sum, draft) => sum + draft.tokenCount, 0);
    this.batchTokens = nextBatchTokens(this.batchTokens, tokens, performance.now() - started);
    fresh.forEach((draft, i) => known.set(draft.text, vectors[i]!));
    return (draft) => known.get(draft.text)!;
  }

  /** The vectors of the chunks these conversations have now, by chunk text (none before their first processing). */
  private async currentVectors(conversations: Claimed[]): Promise<Map<string, Float32Array>> {
    const reuploaded = conversations.filter((row) => row.revision > 1).map((row) => row.id);
    if (reuploaded.length === 0) return new Map();
    const rows = await this.ctx.store.select("chunks", { conversationId: reuploaded }, { columns: ["text", "vector"] });
    return new Map(rows.map((row) => [row.text, row.vector]));
  }

  private async compactQueue(): Promise<void> {
    if (++this.batchesSinceCompaction < COMPACT_EVERY) return;
    this.batchesSinceCompaction = 0;
    // Not the batch's failure: its work is committed. A compaction that loses is tried again later.
    await this.ctx.store.write(() => optimizeTable(this.ctx.store, "conversations")).catch(() => undefined);
  }

  /**
   * Marks the batch failed, with the reason. A full or failing disk (or object store) is no fault of the conversations: they go
   * back to the queue to wait for room (if even that cannot be written, their lease runs out).
   */
  private async fail(batch: Claimed[], error: unknown): Promise<void> {
    if (batch.length === 0) return;
    const reason = error instanceof Error ? error.message : String(error);
    await this.ctx.store.write(async () => {
      const current = await this.stillClaimed(batch);
      if (error instanceof StorageFaultError) await this.setStatus([...current.keys()], "queued", null);
      else await this.setStatus([...current.keys()], "failed", reason);
    });
  }

  /** The batch's conversations that are still ours to finish, with their current excluded flag. */
  private async stillClaimed(batch: Claimed[]): Promise<Map<string, { excluded: boolean }>> {
    const rows = await this.ctx.store.select(
      "conversations",
      { id: batch.map((row) => row.id) },
      { columns: ["id", "revision", "status", "excluded", "claimedAt", "claimedBy"] },
    );
    const claims = new Map(batch.map((row) => [row.id, row]));
    const ours = (row: (typeof rows)[number]) =>
      row.status === "processing" &&
      row.revision === claims.get(row.id)?.revision &&
      row.claimedAt === claims.get(row.id)?.claim &&
      row.claimedBy === OWNER;
    return new Map(rows.filter(ours).map((row) => [row.id, { excluded: row.excluded }]));
  }

  private async setStatus(ids: string[], status: ConversationRow["status"], reason: string | null): Promise<void> {
    if (ids.length === 0) return;
    await this.ctx.store.update("conversations", { id: ids }, { status, statusReason: reason, claimedAt: null, claimedBy: null });
  }
}

/**
 * A batch's size in chunk tokens, from how fast the last one was embedded: about BATCH_SECONDS of
 * embedding. Each batch commits three times (claim, chunks, status), and every commit leaves a
 * fragment until the next compaction; LanceDB's memory grows with their number. Fixed batches of
 * 24,000 tokens made a fast model commit several times a second; a slow one still gets batches
 * of a few seconds, so progress shows and a crash loses little.
 */
export function nextBatchTokens(current: number, embeddedTokens: number, embedMs: number): number {
  if (embeddedTokens < MIN_BATCH_TOKENS / 4 || embedMs <= 0) return current;
  const perSecond = embeddedTokens / (embedMs / 1000);
  return Math.round(Math.min(MAX_BATCH_TOKENS, Math.max(MIN_BATCH_TOKENS, perSecond * BATCH_SECONDS)));
}

/** A processing claim whose owner is gone (same host, dead pid) or whose lease ran out. */
function isAbandoned(claimedAt: string | null, claimedBy: string | null, now: Date): boolean {
  if (!claimedAt || !claimedBy) return true;
  if (now.getTime() - Date.parse(claimedAt) > LEASE_MS) return true;
  const [host, pid] = claimedBy.split(":");
  if (host !== os.hostname() || claimedBy === OWNER) return false;
  return !processRuns(Number(pid));
}

/** Why a conversation was rejected, and what becomes of it: the user cannot shorten an app's export. */
function overLimitReason(tokens: number): string {
  const count = (n: number) => n.toLocaleString("en-US");
  return `${count(tokens)} tokens, over the limit of ${count(MAX_CONVERSATION_TOKENS)} a conversation may have: it is kept and listed, but not searched or recalled`;
}
