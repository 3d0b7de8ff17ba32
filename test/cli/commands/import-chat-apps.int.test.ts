// TypingMind, Chatbot UI, SillyTavern, LM Studio and Google AI Studio through the CLI's own program:
// each export imports as the conversations a person expects, search finds their text, recall cites it.
// (Every format through the CLI, the REST upload and the web page: the parametrised test of every fixture.)
// Each command opens the store and embeds with the bundled model: seconds each on a loaded machine.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv, ROOT, runCli, serveStore, tempDir } from "../../helpers.js";

const EXPORTS = path.join(ROOT, "fixtures", "exports");
const FILES = ["typingmind-export.zip", "chatbot-ui", "sillytavern", "lmstudio/conversations", "aistudio-drive.zip"].map((file) =>
  path.join(EXPORTS, file),
);

interface Summary {
  new: number;
  unchanged: number;
  failed: number;
  files: { path: string; format: string | null; conversations: number }[];
}

describe("mnemo import of TypingMind, Chatbot UI, SillyTavern, LM Studio and Google AI Studio", () => {
  const env = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
  const mnemo = (args: string[]) => runCli(args, { env });
  let summary: Summary;

  beforeAll(async () => {
    const imported = await mnemo(["--json", "import", ...FILES]);
    expect(imported.code, imported.stderr).toBe(0);
    summary = JSON.parse(imported.stdout) as Summary;
  });

  it("imports the conversations each export holds, under each app's platform, and again adds nothing", async () => {
    expect(summary.files.map((file) => [file.format, file.conversations])).toEqual([
      ["typingmind", 2],
      ["chatbot-ui", 4],
      ["sillytavern", 3],
      ["lmstudio", 2],
      ["aistudio", 3],
    ]);
    expect(summary).toMatchObject({ new: 14, failed: 0 });
    const counts: Record<string, number> = {};
    for (const platform of ["typingmind", "chatbot-ui", "sillytavern", "lmstudio", "aistudio"]) {
      const list = JSON.parse((await mnemo(["--json", "chats", "list", "--provider", platform])).stdout) as { total: number };
      counts[platform] = list.total;
    }
    expect(counts).toEqual({ typingmind: 2, "chatbot-ui": 4, sillytavern: 3, lmstudio: 2, aistudio: 3 });
    const again = JSON.parse((await mnemo(["--json", "import", ...FILES])).stdout) as Summary;
    expect(again).toMatchObject({ new: 0, unchanged: 14, failed: 0 });
  });

  it.each([
    ["lamp oil crates lighthouse", "Mirela - 2024-05-01@12h30m15s"],
    ["HashMap entry or_insert_with closure", "Borrow checker and the cache struct"],
    ["passage plan leaving at 05:30 Goulet ebb", "Tides in Brest"],
    ["regex UK postcodes GIR 0AA", "Regex for UK postcodes"],
    ["chain skips on the smallest cogs", "Bike chain skipping"],
  ])("search finds %j in %s", async (query, title) => {
    const result = JSON.parse((await mnemo(["--json", "search", query])).stdout) as { results: { title: string }[] };
    expect(result.results[0]?.title).toBe(title);
  });

  it("recall cites the conversation the answer came from", async () => {
    const result = JSON.parse(
      (await mnemo(["--json", "recall", "what tyre pressure for a 28 mm road tyre?", "--max-tokens", "300"])).stdout,
    );
    expect(result.content).toMatch(/5\.5 bar/);
    expect(result.sources[0]).toMatchObject({ conversationTitle: "Tyre pressure" });
  });
});

describe("a lone chat file through a server's upload endpoint", () => {
  it("keeps the name it was uploaded under (SillyTavern and AI Studio name a chat by its file): the chat read from the folder is found again", async () => {
    const served = await serveStore();
    try {
      const mnemo = (args: string[]) => runCli(args, { env: served.env });
      const folders = [path.join(EXPORTS, "sillytavern"), path.join(EXPORTS, "aistudio", "Google AI Studio")];
      expect(JSON.parse((await mnemo(["--json", "import", ...folders])).stdout)).toMatchObject({ new: 6, failed: 0 });
      const files = [
        path.join(EXPORTS, "sillytavern", "chats", "Mirela", "Mirela - 2024-05-01@12h30m15s.jsonl"),
        path.join(EXPORTS, "aistudio", "Google AI Studio", "Tides in Brest"),
      ];
      const uploaded = JSON.parse((await mnemo(["--json", "import", ...files])).stdout) as Summary;
      expect(uploaded).toMatchObject({ new: 0, unchanged: 2, failed: 0 });
      const titles = JSON.parse((await mnemo(["--json", "chats", "list", "--page-size", "50"])).stdout).items.map(
        (i: { title: string }) => i.title,
      );
      expect(titles).toEqual(expect.arrayContaining(["Mirela - 2024-05-01@12h30m15s", "Tides in Brest"]));
      expect(titles).toHaveLength(6);
    } finally {
      await served.stop();
    }
  });
});
