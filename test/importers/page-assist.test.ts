import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { foundApps } from "../../src/importers/app-folders.js";
import { zipSources } from "../../src/importers/zip.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

// The data export of April 2026 (every section), of May 2024 (chats then in chrome.storage.local), and a
// Chromium profile's IndexedDB holding the first's chats in the extension's Dexie database
// (fixtures/exports/page-assist/build-fixtures.mjs, build-leveldb.mjs).
const current = join(fixtures, "page-assist/page-assist-2026-04-20T08_05_00.000Z.json");
const old = join(fixtures, "page-assist/page-assist-2024-06-02T08_40_11.512Z.json");
const profileZip = join(fixtures, "page-assist-chrome-profile.zip");
const DATABASE = "IndexedDB/chrome-extension_jfgfiigpkhlkbnfnbobbkinehhfdhndo_0.indexeddb.leveldb";
const tmp = tempDir("mnemo-page-assist-");

const EMPTY = { "conversations without any message text (an empty new chat)": 1 };

/** The fixture's profile folder unzipped into `folder`. */
async function unzippedInto(folder: string): Promise<string> {
  for (const source of await zipSources(profileZip)) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
    await mkdir(dirname(join(folder, source.path)), { recursive: true });
    await writeFile(join(folder, source.path), Buffer.concat(chunks));
  }
  return folder;
}

const byId = (conversations: UploadConversation[]) => [...conversations].sort((a, b) => a.conversation.id.localeCompare(b.conversation.id));

describe("Page Assist's data export", () => {
  it("every chat with text is a conversation, its id the history's, dated by its messages; an empty new chat is counted", async () => {
    const { conversations, skipped } = await collectWithSkips(current);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["page-assist-pa_5e9d-0b73-aa1-c826", "Rain in Porto tomorrow", "2026-04-20T07:45:00.001Z", "2026-04-20T07:45:12.004Z"],
        ["page-assist-pa_c0aa-51e8-2f4-9b13", "Brest tide times on Sunday", "2026-04-19T16:02:00.001Z", "2026-04-19T16:02:09.002Z"],
        ["page-assist-pa_7b20-c4d1-e93-0a6f", "Borrowing a Vec while pushing", "2026-04-18T09:10:00.001Z", "2026-04-18T09:21:40.002Z"],
        ["page-assist-pa_3f1c-9a2e-b47-5d08", "Borrowing a Vec while pushing", "2026-04-18T09:10:00.001Z", "2026-04-18T09:14:06.002Z"],
        ["page-assist-pa_19ab-77c2-d05-e4f1", "Sourdough hydration", "2024-05-30T18:20:00.001Z", "2024-05-30T18:20:05.002Z"],
      ],
    );
    expect(skipped).toEqual(EMPTY);
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "page-assist",
        "Page Assist",
        true,
      ]);
    }
  });

  it("keeps the chat's prompt, what was typed, images as [image] and the answer without its reasoning", async () => {
    const rust = (await collect(current)).find((c) => c.conversation.id === "page-assist-pa_3f1c-9a2e-b47-5d08");
    expect(rust?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou are a concise Rust mentor. Answer with code first."],
      ["pa_a1b2-0c3d-4e5-f601", "human", "Why does pushing to a Vec while holding a reference to its first element fail to compile?"],
      [
        "pa_a1b2-0c3d-4e5-f602",
        "assistant",
        "Pushing may reallocate the vector, so the reference could dangle: the borrow checker refuses the mutable borrow while the shared one lives. Clone the element or keep its index instead.",
      ],
      ["pa_a1b2-0c3d-4e5-f603", "human", "And this one? It still fails.\n\n[image]"],
      [
        "pa_a1b2-0c3d-4e5-f604",
        "assistant",
        "Line 4 keeps `first` alive until the println!, after the push: move the println! above the push.",
      ],
    ]);
  });

  it("a tab asked about is named by its address, the answer's sources left out; a tool call is [tool: name], its output left out", async () => {
    const conversations = await collect(current);
    const content = (id: string) => conversations.find((c) => c.conversation.id === id)?.conversation.messages.map((m) => m.content);
    expect(content("page-assist-pa_c0aa-51e8-2f4-9b13")).toEqual([
      "Summarize this page in two sentences.\n\nhttps://tides.example.org/brest",
      "High water in Brest is at 14:12 on Sunday, with a coefficient of 95. Low water follows at 20:31.",
    ]);
    expect(content("page-assist-pa_5e9d-0b73-aa1-c826")).toEqual([
      "Will it rain in Porto tomorrow?",
      "[tool: get_forecast]",
      "Yes: about 4 mm of rain is forecast for Porto tomorrow, mostly between 13:00 and 18:00.",
    ]);
  });

  it("a branch is a chat of its own: the copied messages under their new ids, then what followed", async () => {
    const branch = (await collect(current)).find((c) => c.conversation.id === "page-assist-pa_7b20-c4d1-e93-0a6f");
    expect(branch?.conversation.messages.map((m) => [m.id, m.content.slice(0, 30)])).toEqual([
      ["system-prompt", "[system prompt]\nYou are a conc"],
      ["pa_7b20-0001-e93-0001", "Why does pushing to a Vec whil"],
      ["pa_7b20-0001-e93-0002", "Pushing may reallocate the vec"],
      ["pa_7b20-0001-e93-0003", "Show me the index version."],
      ["pa_7b20-0001-e93-0004", "let i = 0;\nv.push(4);\nprintln!"],
    ]);
  });

  it("the export of May 2024 (chats in chrome.storage.local, newest message first) reads in the order shown, a chat keeping its ids after the move to Dexie", async () => {
    const before = await collect(old);
    expect(before.map((c) => [c.conversation.title, c.conversation.messages.map((m) => m.content)])).toEqual([
      [
        "Translate a menu",
        ["Translate this menu into English.\n\n[image]", "Grilled sardines, octopus rice, and custard tart for dessert."],
      ],
      [
        "Sourdough hydration",
        [
          "What hydration should a first sourdough loaf have?",
          "Start at 70%: the dough is easy to shape, and you can go up by 5% once you know how it behaves.",
        ],
      ],
    ]);
    const after = (await collect(current)).find((c) => c.conversation.title === "Sourdough hydration");
    expect(after).toEqual(before[1]);
  });

  it("a damaged chat costs only itself, named in the summary", async () => {
    const data = JSON.parse(await readFile(current, "utf8")) as { chat: unknown[] };
    data.chat[1] = { history: "not a chat", messages: [] };
    const damaged = join(tmp, "page-assist-damaged.json");
    await writeFile(damaged, JSON.stringify(data));
    const { conversations, problems } = await collectReporting(damaged);
    expect(conversations).toHaveLength(5);
    expect(problems).toHaveLength(1);
  });

  it("is found when its knowledge base, written before the chats, runs far past what detection samples", async () => {
    const data = JSON.parse(await readFile(current, "utf8")) as Record<string, unknown>;
    const source = { source_id: "s1", type: "pdf", filename: "manual.pdf", content: "Torque the bolts to 40 Nm. ".repeat(40_000) };
    const file = join(tmp, "page-assist-knowledge.json");
    await writeFile(
      file,
      JSON.stringify({ ...data, knowledge: [{ id: "k1", db_type: "knowledge", title: "Manual", source: [source] }] }, null, 2),
    );
    expect((await collect(file)).map((c) => c.conversation.id)).toEqual((await collect(current)).map((c) => c.conversation.id));
  });
});

describe("Page Assist's database in a Chromium profile", () => {
  it("reads as the export of the same chats does, and a row Blink moved to a blob file (a pasted screenshot) whole", async () => {
    const { conversations, skipped } = await collectWithSkips(profileZip);
    const screenshot = conversations.find((c) => c.conversation.id === "page-assist-pa_b10b-5e55-4a1-9c0d");
    expect(screenshot?.conversation.messages.map((m) => m.content)).toEqual([
      "What does this error mean?\n\n[image]",
      "The linker cannot find libssl: install libssl-dev (or openssl-devel) and build again.",
    ]);
    expect(byId(conversations.filter((c) => c !== screenshot))).toEqual(byId(await collect(current)));
    expect(skipped).toEqual(EMPTY);
  });

  it("is found by --apps in each profile of each browser, the extension's folder read as it is, its blobs from beside it", async () => {
    const home = tempDir("mnemo-page-assist-home-");
    const chrome = await unzippedInto(join(home, ".config", "google-chrome", "Profile 1"));
    const edge = join(
      home,
      ".config",
      "microsoft-edge",
      "Default",
      "IndexedDB",
      "chrome-extension_ogkogooadflifpmmidmhjedogicnhooa_0.indexeddb.leveldb",
    );
    await cp(join(chrome, DATABASE), edge, { recursive: true });
    // A profile the browser does not list (one deleted, its folder left) is not read; nor a name out of the folder.
    await cp(join(chrome, DATABASE), join(home, ".config", "google-chrome", "Old Profile", DATABASE), { recursive: true });
    await writeFile(
      join(home, ".config", "google-chrome", "Local State"),
      localState(["Default", "Profile 1", "../google-chrome/Old Profile"]),
    );
    await writeFile(join(home, ".config", "microsoft-edge", "Local State"), localState(["Default"]));
    const found = foundApps({ platform: "linux", env: { HOME: home } }).filter((app) => app.name === "Page Assist");
    expect(found.map((app) => app.folder)).toEqual([join(chrome, DATABASE), edge]);
    expect(await collect(join(chrome, DATABASE))).toEqual(await collect(profileZip));
    // Edge's copy has no blob folder beside it: the screenshot's row is counted, the rest read.
    const { conversations, skipped } = await collectWithSkips(edge);
    expect(conversations).toHaveLength(6);
    expect(skipped).toEqual({ ...EMPTY, "database rows that could not be read (damaged, or their blob file missing)": 1 });
  });

  it("a profile folder (or its IndexedDB folder) passed whole reads the extension's database alone, other origins' databases and the caches never read", async () => {
    const profile = await unzippedInto(join(tmp, "Default"));
    await mkdir(join(profile, "Cache", "Cache_Data"), { recursive: true });
    await writeFile(
      join(profile, "Cache", "Cache_Data", "data_1.json"),
      JSON.stringify({
        chat: [{ history: { id: "cached" }, messages: [{ id: "c1", history_id: "cached", role: "user", content: "cached" }] }],
      }),
    );
    const site = join(profile, "IndexedDB", "https_example.org_0.indexeddb.leveldb");
    await mkdir(site, { recursive: true });
    await writeFile(join(site, "LOG"), "a site's database log");
    expect(await collect(profile)).toEqual(await collect(profileZip));
    expect(await collect(join(profile, "IndexedDB"))).toEqual(await collect(profileZip));
  });

  it("another extension's database is left as it is: no chat taken from it", async () => {
    const profile = join(tmp, "Other");
    for (const source of await zipSources(join(fixtures, "chatbox-userdata.zip"))) {
      if (!source.path.startsWith("IndexedDB/file__0.indexeddb.leveldb/")) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      const path = join(profile, source.path.replace("file__0", `chrome-extension_${"a".repeat(32)}_0`));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, Buffer.concat(chunks));
    }
    // Its files are left among the folder's, read as any folder's are: none is a chat export.
    await expect(collect(profile)).rejects.toThrow(/chrome-extension_a{32}_0\.indexeddb\.leveldb/);
  });
});

/** A browser's Local State naming its profiles as Chromium does (profile.info_cache). */
function localState(profiles: string[]): string {
  return JSON.stringify({ browser: {}, profile: { info_cache: Object.fromEntries(profiles.map((name) => [name, { name }])) } });
}
