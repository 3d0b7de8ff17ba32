import { collect, fixtures } from "./collect.js";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/shared/errors.js";
import { openExport } from "../../src/importers/index.js";
import { FORMATS } from "../../src/importers/words.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";

const malformed = (name: string): string => join(fixtures, "malformed", name);

/** Reads everything it can; returns what was yielded and the error that ended it. */
async function drain(path: string): Promise<{ ids: string[]; error: unknown }> {
  const ids: string[] = [];
  try {
    const reader = await openExport(path);
    for await (const c of reader.conversations()) ids.push((c as UploadConversation).conversation.id);
  } catch (error) {
    return { ids, error };
  }
  return { ids, error: undefined };
}

async function failure(path: string): Promise<AppError> {
  const { error } = await drain(path);
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe("invalid_input");
  expect(appError.suggestion).toBeTruthy();
  return appError;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-errors-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("malformed files", () => {
  it("a truncated ChatGPT file: complete conversations are yielded, then the error names file, record and position", async () => {
    const { ids, error } = await drain(malformed("chatgpt-truncated.json"));
    expect(ids).toEqual(["6633a1f0-5b1c-8005-9e51-1c2a7b4f0a11", "67a0c3d2-2f40-800a-b7d1-55e3f6a0c2b9"]);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toBe(
      `${malformed("chatgpt-truncated.json")}, record 3: invalid JSON at byte 21355 (line 755, column 36): unexpected end of file (the file looks truncated)`,
    );
    expect((error as AppError).details).toEqual({ line: 755, column: 36, byte: 21355, record: 3, recordByte: 20709 });
  });

  it("a truncated Claude file", async () => {
    const { ids, error } = await drain(malformed("claude-truncated.json"));
    expect(ids).toEqual(["8f3a4c2e-1b7d-4e9a-b6c5-2d0e9f8a7b61"]);
    expect((error as AppError).message).toMatch(
      /claude-truncated\.json, record 2: invalid JSON at byte \d+ \(line \d+, column \d+\): unexpected end of file/,
    );
  });

  it("a truncated Gemini file (records are buffered, so nothing is yielded)", async () => {
    const { ids, error } = await drain(malformed("gemini-truncated.json"));
    expect(ids).toEqual([]);
    expect((error as AppError).message).toMatch(
      /gemini-truncated\.json, record 4: invalid JSON at byte \d+ \(line \d+, column \d+\): unexpected end of file/,
    );
  });

  it("a truncated upload object", async () => {
    const error = await failure(malformed("upload-truncated.json"));
    expect(error.message).toMatch(
      /upload-truncated\.json, record 1: invalid JSON at byte \d+ \(line 25, column \d+\): unexpected end of file/,
    );
  });

  it("a bad NDJSON line: earlier lines are yielded, the error gives the line", async () => {
    const { ids, error } = await drain(malformed("upload-bad-line.ndjson"));
    expect(ids).toEqual(["standup-2025-01-13"]);
    // The problem text after the position comes from V8's JSON.parse and varies by Node version.
    expect(
      (error as AppError).message.startsWith(
        `${malformed("upload-bad-line.ndjson")}, record 2: invalid JSON at byte 674 (line 2, column 52): `,
      ),
    ).toBe(true);
    expect((error as AppError).details).toEqual({ line: 2, column: 52, byte: 674, record: 2, recordByte: 623 });
  });

  it("a bad NDJSON line taken by onUnreadable is skipped alone: the lines after it are yielded", async () => {
    const skipped: AppError[] = [];
    const reader = await openExport(malformed("upload-bad-line.ndjson"), { onUnreadable: (problem) => skipped.push(problem) });
    const ids: string[] = [];
    for await (const c of reader.conversations()) ids.push(c.conversation.id);
    expect(ids).toEqual(["standup-2025-01-13", "pplx-lisbon-fado"]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.message).toContain("(line 2, column 52)");
    expect(skipped[0]!.details).toEqual({ line: 2, column: 52, byte: 674, record: 2, recordByte: 623 });
  });

  it("byte offsets count bytes, not characters (multi-byte text before the fault)", async () => {
    const path = join(tmp, "umlauts.json");
    await writeFile(path, '[{"conversation": {"title": "Grüße 日本"}} x]');
    const error = await failure(path);
    // "x" is character 41 but byte 47: ü, ß (2 bytes each) and 日, 本 (3 bytes each).
    expect(error.message).toContain("invalid JSON at byte 47 (line 1, column 42)");
  });

  it("not JSON at all: text that is no chat transcript is called so, not invalid JSON", async () => {
    const path = join(tmp, "notes.txt");
    await writeFile(path, "Remember to export the chats on Friday.\n");
    const error = await failure(path);
    expect(error.message).toMatch(
      new RegExp(
        `^${path}: not a supported chat export \\(it is text, not JSON, and no chat transcript: no speaker headings were found\\)`,
      ),
    );
    const broken = join(tmp, "broken.json");
    await writeFile(broken, '{"conversations": [}');
    expect((await failure(broken)).message).toMatch(/invalid JSON at byte/);
  });

  it("an image or a PDF passed by mistake says what it is, not an encoding or a format it lacks", async () => {
    const pdf = join(tmp, "chat.pdf");
    await writeFile(pdf, "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");
    const cases: [string, string][] = [
      [join(fixtures, "..", "images", "red-square.png"), "an image (PNG)"],
      [join(fixtures, "..", "images", "blue-square.jpg"), "an image (JPEG)"],
      [pdf, "a PDF document"],
    ];
    for (const [path, kind] of cases) {
      const error = await failure(path);
      expect(error.message).toBe(`${path}: this is ${kind}, not a chat export`);
      expect(error.suggestion).toContain("mnemo remember --image");
    }
  });

  it("an HTML page says it is one and what to pass instead; ChatGPT's chat.html, to use conversations.json or the zip", async () => {
    const page = await failure(malformed("chat.html"));
    expect(page.message).toBe(`${malformed("chat.html")}: an HTML page, not a chat export`);
    expect(page.suggestion).toMatch(/conversations\.json or the zip .*Takeout.s zip or its My Activity page/);
    const chatHtml = join(fixtures, "chatgpt", "chat.html");
    const chatgpt = await failure(chatHtml);
    expect(chatgpt.message).toBe(`${chatHtml}: this is ChatGPT's chat.html, a page for reading the export, not its data`);
    expect(chatgpt.suggestion).toMatch(/Use conversations\.json .* or the zip as downloaded/);
  });

  it("an empty file says it is empty", async () => {
    const error = await failure(malformed("empty.json"));
    expect(error.message).toBe(`${malformed("empty.json")}: the file is empty`);
    const blank = join(tmp, "blank.json");
    await writeFile(blank, " \n\n");
    expect((await failure(blank)).message).toBe(`${blank}: the file is empty`);
  });

  it("a file cut inside a \\u escape is reported as truncated, like any other cut", async () => {
    const error = await failure(malformed("cut-in-escape.json"));
    expect(error.message).toMatch(
      /cut-in-escape\.json, record 1: invalid JSON at byte \d+ \(line 1, column \d+\): unexpected end of file \(the file looks truncated\)/,
    );
    expect(error.suggestion).toMatch(/looks incomplete/);
  });

  it("valid JSON of an unknown structure names the formats mnemo reads, short enough to read, and where to get an export", async () => {
    const error = await failure(malformed("not-an-export.json"));
    expect(error.message).toContain("not-an-export.json: not a supported chat export (no format's structure matches it). mnemo reads: ");
    for (const format of FORMATS) expect(error.message).toContain(format.name);
    // The names alone, from the registry: what to pass for each is the help's and the README's (it made a line of ~2,000 characters; the names of 45 formats are ~600).
    expect(error.message.length - malformed("not-an-export.json").length).toBeLessThan(650);
    expect(error.suggestion).toBe(
      "Pass the export as downloaded (its zip), or the unzipped folder. What to pass for each app: `mnemo import --help`; where to download it: “Chat exports mnemo reads” in the README.",
    );
  });

  it("a truncated zip", async () => {
    const error = await failure(malformed("truncated.zip"));
    expect(error.message).toMatch(/^truncated\.zip: not a readable zip archive/);
    // Most often a download not finished yet (the file the browser names .zip only at its end, or one still growing).
    expect(error.suggestion).toMatch(/^If it is still downloading, wait until the download has finished/);
  });

  it("a zip whose entry's name leads outside it (../) is refused as made by hand, not as a truncated download", async () => {
    const dir = join(tmp, "traversal-src");
    await mkdir(join(dir, "up"), { recursive: true });
    await copyFile(join(fixtures, "chatgpt", "conversations.json"), join(dir, "up", "conversations.json"));
    const zipPath = join(tmp, "traversal.zip");
    execFileSync("zip", ["-q", "-X", zipPath, "up/conversations.json"], { cwd: dir });
    // The same length of name in the local header and the central directory: "../conversations.json".
    const bytes = await readFile(zipPath);
    await writeFile(zipPath, Buffer.from(bytes.toString("latin1").replaceAll("up/conversations.json", "../conversations.json"), "latin1"));
    const error = await failure(zipPath);
    expect(error.message).toBe(
      "traversal.zip: not read: an entry's name leads outside the archive (invalid relative path: ../conversations.json)",
    );
    expect(error.suggestion).toMatch(/^No app's export names its files so: .* pass the folder\.$/);
  });

  it("a zip made again by hand that cannot be unpacked (a password, bzip2) says so, not 'download again'", async () => {
    const dir = join(tmp, "rezipped-src");
    await mkdir(dir, { recursive: true });
    await copyFile(join(fixtures, "chatgpt", "conversations.json"), join(dir, "conversations.json"));
    const locked = join(tmp, "locked.zip");
    execFileSync("zip", ["-q", "-X", "-P", "secret", locked, "conversations.json"], { cwd: dir });
    const lockedError = await failure(locked);
    expect(lockedError.message).toBe("locked.zip: not read: the archive is password-protected");
    expect(lockedError.suggestion).toBe("Unzip it with the tool that made it and pass the folder, or pass the export's zip as downloaded.");
    const bzip2 = join(tmp, "bzip2.zip");
    execFileSync("zip", ["-q", "-X", "-Z", "bzip2", bzip2, "conversations.json"], { cwd: dir });
    expect((await failure(bzip2)).message).toBe("bzip2.zip: not read: the archive is packed with a method mnemo cannot unpack (method 12)");
  });

  it("a file named .zip that is no zip archive (another file renamed) says so, not 'invalid JSON'; JSON named .zip still imports", async () => {
    const fake = join(tmp, "chatgpt-export.zip");
    await writeFile(fake, Buffer.from("%PDF-1.7 this is no export"));
    const error = await failure(fake);
    expect(error.message).toMatch(/^chatgpt-export\.zip: not a readable zip archive \(it does not start as a zip archive does\)/);
    // Uploaded (the web's Import, the CLI through a server), it is kept as <id>.upload: its name still says.
    const upload = join(tmp, "01J.upload");
    await copyFile(fake, upload);
    await expect(openExport(upload, { name: "chatgpt-export.zip" })).rejects.toThrow(
      /^chatgpt-export\.zip: not a readable zip archive \(it does not start as a zip archive does\)/,
    );
    const renamed = join(tmp, "renamed-json.zip");
    await copyFile(join(fixtures, "claude", "conversations.json"), renamed);
    const { ids, error: none } = await drain(renamed);
    expect(none).toBeUndefined();
    expect(ids.length).toBeGreaterThan(0);
  });

  it("a malformed file inside a zip names the entry and the archive", async () => {
    const dir = join(tmp, "zip-src");
    await mkdir(dir, { recursive: true });
    await copyFile(malformed("chatgpt-truncated.json"), join(dir, "conversations.json"));
    const zipPath = join(tmp, "broken-export.zip");
    execFileSync("zip", ["-q", "-X", zipPath, "conversations.json"], { cwd: dir });
    const { ids, error } = await drain(zipPath);
    expect(ids).toHaveLength(2);
    expect((error as AppError).message).toBe(
      "conversations.json (in broken-export.zip), record 3: invalid JSON at byte 21355 (line 755, column 36): unexpected end of file (the file looks truncated)",
    );
  });

  it("a missing path", async () => {
    const error = await failure(join(tmp, "nope.zip"));
    expect(error.message).toMatch(/cannot read .*nope\.zip: there is no such file or folder/);
  });

  it("a folder without any export", async () => {
    const dir = join(tmp, "empty-dir");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "notes.txt"), "hello");
    const error = await failure(dir);
    expect(error.message).toContain("no chat export file found inside");
  });

  it("a folder mixing two formats reads both, each as its own format", async () => {
    const dir = join(tmp, "mixed");
    await mkdir(dir, { recursive: true });
    await copyFile(join(fixtures, "chatgpt/conversations.json"), join(dir, "a.json"));
    await copyFile(join(fixtures, "claude/conversations.json"), join(dir, "b.json"));
    const mixed = await collect(dir);
    const alone = [
      ...(await collect(join(fixtures, "chatgpt/conversations.json"))),
      ...(await collect(join(fixtures, "claude/conversations.json"))),
    ];
    expect(mixed).toEqual(alone);
    expect(new Set(mixed.map((c) => c.platform))).toEqual(new Set(["chatgpt", "claude"]));
  });

  it("an invalid platform override", async () => {
    await expect(openExport(join(fixtures, "chatgpt/conversations.json"), { platform: "has spaces" })).rejects.toMatchObject({
      code: "invalid_input",
      details: { field: "platform" },
    });
  });
});

describe("early exit", () => {
  it("stopping after the first conversation releases the file (no hang, no stray error)", async () => {
    const reader = await openExport(join(fixtures, "chatgpt-export.zip"));
    for await (const c of reader.conversations()) {
      expect(c.conversation.id).toBe("6633a1f0-5b1c-8005-9e51-1c2a7b4f0a11");
      break;
    }
    const again: string[] = [];
    for await (const c of reader.conversations()) again.push(c.conversation.id);
    expect(again).toHaveLength(4);
  });
});
