import { describe, expect, it } from "vitest";
import { PASSAGE_THRESHOLD, scorePassages } from "../../../src/core/retrieval/passage-relevance.js";

const UNRELATED = 0.215; // the bundled model's level, which the weights were fitted with

describe("a passage's relevance on one scale", () => {
  it("is high for a passage that holds the question's words and meaning, low for one that holds neither", () => {
    const [answer, other] = scorePassages(
      "how do we get from the airport to Alfama?",
      [
        { text: "Take the red metro line from the airport, change to the green line, then walk up to Alfama.", similarity: 0.45 },
        { text: "Feed the sourdough starter twice a day.", similarity: 0.12 },
      ],
      UNRELATED,
    );
    expect(answer).toBeGreaterThan(PASSAGE_THRESHOLD);
    expect(other).toBeLessThan(PASSAGE_THRESHOLD);
  });

  it("does not depend on the other passages' scores: the same passage scores the same beside better or worse ones", () => {
    const passage = { text: "Tram 28 is worth it once: board at Martim Moniz.", similarity: 0.35 };
    const query = "is tram 28 worth it?";
    const alone = scorePassages(query, [passage, { text: "tram 28 board", similarity: 0.2 }], UNRELATED)[0];
    const beside = scorePassages(query, [passage, { text: "tram 28 worth it, board early", similarity: 0.6 }], UNRELATED)[0];
    expect(beside).toBeCloseTo(alone!, 10);
  });

  it("is low when the query names someone no passage mentions, or its words are nowhere", () => {
    const texts = [{ text: "Caroline went to the support group and painted a sunrise.", similarity: 0.4 }];
    const named = scorePassages("What did Melanie paint?", texts, UNRELATED)[0]!;
    const present = scorePassages("What did Caroline paint?", texts, UNRELATED)[0]!;
    expect(named).toBeLessThan(PASSAGE_THRESHOLD);
    expect(present).toBeGreaterThan(PASSAGE_THRESHOLD);
    expect(scorePassages("zxqv blorptangle frobnicate", texts, UNRELATED)[0]).toBeLessThan(PASSAGE_THRESHOLD);
  });

  it("reads another embedder's similarities against its own unrelated level", () => {
    const text = [{ text: "The plumber quoted for the water heater.", similarity: 0.1 }];
    const low = scorePassages("the plumber's quote", [{ ...text[0]!, similarity: 0.1 }], 0.0)[0]!;
    const shifted = scorePassages("the plumber's quote", [{ ...text[0]!, similarity: 0.315 }], 0.215)[0]!;
    expect(low).toBeCloseTo(shifted, 10);
  });
});

describe("a passage close in meaning alone", () => {
  it("counts without a word in common, but not at the similarity of an unrelated topic", () => {
    const query = "why is my snake not eating?";
    const python = { text: "My ball python Monty has not eaten in three weeks.", similarity: 0.493 };
    const unrelated = { text: "My blood type is O negative.", similarity: 0.458 };
    expect(scorePassages(query, [python], UNRELATED)[0]).toBeGreaterThan(PASSAGE_THRESHOLD);
    expect(scorePassages(query, [unrelated], UNRELATED)[0]).toBeLessThan(PASSAGE_THRESHOLD);
  });
});
