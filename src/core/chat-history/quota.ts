import type { CoreContext } from "../context.js";

/** How many more conversations the user may have indexed; null when there is no quota. Inside `write`. */
export async function quotaRoom(ctx: CoreContext, userId: string): Promise<number | null> {
  const quota = ctx.config.conversationQuota;
  if (quota === null) return null;
  const active = await ctx.store.count("conversations", { userId, quotaBlocked: false });
  return quota - active;
}

/**
 * Quota-blocked conversations become active, oldest upload first, while there is room. Inside
 * `write`. `room` is what is left after them (null: no quota).
 */
export async function releaseQuota(ctx: CoreContext, userId: string): Promise<{ released: number; room: number | null }> {
  const blocked = await ctx.store.select(
    "conversations",
    { userId, quotaBlocked: true },
    {
      columns: ["id", "uploadedAt"],
      orderBy: [{ column: "uploadedAt", ascending: true }],
    },
  );
  const room = await quotaRoom(ctx, userId);
  const freed = blocked.slice(0, room === null ? blocked.length : Math.max(0, room)).map((row) => row.id);
  if (freed.length > 0) await ctx.store.update("conversations", { id: freed }, { quotaBlocked: false });
  return { released: freed.length, room: room === null ? null : room - freed.length };
}

/** `releaseQuota` for every user who has quota-blocked conversations; how many were released. */
export async function releaseQuotas(ctx: CoreContext): Promise<number> {
  const blocked = await ctx.store.select("conversations", { quotaBlocked: true }, { columns: ["userId"] });
  if (blocked.length === 0) return 0;
  return ctx.store.write(async () => {
    let released = 0;
    for (const userId of new Set(blocked.map((row) => row.userId))) released += (await releaseQuota(ctx, userId)).released;
    return released;
  });
}
