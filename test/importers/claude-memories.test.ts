// Claude's memory files (memories.json, projects.json, and the 2026 memories/ and projects/ folders)
// read into memories: a memory per section, the projects' instructions and knowledge, their dates.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PART_CHARS, parts, sections } from "../../src/importers/claude/memories.js";
import { openExport, type ExportMemory } from "../../src/importers/index.js";
import { tempDir } from "../temp-dirs.js";
import { fixtures } from "./collect.js";

/** What an export holds: its conversations' titles, its memories, and what it left out. */
async function read(path: string) {
  const reader = await openExport(path);
  const titles: string[] = [];
  for await (const conversation of reader.conversations()) titles.push(conversation.conversation.title);
  const memories: ExportMemory[] = [];
  for await (const memory of reader.memories()) memories.push(memory);
  return { format: reader.format, titles, memories, skipped: reader.skipped(), memoryFiles: reader.memoryFiles };
}

const labels = (memories: ExportMemory[]) =>
  memories.map((memory) => `${memory.bucket.name} | ${memory.label}${memory.aside === undefined ? "" : ` (${memory.aside})`}`);
const folder = join(fixtures, "claude-memories");

describe("Claude's memories and projects", () => {
  it("the export's memory a memory per section, its projects' memories by their names, and the projects' instructions and knowledge", async () => {
    const { format, titles, memories, skipped, memoryFiles } = await read(folder);
    expect([format, titles, memoryFiles]).toEqual(["claude", ["Broa de milho hydration"], 2]);
    expect(labels(memories)).toEqual([
      `Claude memories | Claude's memory (account 5d2e8f1a), "Work context"`,
      `Claude memories | Claude's memory (account 5d2e8f1a), "Personal context"`,
      `Claude memories | Claude's memory (account 5d2e8f1a), "Top of mind"`,
      `Claude memories | Claude's memory (account 5d2e8f1a), "Brief history, Recent months"`,
      `Claude memories | Claude's memory (account 5d2e8f1a), "Brief history, Earlier context"`,
      `Claude memories | Claude's memory (account 5d2e8f1a), "Brief history, Long-term background"`,
      `Claude memories | Claude's memory of project 0199a1b2, "Purpose & context" (Fermento do Porto)`,
      `Claude memories | Claude's memory of project 0199a1b2, "Current state" (Fermento do Porto)`,
      `Claude memories | Claude's memory of project 9f8e7d6c`, // a project the export no longer lists: no name
      `Claude projects | Claude project 0199a1b2 (Fermento do Porto)`,
      `Claude projects | Claude project 0199a1b2, knowledge file "menu.md" (Fermento do Porto)`,
      `Claude projects | Claude project 0199a1b2, knowledge file "opening-checklist.md", part 1 of 2 (Fermento do Porto)`,
      `Claude projects | Claude project 0199a1b2, knowledge file "opening-checklist.md", part 2 of 2 (Fermento do Porto)`,
    ]); // the empty project, the empty file and the starter project hold nothing of the user's
    expect(skipped).toEqual([
      { file: join(folder, "projects.json"), reason: "Claude's starter project (its example, not yours)", count: 1 },
    ]);
    expect(memories[0]!.text).toMatch(/^Rui is opening Fermento do Porto, a small sourdough bakery/);
    expect(memories[9]!.text).toBe(
      "Opening plan for the bakery\n\nInstructions:\nYou help me run a small sourdough bakery in Porto. Answer in metric units, keep it short, and price everything in euros with VAT at 6 %.",
    );
  });

  it("dates: the memory file's own time (it carries none), a project's last change, a knowledge file's upload", async () => {
    const { memories } = await read(folder);
    const fileTime = statSync(join(folder, "memories.json")).mtime.toISOString();
    expect(memories[0]!.date).toBe(fileTime);
    expect(memories[9]!.date).toBe("2025-05-18T21:30:00.000Z");
    expect(memories[10]!.date).toBe("2025-03-02T11:00:00.000Z");
  });

  it("the 2026 layout: memories/<account>.json and projects/<uuid>.json, one object each, and memory files with their times", async () => {
    const { format, titles, memories } = await read(join(fixtures, "claude-memories-2026"));
    expect([format, titles]).toEqual(["claude", []]);
    expect(memories.map((memory) => [memory.label, memory.aside, memory.date.slice(0, 10)])).toEqual([
      [`Claude's memory (account 7e1d2c3b), "Work context"`, undefined, expect.any(String)],
      [`Claude's memory (account 7e1d2c3b), "Top of mind"`, undefined, expect.any(String)],
      ["Claude's memory of project 019a0b1c", "Allotment", expect.any(String)], // named by projects/, another folder
      ["Claude's memory (account 7e1d2c3b), file /profile.md", undefined, "2026-05-02"],
      ["Claude's memory (account 7e1d2c3b), file /preferences.md", undefined, "2026-05-03"],
      ["Claude project 019a0b1c", "Allotment", "2026-04-20"],
      [`Claude project 019a0b1c, knowledge file "sowing.csv"`, "Allotment", "2026-02-02"],
    ]);
    expect(memories[3]!.text).toBe(
      "- Prefers metric units\n- Lives in Coimbra (Portugal, UTC+0/+1)\n- Reads papers in English, writes notes in Portuguese",
    );
  });

  it("memories.json alone is read, not refused as a side file; a memory without sections is one memory", async () => {
    const alone = await read(join(fixtures, "claude-2026", "memories.json"));
    expect([alone.format, alone.titles]).toEqual(["claude", []]);
    expect(alone.memories.map((memory) => [memory.label, memory.text])).toEqual([
      ["Claude's memory", "Rui is opening a sourdough bakery in Porto."],
    ]);
    const zip = await read(join(fixtures, "claude-2026-export.zip"));
    expect(zip.titles.length).toBeGreaterThan(0);
    expect(zip.memories).toHaveLength(1);
  });

  it("a project with a description alone (its caption) holds no memory", async () => {
    const { format, memories } = await read(join(fixtures, "claude", "projects.json"));
    expect([format, memories]).toEqual(["claude", []]);
  });

  it("a projects.json cut short: the projects before the cut are read, the one cut named", async () => {
    const whole = readFileSync(join(folder, "projects.json"), "utf8");
    const cut = join(tempDir(), "projects.json");
    writeFileSync(cut, whole.slice(0, whole.indexOf('"filename": "opening-checklist.md"')));
    const problems: string[] = [];
    const reader = await openExport(cut, { onUnreadable: (problem) => problems.push(problem.message) });
    const memories: ExportMemory[] = [];
    for await (const memory of reader.memories()) memories.push(memory);
    expect(memories).toEqual([]); // the starter project, then the cut one
    expect(problems).toEqual([expect.stringMatching(/projects\.json, record 2: invalid JSON at byte \d+ .*unexpected end of file/)]);
  });

  it("users.json alone is still named, with what to pass instead", async () => {
    await expect(openExport(join(folder, "users.json"))).rejects.toThrow(
      /this is Claude's users\.json \(the account's details\), not the conversations/,
    );
  });
});

describe("sections and parts of a memory's text", () => {
  it("a bold line starts a section, an italic line a sub-section; a bold sentence is text", () => {
    const text =
      "Intro line.\n\n**Work context**\nWorks at a bakery.\n\n**Brief history**\n*Recent months*\nOpened.\n\n**This whole line is bold text.**\nStill work.";
    expect(sections(text)).toEqual([
      { heading: "", text: "Intro line." },
      { heading: "Work context", text: "Works at a bakery." },
      { heading: "Brief history, Recent months", text: "Opened.\n\n**This whole line is bold text.**\nStill work." },
    ]);
  });

  it("a long text is cut between paragraphs, a paragraph too long between lines, a line too long anywhere but inside an emoji", () => {
    const paragraph = "word ".repeat(300).trim(); // 1,499 characters
    const cut = parts([paragraph, paragraph, paragraph, paragraph].join("\n\n"));
    expect(cut.map((part) => part.length)).toEqual([paragraph.length * 2 + 2, paragraph.length * 2 + 2]);
    const emoji = `${"a".repeat(PART_CHARS - 1)}😀${"b".repeat(10)}`;
    const pieces = parts(emoji);
    expect(pieces.join("")).toBe(emoji);
    expect(pieces.every((piece) => piece.isWellFormed() && piece.length <= PART_CHARS)).toBe(true);
  });
});
