import type { Hono, MiddlewareHandler } from "hono";
import type { MnemoService } from "../../core/index.js";
import type { ChatPlatform } from "../../schemas/chat-platforms.js";
import { DEFAULT_RECALL_TOKENS } from "../../schemas/recall.js";
import { isAppError } from "../../shared/errors.js";
import { awaitingIndex, nothingImported } from "../../schemas/queue-counts.js";
import { localDayBounds } from "../../text/local-time.js";
import { numberField } from "../forms.js";
import type { WebEnv } from "../guard.js";
import { pageContext } from "../page-context.js";
import { type RefusedInput, type Period, RecallPage, SearchPage } from "../views/search.js";

/** Search (hits with context, a hit opens its conversation at the message) and Recall (the cited narrative). */
export function registerSearch(web: Hono<WebEnv>, page: MiddlewareHandler<WebEnv>): void {
  web.get("/search", page, async (c) => {
    const { service } = c.get("session");
    const query = c.req.query("q")?.trim() ?? "";
    const platform = c.req.query("platform") ?? "";
    const limit = numberOr(c.req.query("limit"), "limit", 20);
    const all = c.req.query("all") === "1";
    const period = periodOf(c.req.query("from"), c.req.query("to"));
    const [asked, info, queue] = await Promise.all([
      refusedAtField(
        query
          ? () => service.search({ query, limit: limit.asked(), provider: platform || "all", includeUnrelated: all, ...period.request() })
          : undefined,
        "Words or a question",
      ),
      service.info(),
      queueOf(service, query),
    ]);
    return c.html(
      <SearchPage
        ctx={pageContext(c)}
        query={query}
        platform={platform}
        limit={limit.shown}
        all={all}
        period={period.shown}
        platforms={info.statistics.platforms}
        result={asked.result}
        pending={queue.pending}
        nothingImported={queue.empty}
        invalid={asked.invalid}
      />,
      asked.invalid ? 400 : 200,
    );
  });

  web.get("/recall", page, async (c) => {
    const { service } = c.get("session");
    const query = c.req.query("q")?.trim() ?? "";
    const platform = c.req.query("platform") ?? "";
    const maxTokens = numberOr(c.req.query("maxTokens"), "maxTokens", DEFAULT_RECALL_TOKENS);
    const period = periodOf(c.req.query("from"), c.req.query("to"));
    const [asked, queue] = await Promise.all([
      refusedAtField(
        query
          ? () =>
              service.recall({
                query,
                maxTokens: maxTokens.asked(),
                ...(platform ? { platform: platform as ChatPlatform } : {}),
                ...period.request(),
              })
          : undefined,
        "What do you want to remember?",
      ),
      queueOf(service, query),
    ]);
    return c.html(
      <RecallPage
        ctx={pageContext(c)}
        query={query}
        maxTokens={maxTokens.shown}
        platform={platform}
        period={period.shown}
        result={asked.result}
        pending={queue.pending}
        nothingImported={queue.empty}
        invalid={asked.invalid}
      />,
      asked.invalid ? 400 : 200,
    );
  });
}

/**
 * The From and To fields (empty when not given) and what the request asks for: their days on the
 * clock the pages show times on (the server's, web/format.ts), not UTC's. A function, as swapped
 * days are refused there, to be shown at the field like the API's own refusals.
 */
function periodOf(
  from: string | undefined,
  to: string | undefined,
): { shown: Period; request: () => { dateFrom?: string; dateTo?: string } } {
  const shown = { from: from?.trim() ?? "", to: to?.trim() ?? "" };
  return { shown, request: () => localDayBounds(shown.from || undefined, shown.to || undefined, undefined) };
}

/**
 * A number field of the form: what the form shows (the default for text that is no number, which a
 * number field cannot show) and, as the period does, what is asked, refused at the field.
 */
function numberOr(value: string | undefined, name: string, fallback: number): { shown: number; asked: () => number } {
  const asked = () => numberField(value, name) ?? fallback;
  let shown = fallback;
  try {
    shown = asked();
  } catch {
    // shown as the default; refused when asked
  }
  return { shown, asked };
}

/** The form's fields by the API's names for them. */
const FORM_FIELDS: Record<string, RefusedInput["field"]> = {
  dateFrom: "from",
  dateTo: "to",
  limit: "limit",
  maxTokens: "maxTokens",
  provider: "platform",
  platform: "platform",
  query: "q",
};
/** Labels as the form shows them; the question's is the page's own (`refusedAtField`). */
const FORM_LABELS: Record<Exclude<RefusedInput["field"], "q">, string> = {
  from: "From",
  to: "To",
  limit: "Results",
  maxTokens: "Max tokens",
  platform: "Platform",
};

/**
 * The answer, or the field of the form it refused and why, shown on the page at that field (a day
 * after the other, a number past the limit typed into the URL) rather than as an error page. Nothing
 * when nothing is asked (no query yet).
 */
async function refusedAtField<T>(
  ask: (() => Promise<T>) | undefined,
  questionLabel: string,
): Promise<{ result?: T; invalid?: RefusedInput }> {
  if (!ask) return {};
  try {
    return { result: await ask() };
  } catch (error) {
    const field = isAppError(error) && error.code === "invalid_input" ? FORM_FIELDS[String(error.details["field"])] : undefined;
    if (!field || !isAppError(error)) throw error;
    const label = field === "q" ? questionLabel : FORM_LABELS[field];
    return { invalid: { field, message: `${label}: ${String(error.details["problem"] ?? error.message)}` } };
  }
}

/** What the queue says beside an answer: conversations not searched yet, and whether none is imported at all; nothing before a question. */
async function queueOf(service: MnemoService, query: string): Promise<{ pending: number; empty: boolean }> {
  if (!query) return { pending: 0, empty: false };
  const { counts } = await service.conversations.status();
  return { pending: awaitingIndex(counts), empty: nothingImported(counts) };
}
