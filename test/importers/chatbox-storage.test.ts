import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { foundApps } from "../../src/importers/app-folders.js";
import { zipSources } from "../../src/importers/zip.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

// chatbox-userdata.zip is Chatbox's data folder (userData) holding the data export's sessions in the
// app's IndexedDB, written by Chromium (fixtures/exports/chatbox/build-leveldb.mjs), config.json beside it;
// and one more session whose pasted log Blink moved to a blob file.
const zip = join(fixtures, "chatbox-userdata.zip");
const exported = join(fixtures, "chatbox/chatbox-exported-data-2025-3-5.json");

/** The data folder unzipped where Chatbox keeps it, under `home`'s settings folder. */
async function unzippedInto(folder: string): Promise<string> {
  for (const source of await zipSources(zip)) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
    await mkdir(dirname(join(folder, source.path)), { recursive: true });
    await writeFile(join(folder, source.path), Buffer.concat(chunks));
  }
  return folder;
}

describe("Chatbox's own data folder (its sessions in IndexedDB since 1.16)", () => {
  it("reads as the data export of the same sessions does: the same conversations, an empty chat counted", async () => {
    const fromExport = await collect(exported);
    const { conversations, skipped } = await collectWithSkips(zip);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Lisbon tram pass", "Fix the flaky pytest", "Pasted log"]);
    expect(conversations.slice(0, 2)).toEqual(fromExport);
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
  });

  it("a session Blink moved to a blob file (a long pasted log) is read from it whole", async () => {
    const pasted = (await collect(zip)).find((c) => c.conversation.title === "Pasted log");
    const [prompt, answer] = pasted?.conversation.messages ?? [];
    expect(prompt?.content).toMatch(/^Why does this log repeat every line number\?\n\n0 0 0\n/);
    expect(prompt?.content.length).toBeGreaterThan(120_000);
    expect([answer?.role, answer?.content, pasted?.conversation.createdAt]).toEqual([
      "assistant",
      "Each line prints its own counter: nothing repeats.",
      "2025-03-05T10:20:00.000Z",
    ]);
  });

  it("is found by --apps in the app's settings folder, and read there as a folder, its caches never walked", async () => {
    const home = tempDir("mnemo-chatbox-home-");
    const folder = await unzippedInto(join(home, ".config", "xyz.chatboxapp.ce"));
    // What Chromium keeps beside it, which is no chat: not read.
    await mkdir(join(folder, "Cache", "Cache_Data"), { recursive: true });
    const cached = {
      id: "cached",
      name: "Cached",
      messages: [{ id: "c1", role: "user", contentParts: [{ type: "text", text: "cached" }] }],
    };
    await writeFile(join(folder, "Cache", "Cache_Data", "data_1.json"), JSON.stringify({ "chat-sessions": [cached] }));
    const found = foundApps({ platform: "linux", env: { HOME: home } }).filter((app) => app.name === "Chatbox");
    expect(found.map((app) => app.folder)).toEqual([folder]);
    expect(await collect(folder)).toEqual(await collect(zip));
  });
});
