import { describe, expect, it } from "vitest";
import { scriptsRead } from "../../src/providers/embedder-scripts.js";
import { mostlyInScripts } from "../../src/text/scripts.js";

describe("mostlyInScripts", () => {
  const latin = mostlyInScripts(["Latin"]);

  it("passes a text at least half of whose letters are in the scripts, and one without letters", () => {
    expect(latin("Crème brûlée at 8:15, naïve café")).toBe(true);
    expect(latin("我买了一个 new iPhone")).toBe(true); // 9 Latin letters of 14
    expect(latin("2024-05-01 🙂 42")).toBe(true);
    expect(latin("")).toBe(true);
  });

  it("fails a text mostly in other scripts", () => {
    expect(latin("Мой брат живёт в Москве")).toBe(false);
    expect(latin("我的猫叫小白 Tom")).toBe(false);
    expect(latin("東京の友達は来月結婚します")).toBe(false);
  });
});

describe("scriptsRead", () => {
  it("knows the models mnemo picks by itself read Latin script only, whatever their weights' precision", () => {
    expect(scriptsRead("bundled")).toEqual(["Latin"]);
    expect(scriptsRead("transformers:Xenova/all-MiniLM-L6-v2")).toEqual(["Latin"]);
    expect(scriptsRead("transformers:Xenova/all-MiniLM-L6-v2:q8")).toEqual(["Latin"]);
    expect(scriptsRead("transformers:Xenova/paraphrase-multilingual-MiniLM-L12-v2")).toBeUndefined();
    expect(scriptsRead("transformers:my-model-1a2b3c")).toBeUndefined();
  });
});
