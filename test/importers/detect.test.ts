import { fixtures } from "./collect.js";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { fileSource } from "../../src/importers/source.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";

async function detectText(name: string, text: string): Promise<unknown> {
  const path = join(tmp, name);
  await writeFile(path, text);
  return detect(await fileSource(path));
}

async function ids(path: string): Promise<string[]> {
  const reader = await openExport(path);
  const out: string[] = [];
  for await (const c of reader.conversations()) out.push((c as UploadConversation).conversation.id);
  return out;
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-detect-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("detection by structure", () => {
  it("recognises each fixture format and layout", async () => {
    const cases: Array<[string, string, string]> = [
      ["chatgpt/conversations.json", "chatgpt", "array"],
      ["claude/conversations.json", "claude", "array"],
      ["gemini/My Activity.json", "gemini", "array"],
      ["upload/single.json", "upload", "values"],
      ["upload/array.json", "upload", "array"],
      ["upload/conversations.ndjson", "upload", "lines"],
    ];
    for (const [path, format, layout] of cases) {
      expect(await detect(await fileSource(join(fixtures, path)))).toMatchObject({ format, layout });
    }
  });

  it("looks at keys, not at names or formatting", async () => {
    const chatgpt = { title: "x", create_time: 1, mapping: {}, current_node: null };
    expect(await detectText("minified.bin", JSON.stringify([chatgpt]))).toMatchObject({ format: "chatgpt", layout: "array" });
    expect(await detectText("one-conversation.json", JSON.stringify(chatgpt, null, 2))).toMatchObject({
      format: "chatgpt",
      layout: "values",
    });
    expect(await detectText("claude.dat", JSON.stringify([{ uuid: "u", name: "n", chat_messages: [] }]))).toMatchObject({
      format: "claude",
    });
    expect(await detectText("upload.ndjson", `${JSON.stringify({ conversation: {} })}\n`)).toMatchObject({
      format: "upload",
      layout: "lines",
    });
    expect(await detectText("unknown.json", JSON.stringify([{ id: 1, email: "x@example.com" }]))).toBeUndefined();
    expect(await detectText("scalar.json", "42")).toBeUndefined();
  });

  it("tells Gemini activity from other Google products, even when another product comes first", async () => {
    const search = { header: "Search", title: "Searched for x", time: "2025-01-01T00:00:00Z", products: ["Search"] };
    const gemini = { header: "Gemini Apps", title: "Prompted y", time: "2024-12-31T00:00:00Z", products: ["Gemini Apps"] };
    expect(await detectText("mixed.json", JSON.stringify([search, gemini]))).toMatchObject({ format: "gemini", aside: undefined });
    expect(await detectText("search-only.json", JSON.stringify([search]))).toMatchObject({
      format: "gemini",
      aside: "files of another Google product's activity, not read",
    });
  });

  it("finds a record's keys even when the first record is larger than the sniffed prefix", async () => {
    const big = {
      title: "Big",
      create_time: 1_700_000_000,
      mapping: { filler: { id: "filler", parent: null, children: [], message: null, note: "x".repeat(400_000) } },
    };
    expect(await detectText("big.json", JSON.stringify([big]))).toMatchObject({ format: "chatgpt", layout: "array" });
  });

  it("streams past the prefix when the first record holds a field longer than it before the keys that tell its format", async () => {
    // A field ChatGPT may add to a conversation, written before `mapping` and longer than 256 KB.
    const conversation = (id: string, extra: object) => ({
      ...extra,
      id,
      title: id,
      create_time: 1_700_000_000,
      current_node: "m",
      mapping: { m: { id: "m", parent: null, children: [], message: text("m", `hello from ${id}`) } },
    });
    const text = (id: string, words: string) => ({ id, author: { role: "user" }, content: { content_type: "text", parts: [words] } });
    const huge = { safe_urls: Array.from({ length: 20_000 }, (_, i) => `https://example.com/${i}/${"p".repeat(20)}`) };
    const list = JSON.stringify([conversation("first", huge), conversation("second", {})]);
    expect(list.length).toBeGreaterThan(600_000);
    expect(await detectText("long-field.json", list)).toMatchObject({ format: "chatgpt", layout: "array" });
    expect(await ids(join(tmp, "long-field.json"))).toEqual(["first", "second"]);
    const wrapped = JSON.stringify({ conversations: [conversation("first", { note: "n".repeat(400_000) }), conversation("second", {})] });
    expect(await detectText("long-wrapped.json", wrapped)).toMatchObject({ format: "chatgpt", layout: "wrapped" });
    expect(await ids(join(tmp, "long-wrapped.json"))).toEqual(["first", "second"]);
    // The same file cut short inside its long field: called truncated, not "no supported export".
    await expect(detectText("long-cut.json", list.slice(0, 400_000))).rejects.toThrow(
      /long-cut\.json: invalid JSON at byte 400000 .*truncated/,
    );
  });

  it("streams past the prefix to a wrapped list of records that comes after a long field", async () => {
    // A TypingMind export whose prompts library, written before the chats, is longer than the prefix.
    const typingmind = JSON.parse(await readFile(join(fixtures, "typingmind/data.json"), "utf8")) as { data: Record<string, unknown> };
    const { chats, ...rest } = typingmind.data;
    const prompts = Array.from({ length: 3_000 }, (_, i) => ({ id: `p${i}`, title: `Prompt ${i}`, prompt: "q".repeat(100) }));
    const path = join(tmp, "typingmind-long.json");
    await writeFile(path, JSON.stringify({ data: { ...rest, userPrompts: prompts, chats } }));
    expect(await detect(await fileSource(path))).toMatchObject({ format: "typingmind", layout: "wrapped" });
    expect(await ids(path)).toEqual(await ids(join(fixtures, "typingmind/data.json")));
  });

  it("a long file of no known format is still not recognised", async () => {
    const unknown = JSON.stringify([
      { id: 1, blob: "b".repeat(400_000) },
      { id: 2, email: "x@example.com" },
    ]);
    expect(await detectText("unknown-long.json", unknown)).toBeUndefined();
  });

  it("a zip is recognised by its signature, and junk entries (__MACOSX, dotfiles) are ignored", async () => {
    const dir = join(tmp, "zip-with-junk");
    await mkdir(join(dir, "__MACOSX"), { recursive: true });
    await copyFile(join(fixtures, "claude/conversations.json"), join(dir, "conversations.json"));
    await writeFile(join(dir, "__MACOSX", "._conversations.json"), "\u0000\u0005\u0016\u0007 junk");
    await writeFile(join(dir, ".hidden.json"), "{ not json");
    const zipPath = join(tmp, "export.download"); // no .zip extension on purpose
    execFileSync("zip", ["-q", "-r", zipPath, "conversations.json", "__MACOSX", ".hidden.json"], { cwd: dir });
    const reader = await openExport(zipPath);
    expect(reader.format).toBe("claude");
    expect(await ids(zipPath)).toEqual(await ids(join(fixtures, "claude/conversations.json")));
  });

  it("a UTF-8 byte order mark does not get in the way", async () => {
    const path = join(tmp, "bom.json");
    await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), await readFile(join(fixtures, "chatgpt/conversations.json"))]));
    expect(await ids(path)).toEqual(await ids(join(fixtures, "chatgpt/conversations.json")));
  });
});
