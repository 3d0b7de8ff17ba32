import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliTarget, ROOT, runCli, spawnCli } from "../../helpers.js";

const EXPORT = path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip");

describe.each(["embedded", "remote"] as const)("mnemo import, search and recall (%s)", (mode) => {
  let env: NodeJS.ProcessEnv;
  let stop: () => Promise<void>;
  const mnemo = (args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    ({ env, stop } = await cliTarget(mode));
    const imported = await mnemo(["--json", "import", EXPORT]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ new: 4, failed: 0 });
  });
  afterAll(async () => stop());

  it("a second import changes nothing", async () => {
    const again = await mnemo(["--json", "import", EXPORT]);
    expect(JSON.parse(again.stdout)).toMatchObject({ new: 0, updated: 0, unchanged: 4 });
    expect(JSON.parse((await mnemo(["--json", "chats", "count"])).stdout)).toEqual({ count: 4 });
  });

  it("search finds the passage and shows it with its context", async () => {
    const result = JSON.parse((await mnemo(["--json", "search", "is", "tram", "28", "worth", "it"])).stdout);
    expect(result.results[0].title).toBe("Lisbon long weekend in May");
    expect(result.results[0].text).toMatch(/tram 28/i);
    const human = await mnemo(["search", "tram 28", "-n", "1", "--context", "2"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^1\. Lisbon long weekend in May {2}2024-05-02/);
    // Piped output has no colour: the context is told from the hit by its margin.
    expect(human.stdout).toMatch(/^ {3}(?!┆).*tram 28/im);
    expect(human.stdout).toMatch(/^ {3}┆ \S/m);
    // Every message says who said it, in the hit and in its context.
    expect(human.stdout).toMatch(/^ {3}(you|assistant): \S/m);
    expect(human.stdout).toMatch(/^ {3}┆ (you|assistant): \S/m);
    expect(result.results[0].parts[0]).toMatchObject({ sender: expect.stringMatching(/^(human|assistant)$/) });
    expect(human.stderr).toMatch(/1 result in \d+ ms/);
  });

  it("says nothing is stored on a question about nothing in the history, on search and recall", async () => {
    for (const query of ["zxqv blorptangle frobnicate", "what did my cardiologist say about the stent?"]) {
      const recalled = await mnemo(["recall", query]);
      expect([recalled.code, recalled.stdout]).toEqual([0, "Nothing in your chat history is about this.\n"]);
      expect(JSON.parse((await mnemo(["--json", "recall", query])).stdout)).toMatchObject({ sources: [], model: "none" });
      const searched = await mnemo(["search", query]);
      expect(searched.code).toBe(0);
      expect(searched.stdout).toMatch(
        /^Nothing found about that in your conversations \(\d+ passages? probably unrelated, not shown: --all shows them\)\.\n$/,
      );
      const all = await mnemo(["search", query, "--all", "-n", "2", "-c", "0"]);
      expect(all.stdout).toMatch(/^1\. .* · score 0\.\d\d \(probably unrelated\) · conv_/m);
    }
  });

  it("search and recall only what was said between --from and --to, and say which dates held nothing", async () => {
    const may = JSON.parse((await mnemo(["--json", "search", "tram 28", "--from", "2024-05-01", "--to", "2024-05-31"])).stdout);
    expect(may.results[0].title).toBe("Lisbon long weekend in May");
    // A month given as YYYY-MM is all of it.
    const month = JSON.parse((await mnemo(["--json", "search", "tram 28", "--from", "2024-05", "--to", "2024-05"])).stdout);
    expect(month.results[0].title).toBe("Lisbon long weekend in May");
    const listed = JSON.parse((await mnemo(["--json", "chats", "list", "--from", "2024-05", "--to", "2024-05"])).stdout);
    expect(listed.items.map((item: { title: string }) => item.title)).toEqual(["Lisbon long weekend in May"]);
    const june = await mnemo(["search", "tram 28", "--from", "2024-06", "--to", "2024-06"]);
    expect(june.stdout).toMatch(/^Nothing found about that in your conversations from 2024-06-01 to 2024-06-30( \(.*\))?\.\n$/);
    const recalled = await mnemo(["recall", "is tram 28 worth it?", "--to", "2024-04-30"]);
    expect([recalled.code, recalled.stdout]).toEqual([0, "Nothing in your chat history until 2024-04-30 is about this.\n"]);
    const swapped = await mnemo(["recall", "tram 28", "--from", "2024-05-31", "--to", "2024-05-01"]);
    expect([swapped.code, swapped.stderr]).toEqual([2, expect.stringContaining("--from: 2024-05-31 is after the range's end, 2024-05-01")]);
    const bad = await mnemo(["search", "tram 28", "--to", "May"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--to: must be an ISO 8601 date/)]);
  });

  it("bounds --from and --to on the user's clock, the one it shows times on, not UTC's", async () => {
    // Tram 28 was asked about at 18:25 UTC on 2024-05-02: 06:25 on 2024-05-03 in Auckland.
    const auckland = (args: string[]) => runCli(args, { env: { ...env, TZ: "Pacific/Auckland" } });
    const thatDay = await auckland(["search", "tram 28", "-n", "1", "-c", "0", "--from", "2024-05-03", "--to", "2024-05-03"]);
    expect(thatDay.stdout).toMatch(/^1\. Lisbon long weekend in May {2}2024-05-03 06:2\d/);
    const dayBefore = await auckland(["recall", "is tram 28 worth it?", "--from", "2024-05-02", "--to", "2024-05-02"]);
    expect([dayBefore.code, dayBefore.stdout]).toEqual([0, "Nothing in your chat history from 2024-05-02 to 2024-05-02 is about this.\n"]);
  });

  it("recall prints a cited summary and its numbered sources", async () => {
    const result = JSON.parse(
      (await mnemo(["--json", "recall", "how", "do", "I", "get", "from", "the", "airport", "to", "Alfama?", "--max-tokens", "300"])).stdout,
    );
    expect(result.content).toContain("airport");
    expect(result.tokenCount).toBeLessThanOrEqual(300);
    expect(result.sources[0]).toMatchObject({ conversationTitle: "Lisbon long weekend in May" });
    const human = await mnemo(["recall", "airport to Alfama", "--max-tokens", "200"]);
    expect(human.stdout).toMatch(/\[1\] Lisbon long weekend in May · 2024-05-02[^·]* · (you|assistant) · /);
    expect((await mnemo(["recall", "airport to Alfama", "--max-tokens", "5"])).stderr).toMatch(
      /Nothing fits in 5 tokens: raise --max-tokens/,
    );
    const about = await mnemo(["recall", "getting around", "--about", "we land at the airport in Lisbon", "--max-tokens", "200"]);
    expect([about.code, about.stdout]).toEqual([0, expect.stringMatching(/Lisbon long weekend in May/)]);
    const tooLong = await mnemo(["recall", "x", "--about", "y".repeat(8_001)]);
    expect([tooLong.code, tooLong.stderr]).toEqual([2, expect.stringMatching(/^✖ --about: /m)]);
  });

  it("refuses bad parameters with exit 2, naming the flag", async () => {
    const tokens = await mnemo(["recall", "x", "--max-tokens", "2001"]);
    expect(tokens.code).toBe(2);
    expect(tokens.stderr).toMatch(/^✖ --max-tokens: must be at most 2000/m); // the API's field is maxTokens
    const provider = await mnemo(["search", "x", "--provider", "myspace"]);
    expect(provider.code).toBe(2);
    expect(provider.stderr).toMatch(/--provider: no conversations from platform "myspace"/);
    expect(provider.stderr).toMatch(/→ Use "all" or one of: chatgpt\./); // the fix, through a server too
    const limit = await mnemo(["search", "x", "--limit", "101"]);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/--limit: must be 1 to 100/);
    expect((await mnemo(["chats", "list", "--page-size", "101"])).stderr).toMatch(/^✖ --page-size: must be at most 100/m);
    for (const args of [
      ["recall", ""],
      ["search", "   "],
    ]) {
      const empty = await mnemo(args);
      expect([empty.code, empty.stderr], args.join(" ")).toEqual([
        2,
        expect.stringMatching(/^✖ query: must not be empty\n\s*→ Say what to look for: a few words or a question/m),
      ]);
    }
  });

  it("a command that fails while its model is still loading exits with its own code, every time", async () => {
    // Terminating the model's worker under ONNX Runtime aborted about one such run in three (exit 134):
    // the end of a process with the model loading in it is the subject, so each embedded run is a
    // process of its own, four at a time: most of a run's wall time is its model loading, which it
    // waits for before it ends. Through a server, the model loads in the server, and a run is in this process.
    const search = () => (mode === "embedded" ? spawnCli : runCli)(["search", "x", "--provider", "myspace"], { env });
    for (let round = 0; round < (mode === "embedded" ? 2 : 8); round++) {
      const results = await Promise.all(Array.from({ length: mode === "embedded" ? 4 : 1 }, search));
      for (const result of results) expect(result.code, result.stderr).toBe(2);
    }
  });

  // Last, as it stops the server: through the remote mode's, rather than one more.
  if (mode === "remote") {
    it("serve serves with the token it wrote; a wrong token and a stopped server are clear errors", async () => {
      const ok = await mnemo(["--json", "buckets"]);
      expect(ok.code, ok.stderr).toBe(0);
      const wrong = await runCli(["buckets"], { env: { ...env, MNEMO_TOKEN: "mnemo_wrong" } });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/Invalid API token/);
      expect(wrong.stderr).toMatch(/--token or MNEMO_TOKEN/);
      await stop();
      const down = await mnemo(["buckets"]);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/Cannot reach the mnemo server/);
    });
  }
});

describe.each(["embedded", "remote"] as const)("search and recall before anything is imported (%s)", (mode) => {
  it("say that nothing is imported yet and what to run, not that nothing is about the question", async () => {
    const { env, stop } = await cliTarget(mode);
    try {
      for (const command of ["search", "recall"]) {
        const result = await runCli([command, "what did we plan for Lisbon?"], { env });
        if (mode === "remote") {
          expect(result.code, result.stderr).toBe(0);
          expect(result.stdout).toMatch(/no conversations to search yet: import .*`mnemo import <export>`/);
        } else {
          // No store yet (the server above made its own): one that only reads makes none, and says what does.
          expect(result.code, result.stderr).toBe(1);
          expect(result.stderr).toMatch(/No store at .*: nothing is imported or remembered there yet/);
          expect(result.stderr).toMatch(/`mnemo import <export>` or `mnemo remember <text>` starts one there/);
        }
      }
    } finally {
      await stop();
    }
  });
});
