// Cherry Studio 2's database (fixtures/exports/cherry-studio/build-sqlite.mjs): Data/cherrystudio.sqlite
// in the app's data folder, its first topic data.json's first as 2.x's first start migrates it.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { alteredFolder, cherryStudio2Database, cherryStudio2Folder } from "./cherry-studio-2-folder.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = cherryStudio2Folder;
const database = cherryStudio2Database;
const tmp = tempDir("mnemo-cherry-studio-2-");

const EMPTY = "conversations without any message text (an empty new topic)";
const DELETED = "topics deleted in Cherry Studio (kept in its database until purged)";
const AGENTS = "agent sessions (Claude Code and other agents run in Cherry Studio), not read";
const DAMAGED = "messages whose stored JSON is damaged (left out)";
const BESIDE = "Cherry Studio 1.x's IndexedDB beside 2.x's database, not read (2.x holds its topics since the upgrade)";

describe("Cherry Studio 2's database", () => {
  it("each topic is a conversation, named and dated as the app has it; an empty, a deleted topic and the agent sessions counted", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        [
          "cherry-studio-5b1c7e2a-0d4f-4a8e-9c3b-6f2e1d0a9b81",
          "Sourdough hydration",
          "2025-05-10T08:00:00.000Z",
          "2025-05-10T08:06:40.000Z",
        ],
        [
          "cherry-studio-0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b",
          "Espresso channeling",
          "2026-09-01T07:10:00.000Z",
          "2026-09-01T07:14:30.000Z",
        ],
      ],
    );
    expect(skipped).toEqual({ [EMPTY]: 1, [DELETED]: 1, [AGENTS]: 2 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "cherry-studio",
        "Cherry Studio",
        true,
      ]);
    }
    expect(await collect(database)).toEqual(conversations); // the database passed alone
  });

  it("only the branch the user selected: the chosen model's answer, the prompt as last sent; tools named, images and files as placeholders, thinking and sources out", async () => {
    const [, espresso] = await collect(folder);
    expect(espresso?.conversation.messages.map((m) => [m.id, m.role, m.content, m.createdAt])).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou are a patient barista.", "2026-09-01T07:10:00.000Z"],
      ["e-u1", "human", "My shots run in 15 seconds and taste sour. Finer or coarser?", "2026-09-01T07:10:05.000Z"],
      [
        "e-a2",
        "assistant",
        "[tool: web_search]\n\nGrind finer: a 15-second shot is under-extracted, which tastes sour. Aim for 25 to 30 seconds.",
        "2026-09-01T07:10:11.000Z",
      ],
      ["e-u2", "human", "And how much coffee for a double?", "2026-09-01T07:12:00.000Z"],
      ["e-a3", "assistant", "18 g in, about 36 g out.\n\n[image]\n\n```python\nratio = 36 / 18\n```", "2026-09-01T07:14:30.000Z"],
    ]);
  });

  it("a topic 2.x migrated from 1.x is the conversation the 1.x import gave, ids and all: a re-import after the upgrade updates it", async () => {
    const [fromBackup] = await collect(join(fixtures, "cherry-studio", "data.json"));
    const [fromDatabase] = await collect(folder);
    expect(fromDatabase).toEqual(fromBackup);
  });

  it("a damaged message costs only itself; a selected message that is gone, or a loop in the parents, still gives the topic", async () => {
    const dir = await alteredFolder(
      tmp,
      "damaged",
      `UPDATE message SET data = '{"parts": [' WHERE id = 'm1-a1';
       UPDATE message SET parent_id = 'm1-u3' WHERE id = 'm1-u1';
       UPDATE topic SET active_node_id = 'gone' WHERE name = 'Espresso channeling';`,
    );
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(conversations.map((c) => c.conversation.messages.map((m) => m.id))).toEqual([
      ["m1-u1", "m1-u2", "m1-a2", "m1-u3"],
      ["system-prompt", "e-u1", "e-a2", "e-u2", "e-a3"], // the path to its latest message
    ]);
    expect(skipped).toEqual({ [DAMAGED]: 1, [EMPTY]: 1, [DELETED]: 1, [AGENTS]: 2 });
  });

  it("a data folder holding 1.x's IndexedDB beside 2.x's database: the database alone is read, the caches never walked", async () => {
    const dir = join(tmp, "upgraded");
    for (const source of await zipSources(join(fixtures, "cherry-studio-direct.zip"))) {
      if (source.path === "metadata.json") continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
      mkdirSync(join(dir, source.path, ".."), { recursive: true });
      writeFileSync(join(dir, source.path), Buffer.concat(chunks));
    }
    cpSync(database, join(dir, "Data", "cherrystudio.sqlite"));
    mkdirSync(join(dir, "Cache", "Cache_Data"), { recursive: true });
    cpSync(join(fixtures, "chatgpt", "conversations.json"), join(dir, "Cache", "Cache_Data", "conversations.json"));
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(conversations).toEqual(await collect(folder)); // not the Borrow checker topic the IndexedDB still holds
    expect(skipped).toEqual({ [BESIDE]: 1, [EMPTY]: 1, [DELETED]: 1, [AGENTS]: 2 });
  });

  it("2.0's alpha and beta kept the database in the data folder itself: read there, the caches never walked", async () => {
    const dir = join(tmp, "prerelease");
    mkdirSync(join(dir, "Cache", "Cache_Data"), { recursive: true });
    cpSync(database, join(dir, "cherrystudio.sqlite"));
    cpSync(join(fixtures, "chatgpt", "conversations.json"), join(dir, "Cache", "Cache_Data", "conversations.json"));
    expect(await collect(dir)).toEqual(await collect(folder));
  });
});
