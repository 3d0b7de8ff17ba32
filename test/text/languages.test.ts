import { describe, expect, it } from "vitest";
import { readsOnlyEnglish } from "../../src/providers/embedder-languages.js";
import { inAnotherLanguage } from "../../src/text/other-language.js";
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

describe("inAnotherLanguage", () => {
  it("tells French, German, Spanish, Portuguese, Italian and Dutch by their common words", () => {
    for (const text of [
      "Je suis allergique aux arachides",
      "wie viel Kaffee trinke ich",
      "¿Dónde está mi pasaporte?",
      "Qual é o nome do meu dentista?",
      "Il mio cane si chiama Biscotto",
      "Waar is mijn paspoort?",
    ]) {
      expect(inAnotherLanguage(text), text).toBe(true);
    }
  });

  it("takes English for English, with foreign names and words in it, and a text of keywords for English", () => {
    for (const text of [
      "We ate at Le Petit Café in Los Angeles with Mia",
      "I said 'muy bien' to the waiter, and he laughed",
      "quantum chromodynamics lattice",
      "perro Biscuit",
      "Ana lives in Porto",
    ]) {
      expect(inAnotherLanguage(text), text).toBe(false);
    }
  });
});

describe("readsOnlyEnglish", () => {
  it("knows the models mnemo picks by itself read English only, whatever their weights' precision", () => {
    expect(readsOnlyEnglish("bundled")).toBe(true);
    expect(readsOnlyEnglish("transformers:Xenova/all-MiniLM-L6-v2")).toBe(true);
    expect(readsOnlyEnglish("transformers:Xenova/all-MiniLM-L6-v2:q8")).toBe(true);
    expect(readsOnlyEnglish("transformers:Xenova/paraphrase-multilingual-MiniLM-L12-v2")).toBe(false);
    expect(readsOnlyEnglish("transformers:my-model-1a2b3c")).toBe(false);
  });
});
