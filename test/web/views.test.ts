import { describe, expect, it } from "vitest";
import { ConversationPage, ConversationsPage } from "../../src/web/views/conversations.js";
import { HistoryPage, MemoriesPage } from "../../src/web/views/memories.js";
import type { ImportJob } from "../../src/schemas/imports.js";
import { RecentImports } from "../../src/web/views/recent-imports.js";
import type { SearchResponse } from "../../src/schemas/recall.js";
import { RecallPage, SearchPage } from "../../src/web/views/search.js";
import { SettingsPage } from "../../src/web/views/settings.js";
import type { StoreInfo } from "../../src/schemas/account.js";

const ctx = { userName: "default", csrf: "x", flash: undefined };
const html = async (element: unknown) => String(await (element as { toString(): string | Promise<string> }).toString());
const search: SearchResponse = { results: [], totalResults: 0, unrelatedResults: 0, query: "kanji", provider: "all", processingTime: 3 };
const OPEN = { from: "", to: "" };
const recall = { content: "", sources: [], tokenCount: 0, processingTime: "4ms", model: "extractive" };

describe("search and recall pages while conversations wait to be indexed", () => {
  it("say how many are not searched yet, so that no results does not read as never discussed", async () => {
    const page = (pending: number) =>
      SearchPage({ ctx, query: "kanji", platform: "", period: OPEN, limit: 20, all: false, platforms: [], result: search, pending });
    expect(await html(page(3))).toContain("3 conversations are still being indexed and not searched yet");
    expect(await html(page(1))).toContain("1 conversation is still being indexed");
    expect(await html(page(0))).not.toContain("still being indexed");

    const recalled = (pending: number) =>
      RecallPage({ ctx, query: "kanji", maxTokens: 1000, platform: "", period: OPEN, result: recall, pending });
    expect(await html(recalled(2))).toContain("2 conversations are still being indexed and not searched yet");
    expect(await html(recalled(0))).not.toContain("still being indexed");
  });

  it("say that nothing is imported yet, with a link to Import, on a new user's store; recall labels its platform as how it writes", async () => {
    const searched = await html(
      SearchPage({
        ctx,
        query: "kanji",
        platform: "",
        period: OPEN,
        limit: 20,
        all: false,
        platforms: [],
        result: search,
        pending: 0,
        nothingImported: true,
      }),
    );
    const recalled = await html(
      RecallPage({ ctx, query: "kanji", maxTokens: 1000, platform: "", period: OPEN, result: recall, pending: 0, nothingImported: true }),
    );
    // Recall's platform is how the summary is written, not a filter as Search's Platform is.
    expect(recalled).toMatch(
      /<label for="recall-platform">Summary written for<\/label>\s*<select[^>]*>\s*<option value="">Any app<\/option>/,
    );
    for (const page of [searched, recalled]) {
      expect(page).toContain('no conversations to search yet: <a href="/import">');
      expect(page).not.toContain("is about this");
    }
  });
});

describe("search and recall pages when nothing is about the question", () => {
  const hit = {
    conversationId: "conv_1",
    messageId: "m1",
    title: "Kyoto",
    text: "maple leaves",
    score: 0.12,
    probablyUnrelated: true,
    timestamp: "2024-01-01T00:00:00Z",
    sender: "human",
    parts: [],
    context: [],
  };
  const page = (result: typeof search, all = false) =>
    html(SearchPage({ ctx, query: "stent & cardiologist", platform: "", period: OPEN, limit: 20, all, platforms: [], result, pending: 0 }));

  it("search says nothing was found, how many were left out as probably unrelated, and links to them", async () => {
    const none = await page({ ...search, unrelatedResults: 3 });
    expect(none).toContain("Nothing found");
    expect(none).toContain("Nothing in your conversations is about this.");
    expect(none).toContain("3 more results left out as probably unrelated.");
    expect(none).toContain('<a href="/search?q=stent+%26+cardiologist&amp;limit=20&amp;all=1">Show them</a>');
    expect(none).not.toContain("0 results");
    const shown = await page({ ...search, results: [hit], totalResults: 1, unrelatedResults: 1 }, true);
    expect(shown).toContain("relevance 0.12 · probably unrelated");
    expect(shown).toContain("1 result marked probably unrelated.");
    expect(shown).toContain(">Hide them</a>");
  });

  it("says the days a search was bounded to, and keeps them in the link to the hits left out", async () => {
    const bounded = await html(
      SearchPage({
        ctx,
        query: "stent",
        platform: "",
        period: { from: "2024-03-01", to: "2024-03-31" },
        limit: 20,
        all: false,
        platforms: [],
        result: { ...search, unrelatedResults: 2 },
        pending: 0,
      }),
    );
    expect(bounded).toContain("Nothing in your conversations from 2024-03-01 to 2024-03-31 is about this.");
    expect(bounded).toContain('href="/search?q=stent&amp;limit=20&amp;from=2024-03-01&amp;to=2024-03-31&amp;all=1"');
    expect(bounded).toContain('value="2024-03-01"');
  });

  it("recall shows its plain answer and no sources", async () => {
    const said = await html(
      RecallPage({
        ctx,
        query: "stent",
        maxTokens: 1000,
        platform: "",
        period: OPEN,
        pending: 0,
        result: { ...recall, content: "Nothing in your chat history is about this.", model: "none" },
      }),
    );
    expect(said).toContain('<p class="empty">Nothing in your chat history is about this.</p>');
    expect(said).not.toContain("<h2>Sources</h2>");
  });
});

describe("stored titles with a direction override (U+202E)", () => {
  const title = "notes\u202e 2024 ";
  it("are isolated where other text follows them, so the override ends with the title", async () => {
    const source = {
      conversationId: "conv_1",
      conversationTitle: title,
      messageId: "m1",
      date: "2024-03-01",
      relevanceScore: 0.9,
      sender: "human",
    };
    const recalled = await html(
      RecallPage({
        ctx,
        query: "notes",
        maxTokens: 1000,
        platform: "",
        period: OPEN,
        pending: 0,
        result: { ...recall, content: "Notes [1]", sources: [source] },
      }),
    );
    expect(recalled).toContain(`<bdi>${title}</bdi></a> <span class="meta">`);
  });

  it("leave the window's title bar without it", async () => {
    const shown = await html(
      ConversationPage({
        ctx,
        messages: "",
        conversation: { id: "conv_1", title, platform: "custom", total: 1, tokenCount: 3, createdAt: "2024-03-01T00:00:00.000Z" } as never,
      }),
    );
    expect(shown).toContain("<title>notes 2024  · mnemo</title>");
  });
});

describe("a search hit that holds several messages", () => {
  const table = "Here is the plan.\n\n| day | flour |\n|---|---|\n| 1 | 100 |";
  const question = "Question 28: what next with the starter?";
  const hit = {
    conversationId: "conv_1",
    messageId: "m27",
    title: "Sourdough",
    // As the chunker joins them: one line break between messages.
    text: `${table}\n${question}`,
    score: 0.8,
    probablyUnrelated: false,
    timestamp: "2024-01-01T00:00:00Z",
    sender: "assistant",
    parts: [
      { text: table, sender: "assistant", timestamp: "2024-01-01T00:00:00Z" },
      { text: question, sender: "human", timestamp: "2024-01-01T00:01:00Z" },
    ],
    context: [{ text: "Can you plan my week?", sender: "human", timestamp: "2023-12-31T23:59:00Z", position: "before" as const }],
  };

  it("shows each message on its own, under who said it: a message ending in a table does not swallow the next", async () => {
    const page = await html(
      SearchPage({
        ctx,
        query: "28",
        platform: "",
        period: OPEN,
        limit: 20,
        all: false,
        platforms: [],
        pending: 0,
        result: { ...search, results: [hit], totalResults: 1 },
      }),
    );
    const item = page.slice(page.indexOf('<li class="item">'));
    expect(item).toMatch(/<\/table>[\s\S]*Question <mark>28<\/mark>/);
    const speakers = [...item.matchAll(/<span class="speaker">(\w+)<\/span>/g)].map((m) => m[1]);
    expect(speakers).toEqual(["You", "Assistant", "You"]);
  });
});

describe("an empty conversation list", () => {
  const empty = (page: string) => /<p class="empty">.*?<\/p>/.exec(page)?.[0] ?? "";
  const none = { platform: "", period: OPEN, title: "", from: "", to: "", pinned: false, importId: "" };
  const page = (list: { total: number; page: number; totalPages: number }, filters = none) =>
    html(ConversationsPage({ ctx, list: { items: [], pageSize: 25, ...list }, filters, platforms: [], back: "/conversations" }));

  it("offers an import only when there is nothing at all; past the last page, that page; with filters, clearing them", async () => {
    expect(await page({ total: 0, page: 1, totalPages: 0 })).toContain('No conversations yet. <a href="/import">Import an export</a>');
    const beyond = await page({ total: 7, page: 99, totalPages: 1 }, { ...none, title: "a&b" });
    expect(beyond).toContain("No conversations on page 99: there is 1 page.");
    expect(beyond).toContain('<a href="/conversations?title=a%26b&amp;page=1">Go to page 1</a>');
    expect(empty(beyond)).not.toContain("/import");
    const filtered = await page({ total: 0, page: 1, totalPages: 0 }, { ...none, pinned: true });
    expect(filtered).toContain('No conversations match these filters. <a href="/conversations">Clear them</a>');
    expect(empty(filtered)).not.toContain("/import");
  });
});

describe("the conversation list", () => {
  it("names each conversation's platform as the Platform filter does, not by its id", async () => {
    const item = {
      id: "conv_1",
      title: "Now let monthly passes cover the Seixal line.",
      platform: "kiro-cli",
      messageCount: 2,
      tokenCount: 30,
      createdAt: "2026-01-20T10:30:00.000Z",
      updatedAt: "2026-01-20T10:31:00.000Z",
      pinned: false,
      status: "ready" as const,
      excluded: false,
      quotaBlocked: false,
      importId: "imp_1",
    };
    const filters = { platform: "", period: OPEN, title: "", from: "", to: "", pinned: false, importId: "" };
    const page = await html(
      ConversationsPage({
        ctx,
        list: { items: [item], total: 1, page: 1, pageSize: 25, totalPages: 1 },
        filters,
        platforms: [{ id: "kiro-cli", displayName: "Kiro CLI" }],
        back: "/conversations",
      }),
    );
    expect(page).toContain('<td data-label="Platform">Kiro CLI</td>');
  });
});

describe("an empty memory list", () => {
  it("past the last page links to it, rather than saying there are no memories yet", async () => {
    const buckets = [{ id: "2", name: "Trips", memoryCount: 3 }];
    const view = { ctx, memories: [], buckets, bucketId: 2, query: "", pageSize: 50, back: "/memories" };
    const beyond = await html(MemoriesPage({ ...view, page: 4, total: 3 }));
    expect(beyond).toContain('No memories on page 4: there is 1 page. <a href="/memories?bucket=2&amp;page=1">Go to page 1</a>');
    expect(await html(MemoriesPage({ ...view, page: 1, total: 0 }))).toContain("No memories here yet.");
  });

  it("says which of a search's memories are probably unrelated (the search fills the page whatever they score)", async () => {
    const memory = (id: string, score: number) => ({
      id,
      text: id,
      content_type: "text" as const,
      score,
      metadata: { text: id, createdAt: "2025-01-02T10:00:00.000Z", bucketId: 2, bucketName: "Trips" },
    });
    const page = await html(
      MemoriesPage({
        ctx,
        memories: [memory("near", 0.9), memory("far", 0.1)],
        buckets: [],
        bucketId: undefined,
        query: "tea",
        page: 1,
        pageSize: 50,
        total: undefined,
        back: "/memories",
      }),
    );
    expect(page).toContain("score 0.90</span>");
    expect(page).toContain("score 0.10 · probably unrelated</span>");
    expect(page).not.toContain("No memory seems to be about this");
  });

  it("says when no memory of a search is about it, above the closest ones it still lists", async () => {
    const memory = (id: string, score: number) => ({
      id,
      text: id,
      content_type: "text" as const,
      score,
      metadata: { text: id, createdAt: "2025-01-02T10:00:00.000Z", bucketId: 1, bucketName: "General" },
    });
    const view = { ctx, buckets: [], bucketId: undefined, page: 1, pageSize: 50, total: undefined, back: "/memories" };
    const far = await html(MemoriesPage({ ...view, query: "zxqv blorptangle", memories: [memory("a", 0.25), memory("b", 0)] }));
    expect(far).toContain('<p class="empty">No memory seems to be about this: the closest ones are below, each probably unrelated.</p>');
    expect(far).toContain("score 0.25 · probably unrelated");
    const listed = await html(MemoriesPage({ ...view, query: "", memories: [memory("a", 0)] }));
    expect(listed).not.toContain("No memory seems to be about this");
  });
});

describe("Recent imports", () => {
  const job = (state: ImportJob["state"]): ImportJob => ({
    id: `job_${state}`,
    filename: "export.zip",
    state,
    dryRun: false,
    bytesReceived: 4096,
    reading: { bytesRead: 1024, totalBytes: 4096, conversations: 12, format: "chatgpt" },
    indexing: { ready: 3, pending: 9 },
    createdAt: "2025-05-01T10:00:00.000Z",
  });

  it("says where a running import is, and marks the section for the page's script to follow until none runs", async () => {
    const running = await html(RecentImports({ jobs: [job("reading"), job("indexing"), job("waiting")] }));
    expect(running).toContain('data-running=""');
    expect(running).toContain("Reading: 12 conversations so far");
    expect(running).toContain('<progress max="100" value="25" aria-labelledby="progress-job_reading">');
    expect(running).toContain("Indexing: 3 ready, 9 to go");
    expect(running).toContain("Waiting for another import to finish");
    const done = await html(RecentImports({ jobs: [{ ...job("failed"), error: { message: "The import failed" } }] }));
    expect(done).not.toContain("data-running");
    expect(done).toContain("The import failed");
  });

  it("shows a file's size in bytes under a kilobyte, in KB under a megabyte, in MB above, in decimal units", async () => {
    const sized = async (bytesReceived: number) => html(RecentImports({ jobs: [{ ...job("done"), bytesReceived }] }));
    expect(await sized(20)).toContain("(20 B)"); // was "1 KB"
    expect(await sized(6_000)).toContain("(6 KB)");
    expect(await sized(1_468_006)).toContain("(1.5 MB)");
    // What the user's file manager (Finder, Files) calls 200 MB was "190.7 MB", 1,000 bytes "1000 B".
    expect(await sized(200_000_000)).toContain("(200.0 MB)");
    expect(await sized(1_000)).toContain("(1 KB)");
    expect(await sized(4_300_000_000)).toContain("(4.3 GB)");
  });
});

describe("the settings page", () => {
  const info: StoreInfo = {
    user: "default",
    version: "0.1.0",
    dataDir: "/data",
    storeUri: "/data/db",
    embedder: { id: "bundled", spec: "bundled", dims: 512 },
    chunks: { tokens: 192, setting: 192 },
    reranker: "auto",
    synthesizer: "extractive",
    statistics: {
      memories: 0,
      imageMemories: 0,
      buckets: 1,
      conversations: 0,
      messages: 0,
      tokens: 0,
      byStatus: { queued: 0, processing: 0, ready: 0, failed: 0, rejected: 0 },
      excluded: 0,
      pinned: 0,
      platforms: [],
      diskBytes: 0,
    },
    cacheBytes: 0,
  };
  const page = (chunks: StoreInfo["chunks"]) => html(SettingsPage({ ctx, info: { ...info, chunks }, snippets: [], newToken: undefined }));

  it("gives the store's chunk size, and when config.json sets another, what to run", async () => {
    expect(await page({ tokens: 192, setting: 192 })).toContain("up to 192 tokens of a conversation");
    expect(await page({ tokens: 192, setting: 192 })).not.toContain("reindex");
    const differs = await page({ tokens: 192, setting: 96, note: "… `mnemo reindex --rechunk` cuts it again" });
    expect(differs).toContain("up to 192 tokens of a conversation");
    expect(differs).toContain('<p class="hint">… `mnemo reindex --rechunk` cuts it again</p>');
  });

  it("counts a new store's one bucket and an image in the singular, and names the bundled embedder once", async () => {
    const statistics = { ...info.statistics, memories: 3, imageMemories: 1 };
    const text = await html(SettingsPage({ ctx, info: { ...info, statistics }, snippets: [], newToken: undefined }));
    expect(text).toContain("3 (1 image) in 1 bucket<");
    // The bundled embedder's spec is its id: named once.
    expect(text).toContain("bundled (512 dimensions)");
  });
});

describe("a memory's History page", () => {
  const version = (n: number, text: string) => ({
    version: n,
    text,
    bucketId: 1,
    bucketName: "General",
    changedAt: "2025-05-01T10:00:00.000Z",
  });

  it("shows an image memory's image, on the page's own origin, described by its latest text, where it showed the text alone", async () => {
    const history = {
      memoryId: "mem_01JZZZZZZZZZZZZZZZZZZZZZZZ",
      total: 2,
      imageUrl: "http://127.0.0.1:7777/images/mem_01JZZZZZZZZZZZZZZZZZZZZZZZ?exp=1&sig=abc",
      versions: [version(1, "Image: beach"), version(2, "Image: beach at sunset")],
    };
    expect(await html(HistoryPage({ ctx, history }))).toContain(
      '<img class="memory-image" src="/images/mem_01JZZZZZZZZZZZZZZZZZZZZZZZ?exp=1&amp;sig=abc" alt="Image: beach at sunset"/>',
    );
    const text = await html(HistoryPage({ ctx, history: { ...history, imageUrl: undefined } }));
    expect(text).not.toContain("<img");
  });
});
