import { describe, expect, it } from "vitest";
import { MEANING_RANGE, queryCoverage, relevance } from "../../../src/core/retrieval/relevance.js";
import { contentWords } from "../../../src/text/content-words.js";

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

  it("finds a Han character of a longer word, and leaves Chinese function words out while the query has others", () => {
    const [cat, dog] = queryCoverage("我的猫叫什么名字", ["我养了一只猫，它的名字叫小白", "我的狗叫旺财"]);
    expect(cat).toBeGreaterThan(0.6);
    expect(dog).toBeLessThan(0.25);
    expect(queryCoverage("我的什么", ["我的书是什么"])).toEqual([1]);
  });
});

describe("relevance", () => {
  const reference = 0.5;

  it("counts meaning by how far the similarity stands above the reference, fully at MEANING_RANGE", () => {
    expect(relevance(0, reference + MEANING_RANGE, reference)).toBe(1);
    expect(relevance(0, reference + 2 * MEANING_RANGE, reference)).toBe(1);
    expect(relevance(0, reference + MEANING_RANGE / 2, reference)).toBeCloseTo(0.5);
    expect(relevance(0, reference - 0.1, reference)).toBe(0);
    expect(relevance(0.4, undefined, reference)).toBe(0.4);
  });

  it("takes the stronger sign: two weak ones do not outrank a memory holding more of the query", () => {
    const weakBoth = relevance(0.3, reference + 0.3 * MEANING_RANGE, reference);
    expect(weakBoth).toBeCloseTo(0.3);
    expect(weakBoth).toBeLessThan(relevance(0.4, undefined, reference));
    // A paraphrase that shares no word still beats a memory holding half the query's words.
    expect(relevance(0, reference + 0.8 * MEANING_RANGE, reference)).toBeGreaterThan(relevance(0.5, reference, reference));
  });
});
