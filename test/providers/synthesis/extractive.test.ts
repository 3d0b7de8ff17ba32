import { describe, expect, it } from "vitest";
import { brackets } from "../../../src/providers/synthesis/citations.js";
import { createExtractiveSynthesizer } from "../../../src/providers/synthesis/extractive.js";
import type { Passage } from "../../../src/providers/synthesis/synthesizer.js";

const passage = (n: number, text: string, sender: Passage["sender"] = "assistant"): Passage => ({
  n,
  conversationId: "conv_units",
  conversationTitle: "Unit conversion",
  date: `2024-06-01T10:0${n}:00Z`,
  sender,
  text,
  score: 1 / n,
});

const synthesize = async (query: string, passages: Passage[], maxTokens: number, platform?: "claude") =>
  brackets((await createExtractiveSynthesizer().synthesize({ query, passages, maxTokens, platform })).content);

describe("extractive synthesizer", () => {
  it("writes no code fence, closed or left open by a cut, into its one-line passages", async () => {
    const code = "Normalise them before converting: ```python\nvalues = [v / 1000 for v in values]\n``` Then convert the units.";
    const whole = await synthesize("normalise values before converting units", [passage(1, code)], 400, "claude");
    expect(whole).toContain("Normalise them before converting: values = [v / 1000 for v in values] Then convert the units. [1]");
    expect(whole).not.toContain("```");

    const long = `Normalise them before converting. ${"Some other remark about the weather today. ".repeat(30)}\`\`\`python\nvalues = [v / 1000 for v in values]`;
    expect(await synthesize("normalise values", [passage(1, long)], 60, "claude")).not.toContain("```");
  });

  it("leaves out a later passage that only a word or two of would fit, but cuts the first to fit", async () => {
    const first = "Convert the kilometres to miles by multiplying by 0.621, and round the result to two decimals for the report.";
    const second =
      "And is there a quicker way to convert the kilometres to miles when the numbers are large, for example in a spreadsheet?";
    const both = await synthesize("convert kilometres to miles", [passage(1, first), passage(2, second, "human")], 54);
    expect(both).toContain("[1]");
    expect(both).not.toContain("[2]");

    const tiny = await synthesize("convert kilometres to miles", [passage(1, first)], 24);
    expect(tiny).toMatch(/^- Assistant: Convert .* … \[1\]$/m);
  });

  it("writes no line for a passage that is nothing but markup", async () => {
    const text = await synthesize("convert kilometres", [passage(1, "```\n```"), passage(2, "Convert the kilometres first.")], 400);
    expect(text).not.toMatch(/Assistant:\s+\[1\]/);
    expect(text).toContain("- Assistant: Convert the kilometres first. [2]");
  });

  it("names no tool an agent ran: its words are the summary, and a passage of tool calls alone is no line", async () => {
    const ran = "[tool: Read] [tool: Bash]\n\nThe file is semicolon-separated, so convert the kilometres column first.";
    const text = await synthesize("convert kilometres", [passage(1, "[tool: Edit] [tool]"), passage(2, ran)], 400);
    expect(text).not.toContain("[tool");
    expect(text).not.toMatch(/Assistant:\s+\[1\]/);
    expect(text).toContain("- Assistant: The file is semicolon-separated, so convert the kilometres column first. [2]");
  });
});

describe("extractive synthesizer and direction overrides", () => {
  it("closes a title's or a message's U+202E where it ends, so the date or citation after it is not turned around", async () => {
    const reversed = { ...passage(1, "Convert the units \u202eby hand"), conversationTitle: "Units \u202eevil" };
    const summary = await synthesize("convert units", [reversed], 400);
    expect(summary).toContain("Units \u202eevil\u202c (2024-06-01):");
    expect(summary).toContain("Convert the units \u202eby hand\u202c [1]");
    const balanced = await synthesize("convert units", [{ ...reversed, conversationTitle: "a \u2067b\u2069 c" }], 400);
    expect(balanced).toContain("a \u2067b\u2069 c (2024-06-01):");
  });
});
