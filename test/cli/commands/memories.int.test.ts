import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CAPTIONER } from "../../../src/providers/workers/local-models.js";
import { hubModelDir } from "../../../src/providers/transformers/model-files.js";
import { cliTarget, isolatedEnv, openTestApp, ROOT, runCli, spawnCli, tempDir, TINY_BERT, TINY_CAPTIONER } from "../../helpers.js";

interface Listed {
  memories: {
    id: string;
    text: string;
    score?: number;
    content_type?: string;
    image_description?: string;
    image_url?: string;
    metadata: { bucketId: number; bucketName: string };
  }[];
}

// The same commands and the same expectations against the embedded store and, with --remote
// (MNEMO_URL), against a running `mnemo serve`.
describe.each(["embedded", "remote"] as const)("mnemo CLI: memories (%s)", (mode) => {
  let env: NodeJS.ProcessEnv;
  let modelsDir: string;
  let stop: () => Promise<void>;
  const mnemo = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });
  const json = async <T>(args: string[], input?: string): Promise<T> => {
    const result = await mnemo(["--json", ...args], input);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    ({ env, modelsDir, stop } = await cliTarget(mode));
    const first = await mnemo(["remember", "My dog Biscuit loves swimming at the beach"]);
    expect(first.code, first.stderr).toBe(0);
  });
  afterAll(async () => stop());

  it("a bad or unknown id is named as given, and the fix names the command that lists them, not an API route", async () => {
    const bad = await mnemo(["memories", "move", "mem_nope", "--to", "Work"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^✖ mem_nope is not a memory id/);
    const unknown = await mnemo(["memories", "history", "mem_01M8KP0E1DQAB30K0688Z14J19"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("`mnemo memories`");
    const chat = await mnemo(["chats", "show", "conv_01M8KP0E1DQAB30K0688Z14J19"]);
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain("`mnemo chats list`");
    for (const { stderr } of [bad, unknown, chat]) expect(stderr).not.toMatch(/\/api\/|memoryId/);
  });

  it("--help lists the commands and exits 0; unknown commands exit 2", async () => {
    const help = await mnemo(["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["remember", "memories", "buckets", "reindex"]) expect(help.stdout).toContain(command);
    expect((await mnemo(["reindex", "--help"])).stdout).toMatch(/Global Options:[\s\S]*--embedder <spec>/);
    expect((await mnemo(["frobnicate"])).code).toBe(2);
    expect((await mnemo(["memories", "--bogus"])).code).toBe(2);
    const both = await mnemo(["memories", "--all", "--query", "dog"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("'-a, --all' cannot be used with option '-q, --query <text>'");
  });

  it("remembers a long memory given as an argument (ONNX Runtime overflowed the model worker's stack)", async () => {
    const long = "lorem ipsum dolor sit amet ".repeat(700).slice(0, 15_000).trim();
    const result = await mnemo(["remember", "--no-date", long]);
    expect(result.code, result.stderr).toBe(0);
  });

  it("remember prepends today's date unless --no-date, and prints the id", async () => {
    const today = new Date();
    const stamp = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${String(today.getDate()).padStart(2, "0")}`;
    const { memoryId } = await json<{ done: string; memoryId: string }>(["remember", "I", "am", "allergic", "to", "peanuts"]);
    const plain = await mnemo(["remember", "--no-date", "Rent is due on the first"]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/Remembered mem_/);
    const listed = await json<Listed>(["memories", "--count", "2"]);
    expect(listed.memories.map((m) => m.text)).toEqual(["Rent is due on the first", `${stamp} I am allergic to peanuts`]);
    expect(listed.memories[1]!.id).toBe(memoryId);
    // stdout is a pipe here, as in id=$(mnemo remember …): it gets the id alone.
    expect(plain.stdout).toBe(`${listed.memories[0]!.id}\n`);
    // The date once: in the text when it starts with it, else in the CREATED column.
    const table = (await mnemo(["memories", "--count", "2"])).stdout.split("\n");
    expect(table.find((line) => line.includes("allergic"))!.split(stamp)).toHaveLength(2);
    expect(table.find((line) => line.includes("Rent is due"))!).toContain(stamp);
  });

  it("reads stdin with -, one memory or one per line", async () => {
    expect((await mnemo(["remember", "--no-date", "-"], "My sister lives in Porto\n")).code).toBe(0);
    const lines = await json<{ memoryIds: string[] }>(
      ["remember", "--no-date", "--lines", "-"],
      "window seats please\n\nvegetarian since 2019\n",
    );
    expect(lines.memoryIds).toHaveLength(2);
    const more = await mnemo(["remember", "--no-date", "--lines", "-"], "aisle seats on trains\nno cilantro\n");
    expect(more.stdout.trim().split("\n")).toEqual([expect.stringMatching(/^mem_/), expect.stringMatching(/^mem_/)]);
    const latest = await json<Listed>(["memories", "-n", "5"]);
    expect(latest.memories.map((m) => m.text)).toEqual([
      "no cilantro",
      "aisle seats on trains",
      "vegetarian since 2019",
      "window seats please",
      "My sister lives in Porto",
    ]);
    // A bad line is named by its line of the input (blank lines count), and none of the lines is stored.
    const tooLong = await mnemo(["remember", "--no-date", "--lines", "-"], `one\n\ntwo\n${"x".repeat(20_001)}\nthree\n`);
    expect([tooLong.code, tooLong.stderr]).toEqual([
      2,
      expect.stringMatching(/line 4: must be at most 20000 characters\n.*Split the text into several memories/),
    ]);
    const one = await mnemo(["remember", "x".repeat(20_001)]);
    expect([one.code, one.stderr]).toEqual([
      2,
      expect.stringMatching(/text: must be at most 20000 characters\n.*Split the text into several memories/),
    ]);
    expect((await json<Listed>(["memories", "-n", "1"])).memories.map((m) => m.text)).toEqual(["no cilantro"]);
  });

  it("says when it is the date that takes a text past 20,000 characters, and stores one the date fits", async () => {
    const over = await mnemo(["remember", "-"], "y".repeat(19_990));
    expect([over.code, over.stderr]).toEqual([
      2,
      expect.stringMatching(
        /text: is 19,990 characters, and its date \(11 more\) takes it past the 20,000 a memory holds\n.*Shorten it to 19,989 characters, store it without the date \(--no-date\)/,
      ),
    ]);
    const fits = await json<{ memoryId: string }>(["remember", "-"], "y".repeat(19_989));
    const [stored] = (await json<Listed>(["memories", "-n", "1"])).memories;
    expect([stored!.id, stored!.text.length]).toEqual([fits.memoryId, 20_000]);
    const edited = await mnemo(["memories", "edit", fits.memoryId, "-"], "z".repeat(19_990));
    expect([edited.code, edited.stderr]).toEqual([2, expect.stringMatching(/text: is 19,990 characters, and its date \(11 more\)/)]);
    expect((await mnemo(["memories", "edit", "--no-date", fits.memoryId, "-"], "z".repeat(19_990))).code).toBe(0);
  });

  it("finds a memory by meaning", async () => {
    const result = await json<Listed>(["memories", "--query", "what pet do I have?"]);
    expect(result.memories[0]!.text).toMatch(/dog Biscuit/);
    expect(result.memories[0]!.score).toBeGreaterThan(0);
    const table = await mnemo(["memories", "--query", "where does my sibling live"]);
    expect(table.stdout.split("\n")[1]).toMatch(/sister lives in Porto/);
  });

  it("lists the memories stored between two dates (--from, --to), as the API and MCP filter them", async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect((await json<Listed>(["memories", "--from", today])).memories.length).toBeGreaterThan(0);
    expect((await json<Listed>(["memories", "--to", "2025-12-31"])).memories).toEqual([]);
    const bad = await mnemo(["memories", "--from", "2025-02-30"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--from: must be an ISO 8601 date/)]);
    // None in the range is said as such, not "No memories yet" of a store that holds some.
    expect((await mnemo(["memories", "--to", "2025-12-31"])).stderr).toMatch(/^No memories stored on or before 2025-12-31\.$/m);
    // A range that ends before it starts holds nothing: refused, with the fix, rather than answered empty.
    const swapped = await mnemo(["memories", "--from", today, "--to", "2025-12-31"]);
    expect([swapped.code, swapped.stderr]).toEqual([
      2,
      expect.stringContaining(`--from: ${today} is after the range's end, 2025-12-31: nothing lies between them\n  → Swap the two dates.`),
    ]);
  });

  it("rejects bad input with a message naming the problem and exit 2", async () => {
    const empty = await mnemo(["remember", " "]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/text: must not be empty/);
    const count = await mnemo(["memories", "--count", "0"]);
    expect(count.code).toBe(2);
    expect(count.stderr).toMatch(/--count/);
    const exponent = await mnemo(["memories", "--count", "1e2"]);
    expect([exponent.code, exponent.stderr]).toEqual([
      2,
      expect.stringMatching(/--count: must be a whole number of at least 1, not "1e2"/),
    ]);
    const badId = await mnemo(["memories", "edit", "not-an-id", "new text"]);
    expect(badId.code).toBe(2);
    expect(badId.stderr).toMatch(/not-an-id is not a memory id/);
    const unknownBucket = await mnemo(["remember", "--bucket", "Nowhere", "x"]);
    expect(unknownBucket.code).toBe(1);
    expect(unknownBucket.stderr).toMatch(/mnemo buckets create "Nowhere"/);
  });

  it("edits, moves, shows history and deletes", async () => {
    const { memoryId } = await json<{ memoryId: string }>(["remember", "--no-date", "Flight to Lisbon on June 3"]);
    expect((await mnemo(["memories", "edit", memoryId, "Flight", "to", "Lisbon", "on", "June", "4"])).code).toBe(0);
    const moved = await json<{ memory: { bucketId: number; version: number } }>(["memories", "move", memoryId, "--to", "Travel"]);
    expect(moved.memory.version).toBe(3);
    const buckets = await json<{ id: string; name: string; memoryCount: number }[]>(["buckets"]);
    expect(buckets.find((b) => b.name === "Travel")).toMatchObject({ id: String(moved.memory.bucketId), memoryCount: 1 });
    const history = await json<{ versions: { version: number; text: string }[] }>(["memories", "history", memoryId]);
    expect(history.versions.map((v) => v.text)).toEqual([
      "Flight to Lisbon on June 3",
      "Flight to Lisbon on June 4",
      "Flight to Lisbon on June 4",
    ]);
    expect((await mnemo(["memories", "history", memoryId])).stdout).toMatch(/^\s*3 .* Travel +Flight to Lisbon on June 4$/m);

    const refused = await mnemo(["memories", "delete", memoryId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect((await json<Listed>(["memories", "--bucket", "Travel"])).memories).toHaveLength(1);
    expect((await mnemo(["--yes", "memories", "delete", memoryId])).code).toBe(0);

    // A dated memory edited keeps its date, unless the new text has one or --no-date says not to.
    const dated = await json<{ memoryId: string }>(["remember", "My dog Biscuit is a golden retriever"]);
    const day = /^\d{4}-\d{2}-\d{2} /;
    const textOf = async () =>
      (await json<{ versions: { text: string }[] }>(["memories", "history", dated.memoryId])).versions.at(-1)!.text;
    const [today] = (await textOf()).match(day)!;
    expect((await mnemo(["memories", "edit", dated.memoryId, "My dog Biscuit is a 4-year-old golden retriever"])).code).toBe(0);
    expect(await textOf()).toBe(`${today}My dog Biscuit is a 4-year-old golden retriever`);
    expect((await mnemo(["memories", "edit", dated.memoryId, "2020-01-01 Biscuit was a puppy"])).code).toBe(0);
    expect(await textOf()).toBe("2020-01-01 Biscuit was a puppy");
    expect((await mnemo(["memories", "edit", "--no-date", dated.memoryId, "Biscuit is a dog"])).code).toBe(0);
    expect(await textOf()).toBe("Biscuit is a dog");
    expect((await json<Listed>(["memories", "--bucket", "Travel"])).memories).toHaveLength(0);
  });

  it("refuses an edit to text that shows nothing, dated or not, and the memory keeps its text", async () => {
    const { memoryId } = await json<{ memoryId: string }>(["remember", "The spare key is under the blue pot"]);
    const history = () => json<{ total: number; versions: { text: string }[] }>(["memories", "history", memoryId]);
    const before = await history();
    for (const [args, input] of [[[""]], [["   "]], [["\u200b"]], [["-"], ""], [["-"], "\n\u200f\n"]] as [string[], string?][]) {
      for (const flags of [[], ["--no-date"]]) {
        const edit = await mnemo(["memories", "edit", ...flags, memoryId, ...args], input);
        expect(edit.code, `${JSON.stringify(args)} ${flags}`).toBe(2);
        expect(edit.stderr).toMatch(/text: must not be empty/);
      }
    }
    expect(await history()).toEqual(before);
  });

  it("moves several memories at once and fails whole on an unknown id", async () => {
    const a = await json<{ memoryId: string }>(["remember", "first to move"]);
    const b = await json<{ memoryId: string }>(["remember", "second to move"]);
    const moved = await json<{ updated: number }>(["memories", "move", a.memoryId, b.memoryId, "--to", "Boxed"]);
    expect(moved.updated).toBe(2);
    // Said by name (b is in Boxed already: 1 of 2 moved), and a bucket made by the move is said to be new.
    expect((await mnemo(["memories", "move", a.memoryId, "--to", "Shelved"])).stderr).toMatch(
      `Moved ${a.memoryId} to a new bucket, "Shelved"\n`,
    );
    expect((await mnemo(["memories", "move", a.memoryId, b.memoryId, "--to", "boxed"])).stderr).toMatch('Moved 1 of 2 to "Boxed"\n');
    const failed = await mnemo(["--json", "memories", "move", a.memoryId, "mem_00000000000000000000000000", "--to", "General"]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stderr)).toMatchObject({
      error: "Some memory IDs could not be resolved",
      rejectedIds: ["mem_00000000000000000000000000"],
    });
    const unknown = Array.from({ length: 7 }, (_, i) => `mem_0000000000000000000000000${i}`);
    const named = await mnemo(["memories", "move", a.memoryId, ...unknown, "--to", "General"]);
    expect([named.code, named.stderr]).toEqual([
      1,
      expect.stringContaining(`Some memory IDs could not be resolved: ${unknown.slice(0, 5).join(", ")} and 2 more\n`),
    ]);
    const deleted = await mnemo(["--yes", "memories", "delete", ...unknown.slice(0, 2)]);
    expect([deleted.code, deleted.stderr]).toEqual([1, "! Deleted 0 of 2\n! 2 were not found.\n"]); // no success mark
  });

  it("remember --image: the description given, else a caption when the model is on disk, else the file name", async () => {
    const image = (name: string) => path.join(ROOT, "fixtures", "images", name);
    const given = await json<{ memoryId: string }>(["remember", "--image", image("red-square.png"), "--description", "the logo draft"]);
    const asText = await json<{ memoryId: string }>(["remember", "--image", image("red-square.png"), "my", "cat", "Tom"]);
    const twice = await mnemo(["remember", "--image", image("red-square.png"), "my cat", "--description", "Tom"]);
    expect([twice.code, twice.stderr]).toEqual([
      2,
      expect.stringMatching(/--description: the image is described twice, by the text "my cat" and by --description "Tom"/),
    ]);
    const named = await json<{ memoryId: string }>(["remember", "--image", image("blue-square.jpg")]);
    // The tiny captioner (fixtures/models/build-tiny-captioner.py) names the image's dominant colour.
    fs.cpSync(TINY_CAPTIONER, hubModelDir(modelsDir, DEFAULT_CAPTIONER), { recursive: true });
    const captioned = await json<{ memoryId: string }>(["remember", "--image", image("blue-square.jpg")]);

    const listed = await json<Listed>(["memories", "--type", "image", "--count", "4"]);
    const byId = new Map(listed.memories.map((memory) => [memory.id, memory]));
    expect(byId.get(given.memoryId)).toMatchObject({ content_type: "image", image_description: "the logo draft" });
    expect(byId.get(asText.memoryId)).toMatchObject({ text: "my cat Tom", image_description: "my cat Tom" });
    expect(byId.get(named.memoryId)).toMatchObject({ image_description: "Image: blue square" });
    expect(byId.get(captioned.memoryId)).toMatchObject({ text: "blue square", image_description: "blue square" });
    expect(byId.get(captioned.memoryId)!.image_url).toMatch(mode === "remote" ? /^http:\/\/127\.0\.0\.1:\d+\/images\// : /^file:\/\//);
    expect((await mnemo(["memories", "edit", given.memoryId, "the logo, final"])).code).toBe(0);
    const edited = (await json<Listed>(["memories", "--type", "image", "--count", "4"])).memories.find(
      (memory) => memory.id === given.memoryId,
    );
    expect(edited).toMatchObject({ text: "the logo, final", image_description: "the logo, final" });
    const notImage = await mnemo(["remember", "--image", path.join(ROOT, "README.md")]);
    expect(notImage.code).toBe(2);
    expect(notImage.stderr).toMatch(/--image: .*README\.md is not a PNG, JPEG, WebP or GIF image/);
    const missing = await mnemo(["remember", "--image", image("no-such.png")]);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringMatching(/--image: cannot read .*no-such\.png: there is no such file or folder\n.*Pass the path of a PNG/),
    ]);
    const signatureOnly = path.join(tempDir(), "cut.png");
    fs.writeFileSync(signatureOnly, fs.readFileSync(image("red-square.png")).subarray(0, 8));
    expect((await mnemo(["remember", "--image", signatureOnly])).code).toBe(2);
    // Through to the dimensions (signature and IHDR) is not enough: a PNG ends with its IEND chunk.
    const headerOnly = path.join(tempDir(), "trunc.png");
    fs.writeFileSync(headerOnly, fs.readFileSync(image("red-square.png")).subarray(0, 33));
    const cut = path.join(tempDir(), "cut.jpg");
    const jpeg = fs.readFileSync(image("blue-square.jpg"));
    fs.writeFileSync(cut, jpeg.subarray(0, jpeg.length - 2));
    for (const [file, format] of [
      [headerOnly, "PNG"],
      [cut, "JPEG"],
    ] as const) {
      const refused = await mnemo(["remember", "--image", file]);
      expect([refused.code, refused.stderr]).toEqual([
        2,
        expect.stringContaining(`--image: ${file} is not a whole ${format} image (cut short, or not an image after its header)`),
      ]);
    }
    expect((await mnemo(["remember", "a note", "--description", "what?"])).stderr).toMatch(/--description: describes an image/);
  });

  it("buckets: create, list, duplicate refused", async () => {
    const created = await json<{ bucket: { id: string } }>(["buckets", "create", "Recipes", "-d", "things I cook"]);
    expect(Number(created.bucket.id)).toBeGreaterThan(1);
    const duplicate = await mnemo(["buckets", "create", "recipes"]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const plain = await mnemo(["buckets", "create", "Trips"]);
    expect(plain.stdout).toBe(`${Number(created.bucket.id) + 1}\n`);
    const listed = await mnemo(["buckets"]);
    expect(listed.stdout).toMatch(/Recipes\s+0\s+things I cook/);
    // The store holds memories; the bucket does not.
    expect((await mnemo(["memories", "--bucket", "Trips"])).stderr).toBe('Bucket "Trips" is empty.\n');
    expect((await mnemo(["memories", "--bucket", "Trips", "--type", "image"])).stderr).toBe('No image memories in bucket "Trips".\n');
  });

  it("a bucket reference is a name first, then an id: buckets named 2024 and 1 are reachable, General by name", async () => {
    const { bucket: year } = await json<{ bucket: { id: string } }>(["buckets", "create", "2024"]);
    const { bucket: one } = await json<{ bucket: { id: string } }>(["buckets", "create", "1"]);
    const inYear = await json<{ memoryId: string }>(["remember", "--bucket", "2024", "a note for the year"]);
    const inOne = await json<{ memoryId: string }>(["remember", "--bucket", "1", "a note for bucket one"]);
    const inGeneral = await json<{ memoryId: string }>(["remember", "--bucket", "general", "a note for General"]);
    const listed = async () =>
      new Map((await json<Listed>(["memories", "--all", "--count", "1000"])).memories.map((m) => [m.id, m.metadata]));
    const buckets = await listed();
    expect(buckets.get(inYear.memoryId)).toMatchObject({ bucketId: Number(year.id), bucketName: "2024" });
    expect(buckets.get(inOne.memoryId)).toMatchObject({ bucketId: Number(one.id), bucketName: "1" });
    expect(buckets.get(inGeneral.memoryId)).toMatchObject({ bucketId: 1, bucketName: "General" });
    // An id that no bucket is named after still works.
    expect((await json<Listed>(["memories", "--bucket", year.id])).memories.map((m) => m.id)).toEqual([inYear.memoryId]);

    await json(["memories", "move", inGeneral.memoryId, "--to", "2024"]);
    expect((await listed()).get(inGeneral.memoryId)).toMatchObject({ bucketName: "2024" });
    const unknown = await mnemo(["memories", "move", inGeneral.memoryId, "--to", "999"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringMatching(/bucket "999" does not exist\n.*mnemo buckets create "999"/)]);
    expect((await json<{ name: string }[]>(["buckets"])).map((b) => b.name)).not.toContain("999");
  });
});

/** What does not depend on where the commands go: run once, not per mode. */
describe("mnemo CLI: memories", () => {
  it("--help and --version load neither LanceDB, a schema library, sql.js, the zstd decoder nor the YAML reader", async () => {
    // A resolve hook that fails the command if it reaches for them (they took --help from 70 to 250 ms;
    // sql.js, Cursor's database reader, is loaded only when a database is imported; fzstd only when a
    // Zed thread compressed with zstd is read; yaml only when a Copilot CLI session's workspace.yaml is read).
    const hook = `data:text/javascript,${encodeURIComponent(
      "export async function resolve(s, c, next) { if (/lancedb|apache-arrow|^zod|^sql\\.js|^fzstd$|^yaml$/.test(s)) throw new Error('loaded ' + s); return next(s, c); }",
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(hook)});`)}`;
    for (const flag of ["--help", "--version"]) {
      const result = await spawnCli([flag], { env: { ...isolatedEnv(), NODE_OPTIONS: `--import=${register}` } });
      expect(result.code, result.stderr).toBe(0);
    }
    expect((await runCli(["--version"])).stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
  });

  it("prints stored text without the control sequences in it (they would act on the terminal)", async () => {
    const own = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled" });
    await runCli(["remember", "--no-date", "clear\u001b[2J me \u202ereversed\u0007"], { env: own });
    const shown = (await runCli(["memories"], { env: own })).stdout;
    expect(shown).toContain("clear[2J me reversed");
    expect(shown).not.toMatch(/[\u001b\u202e\u0007]/);
    const printed = (await runCli(["--json", "memories"], { env: own })).stdout;
    expect(printed).not.toMatch(/\u202e/); // escaped in the JSON, where a terminal with bidi support would apply it
    expect(JSON.parse(printed).memories[0].text).toBe("clear\u001b[2J me \u202ereversed\u0007"); // stored and given to programs as it was
  });

  it("dates a memory by the user's time zone, and shows that date once, in its text", async () => {
    // At any hour of the day UTC's date differs from one of these two zones' (UTC+14, UTC−11).
    for (const TZ of ["Pacific/Kiritimati", "Pacific/Pago_Pago"]) {
      const own = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store"), MNEMO_EMBEDDER: "bundled", TZ });
      expect((await runCli(["remember", "zone test"], { env: own })).code).toBe(0);
      const day = new Intl.DateTimeFormat("sv", { timeZone: TZ }).format(new Date());
      const line = (await runCli(["memories"], { env: own })).stdout.split("\n").find((shown) => shown.includes("zone test"));
      // No CREATED date beside it: the text starts with the day it was stored, in the user's zone.
      expect(line, TZ).toMatch(new RegExp(`^mem_\\w+ +General +${day} zone test`));
    }
  });
});

describe("mnemo CLI: stores", () => {
  const store = path.join(tempDir(), "store");
  const env = isolatedEnv({ MNEMO_STORE: store, MNEMO_EMBEDDER: "bundled" });
  const mnemo = (args: string[]) => runCli(args, { env });
  beforeAll(async () => {
    // Stored without a command, which would start a maintenance process of its own on closing.
    const app = await openTestApp({ store }, {}, env);
    await (await app.service()).memories.store({ text: "a first memory" });
    await app.close();
  });

  it("refuses a folder that is not a store, and a store of another embedder", async () => {
    const folder = tempDir();
    fs.writeFileSync(path.join(folder, "notes.txt"), "mine");
    const notStore = await runCli(["memories"], { env: isolatedEnv({ MNEMO_STORE: folder }) });
    expect(notStore.code, "a bad MNEMO_STORE is bad input").toBe(2);
    expect(notStore.stderr).toMatch(/not a mnemo store/);
    const other = await mnemo(["--embedder", `transformers:${TINY_BERT}`, "memories"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/mnemo reindex --embedder transformers:/);
  });

  it("maintain optimizes every table; with --if-needed only what is due, here nothing", async () => {
    const all = await mnemo(["maintain"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout + all.stderr).toMatch(/Store compacted and indexed/);
    const due = await mnemo(["--json", "maintain", "--if-needed"]);
    expect(due.code, due.stderr).toBe(0);
    expect(JSON.parse(due.stdout)).toEqual({ optimized: false });
  });

  it("reindex moves a store to another embedder and keeps every memory", async () => {
    const own = isolatedEnv({ MNEMO_STORE: path.join(tempDir(), "store") });
    await runCli(["--embedder", "bundled", "remember", "--no-date", "the cat sat on the mat"], { env: own });
    await runCli(["remember", "--no-date", "stock markets fell sharply today"], { env: own });
    const reindexed = await runCli(["--json", "--embedder", `transformers:${TINY_BERT}`, "reindex"], { env: own });
    expect(reindexed.code, reindexed.stderr).toBe(0);
    expect(JSON.parse(reindexed.stdout)).toMatchObject({ dims: 32, rows: { memories: 2 } });
    const again = await runCli(["reindex"], { env: own }); // stderr is a pipe here: no spinner, still a summary
    expect(again.stderr).toMatch(/Re-embedded 2 memories and 0 chunks with /);
    const found = await runCli(["--json", "memories", "--query", "markets fell"], { env: own });
    expect(JSON.parse(found.stdout).memories[0].text).toBe("stock markets fell sharply today");
  });
});
