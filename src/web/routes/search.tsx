import type { Hono, MiddlewareHandler } from "hono";
import type { MnemoService } from "../../core/index.js";
import type { ChatPlatform } from "../../schemas/chat-platforms.js";
import { DEFAULT_RECALL_TOKENS } from "../../schemas/recall.js";
import { localDayBounds } from "../../text/local-time.js";
import { numberField } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { pageContext } from "../page-context.js";
import { type Period, RecallPage, SearchPage } from "../views/search.js";

/** Search (hits with context, a hit opens its conversation at the message) and Recall (the cited narrative). */
export function registerSearch(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/search", page, async (c) => {
    const { service } = c.get("session");
    const query = c.req.query("q")?.trim() ?? "";
    const platform = c.req.query("platform") ?? "";
    const limit = numberField(c.req.query("limit")) ?? 20;
    const all = c.req.query("all") === "1";
    const period = periodOf(c.req.query("from"), c.req.query("to"));
    const [result, info, pending] = await Promise.all([
      query ? service.search({ query, limit, provider: platform || "all", includeUnrelated: all, ...period.request }) : undefined,
      service.info(),
      query ? pendingConversations(service) : 0,
    ]);
    return c.html(
      <SearchPage
        ctx={pageContext(c)}
        query={query}
        platform={platform}
        limit={limit}
        all={all}
        period={period.shown}
        platforms={info.statistics.platforms}
        result={result}
        pending={pending}
      />,
    );
  });

  web.get("/recall", page, async (c) => {
    const { service } = c.get("session");
    const query = c.req.query("q")?.trim() ?? "";
    const platform = c.req.query("platform") ?? "";
    const maxTokens = numberField(c.req.query("maxTokens")) ?? DEFAULT_RECALL_TOKENS;
    const period = periodOf(c.req.query("from"), c.req.query("to"));
    const [result, pending] = await Promise.all([
      query
        ? service.recall({ query, maxTokens, ...(platform ? { platform: platform as ChatPlatform } : {}), ...period.request })
        : undefined,
      query ? pendingConversations(service) : 0,
    ]);
    return c.html(
      <RecallPage
        ctx={pageContext(c)}
        query={query}
        maxTokens={maxTokens}
        platform={platform}
        period={period.shown}
        result={result}
        pending={pending}
      />,
    );
  });
}

/**
 * The From and To fields (empty when not given) and what the request asks for: their days on the
 * clock the pages show times on (the server's, web/format.ts), not UTC's.
 */
function periodOf(from: string | undefined, to: string | undefined): { shown: Period; request: { dateFrom?: string; dateTo?: string } } {
  const shown = { from: from?.trim() ?? "", to: to?.trim() ?? "" };
  return { shown, request: localDayBounds(shown.from || undefined, shown.to || undefined, undefined) };
}

async function pendingConversations(service: MnemoService): Promise<number> {
  const { counts } = await service.conversations.status();
  return counts.queued + counts.processing;
}
