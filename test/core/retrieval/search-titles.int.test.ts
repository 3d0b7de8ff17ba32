import { afterAll, beforeAll, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { openAppWithChats, settled } from "../../helpers.js";

// Search keeps conversation titles between calls (core/retrieval/search.ts, conversationTitles):
// a title changed by a new import must show in the next search, and a title's words count for
// each passage of its conversation.

const trip = (title: string, turns: string[]) => ({
  platform: "chatgpt",
  conversation: {
    id: "trip",
    title,
    createdAt: "2024-04-01T08:00:00Z",
    messages: turns.map((content, i) => ({
      id: `trip-${i}`,
      role: i % 2 === 0 ? ("human" as const) : ("assistant" as const),
      content,
      createdAt: new Date(Date.parse("2024-04-01T08:00:00Z") + i * 60_000).toISOString(),
    })),
  },
});

const TURNS = [
  "We are going to Kyoto in November to see the maple leaves.",
  "Tofuku-ji and Eikan-do are the best temples for autumn colours; go early to avoid crowds.",
];

let app: App;
let service: MnemoService;

beforeAll(async () => {
  ({ app, service } = await openAppWithChats([trip("Kyoto in autumn", TURNS)]));
});
afterAll(async () => app.close());

const titleOf = async (query: string) => (await service.search({ query, limit: 3, skipRerank: true })).results[0]?.title;

it("shows a conversation's new title once an import renames it", async () => {
  expect(await titleOf("maple leaves in Kyoto")).toBe("Kyoto in autumn");
  await service.conversations.uploadMany([trip("Kyoto temples", [...TURNS, "Thanks, we will go at 7 am."])]);
  await settled(service);
  expect(await titleOf("maple leaves in Kyoto")).toBe("Kyoto temples");
});

it("counts a conversation's title among the words of each of its passages", async () => {
  // No message says "sourdough": the title names what the whole conversation is about.
  const bread = {
    platform: "chatgpt",
    conversation: {
      id: "bread",
      title: "Sourdough starter rescue",
      createdAt: "2024-05-01T08:00:00Z",
      messages: [
        {
          id: "bread-0",
          role: "human" as const,
          content: "My starter went quiet after day two. What am I doing wrong?",
          createdAt: "2024-05-01T08:00:00Z",
        },
        {
          id: "bread-1",
          role: "assistant" as const,
          content: "Keep it at 25 degrees and feed it once a day with rye flour.",
          createdAt: "2024-05-01T08:01:00Z",
        },
      ],
    },
  };
  await service.conversations.uploadMany([bread]);
  await settled(service);
  const [hit] = (await service.search({ query: "sourdough tips", limit: 3, skipRerank: true })).results;
  expect(hit?.title).toBe("Sourdough starter rescue");
  expect(hit?.probablyUnrelated).toBe(false);
});
