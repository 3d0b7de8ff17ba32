import type { Hono, MiddlewareHandler } from "hono";
import type { MnemoService } from "../../core/index.js";
import type { ChatPlatform } from "../../schemas/chat-platforms.js";
import { DEFAULT_RECALL_TOKENS } from "../../schemas/recall.js";
import { numberField } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { pageContext } from "../page-context.js";
import { RecallPage, SearchPage } from "../views/search.js";

/** Search (hits with context, a hit opens its conversation at the message) and Recall (the cited narrative). */
export function registerSearch(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/search", page, async (c) => {
    const { service } = c.get("session");
    const query = c.req.query("q")?.trim() ?? "";
    const platform = c.req.query("platform") ?? "";
    const limit = numberField(c.req.query("limit")) ?? 20;
    const all = c.req.query("all") === "1";
    const [result, info, pending] = await Promise.all([
      query ? service.search({ query, limit, provider: platform || "all", includeUnrelated: all }) : undefined,
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
    const [result, pending] = await Promise.all([
      query ? service.recall({ query, maxTokens, ...(platform ? { platform: platform as ChatPlatform } : {}) }) : undefined,
      query ? pendingConversations(service) : 0,
    ]);
    return c.html(
      <RecallPage ctx={pageContext(c)} query={query} maxTokens={maxTokens} platform={platform} result={result} pending={pending} />,
    );
  });
}

async function pendingConversations(service: MnemoService): Promise<number> {
  const { counts } = await service.conversations.status();
  return counts.queued + counts.processing;
}
