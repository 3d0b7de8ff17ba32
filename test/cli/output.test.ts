import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { forTerminal, inertJson } from "../../src/cli/output.js";

describe("forTerminal", () => {
  it("keeps the CLI's own colours but drops a stored style that hides text (concealed, black on black)", () => {
    const style = new Chalk({ level: 1 });
    const line = `${style.bold.yellow("tram")} ${style.dim("·")} ${style.red("✖")} stored \u001b[8mhidden\u001b[30;40m black\u001b[0m`;
    const shown = forTerminal(line);
    expect(shown).toContain(style.bold.yellow("tram"));
    expect(shown).toContain(style.red("✖"));
    expect(shown).toContain("stored hidden black");
    expect(shown).not.toMatch(/\u001b\[(8|30;40|0)m/);
  });

  it("without colour leaves no escape at all, a stored colour neither", () => {
    expect(forTerminal("a \u001b[31mred\u001b[39m and \u009b2J\u202eb", false)).toBe("a red and 2Jb");
  });
});

describe("inertJson", () => {
  it("writes C1 controls and direction overrides as escapes a parser reads back unchanged", () => {
    const value = { text: "x\u009b2J \u202eevil\u2066 é \u0085" };
    const json = inertJson(JSON.stringify(value));
    expect(json).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
