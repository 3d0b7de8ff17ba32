import type { ChatHistoryOverview } from "../../schemas/chat-history.js";
import type { ConversationRow } from "../../store/rows.js";
import type { CoreContext } from "../context.js";
import { queueStall, stateCounts } from "./conversations.js";

type Row = Pick<ConversationRow, "platform" | "createdAt" | "updatedAt" | "messageCount" | "status" | "quotaBlocked" | "excluded">;
type PlatformOverview = ChatHistoryOverview["platforms"][number];

/**
 * GET /api/chat-history/overview (the chat_history_overview tool): how many conversations and
 * messages, per platform and over what span, and the queue, from one read of the conversation rows.
 * Conversations are counted as GET /api/chat-history/count counts them.
 */
export async function chatHistoryOverview(ctx: CoreContext, userId: string): Promise<ChatHistoryOverview> {
  const [rows, platformRows] = await Promise.all([
    ctx.store.select(
      "conversations",
      { userId },
      {
        columns: ["platform", "createdAt", "updatedAt", "messageCount", "status", "quotaBlocked", "excluded"],
      },
    ) as Promise<Row[]>,
    ctx.store.select("platforms", { userId }, { columns: ["id", "displayName"] }),
  ]);
  const names = new Map(platformRows.map((row) => [row.id, row.displayName]));
  const platforms = new Map<string, PlatformOverview>();
  for (const row of rows.filter((row) => !row.excluded && !row.quotaBlocked)) {
    const seen = platforms.get(row.platform);
    if (!seen) {
      const displayName = names.get(row.platform);
      platforms.set(row.platform, {
        platform: row.platform,
        ...(displayName ? { displayName } : {}),
        conversations: 1,
        messages: row.messageCount,
        firstAt: row.createdAt,
        lastAt: row.updatedAt,
      });
      continue;
    }
    seen.conversations++;
    seen.messages += row.messageCount;
    if (row.createdAt < seen.firstAt) seen.firstAt = row.createdAt;
    if (row.updatedAt > seen.lastAt) seen.lastAt = row.updatedAt;
  }
  const list = [...platforms.values()].sort((a, b) => b.conversations - a.conversations || a.platform.localeCompare(b.platform));
  return {
    conversations: sum(list, (p) => p.conversations),
    messages: sum(list, (p) => p.messages),
    ...span(list),
    platforms: list,
    queue: { counts: stateCounts(rows), ...queueStall(ctx) },
  };
}

function sum(list: PlatformOverview[], of: (platform: PlatformOverview) => number): number {
  return list.reduce((total, platform) => total + of(platform), 0);
}

/** ISO 8601 in UTC sorts as text does. */
function span(list: PlatformOverview[]): { firstAt?: string; lastAt?: string } {
  if (list.length === 0) return {};
  return {
    firstAt: list.map((p) => p.firstAt).sort()[0]!,
    lastAt: list
      .map((p) => p.lastAt)
      .sort()
      .at(-1)!,
  };
}
