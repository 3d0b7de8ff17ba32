// Exports as they turn up in the wild rather than as documented: times written several ways,
// containers that hold no JSON export, and the like (fixtures/exports/odd/).
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatgptConversation } from "../../src/importers/chatgpt/conversation.js";
import { claudeConversation } from "../../src/importers/claude/conversation.js";
import { openExport } from "../../src/importers/index.js";
import { AppError } from "../../src/shared/errors.js";
import { collect, collectWithSkips, fixtures, recordContext } from "./collect.js";

const odd = (name: string) => join(fixtures, "odd", name);

describe("times written several ways", () => {
  it("ChatGPT: ISO strings, numeric strings, float seconds and milliseconds all give the same clock", async () => {
    const [conversation] = await collect(odd("chatgpt-times.json"));
    // Counted from the fixture by hand: 1709287200 s is 2024-03-01T10:00:00Z.
    expect(conversation?.conversation.createdAt).toBe("2024-03-01T10:00:00.000Z");
    expect(conversation?.conversation.updatedAt).toBe("2024-03-01T10:05:00.250Z");
    expect(conversation?.conversation.messages.map((message) => message.createdAt)).toEqual([
      "2024-03-01T10:00:00.500Z", // float seconds
      "2024-03-01T10:00:05.000Z", // ISO string
      "2024-03-01T10:01:00.000Z", // milliseconds
      "2024-03-01T10:01:05.000Z", // seconds as a string
    ]);
  });
});

describe("a zip or folder without an export's JSON says what it holds instead", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  async function folderWith(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(tmp, name);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  async function failure(path: string): Promise<AppError> {
    const error = await openExport(path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
    return error;
  }

  it("HTML pages that are no export: what mnemo reads of HTML, and of the others", async () => {
    const dir = await folderWith("takeout-html", {
      "Takeout/archive_browser.html": "<html><body>Takeout</body></html>",
      "Takeout/Meine Aktivitäten/Gemini-Apps/MeineAktivitäten.html": "<html><body><div class='outer-cell'>…</div></body></html>",
    });
    const error = await failure(dir);
    expect(error.message).toBe(
      `${dir}: holds HTML pages (Takeout/Meine Aktivitäten/Gemini-Apps/MeineAktivitäten.html), none of them a chat export`,
    );
    expect(error.suggestion).toMatch(/My Activity page of Gemini Apps/);
  });

  it("a ChatGPT export without its conversations.json: download again", async () => {
    const dir = await folderWith("chatgpt-no-data", {
      "chat.html": "<html><script>var jsonData = []</script></html>",
      "user.json": '{"id":"user-1"}',
    });
    expect((await failure(dir)).message).toBe(`${dir}: holds ChatGPT's chat.html but no conversations.json (the export's data)`);
  });

  it("a folder of export zips: import each", async () => {
    const dir = join(tmp, "downloads");
    await mkdir(dir, { recursive: true });
    await copyFile(join(fixtures, "chatgpt-export.zip"), join(dir, "chatgpt-export.zip"));
    await copyFile(join(fixtures, "claude-export.zip"), join(dir, "claude-export.zip"));
    const error = await failure(dir);
    expect(error.message).toBe(`${dir}: holds zip archives (chatgpt-export.zip, claude-export.zip), not an export's own files`);
    expect(error.suggestion).toMatch(/Import each archive on its own/);
  });

  it("a folder with nothing of the kind keeps the general message", async () => {
    const dir = await folderWith("notes", { "notes.txt": "hello" });
    expect((await failure(dir)).message).toContain("no chat export file found inside");
  });
});

describe("an export downloaded in parts, one archive each, in one folder", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "mnemo-parts-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  /** Zips `files` (name in the archive → file to copy) into `dir`/`archive`. */
  async function zipped(dir: string, archive: string, files: Record<string, string>): Promise<void> {
    const src = join(tmp, `src-${archive}`);
    for (const [name, from] of Object.entries(files)) {
      await mkdir(dirname(join(src, name)), { recursive: true });
      await copyFile(from, join(src, name));
    }
    execFileSync("zip", ["-q", "-r", "-X", join(dir, archive), ...Object.keys(files)], { cwd: src });
  }

  it("Claude's (since 2026: a manifest and conversations-000.zip, projects-000.zip…) is read as one export", async () => {
    // The layout as public readers of real exports describe it (ukogan/claude-migration-assistant
    // issue 4, Superkikim/nexus-ai-chat-importer issue 72): the manifest holds only download links.
    const dir = join(tmp, "claude");
    await mkdir(dir, { recursive: true });
    const memories = join(fixtures, "claude-memories-2026");
    await zipped(dir, "conversations-000.zip", { "conversations.json": join(fixtures, "claude/conversations.json") });
    await zipped(dir, "projects-000.zip", {
      "projects/019a0b1c-2d3e-7f40-8152-63748596a7b8.json": join(memories, "projects/019a0b1c-2d3e-7f40-8152-63748596a7b8.json"),
    });
    await zipped(dir, "memories-000.zip", {
      "memories/7e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b.json": join(memories, "memories/7e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b.json"),
    });
    await zipped(dir, "light_metadata-000.zip", { "users.json": join(fixtures, "claude/users.json") });
    await writeFile(
      join(dir, "manifest-5d78e277-2026-09-01-10-00-00.json"),
      '{"files":[{"name":"conversations-000.zip","url":"https://claude.ai/export/x/1"}]}',
    );
    const reader = await openExport(dir);
    const ids = [];
    for await (const conversation of reader.conversations()) ids.push(conversation.conversation.id);
    expect(ids).toEqual((await collect(join(fixtures, "claude/conversations.json"))).map((c) => c.conversation.id));
    const labels = [];
    for await (const memory of reader.memories()) labels.push(memory.bucket.name);
    expect(new Set(labels)).toEqual(new Set(["Claude memories", "Claude projects"]));
  });

  it("a part holding no chats, imported alone, says to import the folder of all the parts", async () => {
    const dir = join(tmp, "one-part");
    await mkdir(dir, { recursive: true });
    await zipped(dir, "light_metadata-000.zip", { "users.json": join(fixtures, "claude/users.json") });
    const error = await openExport(join(dir, "light_metadata-000.zip")).then(
      () => undefined,
      (thrown: unknown) => thrown as AppError,
    );
    expect(error?.message).toBe(
      `${join(dir, "light_metadata-000.zip")}: one part of an export downloaded in parts, holding no chats (users.json)`,
    );
    expect(error?.suggestion).toMatch(/^Save every part of the export in one folder .* and import the folder\.$/);
  });

  it("Claude's manifest passed alone says to download the archives it links to and import their folder", async () => {
    const manifest = join(tmp, "manifest-9d86139e-bac4-2026-09-10-21-25-17.json");
    await writeFile(manifest, '{"files":[{"name":"conversations-000.zip","url":"https://claude.ai/export/x/1"}]}');
    const error = await openExport(manifest).then(
      () => undefined,
      (thrown: unknown) => thrown as AppError,
    );
    expect(error?.message).toBe(`${manifest}: this is the manifest of an export downloaded in parts (its download links), not the chats`);
    expect(error?.suggestion).toMatch(/^Download every archive it links to .* import the folder\.$/);
  });

  it("Takeout's split archives (takeout-…-001.zip, -002.zip) are read as one export", async () => {
    const dir = join(tmp, "takeout");
    await mkdir(dir, { recursive: true });
    await copyFile(join(fixtures, "gemini-takeout.zip"), join(dir, "takeout-20260101T101500Z-001.zip"));
    await zipped(dir, "takeout-20260101T101500Z-002.zip", { "Takeout/archive_browser.html": join(fixtures, "chatgpt/chat.html") });
    const ids = (await collect(dir)).map((c) => c.conversation.id);
    expect(ids).toEqual((await collect(join(fixtures, "gemini-takeout.zip"))).map((c) => c.conversation.id));
  });
});

describe("an archive beside an export", () => {
  it("is counted as not read, not passed over in silence", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
    try {
      await copyFile(join(fixtures, "claude/conversations.json"), join(tmp, "conversations.json"));
      await copyFile(join(fixtures, "chatgpt-export.zip"), join(tmp, "older-export.zip"));
      const { conversations, skipped } = await collectWithSkips(tmp);
      expect(conversations.length).toBeGreaterThan(0);
      expect(skipped["zip archives inside the export, not read (import each on its own)"]).toBe(1);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("an export of no conversations", () => {
  it("imports nothing and says its conversations.json is an empty list (the empty side files are not listed)", async () => {
    const { conversations, skipped } = await collectWithSkips(odd("chatgpt-empty"));
    expect(conversations).toEqual([]);
    expect(skipped).toEqual({ "files that hold no conversations (an empty list)": 1 });
  });

  it("a lone empty list says so too", async () => {
    const { conversations, skipped } = await collectWithSkips(odd("chatgpt-empty/conversations.json"));
    expect(conversations).toEqual([]);
    expect(skipped).toEqual({ "files that hold no conversations (an empty list)": 1 });
  });

  it("a file of an empty object ({}) says it holds nothing to import, not that it is of no format", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-empty-"));
    try {
      for (const [name, text] of Object.entries({ "a.json": "{}", "b.json": "\uFEFF{ }\r\n", "c.ndjson": "{}\n{}\n", "d.json": "[{}]" })) {
        const path = join(tmp, name);
        await writeFile(path, text);
        const error = await openExport(path).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).message).toBe(`${path}: the file holds nothing to import (an empty object, {})`);
        expect((error as AppError).suggestion).toMatch(/export again/);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("ChatGPT writing blocks as they come", () => {
  it("keeps a document's title, reads curly and bare attributes, and drops the opener of a block never closed", async () => {
    const [conversation] = await collect(odd("chatgpt-writing.json"));
    const answers = conversation?.conversation.messages.filter((message) => message.role === "assistant").map((message) => message.content);
    expect(answers).toEqual([
      "Here is the handover note.\n\nHandover — billing service\n\n# Billing service\n\nThe nightly job retries three times.\n\nTell me if it should be shorter.",
      "A draft:\n\nSubject: Moving our call\n\nHi Ana,\n\ncould we move Thursday's call to Friday at 10?\n\nThanks,\nLeo",
      "Release notes 2.4: faster search, fewer crashes.",
    ]);
  });
});

describe("ChatGPT code interpreter, 2023", () => {
  it("a chart the cell drew is an [image], not the <<ImageDisplayed>> marker in an output block", async () => {
    const [conversation] = await collect(odd("chatgpt-2023-code.json"));
    const messages = conversation?.conversation.messages.map((message) => [message.role, message.id, message.content]);
    expect(messages?.filter(([, id]) => id === "o1" || id === "o2")).toEqual([
      ["assistant", "o1", "[image]"],
      ["assistant", "o2", "Output:\n```\n{'mean': 2}\n```\n[image]"],
    ]);
    expect(messages?.map(([role]) => role)).toEqual([
      "human",
      "assistant",
      "assistant",
      "assistant",
      "human",
      "assistant",
      "assistant",
      "assistant",
    ]);
  });
});

describe("Gemini Takeout in a language we know no verb for, mixed with other activity", () => {
  it("learns the verb from the records Gemini answered, so feedback and 'used' records do not hide it", async () => {
    const { conversations, skipped } = await collectWithSkips(odd("gemini-fr-mixed.json"));
    const prompts = conversations.flatMap((c) => c.conversation.messages.filter((m) => m.role === "human").map((m) => m.content));
    // Five records with an answer in the fixture, four without (two "used", a feedback, a Gem created).
    expect(prompts).toEqual([
      "Une idée de dessert sans sucre",
      "Quelle est la capitale de l'Australie ?",
      "Traduis « merci » en allemand",
      "Combien de temps cuire un œuf mollet ?",
      "Un poème court sur la pluie",
    ]);
    expect(conversations.map((c) => c.conversation.title)).toContain("Un poème court sur la pluie");
    expect(Object.values(skipped).reduce((a, b) => a + b, 0)).toBe(4);
  });
});

describe("Claude: a conversation begun before messages named their parent", () => {
  it("keeps its older, unlinked messages on the branch, and still drops the abandoned retry", async () => {
    const [conversation] = await collect(odd("claude-partly-linked.json"));
    // Five messages in the fixture: two without parent_message_uuid (listed out of order), a prompt
    // linked to the older answer, and two answers to it of which the later is the one kept.
    expect(conversation?.conversation.messages.map((message) => `${message.role}:${message.id}`)).toEqual([
      "human:pl-h1",
      "assistant:pl-a1",
      "human:pl-h2",
      "assistant:pl-a2",
    ]);
  });
});

describe("an export's other file passed instead of its conversations", () => {
  it.each([
    ["chatgpt/user.json", "ChatGPT's user.json (the account's details)", /conversations\.json .*or the zip/],
    ["chatgpt/shared_conversations.json", "ChatGPT's shared_conversations.json (the links you shared)", /conversations\.json/],
    ["chatgpt-2026/export_manifest.json", "ChatGPT's export_manifest.json (the list of the export's files)", /conversations-NNN\.json/],
    ["claude/users.json", "Claude's users.json (the account's details)", /conversations\.json .*or the zip/],
  ])("%s is named, with the file to pass instead", async (file, what, instead) => {
    const path = join(fixtures, file);
    const error = await openExport(path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toBe(`${path}: this is ${what}, not the conversations`);
    expect((error as AppError).suggestion).toMatch(instead);
  });

  it("a JSON file of no known kind keeps the general message", async () => {
    const path = join(fixtures, "malformed/not-an-export.json");
    await expect(openExport(path)).rejects.toThrow(/not a supported chat export/);
  });

  it("ChatGPT's ads.json ({}) says it holds nothing to import", async () => {
    const path = join(fixtures, "chatgpt-2026/ads.json");
    await expect(openExport(path)).rejects.toThrow(`${path}: the file holds nothing to import (an empty object, {})`);
  });
});

describe("a zip holding several exports, each under its own folder", () => {
  it("reads each (a ChatGPT and a Claude export) as its own format: what each gives alone", async () => {
    const both = await collect(odd("two-exports.zip"));
    const chatgpt = await collect(join(fixtures, "chatgpt/conversations.json"));
    const claude = await collect(join(fixtures, "claude-2026/conversations.json"));
    // 4 ChatGPT conversations with text and 3 Claude ones, counted from their own tests' fixtures.
    expect(chatgpt).toHaveLength(4);
    expect(claude).toHaveLength(3);
    expect(both).toEqual([...chatgpt, ...claude]);
  });

  it("reads two entries of one name each for itself (the second was read as the first, its conversations lost)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mnemo-same-name-"));
    try {
      for (const [folder, source] of [
        ["a", "chatgpt/conversations.json"],
        ["b", "claude-2026/conversations.json"],
      ] as const) {
        await mkdir(join(dir, folder));
        await copyFile(join(fixtures, source), join(dir, folder, "conversations.json"));
      }
      const zipPath = join(dir, "same-name.zip");
      execFileSync("zip", ["-q", "-X", zipPath, "a/conversations.json", "b/conversations.json"], { cwd: dir });
      // Both entries named a/conversations.json, as an archive made by hand can have them.
      const bytes = await readFile(zipPath);
      await writeFile(zipPath, Buffer.from(bytes.toString("latin1").replaceAll("b/conversations.json", "a/conversations.json"), "latin1"));
      const chatgpt = await collect(join(fixtures, "chatgpt/conversations.json"));
      const claude = await collect(join(fixtures, "claude-2026/conversations.json"));
      const both = await collect(zipPath);
      expect(both.map((c) => c.conversation.id)).toEqual([...chatgpt, ...claude].map((c) => c.conversation.id));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('ChatGPT conversations wrapped in { "conversations": [...] }', () => {
  it("reads the records of the wrapped array, as it reads a bare one", async () => {
    const wrapped = await collect(odd("chatgpt-wrapped.json"));
    expect(wrapped).toHaveLength(1);
    expect(wrapped).toEqual(await collect(odd("chatgpt-writing.json")));
  });

  it("a wrapped empty list is an export of no conversations", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
    try {
      const path = join(tmp, "conversations.json");
      await writeFile(path, '{"conversations": []}');
      const { conversations, skipped } = await collectWithSkips(path);
      expect(conversations).toEqual([]);
      expect(skipped).toEqual({ "files that hold no conversations (an empty list)": 1 });
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("a message id repeated within a conversation", () => {
  it("is numbered, so the store does not let one message replace the other", async () => {
    const [conversation] = await collect(odd("claude-repeated-ids.json"));
    // Three messages in the fixture, the first two sharing the uuid m1.
    expect(conversation?.conversation.messages.map((message) => [message.id, message.content])).toEqual([
      ["m1", "first"],
      ["m1-2", "second"],
      ["m2", "third"],
    ]);
  });
});

describe("ChatGPT's analysis channel", () => {
  it("is the model's reasoning, not its answer: a text message on it is left out", async () => {
    const [conversation] = await collect(odd("chatgpt-analysis-channel.json"));
    expect(conversation?.conversation.messages.map((message) => `${message.role}:${message.id}`)).toEqual(["human:u1", "assistant:a1"]);
  });
});

describe("one conversation met in two files of an export", () => {
  it("is read once, the repeat counted; a newer copy is read again (it replaces the older)", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
    try {
      // The same four ChatGPT conversations as one file and as shards, side by side.
      await mkdir(join(tmp, "whole"));
      await mkdir(join(tmp, "shards"));
      await copyFile(join(fixtures, "chatgpt/conversations.json"), join(tmp, "whole/conversations.json"));
      await copyFile(join(fixtures, "chatgpt-sharded/conversations-000.json"), join(tmp, "shards/conversations-000.json"));
      await copyFile(join(fixtures, "chatgpt-sharded/conversations-001.json"), join(tmp, "shards/conversations-001.json"));
      const { conversations, skipped } = await collectWithSkips(tmp);
      expect(conversations.map((c) => c.conversation.id)).toEqual(
        (await collect(join(fixtures, "chatgpt/conversations.json"))).map((c) => c.conversation.id),
      );
      expect(skipped["conversations met again in the export, no newer (read once)"]).toBe(4);

      // A file that lists a conversation twice: read once, and the count does not send the user to another file.
      await mkdir(join(tmp, "twice"));
      const listed = JSON.parse(await readFile(join(fixtures, "chatgpt/conversations.json"), "utf8")) as unknown[];
      await writeFile(join(tmp, "twice/conversations.json"), JSON.stringify([...listed, listed[0]]));
      const twice = await collectWithSkips(join(tmp, "twice/conversations.json"));
      expect(twice.conversations).toHaveLength(4);
      expect(twice.skipped["conversations met again in the export, no newer (read once)"]).toBe(1);

      // A later export of one conversation, continued since: read after the older copy, so it replaces it.
      const [older] = JSON.parse(await readFile(odd("chatgpt-times.json"), "utf8")) as [Record<string, unknown>];
      const newer = { ...older, update_time: 1709290000 };
      await mkdir(join(tmp, "z-later"));
      await writeFile(join(tmp, "z-later/conversations.json"), JSON.stringify([newer]));
      await copyFile(odd("chatgpt-times.json"), join(tmp, "whole/older.json"));
      const again = await collect(tmp);
      expect(again.filter((c) => c.conversation.id === "odd-times-0001").map((c) => c.conversation.updatedAt)).toEqual([
        "2024-03-01T10:05:00.250Z",
        "2024-03-01T10:46:40.000Z",
      ]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("two Takeouts of one Gemini account side by side", () => {
  it("give each record once: the conversations of one alone, the repeats counted", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
    try {
      for (const copy of ["takeout-1", "takeout-2"]) {
        await mkdir(join(tmp, copy), { recursive: true });
        await copyFile(join(fixtures, "gemini/My Activity.json"), join(tmp, copy, "My Activity.json"));
      }
      const alone = await collect(join(fixtures, "gemini/My Activity.json"));
      const { conversations, skipped } = await collectWithSkips(tmp);
      expect(conversations).toEqual(alone);
      // The fixture holds 6 prompts with an answer (5 Gemini Apps, 1 Bard): each met again once.
      expect(skipped["Gemini records met again in another activity file (read once)"]).toBe(6);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("Claude conversations without a uuid in two files", () => {
  it("get ids of their own (not their position in the file), so both are kept", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "mnemo-odd-"));
    try {
      const conversation = (name: string, text: string) => [
        {
          name,
          created_at: "2025-05-01T10:00:00Z",
          chat_messages: [{ uuid: `${name}-h1`, sender: "human", text, created_at: "2025-05-01T10:00:00Z" }],
        },
      ];
      await writeFile(join(tmp, "a.json"), JSON.stringify(conversation("Tea", "Green or black tea for the evening?")));
      await writeFile(join(tmp, "b.json"), JSON.stringify(conversation("Coffee", "How fine should espresso be ground?")));
      const conversations = await collect(tmp);
      expect(conversations.map((c) => c.conversation.title)).toEqual(["Tea", "Coffee"]);
      expect(new Set(conversations.map((c) => c.conversation.id)).size).toBe(2);
      expect((await collect(join(tmp, "a.json")))[0]?.conversation.id).toBe(conversations[0]?.conversation.id); // stable
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe("Claude answers of 2024, with artifacts and thinking as tags in the text", () => {
  it("store each artifact as [artifact: title] and its text, drop the thinking, and leave a human's words alone", async () => {
    const [conversation] = await collect(odd("claude-2024-artifacts.json"));
    expect(conversation?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Write a script to toggle floating for the focused window."],
      [
        "assistant",
        "Here is a script that toggles the focused window:\n\n[artifact: Float/tile toggle]\n#!/bin/bash\nhyprctl dispatch togglefloating\n\nBind it to a key in your config.",
      ],
      ["human", "And a packing list for Lisbon, as a document <antArtifact> please."],
      ["assistant", "Sure, a first sketch:\n\n[artifact: Packing list]\n- Passport\n- Charger"],
    ]);
  });
});

describe("Claude uploads listed in files_v2", () => {
  it("are named whether only there or in files too, once each; two uploads of one name stay two", async () => {
    const [conversation] = await collect(odd("claude-files-v2.json"));
    expect(conversation?.conversation.messages.map((message) => message.content)).toEqual([
      "What is on these two receipts?\n\n[file: receipt-1.jpg]\n\n[file: receipt-2.jpg]",
      "A coffee and a croissant; two train tickets.",
      "[file: photo.png]\n\n[file: photo.png]",
    ]);
  });
});

describe("a ChatGPT canvas whose payload is an object part, not JSON text", () => {
  it("is stored as the document, as a JSON-text payload is", () => {
    const node = (id: string, parent: string | null, children: string[], message: unknown) => ({ id, parent, children, message });
    const record = {
      conversation_id: "odd-canvas-object",
      title: "Haiku",
      create_time: 1760000000,
      current_node: "a1",
      mapping: {
        root: node("root", null, ["u1"], null),
        u1: node("u1", "root", ["a1"], {
          id: "u1",
          author: { role: "user" },
          content: { content_type: "text", parts: ["A haiku about rain, in a canvas."] },
        }),
        a1: node("a1", "u1", [], {
          id: "a1",
          author: { role: "assistant" },
          recipient: "canmore.create_textdoc",
          content: { content_type: "text", parts: [{ name: "rain_haiku", type: "document", content: "Soft rain on the roof" }] },
        }),
      },
    };
    const messages = chatgptConversation(record, recordContext())?.conversation.messages;
    expect(messages?.map((message) => message.content)).toEqual([
      "A haiku about rain, in a canvas.",
      "[document: rain_haiku]\nSoft rain on the roof",
    ]);
  });
});

describe("Claude first prompts written without a parent field, one edited", () => {
  it("a version newer than the linked messages is a first message of its own: the abandoned one is not chained to it", () => {
    const message = (uuid: string, sender: string, minute: number, text: string, parent?: string) => ({
      uuid,
      sender,
      created_at: `2025-06-01T09:0${minute}:00Z`,
      content: [{ type: "text", text }],
      ...(parent === undefined ? {} : { parent_message_uuid: parent }),
    });
    const record = {
      uuid: "c-edited-unlinked",
      name: "Edited first prompt",
      chat_messages: [
        message("v1", "human", 0, "Name a cat."),
        message("v1-a", "assistant", 1, "Miso.", "v1"),
        message("v2", "human", 2, "Name a black cat."),
        message("v2-a", "assistant", 3, "Nori.", "v2"),
      ],
    };
    const messages = claudeConversation(record, recordContext())?.conversation.messages;
    expect(messages?.map((m) => m.id)).toEqual(["v2", "v2-a"]);
  });
});
