// Kimi CLI sessions crafted against the match of a pre-0.59 context's prompts with the wire's
// (turnsBeforeWire): it must stay linear in the prompts however many repeat.
import { describe, expect, it } from "vitest";
import type { Utterance } from "../../src/importers/agent-sessions.js";
import { wireStart } from "../../src/importers/kimi-cli/session.js";

function turns(prompts: readonly string[], answer: (i: number) => string): Utterance[] {
  return prompts.flatMap((text, i): Utterance[] => [
    { id: `p${i}`, role: "human", pieces: [{ text, tool: false }], time: undefined },
    { id: `a${i}`, role: "assistant", pieces: [{ text: answer(i), tool: false }], time: undefined },
  ]);
}

describe("hostile Kimi CLI sessions", () => {
  // Counted from each prompt afresh, the runs cost prompts² comparisons: 80,000 took 16 s, 200,000 57 s,
  // so the test fails on that by its own limit, 10 s (a fraction of a second here). 120,000: the old code
  // past the limit with room to spare on a faster machine, at two fifths of the input to build.
  it("120,000 prompts 'go on' in the context and the wire are matched in one pass: the wire starts at the first", {
    timeout: 10_000,
  }, () => {
    const prompts = Array.from({ length: 120_000 }, () => "go on");
    expect(
      wireStart(
        turns(prompts, (i) => `context ${i}`),
        turns(prompts, (i) => `wire ${i}`),
      ),
    ).toBe(0);
  });

  it("the wire starts at the context's prompt that begins the longest run of the wire's prompts, the first of equals", () => {
    const context = turns(["a", "go on", "b", "go on", "b", "c"], (i) => `context ${i}`);
    expect(
      wireStart(
        context,
        turns(["go on", "b", "c", "/skip", "d"], (i) => `wire ${i}`),
      ),
    ).toBe(6);
    expect(
      wireStart(
        context,
        turns(["go on", "b"], (i) => `wire ${i}`),
      ),
    ).toBe(2);
    expect(
      wireStart(
        context,
        turns(["z"], (i) => `wire ${i}`),
      ),
    ).toBe(12);
  });
});
