import { describe, expect, it } from "vitest";
import { ImportPage } from "../../src/web/views/import.js";
import type { ImportJob } from "../../src/schemas/imports.js";

const ctx = { userName: "default", csrf: "x", flash: undefined };
const html = async (element: unknown) => String(await (element as { toString(): string | Promise<string> }).toString());

describe("the Import page's recent imports", () => {
  it("say how many records were repaired (text that was not valid Unicode), beside the counts, and the memories an export held", async () => {
    const summary = {
      files: [{ path: "conversations.json", format: "chatgpt", conversations: 60 }],
      new: 60,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      failed: 0,
      unreadableFiles: 0,
      problems: [],
      skipped: [],
      repaired: [{ file: "conversations.json", record: 42, fields: ["title"], count: 1, text: "Plans \uFFFD" }],
      inParts: [],
      memories: { new: 0, updated: 0, unchanged: 0, failed: 0, buckets: [] },
      conversationIds: [],
      importIds: [],
      dryRun: false,
      comparedWithStore: true,
      outcome: { conversations: "Imported 60 new conversations" },
    };
    const job: ImportJob = {
      id: "job_1",
      filename: "conversations.json",
      state: "done",
      dryRun: false,
      bytesReceived: 100,
      reading: { bytesRead: 100, totalBytes: 100, conversations: 60, format: "chatgpt" },
      indexing: { ready: 60, pending: 0 },
      summary,
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    const page = await html(ImportPage({ ctx, jobs: [job] }));
    expect(page).toContain("Imported 60 new conversations, 1 repaired (text not valid Unicode, kept with \uFFFD)");
    expect(page).toContain("kept with \uFFFD)</td>"); // no memories held, none said
    const withMemories = {
      ...job,
      summary: { ...summary, outcome: { ...summary.outcome, memories: "Imported 12 new memories, 1 updated; 2 unchanged" } },
    };
    expect(await html(ImportPage({ ctx, jobs: [withMemories] }))).toContain(
      "Imported 60 new conversations, 1 repaired (text not valid Unicode, kept with \uFFFD). Imported 12 new memories, 1 updated; 2 unchanged",
    );
    const hint = "3 of these 60 conversations are mostly in languages other than English";
    const inOtherLanguages = { ...job, summary: { ...summary, languageHint: hint } };
    expect(await html(ImportPage({ ctx, jobs: [inOtherLanguages] }))).toContain(`<p class="hint">${hint}</p>`);
  });
});
