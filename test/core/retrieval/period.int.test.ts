import { afterAll, beforeAll, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { AppError } from "../../../src/shared/errors.js";
import { openAppWithChats } from "../../helpers.js";

// Search and recall bounded to dates (dateFrom/dateTo, core/retrieval/period.ts): a passage counts
// by when it was said, an undated one by its conversation's start.

const chat = (id: string, title: string, createdAt: string, turns: [string, string, string | undefined][]) => ({
  platform: "chatgpt",
  conversation: {
    id,
    title,
    createdAt,
    messages: turns.map(([role, content, at], i) => ({
      id: `${id}-${i}`,
      role: role as "human" | "assistant",
      content,
      ...(at ? { createdAt: at } : {}),
    })),
  },
});

const CHATS = [
  chat("february", "Ball python not eating", "2024-02-10T10:00:00Z", [
    ["human", "My ball python Monty has not eaten in three weeks. Should I worry?", "2024-02-10T10:00:00Z"],
    ["assistant", "Ball pythons often fast in winter; check the warm side is 31 to 33 °C.", "2024-02-10T10:01:00Z"],
  ]),
  chat("march", "Python virtual environments", "2024-03-05T09:00:00Z", [
    ["human", "How do I make a Python virtual environment for my project?", "2024-03-05T09:00:00Z"],
    ["assistant", "Run python -m venv .venv, then activate it with source .venv/bin/activate.", "2024-03-05T09:01:00Z"],
  ]),
  // A Markdown-like upload: no message has a time, so the conversation's start dates it.
  chat("undated", "Python packaging notes", "2024-03-20T12:00:00Z", [
    ["human", "Should my Python package use pyproject.toml or setup.py?", undefined],
    ["assistant", "Use pyproject.toml: setup.py is the old way of packaging Python code.", undefined],
  ]),
];

let app: App;
let service: MnemoService;

beforeAll(async () => {
  ({ app, service } = await openAppWithChats(CHATS));
});
afterAll(async () => app.close());

const searched = async (dates: { dateFrom?: string; dateTo?: string }) => {
  const { results } = await service.search({ query: "python", skipRerank: true, includeUnrelated: true, ...dates });
  return new Set(results.map((hit) => hit.title));
};

it("finds only what was said within the dates, an undated conversation by its start", async () => {
  expect(await searched({})).toEqual(new Set(["Ball python not eating", "Python virtual environments", "Python packaging notes"]));
  expect(await searched({ dateFrom: "2024-03-01", dateTo: "2024-03-31" })).toEqual(
    new Set(["Python virtual environments", "Python packaging notes"]),
  );
  expect(await searched({ dateTo: "2024-03-10" })).toEqual(new Set(["Ball python not eating", "Python virtual environments"]));
  // A day bounds the whole day; a date-time is itself.
  expect(await searched({ dateFrom: "2024-02-10", dateTo: "2024-02-10" })).toEqual(new Set(["Ball python not eating"]));
  expect(await searched({ dateFrom: "2024-02-10T09:30:00Z", dateTo: "2024-02-10T10:30:00Z" })).toEqual(new Set(["Ball python not eating"]));
  expect(await searched({ dateFrom: "2024-02-10T10:30:00Z", dateTo: "2024-02-29" })).toEqual(new Set());
  expect(await searched({ dateFrom: "2024-03-21" })).toEqual(new Set());
});

it("recalls only within the dates, and says which dates held nothing", async () => {
  const march = await service.recall({ query: "how do I set up a python virtual environment?", dateFrom: "2024-03-01" });
  expect(march.sources.length).toBeGreaterThan(0);
  expect(new Set(march.sources.map((source) => source.conversationTitle))).not.toContain("Ball python not eating");

  const later = await service.recall({ query: "how do I set up a python virtual environment?", dateFrom: "2025-01-01" });
  expect(later).toMatchObject({ content: "Nothing in your chat history from 2025-01-01 is about this.", sources: [], model: "none" });
  const before = await service.recall({ query: "python", dateTo: "2023-12-31" });
  expect(before.content).toBe("Nothing in your chat history until 2023-12-31 is about this.");
});

it("refuses dates that end before they start, or are not dates, naming the field", async () => {
  const refused = (dates: { dateFrom?: string; dateTo?: string }) =>
    service.search({ query: "python", ...dates }).then(
      () => undefined,
      (error: unknown) => error,
    );
  const swapped = await refused({ dateFrom: "2024-03-31", dateTo: "2024-03-01" });
  expect(swapped).toBeInstanceOf(AppError);
  expect(swapped).toMatchObject({ code: "invalid_input", details: { field: "dateFrom" } });
  expect(await refused({ dateTo: "March" })).toMatchObject({ code: "invalid_input", details: { field: "dateTo" } });
  await expect(service.recall({ query: "python", dateFrom: "2024-02-30" })).rejects.toMatchObject({ details: { field: "dateFrom" } });
});
