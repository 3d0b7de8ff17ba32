// Grok's data export (fixtures/exports/grok and grok-export.zip): the newest branch, every way the
// export writes a sender and a time, Grok's tags out of the text, images and files as placeholders.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { grokConversation } from "../../src/importers/grok/conversation.js";
import { collect, collectWithSkips, fixtures, recordContext } from "./collect.js";

const folder = join(fixtures, "grok");

describe("Grok's data export", () => {
  it("reads prod-grok-backend.json's conversations, in the zip as downloaded too, and says the empty one was left out", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.platform, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["grok", "Kafka consumer lag alert", 4],
      ["grok", "Lighthouse logo", 3],
      ["grok", "Sourdough in a cold kitchen", 4],
    ]);
    expect(skipped).toEqual({ "conversations without any message text": 1 });
    expect(await collect(join(fixtures, "grok-export.zip"))).toEqual(conversations);
  });

  it("keeps the regenerated answer the conversation went on from, with MongoDB's times and the conversation's", async () => {
    const [kafka] = await collect(folder);
    expect(kafka!.conversation).toMatchObject({
      id: "8c1f4e2a-3b5d-4f6e-9a7b-0c1d2e3f4a5b",
      createdAt: "2025-03-04T08:15:02.114Z",
      updatedAt: "2025-03-04T08:31:40.902Z",
    });
    expect(kafka!.conversation.messages.map((m) => [m.id.split("-")[1], m.role, m.createdAt])).toEqual([
      ["0001", "human", "2025-03-04T08:15:02.114Z"],
      ["0003", "assistant", "2025-03-04T08:18:10.000Z"],
      ["0004", "human", "2025-03-04T08:30:00.000Z"],
      ["0005", "assistant", "2025-03-04T08:31:40.902Z"], // sender "grok-3"
    ]);
  });

  it("drops citation tags and reasoning, keeps a document Grok wrote under its title, names an uploaded file", async () => {
    const [kafka] = await collect(folder);
    const [, answer, followUp] = kafka!.conversation.messages.map((m) => m.content);
    expect(answer).toBe(
      "Plot the lag per partition next to the producers' throughput. A nightly backfill that writes to one hot partition is the usual cause; " +
        "burrow or kafka-lag-exporter will show which partition lags.\n\n" +
        '[artifact: lag-by-partition.promql]\nmax by (partition) (kafka_consumergroup_lag{group="billing"})',
    );
    expect(followUp).toBe("It is partition 7. The backfill keys everything by tenant id.\n\n[file: lag-2025-03-04.csv]");
  });

  it("an image answer is its images; a failed answer nothing follows is left out, and the prompt before it kept", async () => {
    const [, logo] = await collect(folder);
    expect(logo!.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Draw a minimalist lighthouse logo for a sailing club called Farol.\n\n[image]"],
      ["assistant", "[image]\n\n[image]"],
      ["human", "Make it navy blue."],
    ]);
  });

  it("responses written before they named their parent follow each other in time, whatever the export's order", async () => {
    const [, , sourdough] = await collect(folder);
    expect(sourdough!.conversation.messages.map((m) => m.id)).toEqual(["d9f3c4e5-0001", "d9f3c4e5-0002", "d9f3c4e5-0003", "d9f3c4e5-0004"]);
  });

  it("takes a response given without its { response } wrapper, and `{ $date: ISO }` times", () => {
    const record = {
      conversation: { id: "c", title: "t" },
      responses: [
        { _id: "1", sender: "human", message: "hi", create_time: { $date: "2025-01-01T00:00:00Z" } },
        { response: { _id: "2", sender: "ASSISTANT", message: "hello", parent_response_id: "1", create_time: "2025-01-01T00:00:05Z" } },
      ],
    };
    expect(grokConversation(record, recordContext())!.conversation).toMatchObject({
      createdAt: "2025-01-01T00:00:00.000Z",
      messages: [
        { id: "1", role: "human", content: "hi", createdAt: "2025-01-01T00:00:00.000Z" },
        { id: "2", role: "assistant", content: "hello" },
      ],
    });
  });
});
