import { z } from "zod";
import { DateTime, queryInt, writeBody } from "./common.js";

/** How long the trash keeps what was moved there; after that it is deleted for good. */
export const TRASH_DAYS = 30;

const Ids = (what: string) =>
  z.array(z.string().min(1, "must not hold an empty id")).max(1000, `must list at most 1000 ${what}`).default([]);

// Ours: POST /api/trash — memories and conversations moved to the trash
export const MoveToTrashRequest = writeBody({ memoryIds: Ids("memory ids"), conversationIds: Ids("conversation ids") }).refine(
  (body) => body.memoryIds.length + body.conversationIds.length > 0,
  {
    error: "must list at least one id in memoryIds or conversationIds",
    path: ["memoryIds"],
  },
);
export type MoveToTrashRequest = z.input<typeof MoveToTrashRequest>;

export const TrashItem = z.object({
  /** The trash entry's id (`trs_…`): what restore and delete take. */
  id: z.string(),
  kind: z.enum(["memory", "conversation"]),
  /** The memory's or conversation's own id, which it has again once restored. */
  itemId: z.string(),
  /** The conversation's title, or the memory's text cut to 200 characters. */
  title: z.string(),
  /** The memory's bucket, or the conversation's platform and message count. */
  detail: z.string(),
  deletedAt: DateTime,
  /** When it is deleted for good. */
  expiresAt: DateTime,
});
export type TrashItem = z.infer<typeof TrashItem>;

export const MoveToTrashResponse = z.object({
  items: z.array(TrashItem),
  /** Ids that are no memory or conversation of the caller (deleted already, or never theirs). */
  notFound: z.array(z.string()),
});
export type MoveToTrashResponse = z.infer<typeof MoveToTrashResponse>;

// Ours: GET /api/trash
export const TrashQuery = z.object({
  page: queryInt(z.int().min(1, "must be 1 or more").default(1)),
  pageSize: queryInt(z.int().min(1, "must be at least 1").max(200, "must be at most 200").default(50)),
});
export type TrashQuery = z.input<typeof TrashQuery>;
export const TrashList = z.object({
  /** Newest first. */
  items: z.array(TrashItem),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type TrashList = z.infer<typeof TrashList>;

// Ours: POST /api/trash/restore and POST /api/trash/delete. Restore takes an entry's id (`trs_…`) or
// the id of the memory or conversation it holds.
export const TrashIds = writeBody({
  ids: z.array(z.string().min(1)).min(1, "must list at least one id").max(1000, "must list at most 1000 ids"),
});
export type TrashIds = z.input<typeof TrashIds>;

export const RestoreTrashResponse = z.object({
  /** Back where they were, with their ids. */
  restored: z.array(TrashItem),
  /** Already back in the store (imported again meanwhile, or restored twice): nothing was added for them. */
  present: z.array(TrashItem),
  /** What could not be put back as it was (a bucket no longer there…), in words. */
  problems: z.array(z.string()),
});
export type RestoreTrashResponse = z.infer<typeof RestoreTrashResponse>;

// Ours: POST /api/trash/empty — deletes for good what is listed (entry ids or their items' ids, as
// restore takes), or everything in the trash
// Without `ids` it empties the whole trash, which `{"id": […]}` did before bodies were strict.
export const EmptyTrashRequest = writeBody({ ids: z.array(z.string().min(1)).max(1000, "must list at most 1000 ids").optional() });
export type EmptyTrashRequest = z.input<typeof EmptyTrashRequest>;
export const EmptyTrashResponse = z.object({
  deleted: z.number().int(),
  /** Ids listed that are not in the trash (restored or deleted already, or past their days); none is a 404. */
  notFound: z.array(z.string()),
});
export type EmptyTrashResponse = z.infer<typeof EmptyTrashResponse>;
