/**
 * A test of whether a text is written mostly (at least half its letters) in one of `scripts`
 * (Unicode script names, "Latin", "Cyrillic"…). A text without letters passes.
 */
export function mostlyInScripts(scripts: readonly string[]): (text: string) => boolean {
  const classes = scripts.map((script) => `\\p{sc=${script}}`).join("");
  const inScripts = new RegExp(`[${classes}]`, "gu");
  const otherLetter = new RegExp(`[^${classes}\\P{L}]`, "u");
  return (text) => {
    if (!otherLetter.test(text)) return true;
    const letters = text.match(/\p{L}/gu)?.length ?? 0;
    return (text.match(inScripts)?.length ?? 0) * 2 >= letters;
  };
}
