import { describe, expect, it } from "vitest";
import { highlighter, highlightSegments } from "../../src/text/highlight.js";

const marked = (query: string, text: string) => highlighter(query, (word) => `«${word}»`)(text);

describe("search's highlighting", () => {
  it("marks whole words the query's words begin, not stop words or the middle of a word", () => {
    expect(marked("what did we plan for Lisbon", "We planned a comfortable trip to Lisbon.")).toBe(
      "We «planned» a comfortable trip to «Lisbon».",
    );
    expect(marked("painted", "painting it blue")).toBe("«painting» it blue");
  });

  it("folds case and accents, and marks short numbers", () => {
    expect(marked("BELEM pasteis", "Pastéis de Belém, tram 28")).toBe("«Pastéis» de «Belém», tram 28");
    expect(marked("tram 28", "Take tram 28 at 9")).toBe("Take «tram» «28» at 9");
  });

  it("marks a query's run in text without spaces wherever it occurs", () => {
    expect(marked("ケーキ", "誰がケーキを食べましたか")).toBe("誰が«ケーキ»を食べましたか");
    expect(marked("学生", "私は学生です")).toBe("私は«学生»です");
  });

  it("leaves text alone when the query has nothing to mark", () => {
    expect(marked("the of", "the end of it")).toBe("the end of it");
  });
});

describe("highlight segments", () => {
  it("split a text into marked and unmarked pieces that put together are the text", () => {
    const text = "Take tram 28 to <b>Belém</b>";
    const segments = highlightSegments("tram belem")(text);
    expect(segments).toEqual([
      { text: "Take ", marked: false },
      { text: "tram", marked: true },
      { text: " 28 to <b>", marked: false },
      { text: "Belém", marked: true },
      { text: "</b>", marked: false },
    ]);
    expect(segments.map((s) => s.text).join("")).toBe(text);
  });
});
