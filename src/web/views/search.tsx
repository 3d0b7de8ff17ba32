import { CHAT_PLATFORM_IDS, CHAT_PLATFORMS } from "../../schemas/chat-platforms.js";
import type { RecallResponse, SearchResponse, SearchResult } from "../../schemas/recall.js";
import { highlightSegments } from "../../text/highlight.js";
import { nothingRecalled, periodWords } from "../../shared/time.js";
import { messageLink, plural, shortDate } from "../format.js";
import { type MarkdownOptions, markdown } from "../markdown.js";
import { Layout, type PageContext } from "./layout.js";

/** The model recall names when nothing was found, so nothing summarised (core/retrieval/recall.ts). */
const NO_SUMMARY = "none";

type Platforms = { id: string; displayName?: string | undefined }[];

/** The days a search or a recall is bounded to, as typed ("" when open). */
export interface Period {
  from: string;
  to: string;
}

/** A field of the Search or Recall form that the request refused (a swapped day, a limit past the API's), and why. */
export interface RefusedInput {
  field: "q" | "from" | "to" | "limit" | "maxTokens" | "platform";
  message: string;
}

/** The attributes that tie a refused field to the message saying why, and bring the cursor to it. */
function marked(invalid: RefusedInput | undefined, name: RefusedInput["field"]) {
  return invalid?.field === name ? { "aria-invalid": "true" as const, "aria-describedby": "form-error", autofocus: true } : {};
}

function FormError(props: { invalid: RefusedInput | undefined }) {
  if (!props.invalid) return null;
  return (
    <p id="form-error" role="alert" class="flash error">
      {props.invalid.message}
    </p>
  );
}

/** A count from 1 to `max`, marked when the request refused it. */
/** The question a search or recall asks, focused on an empty page. */
function QueryField(props: { id: string; label: string; query: string; invalid: RefusedInput | undefined }) {
  return (
    <div class="field grow">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="search"
        name="q"
        value={props.query}
        required
        autofocus={!props.query}
        dir="auto"
        {...marked(props.invalid, "q")}
      />
    </div>
  );
}

function NumberField(props: {
  id: string;
  label: string;
  name: "limit" | "maxTokens";
  max: number;
  value: number;
  invalid: RefusedInput | undefined;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        name={props.name}
        min={1}
        max={props.max}
        value={String(props.value)}
        {...marked(props.invalid, props.name)}
      />
    </div>
  );
}

/** From and To: only what was said between these days. */
function PeriodFields(props: { id: string; period: Period; invalid: RefusedInput | undefined }) {
  return (
    <>
      <div class="field">
        <label for={`${props.id}-from`}>From</label>
        <input id={`${props.id}-from`} type="date" name="from" value={props.period.from} {...marked(props.invalid, "from")} />
      </div>
      <div class="field">
        <label for={`${props.id}-to`}>To</label>
        <input id={`${props.id}-to`} type="date" name="to" value={props.period.to} {...marked(props.invalid, "to")} />
      </div>
    </>
  );
}

/** " from 2024-03-01 to 2024-03-31", or "" when the period is open. */
function during(period: Period): string {
  const words = periodWords(period.from || undefined, period.to || undefined);
  return words ? ` ${words}` : "";
}

function PlatformSelect(props: {
  id: string;
  name: string;
  platforms: Platforms;
  selected: string;
  allLabel: string;
  invalid: RefusedInput | undefined;
}) {
  return (
    <div class="field">
      <label for={props.id}>Platform</label>
      <select id={props.id} name={props.name} {...marked(props.invalid, "platform")}>
        <option value="">{props.allLabel}</option>
        {props.platforms.map((platform) => (
          <option value={platform.id} selected={platform.id === props.selected}>
            {platform.displayName ?? platform.id}
          </option>
        ))}
      </select>
    </div>
  );
}

export function SearchPage(props: {
  ctx: PageContext;
  query: string;
  platform: string;
  limit: number;
  /** Probably unrelated hits shown too. */
  all: boolean;
  period: Period;
  platforms: Platforms;
  result: SearchResponse | undefined;
  /** Conversations imported but not indexed yet, which the search does not cover. */
  pending: number;
  /** No conversation is imported yet: a new user, whose empty answer says what to do. */
  nothingImported?: boolean;
  /** Undefined unless the request refused a field (then `result` is undefined). */
  invalid?: RefusedInput | undefined;
}) {
  const split = highlightSegments(props.query);
  const { result } = props;
  return (
    <Layout title={props.query ? `Search: ${props.query}` : "Search"} page="search" ctx={props.ctx}>
      <h1>Search your conversations</h1>
      <FormError invalid={props.invalid} />
      <form method="get" action="/search" class="panel row" aria-label="Search conversations">
        <QueryField id="search-q" label="Words or a question" query={props.query} invalid={props.invalid} />
        <PlatformSelect
          id="search-platform"
          name="platform"
          platforms={props.platforms}
          selected={props.platform}
          allLabel="All"
          invalid={props.invalid}
        />
        <PeriodFields id="search" period={props.period} invalid={props.invalid} />
        <NumberField id="search-limit" label="Results" name="limit" max={100} value={props.limit} invalid={props.invalid} />
        <button type="submit">Search</button>
      </form>
      {result ? (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">
            {result.totalResults === 0 ? "Nothing found" : plural(result.totalResults, "result")}{" "}
            <span class="meta">({result.processingTime} ms)</span>
          </h2>
          <NotIndexedYet pending={props.pending} />
          {result.totalResults === 0 ? (
            props.nothingImported ? (
              <NothingImported />
            ) : (
              <p class="empty">Nothing in your conversations{during(props.period)} is about this.</p>
            )
          ) : null}
          <UnrelatedNote result={result} all={props.all} href={searchHref(props, !props.all)} />
          <ol class="items">
            {result.results.map((hit) => (
              <li class="item">
                <div class="item-head">
                  <h3>
                    <a href={messageLink(hit.conversationId, hit.messageId)}>
                      <bdi>{hit.title || "Untitled"}</bdi>
                    </a>
                  </h3>
                  <span class="meta">
                    {shortDate(hit.timestamp)} · relevance {hit.score.toFixed(2)}
                    {hit.probablyUnrelated ? " · probably unrelated" : ""}
                  </span>
                </div>
                {hit.context
                  .filter((near) => near.position === "before")
                  .map((near) => (
                    <Said part={near} context />
                  ))}
                {partsOf(hit).map((part) => (
                  <Said part={part} mark={split} />
                ))}
                {hit.context
                  .filter((near) => near.position === "after")
                  .map((near) => (
                    <Said part={near} context />
                  ))}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </Layout>
  );
}

/**
 * A hit's messages one by one: its text joins them with single line breaks, so rendered as one
 * markdown document a message that ends in a table or a list swallows the next ones into it.
 */
function partsOf(hit: SearchResult): { text: string; sender: string }[] {
  return hit.parts.length > 0 ? hit.parts : [{ text: hit.text, sender: hit.sender }];
}

/** One message of a passage, who said it above it; a context message dimmed. */
function Said(props: { part: { text: string; sender: string }; context?: boolean; mark?: MarkdownOptions["mark"] }) {
  return (
    <div class={props.context ? "said context" : "said"}>
      <span class="speaker">{props.part.sender === "human" ? "You" : "Assistant"}</span>
      <div class="md">{markdown(props.part.text, { mark: props.mark })}</div>
    </div>
  );
}

/** How many hits were probably unrelated, and the link that shows or hides them. */
function UnrelatedNote(props: { result: SearchResponse; all: boolean; href: string }) {
  const count = props.result.unrelatedResults;
  if (count === 0) return null;
  return (
    <p class="meta">
      {props.all
        ? `${plural(count, "result")} marked probably unrelated. `
        : `${plural(count, "more result")} left out as probably unrelated. `}
      <a href={props.href}>{props.all ? "Hide them" : "Show them"}</a>
    </p>
  );
}

function searchHref(props: { query: string; platform: string; limit: number; period: Period }, all: boolean): string {
  const params = new URLSearchParams({ q: props.query, limit: String(props.limit) });
  if (props.platform) params.set("platform", props.platform);
  if (props.period.from) params.set("from", props.period.from);
  if (props.period.to) params.set("to", props.period.to);
  if (all) params.set("all", "1");
  return `/search?${params}`;
}

/** The summary, its markdown rendered, with each [n] a link to the message it cites. */
function Narrative(props: { result: RecallResponse }) {
  const { sources } = props.result;
  const cite = (n: number) => {
    const source = sources[n - 1];
    return source && { href: messageLink(source.conversationId, source.messageId), label: `Source ${n}: ${source.conversationTitle}` };
  };
  return <div class="narrative md">{markdown(props.result.content, { cite })}</div>;
}

export function RecallPage(props: {
  ctx: PageContext;
  query: string;
  maxTokens: number;
  platform: string;
  period: Period;
  result: RecallResponse | undefined;
  /** Conversations imported but not indexed yet, which recall does not cover. */
  pending: number;
  /** No conversation is imported yet: a new user, whose empty answer says what to do. */
  nothingImported?: boolean;
  /** Undefined unless the request refused a field (then `result` is undefined). */
  invalid?: RefusedInput | undefined;
}) {
  const { result } = props;
  return (
    <Layout title={props.query ? `Recall: ${props.query}` : "Recall"} page="recall" ctx={props.ctx}>
      <h1>Recall</h1>
      <p class="hint">A short summary of what your conversations say, citing each message it draws on.</p>
      <FormError invalid={props.invalid} />
      <form method="get" action="/recall" class="panel row">
        <QueryField id="recall-q" label="What do you want to remember?" query={props.query} invalid={props.invalid} />
        <NumberField id="recall-tokens" label="Max tokens" name="maxTokens" max={2000} value={props.maxTokens} invalid={props.invalid} />
        <div class="field">
          {/* Not a filter, which Search's Platform beside it is: how the summary is written, for the app it is pasted into. */}
          <label for="recall-platform">Summary written for</label>
          <select id="recall-platform" name="platform">
            <option value="">Any app</option>
            {CHAT_PLATFORM_IDS.map((platform) => (
              <option value={platform} selected={platform === props.platform}>
                {CHAT_PLATFORMS[platform]}
              </option>
            ))}
          </select>
        </div>
        <PeriodFields id="recall" period={props.period} invalid={props.invalid} />
        <button type="submit">Recall</button>
      </form>
      {result ? (
        <section aria-labelledby="recall-heading">
          <h2 id="recall-heading">Summary</h2>
          <NotIndexedYet pending={props.pending} />
          <p class="meta">
            {/* The model named as what wrote the summary: "9 tokens · none · 155ms" read as nonsense. */}
            {result.tokenCount} tokens · {result.model === NO_SUMMARY ? "" : `summary: ${result.model} · `}
            {result.processingTime}
          </p>
          {result.sources.length === 0 && props.nothingImported ? (
            <NothingImported />
          ) : result.sources.length === 0 ? (
            // Not the core's words, which name the bounds as the times the days were turned into.
            <p class="empty">{nothingRecalled(props.period.from || undefined, props.period.to || undefined)}</p>
          ) : result.content ? (
            <Narrative result={result} />
          ) : (
            <p class="empty">Nothing fits in {props.maxTokens} tokens: raise Max tokens.</p>
          )}
          {result.sources.length > 0 ? (
            <>
              <h2>Sources</h2>
              <ol class="sources">
                {result.sources.map((source) => (
                  <li>
                    {/* bdi: a stored title's U+202E would turn the date and relevance after it around */}
                    <a href={messageLink(source.conversationId, source.messageId)}>
                      <bdi>{source.conversationTitle || "Untitled"}</bdi>
                    </a>{" "}
                    <span class="meta">
                      {shortDate(source.date)} · relevance {source.relevanceScore.toFixed(2)}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          ) : null}
        </section>
      ) : null}
    </Layout>
  );
}

/** Right after an import, "no results" would otherwise read as "never discussed". */
function NothingImported() {
  return (
    <p class="empty">
      You have no conversations to search yet: <a href="/import">import a chat app's export</a>.
    </p>
  );
}

function NotIndexedYet(props: { pending: number }) {
  if (props.pending === 0) return null;
  return (
    <p class="flash notice" role="status">
      {plural(props.pending, "conversation")} {props.pending === 1 ? "is" : "are"} still being indexed and not searched yet: try again in a
      minute (<a href="/conversations">Conversations</a> shows each one's status).
    </p>
  );
}
