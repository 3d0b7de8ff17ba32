import { dayRange } from "../../shared/time.js";
import type { Where } from "../../store/where.js";
import type { CoreContext } from "../context.js";

/** The time a search or a recall is bounded to, in UTC (`dateFrom`/`dateTo`, a day bounding the whole day). */
export interface Period {
  from: string | undefined;
  to: string | undefined;
}

/** The period of a request's `dateFrom`/`dateTo`, or none when neither is given. */
export function periodOf(dateFrom: string | undefined, dateTo: string | undefined): Period | undefined {
  return dateFrom === undefined && dateTo === undefined ? undefined : dayRange(dateFrom, dateTo);
}

/**
 * The chunks said within a period: by their own time (their first dated message's), or, for a
 * chunk whose messages have no time (a Markdown export, an upload without `createdAt`), by its
 * conversation's start, so an undated conversation is found in the period it is listed under.
 */
export async function chunksWithin(ctx: CoreContext, userId: string, period: Period): Promise<Where<"chunks">> {
  const undated = (await undatedConversations(ctx, userId)).filter(
    ({ createdAt }) => (period.from === undefined || createdAt >= period.from) && (period.to === undefined || createdAt <= period.to),
  );
  const dated: Where<"chunks"> = { timestamp: period };
  if (undated.length === 0) return dated;
  return { anyOf: [dated, { timestamp: null, conversationId: undated.map(({ id }) => id) }] };
}

/** The user's conversations that have chunks without a time, with their start; read again when either table changes. */
function undatedConversations(ctx: CoreContext, userId: string): Promise<{ id: string; createdAt: string }[]> {
  return ctx.store.memo(`undated-conversations:${userId}`, ["chunks", "conversations"], async () => {
    const chunks = await ctx.store.select("chunks", { userId, timestamp: null }, { columns: ["conversationId"] });
    const ids = [...new Set(chunks.map((chunk) => chunk.conversationId))];
    if (ids.length === 0) return [];
    return ctx.store.select("conversations", { id: ids }, { columns: ["id", "createdAt"] });
  });
}
