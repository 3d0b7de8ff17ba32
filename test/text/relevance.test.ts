import { describe, expect, it } from "vitest";
import { contentWords, queryCoverage } from "../../src/text/relevance.js";

describe("contentWords", () => {
  it("drops stop words, keeps digits, and stems as the text index does", () => {
    expect(contentWords("What text editors am I using for note 7?")).toEqual(["text", "editor", "us", "note", "7"]);
    expect(contentWords("Researching adoption agencies")).toEqual(contentWords("research adoption agency"));
  });
});

describe("queryCoverage", () => {
  const memories = [
    "Switched from Vim to VS Code for all my editing last spring.",
    "The tools we use for infrastructure are Terraform and Ansible.",
    "I prefer dark mode in every app I use.",
  ];

  it("is the share of the query's words a text holds, rarer words weighing more", () => {
    const [editor, infra, dark] = queryCoverage("infrastructure tools", memories);
    expect(infra).toBe(1);
    expect([editor, dark]).toEqual([0, 0]);
    // "use" is in two of three texts, "terraform" in one: holding only the common word counts less.
    const [, both, common] = queryCoverage("use terraform", memories);
    expect(both).toBe(1);
    expect(common).toBeGreaterThan(0);
    expect(common).toBeLessThan(0.5);
  });

  it("is 0 for a query of stop words only, and finds words of unspaced scripts by substring", () => {
    expect(queryCoverage("what is it", memories)).toEqual([0, 0, 0]);
    const [tower, other] = queryCoverage("東京タワー", ["東京タワーに行った", "大阪城を見た"]);
    expect(tower).toBeGreaterThan(0.9);
    expect(other).toBe(0);
  });
});
