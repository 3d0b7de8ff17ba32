/**
 * The trash: memories and conversations moved out of the store, kept 30 days, then deleted for good.
 *
 * An item in the trash is its record of mnemo's export format (core/jobs/export.ts) — a memory with
 * its history, image bytes and vector, a conversation with its messages, chunks and vectors — with
 * its bucket or import record and the embedder its vectors are from. Moving it there and removing it
 * from the store is one write, under the store's lock, so nothing is lost or half-moved between.
 * While in the trash it is gone from every list, search, count and export, exactly as after a
 * delete. Restoring it is a restore of that record (core/jobs/restore.ts): the same id, version,
 * dates, flags and chunks; its vectors are used when the store's embedder is still theirs. What is
 * already in the store again (imported again meanwhile) is left as it is, and the entry goes.
 *
 * Which deletes go here is each face's choice (src/README.md): the web app's do; the API's DELETE
 * endpoints, the CLI's and MCP's deletes remove at once, as the spec says.
 */
import type { ExportHeader } from "../../schemas/export.js";
import { parseInput } from "../../schemas/parse.js";
import {
  EmptyTrashRequest,
  type EmptyTrashResponse,
  MoveToTrashRequest,
  type MoveToTrashResponse,
  type RestoreTrashResponse,
  TRASH_DAYS,
  TrashIds,
  type TrashItem,
  type TrashList,
  TrashQuery,
} from "../../schemas/trash.js";
import type { TrashRow } from "../../store/rows.js";
import { AppError } from "../../shared/errors.js";
import { newId } from "../../shared/ids.js";
import type { CoreContext } from "../context.js";
import { removeConversations } from "../chat-history/conversations.js";
import { conversationRecords, memoryRecords } from "../jobs/export.js";
import { restoreExport } from "../jobs/restore.js";
import { listBucketRows } from "../memories/buckets.js";
import { removeMemories } from "../memories/memory-edits.js";
import { type Entry, presentItems, trashReader } from "./entries.js";
import { shownId } from "../../text/cut-text.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Items moved per write: a memory's record may hold a 10 MB image and a conversation's thousands of
 * messages with their chunks' vectors, so a step stays some tens of MB whatever the request lists.
 */
const MEMORIES_PER_STEP = 20;
const CONVERSATIONS_PER_STEP = 10;
/** Characters of a memory's text the trash lists it by. */
const TITLE_CHARACTERS = 200;

/** The columns a listing reads: every one but the entry itself, which may be megabytes. */
const LISTED: (keyof TrashRow)[] = ["id", "userId", "kind", "itemId", "title", "detail", "deletedAt"];

export interface TrashUser {
  id: string;
  name: string;
}

/** POST /api/trash: the memories and conversations listed go to the trash; unknown ids are named in `notFound`. */
export async function moveToTrash(ctx: CoreContext, userId: string, input: unknown): Promise<MoveToTrashResponse> {
  const body = parseInput(MoveToTrashRequest, input);
  await purgeExpiredTrash(ctx);
  const memoryIds = [...new Set(body.memoryIds)];
  const conversationIds = [...new Set(body.conversationIds)];
  const rows: TrashRow[] = [];
  for (const ids of inSteps(memoryIds, MEMORIES_PER_STEP)) rows.push(...(await ctx.store.write(() => moveMemories(ctx, userId, ids))));
  for (const ids of inSteps(conversationIds, CONVERSATIONS_PER_STEP)) {
    rows.push(...(await ctx.store.write(() => moveConversations(ctx, userId, ids))));
  }
  if (rows.length > 0) ctx.afterWrite();
  if (rows.some((row) => row.kind === "conversation")) ctx.onQueued(); // the quota may have released some
  const moved = new Set(rows.map((row) => row.itemId));
  return { items: rows.map((row) => itemOf(row)), notFound: [...memoryIds, ...conversationIds].filter((id) => !moved.has(id)) };
}

/** Inside `store.write`: the memories' records into the trash, then the memories out of the store. */
async function moveMemories(ctx: CoreContext, userId: string, ids: string[]): Promise<TrashRow[]> {
  const records = await collect(memoryRecords(ctx, userId, true, ids));
  if (records.length === 0) return [];
  const buckets = new Map((await listBucketRows(ctx, userId)).map((row) => [row.id, row]));
  const rows = records.map((record) => {
    const bucket = buckets.get(record.bucketId);
    const { name = "General", description = null, createdAt = record.createdAt } = bucket ?? {};
    const entry: Entry = {
      embedder: embedderOf(ctx),
      bucket: { type: "bucket", id: record.bucketId, name, description, createdAt },
      record,
    };
    const title = record.text.length > TITLE_CHARACTERS ? `${record.text.slice(0, TITLE_CHARACTERS)}…` : record.text;
    return trashRow(ctx, userId, entry, title, record.contentType === "image" ? `Image · ${name}` : name);
  });
  // Undone by the next write if cut before the memories are removed (store/write-intents.ts).
  const done = ctx.store.intend({ rows: "trash", userId, ids: rows.map((row) => row.id) });
  await ctx.store.add("trash", rows);
  await removeMemories(
    ctx,
    userId,
    records.map((record) => record.id),
  );
  done();
  return rows;
}

/** Inside `store.write`: the conversations' records into the trash, then the conversations out of the store. */
async function moveConversations(ctx: CoreContext, userId: string, ids: string[]): Promise<TrashRow[]> {
  const records = await collect(conversationRecords(ctx, userId, true, ids));
  if (records.length === 0) return [];
  const platforms = await ctx.store.select("platforms", { userId, id: [...new Set(records.map((r) => r.platform))] });
  const rows = records.map((record) => {
    const platform = platforms.find((row) => row.id === record.platform);
    const entry: Entry = {
      embedder: embedderOf(ctx),
      ...(platform
        ? {
            platform: {
              type: "platform",
              id: platform.id,
              displayName: platform.displayName,
              importId: platform.importId,
              createdAt: platform.createdAt,
            },
          }
        : {}),
      record,
    };
    const messages = `${record.messageCount} message${record.messageCount === 1 ? "" : "s"}`;
    return trashRow(ctx, userId, entry, record.title || "Untitled", `${platform?.displayName ?? record.platform} · ${messages}`);
  });
  // Undone by the next write if cut before the conversations are removed (store/write-intents.ts).
  const done = ctx.store.intend({ rows: "trash", userId, ids: rows.map((row) => row.id) });
  await ctx.store.add("trash", rows);
  await removeConversations(
    ctx,
    userId,
    records.map((record) => record.id),
  );
  done();
  return rows;
}

function trashRow(ctx: CoreContext, userId: string, entry: Entry, title: string, detail: string): TrashRow {
  return {
    id: newId("trs"),
    userId,
    kind: entry.record.type,
    itemId: entry.record.id,
    title,
    detail,
    deletedAt: ctx.now().toISOString(),
    entryJson: JSON.stringify(entry),
  };
}

function embedderOf(ctx: CoreContext): ExportHeader["embedder"] {
  const { embedderId: id, embedderSpec: spec, dims } = ctx.store.meta;
  return { id, spec, dims };
}

/**
 * GET /api/trash: what the user's trash holds, newest first. Its rows are read again only when the
 * trash changes (a read was 9–20 ms at load 24, a version check a tenth of one); what is past its
 * 30 days is left out here and deleted by the next move or a server's purge.
 */
export async function listTrash(ctx: CoreContext, userId: string, input: unknown = {}): Promise<TrashList> {
  const { page, pageSize } = parseInput(TrashQuery, input);
  const held = await ctx.store.memo(`trash:${userId}`, ["trash"], () => ctx.store.select("trash", { userId }, { columns: LISTED }));
  const since = cutoff(ctx);
  const rows = held
    .filter((row) => row.deletedAt >= since)
    .sort((a, b) => b.deletedAt.localeCompare(a.deletedAt) || b.id.localeCompare(a.id));
  const items = rows.slice((page - 1) * pageSize, page * pageSize).map((row) => itemOf(row));
  return { items, page, pageSize, total: rows.length, totalPages: Math.ceil(rows.length / pageSize) };
}

/**
 * POST /api/trash/restore: the entries back into the store, as they were. Ids not in the trash
 * (restored or deleted already, or expired) are skipped; none found at all is a 404.
 */
export async function restoreFromTrash(ctx: CoreContext, user: TrashUser, input: unknown): Promise<RestoreTrashResponse> {
  const { ids } = parseInput(TrashIds, input);
  const rows = await entriesFor(ctx, user.id, [...new Set(ids)]);
  if (rows.length === 0) throw notInTrash(ids);
  const entries = rows.map((row) => ({ row, entry: JSON.parse(row.entryJson) as Entry }));
  const before = await presentItems(ctx, user.id, entries);
  const missing = entries.filter(({ row }) => !before.has(row.id));
  const problems: string[] = [];
  for (const group of byEmbedder(missing)) {
    const summary = await restoreExport(ctx, "the trash", trashReader(user, group), { intoUser: user.name });
    problems.push(...summary.problems.map((problem) => problem.replace(/is not in the file/g, "no longer exists")));
  }
  const after = await presentItems(ctx, user.id, missing);
  const restored = missing.filter(({ row }) => after.has(row.id)).map(({ row }) => row);
  const present = entries.filter(({ row }) => before.has(row.id)).map(({ row }) => row);
  const done = [...restored, ...present].map((row) => row.id);
  if (done.length > 0) await ctx.store.write(() => ctx.store.delete("trash", { userId: user.id, id: done }));
  return { restored: restored.map((row) => itemOf(row)), present: present.map((row) => itemOf(row)), problems };
}

/**
 * The live entries `ids` name: an entry's own id (`trs_…`), or the id of the memory or conversation
 * it holds, the id a user has at hand after `delete --trash`.
 */
async function entriesFor(ctx: CoreContext, userId: string, ids: string[]): Promise<TrashRow[]> {
  const live = { userId, deletedAt: { from: cutoff(ctx) } };
  const byEntry = await ctx.store.select("trash", { ...live, id: ids });
  const itemIds = ids.filter((id) => !byEntry.some((row) => row.id === id));
  const byItem = itemIds.length > 0 ? await ctx.store.select("trash", { ...live, itemId: itemIds }) : [];
  return [...byEntry, ...byItem.filter((row) => !byEntry.some((entry) => entry.id === row.id))];
}

/**
 * POST /api/trash/empty: the listed entries (or the whole trash) deleted for good. Ids as restore
 * takes them; those not in the trash are named in `notFound` (they answered `deleted: 0` and no
 * more), none found at all is a 404, as restore's.
 */
export async function emptyTrash(ctx: CoreContext, userId: string, input: unknown = {}): Promise<EmptyTrashResponse> {
  const { ids } = parseInput(EmptyTrashRequest, input);
  const wanted = ids === undefined ? undefined : [...new Set(ids)];
  const rows = wanted === undefined || wanted.length === 0 ? [] : await entriesFor(ctx, userId, wanted);
  if (wanted !== undefined && wanted.length > 0 && rows.length === 0) throw notInTrash(wanted);
  const where = wanted === undefined ? { userId } : { userId, id: rows.map((row) => row.id) };
  const deleted = wanted?.length === 0 ? 0 : await ctx.store.write(() => ctx.store.delete("trash", where));
  if (deleted > 0) ctx.afterWrite();
  const notFound = (wanted ?? []).filter((id) => !rows.some((row) => row.id === id || row.itemId === id));
  return { deleted, notFound };
}

/** Deletes for good every user's entries past their 30 days (a write only when there are some). */
export async function purgeExpiredTrash(ctx: CoreContext): Promise<number> {
  const expired = { deletedAt: { before: cutoff(ctx) } };
  if ((await ctx.store.count("trash", expired)) === 0) return 0;
  const deleted = await ctx.store.write(() => ctx.store.delete("trash", expired));
  ctx.afterWrite();
  return deleted;
}

const cutoff = (ctx: CoreContext) => new Date(ctx.now().getTime() - TRASH_DAYS * DAY_MS).toISOString();

function itemOf(row: Pick<TrashRow, "id" | "kind" | "itemId" | "title" | "detail" | "deletedAt">): TrashItem {
  const { id, kind, itemId, title, detail, deletedAt } = row;
  return { id, kind, itemId, title, detail, deletedAt, expiresAt: new Date(Date.parse(deletedAt) + TRASH_DAYS * DAY_MS).toISOString() };
}

function notInTrash(ids: string[]): AppError {
  const [one, ...others] = new Set(ids);
  return new AppError("not_found", others.length === 0 ? `${shownId(one!)} is not in the trash` : "none of these is in the trash", {
    details: { field: "ids" },
    suggestion:
      others.length === 0
        ? `It was restored or deleted for good already, or it was deleted over ${TRASH_DAYS} days ago.`
        : `They were restored or deleted for good already, or deleted over ${TRASH_DAYS} days ago.`,
  });
}

/** Restores run per embedder: an entry's vectors are used only in a store of the same one. */
function byEmbedder<T extends { entry: Entry }>(entries: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of entries) {
    const key = `${item.entry.embedder.id}/${item.entry.embedder.dims}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()];
}

function* inSteps<T>(items: T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
