// `mnemo import` of the text formats (the ChatGPT Exporter's Markdown, Markdown transcripts) and of
// the memories an export holds (Claude's), on this machine's store and through a server (whose
// upload endpoint then reads the file): the summary, search and recall, and a second import.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliTarget, ROOT, runCli, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");

// One store (or server) per mode for both groups: the transcripts' tests run first, and what they
// import holds no memories; a server of its own for each group started another process and model.
describe.each(["embedded", "remote"] as const)("mnemo import of transcripts and of an export's memories (%s)", (mode) => {
  let env: NodeJS.ProcessEnv;
  let stop: () => Promise<void>;
  const mnemo = (args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    ({ env, stop } = await cliTarget(mode));
  });
  afterAll(async () => stop());

  describe("mnemo import of Markdown transcripts", () => {
    const paths = [path.join(EXPORTS, "chatgpt-exporter-markdown.zip"), path.join(EXPORTS, "markdown", "user-assistant.md")];

    it("imports each under its app's platform, and a second import changes nothing", async () => {
      const first = await mnemo(["--json", "import", ...paths]);
      expect(first.code, first.stderr).toBe(0);
      const summary = JSON.parse(first.stdout);
      expect(summary.files.map((file: { format: string; conversations: number }) => [file.format, file.conversations])).toEqual([
        ["chatgpt-exporter", 2],
        ["markdown", 1],
      ]);
      expect(summary).toMatchObject({ new: 3, failed: 0, skipped: [] });
      const chatgpt = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", "chatgpt"])).stdout);
      expect(chatgpt.items.map((item: { title: string }) => item.title).sort()).toEqual(["Sourdough Starter Rescue", "Tram 28 in Lisbon"]);
      const markdown = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", "markdown"])).stdout);
      expect(markdown.items.map((item: { title: string }) => item.title)).toEqual(["Terrarium humidity for a ball python"]);
      const again = JSON.parse((await mnemo(["--json", "import", ...paths])).stdout);
      expect(again).toMatchObject({ new: 0, updated: 0, unchanged: 3 });
    });

    it("search finds a transcript's text and recall cites it", async () => {
      const found = JSON.parse((await mnemo(["--json", "search", "hygrometer", "at", "the", "cool", "end"])).stdout);
      expect(found.results[0]).toMatchObject({ title: "Terrarium humidity for a ball python" });
      expect(found.results[0].text).toMatch(/hygrometer/);
      const recalled = JSON.parse(
        (await mnemo(["--json", "recall", "grey", "hooch", "on", "my", "rye", "starter", "--max-tokens", "300"])).stdout,
      );
      expect(recalled.content).toMatch(/hooch/);
      expect(recalled.sources.map((source: { conversationTitle: string }) => source.conversationTitle)).toContain(
        "Sourdough Starter Rescue",
      );
    });

    it("a note that is no transcript is refused, saying what a transcript needs", async () => {
      const note = await mnemo(["import", path.join(EXPORTS, "markdown", "notes-not-a-chat.md")]);
      expect(note.code).toBe(1);
      expect(note.stderr).toMatch(/notes-not-a-chat\.md: not a supported chat export \(it is text, not JSON, and no chat transcript/);
      expect(note.stderr).toMatch(/A Markdown transcript is a \.md or \.txt file of one chat, its speakers as headings/);
    });
  });

  describe("mnemo import of the memories in a Claude export", () => {
    const zip = path.join(EXPORTS, "claude-memories-export.zip");

    it("says how many memories the export held and where they went, beside its conversations", async () => {
      const first = await mnemo(["import", zip]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain("Imported 1 new conversation\n");
      expect(first.stderr).toContain('Imported 13 new memories, in "Claude memories" and "Claude projects"');
      expect(first.stderr).toContain("1 × Claude's starter project (its example, not yours)");
      const listed = JSON.parse((await mnemo(["--json", "memories", "--bucket", "Claude memories", "--all"])).stdout);
      expect(listed.memories).toHaveLength(9);
      expect(listed.memories.map((memory: { text: string }) => memory.text.slice(11))).toContain(
        'Claude\'s memory (account 5d2e8f1a), "Top of mind": The opening is set for 14 June 2025. He is testing a broa de milho recipe and deciding how many loaves to bake on the first day.',
      );
    });

    it("importing it again adds nothing, and --json counts them", async () => {
      const human = await mnemo(["import", zip]);
      expect(human.stderr).toContain('Nothing new: all 13 memories were already imported, in "Claude memories" and "Claude projects"');
      const again = await mnemo(["--json", "import", zip]);
      const summary = JSON.parse(again.stdout);
      expect(summary.memories).toEqual({ new: 0, updated: 0, unchanged: 13, failed: 0, buckets: ["Claude memories", "Claude projects"] });
      expect(summary.files).toMatchObject([{ format: "claude", conversations: 1, memories: 13 }]);
      const all = JSON.parse((await mnemo(["--json", "memories", "--all", "--count", "1000"])).stdout);
      expect(all.memories).toHaveLength(13);
    });

    it("a memory file cut short: what it holds before the cut is stored, the record cut named, and the exit code says so", async () => {
      const whole = fs.readFileSync(
        path.join(EXPORTS, "claude-memories-2026", "projects", "019a0b1c-2d3e-7f40-8152-63748596a7b8.json"),
        "utf8",
      );
      const cut = path.join(tempDir(), "projects.json");
      fs.writeFileSync(cut, `[${whole.trim()}, ${whole.slice(0, 200)}`);
      const result = await mnemo(["import", cut]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Imported 2 new memories, in "Claude projects"; 1 not read');
      expect(result.stderr).toMatch(/projects\.json, record 2: invalid JSON at byte \d+ .*unexpected end of file/);
      expect(result.stderr).not.toMatch(/conversation/);
    });

    it("memories.json alone: its memories, and no line about conversations it never held", async () => {
      const alone = await mnemo(["import", path.join(EXPORTS, "claude-2026", "memories.json")]);
      expect(alone.code, alone.stderr).toBe(0);
      expect(alone.stderr).toContain('Imported 1 new memory, in "Claude memories"');
      expect(alone.stderr).not.toMatch(/conversation/);
    });
  });
});
