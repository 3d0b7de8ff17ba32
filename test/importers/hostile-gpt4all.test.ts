// GPT4All .chat files an attacker crafted: a length field must not make the reader hold the file (GBs of
// a model's state) in memory; the file costs itself, with a reason.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readChatFile } from "../../src/importers/gpt4all/chat-file.js";
import { modelFolders } from "../../src/importers/gpt4all/index.js";
import { CHAT_FORMAT_MAGIC } from "../../src/importers/gpt4all/magic.js";
import { foundApps } from "../../src/importers/app-folders.js";
import { tempDir } from "../temp-dirs.js";

function header(version: number): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeUInt32BE(CHAT_FORMAT_MAGIC, 0);
  bytes.writeInt32BE(version, 4);
  bytes.writeBigInt64BE(1_700_000_000n, 8);
  return bytes;
}

describe("hostile GPT4All chat files", () => {
  it("a text whose length says 0xFFFFFFF0 bytes is damage, refused before the rest of the file is read into memory", async () => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(0xfffffff0);
    const rest = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024));
    const input = Readable.from([header(12), length, ...rest]);
    await expect(readChatFile(input)).rejects.toThrow(/longer than any chat holds/);
  });

  it("a GPT4All.ini whose modelPath holds an escaped NUL (\\x0000) names no folder, where --apps threw ERR_INVALID_ARG_VALUE and found no app at all", async () => {
    const home = tempDir("mnemo-hostile-gpt4all-");
    await mkdir(join(home, ".config", "nomic.ai"), { recursive: true });
    await writeFile(join(home, ".config", "nomic.ai", "GPT4All.ini"), "[General]\nmodelPath=/tmp/a\\x0000b/\n");
    expect(foundApps({ platform: "linux", env: { HOME: home } }).filter((app) => app.format === "gpt4all")).toEqual([]);
  });

  it("a GPT4All.ini of 150,000,000 line breaks names no folder, where splitting it into lines ran --apps out of memory (a fatal error)", () => {
    expect(modelFolders(`${"\n".repeat(150_000_000)}[General]\nmodelPath=/srv/llm/\n`)).toEqual([]);
    expect(modelFolders("[General]\nmodelPath=/srv/llm/\n")).toEqual([join("/srv/llm")]);
  });
});
