// Exports saved again as UTF-16 (PowerShell 5's Out-File and `>`, Notepad's "Unicode") read as the
// UTF-8 they hold: alone, in a folder and in a zip, for JSON, NDJSON and Markdown.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openExport, type ExportReader } from "../../src/importers/index.js";
import { collect, collectReporting, fixtures } from "./collect.js";

const BOM_LE = Buffer.from([0xff, 0xfe]);
const BOM_BE = Buffer.from([0xfe, 0xff]);

function utf16le(text: string, bom = true): Buffer {
  return Buffer.concat([bom ? BOM_LE : Buffer.alloc(0), Buffer.from(text, "utf16le")]);
}

function utf16be(text: string): Buffer {
  return Buffer.concat([BOM_BE, Buffer.from(text, "utf16le").swap16()]);
}

/** Reads every conversation: a failure is the reader's. */
async function collectAll(reader: ExportReader): Promise<string> {
  for await (const _ of reader.conversations());
  return "read";
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-utf16-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function saved(name: string, bytes: Buffer): Promise<string> {
  const path = join(tmp, name);
  await writeFile(path, bytes);
  return path;
}

/** The conversations of a fixture, and of the same text saved in `encode`'s encoding. */
async function bothWays(fixture: string, encode: (text: string) => Buffer) {
  const text = await readFile(join(fixtures, fixture), "utf8");
  const copy = await saved(fixture.replaceAll("/", "-"), encode(text));
  return { utf8: await collect(join(fixtures, fixture)), utf16: await collect(copy) };
}

describe("a file saved as UTF-16 is read as the text it holds", () => {
  it("the Claude export an editor saved again with a byte-order mark (fixture)", async () => {
    const [conversation] = await collect(join(fixtures, "odd", "claude-utf16.json"));
    expect(conversation?.conversation.title).toBe("Saved again by an editor");
    expect(conversation?.conversation.messages[0]?.content).toBe("Is this file still readable?");
  });

  it("JSON as UTF-16LE and UTF-16BE with a byte-order mark, and as UTF-16LE without one", async () => {
    for (const encode of [utf16le, utf16be, (text: string) => utf16le(text, false)]) {
      const { utf8, utf16 } = await bothWays("chatgpt/conversations.json", encode);
      expect(utf16).toEqual(utf8);
      expect(utf16.length).toBeGreaterThan(0);
    }
  });

  it("NDJSON and a Markdown transcript", async () => {
    for (const fixture of ["upload/conversations.ndjson", "markdown/user-assistant.md"]) {
      const { utf8, utf16 } = await bothWays(fixture, utf16le);
      expect(utf16).toEqual(utf8);
      expect(utf16.length).toBeGreaterThan(0);
    }
  });

  it("a UTF-16 file named .zip is read as the JSON it is, not called a damaged archive", async () => {
    const { utf8 } = await bothWays("upload/single.json", utf16le);
    const path = await saved("single.zip", utf16le(await readFile(join(fixtures, "upload", "single.json"), "utf8")));
    expect(await collect(path)).toEqual(utf8);
  });

  it("in a folder and in a zip", async () => {
    const dir = join(tmp, "claude-export");
    await mkdir(dir, { recursive: true });
    for (const name of ["conversations.json", "users.json", "projects.json"]) {
      await writeFile(join(dir, name), utf16le(await readFile(join(fixtures, "claude", name), "utf8")));
    }
    const zip = join(tmp, "claude-export.zip");
    execFileSync("zip", ["-qrj", zip, dir]);
    const expected = await collect(join(fixtures, "claude"));
    expect(await collect(dir)).toEqual(expected);
    expect(await collect(zip)).toEqual(expected);
  });

  it("a character of two code units cut between two chunks of the stream stays whole", async () => {
    // createReadStream reads 64 KB chunks: the emoji's halves fall either side of byte 65,536.
    const head =
      '{"platform": "notes", "conversation": {"id": "c1", "title": "Gecko", "createdAt": "2025-01-01T00:00:00Z", "messages": [{"id": "m1", "role": "human", "content": "';
    const content = `${"a".repeat((65_534 - 2) / 2 - head.length)}🦎 in the text`;
    const text = `${head}${content}"}]}}`;
    expect(2 + 2 * text.indexOf("🦎")).toBe(65_534);
    const [conversation] = await collect(await saved("split.json", utf16le(text)));
    expect(conversation?.conversation.messages[0]?.content).toBe(content);
  });

  it("a lone surrogate is repaired to U+FFFD and reported, as bad UTF-8 is", async () => {
    const text =
      '{"platform": "notes", "conversation": {"id": "c1", "title": "cut \uD83E", "createdAt": "2025-01-01T00:00:00Z", "messages": [{"id": "m1", "role": "human", "content": "hello"}]}}';
    const path = await saved("lone.json", utf16le(text));
    const reader = await openExport(path);
    const conversations = [];
    for await (const conversation of reader.conversations()) conversations.push(conversation);
    expect(conversations[0]?.conversation.title).toBe("cut \uFFFD");
    expect(reader.repaired()).toMatchObject([{ record: 1, fields: ["conversation.title"] }]);
  });

  it("UTF-32 is refused, saying what it is rather than 'invalid JSON at byte 0'", async () => {
    const text = await readFile(join(fixtures, "upload", "single.json"), "utf8");
    const utf32 = Buffer.alloc(4 + text.length * 4);
    utf32.writeUInt32LE(0xfeff, 0);
    for (let i = 0; i < text.length; i++) utf32.writeUInt32LE(text.charCodeAt(i), 4 + 4 * i);
    const path = await saved("utf32.json", utf32);
    await expect(openExport(path)).rejects.toThrow(
      `${path}: the file is text in an encoding mnemo does not read (UTF-32, or UTF-16 without a byte-order mark); exports are UTF-8`,
    );
  });

  it("a file cut short says it looks truncated, as its UTF-8 twin does", async () => {
    for (const name of ["chatgpt-truncated.json", "upload-truncated.json"]) {
      const text = await readFile(join(fixtures, "malformed", name), "utf8");
      const asUtf8 = await openExport(await saved(`utf8-${name}`, Buffer.from(text)))
        .then(collectAll)
        .catch((error: Error) => error.message);
      const utf16 = await openExport(await saved(`utf16-${name}`, utf16le(text)))
        .then(collectAll)
        .catch((error: Error) => error.message);
      expect(utf16).toMatch(/the file looks truncated/);
      expect(utf16).toBe(
        asUtf8.replace("utf8-", "utf16-").replace(/at byte (\d+)/, "at byte $1 of its text as UTF-8 (the file is UTF-16LE)"),
      );
    }
  });

  it("progress counts to the whole: the size is that of the text read", async () => {
    const reader = await openExport(
      await saved("progress.json", utf16le(await readFile(join(fixtures, "chatgpt", "conversations.json"), "utf8"))),
    );
    await collectAll(reader);
    expect(reader.bytesRead()).toBe(reader.totalBytes);
  });

  it("a damaged record says its byte offset is of the text as UTF-8", async () => {
    const text = await readFile(join(fixtures, "upload", "conversations.ndjson"), "utf8");
    const damaged = text.replace("\n", '\n{"broken": \n');
    const asUtf8 = await collectReporting(await saved("damaged-utf8.ndjson", Buffer.from(damaged)));
    const { conversations, problems } = await collectReporting(await saved("damaged.ndjson", utf16le(damaged)));
    expect(conversations).toEqual(asUtf8.conversations);
    expect(conversations.length).toBe(3);
    expect(problems).toEqual(
      asUtf8.problems.map((problem) =>
        problem
          .replace("damaged-utf8.ndjson", "damaged.ndjson")
          .replace(/at byte (\d+)/, "at byte $1 of its text as UTF-8 (the file is UTF-16LE)"),
      ),
    );
    expect(problems[0]).toMatch(/record 2: invalid JSON at byte \d+ of its text as UTF-8/);
  });
});
