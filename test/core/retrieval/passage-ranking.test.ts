import { describe, expect, it } from "vitest";
import { rankByQuery } from "../../../src/core/retrieval/passage-ranking.js";

const rank = (query: string, items: { text: string; score: number }[], lexicalWeight = 0.4) =>
  rankByQuery(query, items, lexicalWeight).map((item) => item.text);

describe("passage ranking", () => {
  it("puts the message that matches the query's words first among equally retrieved ones", () => {
    const items = [
      { text: "We should check the weather before we go.", score: 0.8 },
      { text: "The ferry to the island leaves at nine on Saturday.", score: 0.8 },
    ];
    expect(rank("when does the ferry leave", items)[0]).toMatch(/ferry/);
  });

  it("lets small talk sink below a message of substance from the same chunk", () => {
    const items = [
      { text: "Thanks!", score: 0.9 },
      { text: "I booked the cabin by the lake for the second week of July, with a canoe.", score: 0.9 },
    ];
    expect(rank("what are the summer plans", items)).toEqual([items[1]!.text, items[0]!.text]);
  });

  it("gives a long message no edge over a moderately long one", () => {
    const moderate = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const long = Array.from({ length: 400 }, (_, i) => `term${i}`).join(" ");
    const items = [
      { text: moderate, score: 0.5 },
      { text: long, score: 0.5 },
    ];
    expect(rank("unrelated question", items)).toEqual([moderate, long]);
  });
});
