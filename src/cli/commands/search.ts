import type { Command } from "commander";
import { CHAT_PLATFORM_IDS } from "../../schemas/chat-platforms.js";
import type { RecallResponse, SearchResponse } from "../../schemas/recall.js";
import type { Output } from "../output.js";
import type { MnemoService } from "../../core/index.js";
import { nothingImported } from "../../schemas/queue-counts.js";

type Highlighter = typeof import("../../text/highlight.js").highlighter;
import { action, withService } from "../session.js";
import { parseCount } from "./memories.js";
import { shortDate } from "../../text/local-time.js";
import { nothingRecalled, periodWords } from "../../shared/time.js";
import { DATE_HELP, dateBound, dateOptions } from "../date-bound.js";

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

export function registerSearch(program: Command): void {
  program
    .command("search")
    .description("search imported conversations: the matching passages with their context")
    .argument("<query...>", "what to look for")
    .option("-n, --limit <n>", "most results (1–100)", "10")
    .option("--provider <platform>", "only this platform (default: all)")
    .option("-c, --context <n>", "neighbouring chunks shown around each hit", "2")
    .option("--no-rerank", "keep the fused order (faster)")
    .option("-a, --all", "also show passages that are probably unrelated")
    .option("--from <date>", `only what was said on or after ${DATE_HELP}`)
    .option("--to <date>", "only what was said on or before")
    .action(
      action(
        async (
          session,
          words: string[],
          options: { limit: string; provider?: string; context: string; rerank: boolean; all?: boolean } & Period,
        ) => {
          const query = words.join(" ");
          await withService(
            session,
            async (service) => {
              const result = await service.search({
                query,
                limit: parseCount("--limit", options.limit),
                contextChunks: parseCount("--context", options.context, 0),
                skipRerank: !options.rerank,
                includeUnrelated: options.all === true,
                ...(options.provider ? { provider: options.provider } : {}),
                ...dateOptions(options, session.out.timeZone),
              });
              if (session.out.json) return session.out.data(result);
              // Without colour a mark shows nothing: the highlighter (~10 ms on ten hits) is not run.
              if (result.totalResults === 0 && (await storeIsEmpty(service))) return session.out.line(NOTHING_IMPORTED);
              const highlighter = session.out.style.level > 0 ? (await import("../../text/highlight.js")).highlighter : undefined;
              printSearch(session.out, result, highlighter, options);
            },
            { existing: true },
          );
        },
        { limit: "--limit", contextChunks: "--context", provider: "--provider", ...PERIOD_FLAGS },
      ),
    );

  program
    .command("recall")
    .description("a short cited summary of what your conversations say about something")
    .argument("<query...>", "what to recall")
    .option("-t, --max-tokens <n>", "longest summary, in tokens (at most 2000)", "1000")
    .option("--platform <name>", `format for ${CHAT_PLATFORM_IDS.join(", ")}`)
    // Not --context: in `search` that is a number of chunks.
    .option("--about <text>", 'what you are talking about now, to disambiguate ("python" --about "my terrarium")')
    .option("--from <date>", `only what was said on or after ${DATE_HELP}`)
    .option("--to <date>", "only what was said on or before")
    .action(
      action(
        async (session, words: string[], options: { maxTokens: string; platform?: string; about?: string } & Period) => {
          await withService(
            session,
            async (service) => {
              const result = await service.recall({
                query: words.join(" "),
                maxTokens: parseCount("--max-tokens", options.maxTokens),
                ...(options.platform ? { platform: options.platform as "chatgpt" } : {}),
                ...(options.about ? { conversationContext: options.about } : {}),
                ...dateOptions(options, session.out.timeZone),
              });
              if (session.out.json) return session.out.data(result);
              // The core's "nothing" names the bounds as the instants it was given; the user typed days.
              if (result.content && result.sources.length === 0) {
                const nothing = (await storeIsEmpty(service)) ? NOTHING_IMPORTED : nothingRecalled(...typedDays(options));
                return session.out.line(nothing);
              }
              if (result.content) return printRecall(session.out, result);
              // Relevant passages were found, but none fitted the budget.
              session.out.notice(`Nothing fits in ${options.maxTokens} tokens: raise --max-tokens.`);
            },
            { existing: true },
          );
        },
        { maxTokens: "--max-tokens", platform: "--platform", conversationContext: "--about", ...PERIOD_FLAGS },
      ),
    );
}

/**
 * A new user's first search finds nothing because nothing is imported yet: said so, with what to
 * run, rather than that nothing in their conversations is about it.
 */
const NOTHING_IMPORTED =
  "You have no conversations to search yet: import a chat app's export with `mnemo import <export>` (`mnemo import --help` lists the apps).";

async function storeIsEmpty(service: MnemoService): Promise<boolean> {
  return nothingImported((await service.conversations.status()).counts);
}

/** `--from` and `--to`: the time a search or recall is bounded to. */
interface Period {
  from?: string;
  to?: string;
}
const PERIOD_FLAGS = { dateFrom: "--from", dateTo: "--to" };

/** The days `--from` and `--to` name, a month or a year as its first and last day. */
function typedDays({ from, to }: Period): [string | undefined, string | undefined] {
  return [from === undefined ? undefined : dateBound(from, "from"), to === undefined ? undefined : dateBound(to, "to")];
}

function during(period: Period): string {
  const words = periodWords(...typedDays(period));
  return words ? ` ${words}` : "";
}

function printSearch(out: Output, result: SearchResponse, highlighter: Highlighter | undefined, period: Period): void {
  const { style } = out;
  const hidden = result.unrelatedResults > 0 && !result.results.some((hit) => hit.probablyUnrelated);
  const unrelated = hidden ? ` (${plural(result.unrelatedResults, "passage")} probably unrelated, not shown: --all shows them)` : "";
  if (result.results.length === 0) {
    out.line(`Nothing found about that in your conversations${during(period)}${unrelated}.`);
    return;
  }
  const highlight = highlighter ? highlighter(result.query, (word) => style.bold.yellow(word)) : (text: string) => text;
  result.results.forEach((hit, i) => {
    out.line(
      `${style.bold(`${i + 1}. ${hit.title || "Untitled"}`)}  ${style.dim(`${shortDate(hit.timestamp, out.timeZone)} · ${speaker(hit.sender)} · score ${hit.score.toFixed(2)}${hit.probablyUnrelated ? " (probably unrelated)" : ""} · ${hit.conversationId}`)}`,
    );
    for (const near of hit.context.filter((c) => c.position === "before")) out.line(style.dim(said(near, CONTEXT_MARGIN)));
    for (const part of hit.parts) out.line(said({ ...part, text: highlight(part.text) }, HIT_MARGIN));
    for (const near of hit.context.filter((c) => c.position === "after")) out.line(style.dim(said(near, CONTEXT_MARGIN)));
    out.line();
  });
  out.notice(`${plural(result.totalResults, "result")} in ${result.processingTime} ms${unrelated}`);
}

function printRecall(out: Output, result: RecallResponse): void {
  const { style } = out;
  out.line(result.content);
  if (result.sources.length === 0) return;
  out.line();
  result.sources.forEach((source, i) => {
    out.line(
      style.dim(
        `[${i + 1}] ${source.conversationTitle} · ${shortDate(source.date, out.timeZone)} · ${speaker(source.sender)} · ${source.conversationId} · message ${source.messageId}`,
      ),
    );
  });
  out.notice(`${result.tokenCount} tokens · ${result.model} · ${result.processingTime}`);
}

/** The hit's own lines and its context's are told apart by their margin, not only by colour (piped output has none). */
const HIT_MARGIN = "   ";
const CONTEXT_MARGIN = "   ┆ ";

/** Who said it, as `mnemo chats show` names them. */
function speaker(sender: string): string {
  return sender === "human" ? "you" : sender;
}

/** A message's lines under its speaker's name: `you: …`, the next lines aligned under the text. */
function said(part: { sender: string; text: string }, margin: string): string {
  const label = `${speaker(part.sender)}: `;
  const pad = " ".repeat(label.length);
  return part.text
    .split("\n")
    .map((line, i) => `${margin}${i === 0 ? label : pad}${line}`.trimEnd())
    .join("\n");
}
