import { describe, expect, it } from "vitest";
import { holds, queryTerms, selfInformation, textWords, weightedShare } from "../../src/text/word-rarity.js";

describe("word rarity from a general vocabulary", () => {
  it("gives common words little weight and rare ones much, whatever a store holds", () => {
    expect(selfInformation("the")).toBeLessThan(selfInformation("plan"));
    expect(selfInformation("plan")).toBeLessThan(selfInformation("cardiologist"));
    expect(selfInformation("stent")).toBeGreaterThan(selfInformation("say"));
    expect(selfInformation("Lisbon")).toBe(selfInformation("lisbon"));
    // Letters no piece starts with still count, and count as rare.
    expect(selfInformation("ζωή")).toBeGreaterThan(selfInformation("life"));
  });

  it("takes a query's content words once each, stemmed, and tells names by their capital inside the sentence", () => {
    const terms = queryTerms("What did Priya's cardiologist say about the stents in May?");
    expect(terms.map((term) => [term.stem, term.name])).toEqual([
      ["priya", true],
      ["cardiologist", false],
      ["sai", false],
      ["stent", false],
    ]); // "May" is a stop word, and a month: never a name
    expect(queryTerms("Lisbon trip plans").find((term) => term.stem === "lisbon")?.name).toBe(false); // the first word
    // Acronyms and camel case are terms, not names: "CSV" is often "csv" in the passage, or not there at all.
    expect(queryTerms("the KeyError in the CSV report").filter((term) => term.name)).toEqual([]);
    expect(queryTerms("ケーキを食べました").map((term) => term.stem)).toContain("ケーキ");
  });

  it("tells a date's words, which stored texts keep beside them rather than in their words", () => {
    const dates = queryTerms("Which state was Sam in on the 8th of October 2023?").filter((term) => term.date);
    expect(dates.map((term) => term.stem)).toEqual(["8th", "octob", "2023"]);
    expect(queryTerms("Which state was Sam in?").some((term) => term.date)).toBe(false);
  });

  it("measures the share of the query's weight a text holds", () => {
    const terms = queryTerms("what did we plan for Lisbon?");
    const share = (text: string) => weightedShare(terms, (term) => holds(textWords(text), term));
    expect(share("We planned four days in Lisbon.")).toBe(1);
    expect(share("Lisbon has trams.")).toBeGreaterThan(share("Our plan for the garden."));
    expect(share("Nothing of it here.")).toBe(0);
    expect(weightedShare([], () => true)).toBe(0);
  });
});
