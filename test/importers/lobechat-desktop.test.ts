// The LobeHub desktop app's database folder (a PGlite data folder) read as its data export is. Seconds:
// each read copies the folder's thousand files and starts PGlite (Postgres in WASM) on the copy, so the
// zip is read once here (its counts too), and found by --apps and read from a folder that stays as it was
// in lobechat-desktop.int.test.ts, which does so through the CLI.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, fixtures } from "./collect.js";
import { COUNTS } from "./fixture-counts.js";
import { tempDir } from "../temp-dirs.js";

// lobehub-local-db.zip is the folder as the app's PGlite leaves it, holding the export's chats, a topic
// never written in, and one whose only reply failed (fixtures/exports/lobechat/build-desktop.mjs).
const zip = join(fixtures, "lobehub-local-db.zip");
const exported = join(fixtures, "lobechat/2025-06-14-09-12_LobeChat-data.json");
const EMPTY_CHAT = "conversations without any message text (an empty new chat)";

describe("LobeHub desktop's database folder (lobehub-storage/lobehub-local-db)", () => {
  it("reads as the data export of the same chats: the same conversations and ids, an empty chat counted", { timeout: 60_000 }, async () => {
    const fromExport = await collect(exported);
    const reader = await openExport(zip);
    const conversations: UploadConversation[] = [];
    for await (const conversation of reader.conversations()) conversations.push(conversation);
    let memories = 0;
    for await (const _ of reader.memories()) memories++;
    const skipped: Record<string, number> = {};
    for (const { reason, count } of reader.skipped()) skipped[reason] = (skipped[reason] ?? 0) + count;
    // Its counts in the table registry.test.ts holds every other fixture to, read here alone.
    expect({
      conversations: conversations.length,
      messages: conversations.flatMap((c) => c.conversation.messages).length,
      memories,
    }).toEqual(COUNTS["lobehub-local-db.zip"]);
    expect(conversations.map((c) => c.conversation.id)).toEqual([
      "lobechat-session-ssn_Tr1pK9xWq2",
      "lobechat-tpc_Kef1r4Fm2zYx",
      "lobechat-tpc_Pt0WkEnd8q3R",
      "lobechat-thread-thd_G41aCv3sX9pL2mQe",
    ]);
    expect(conversations).toEqual(fromExport);
    expect(skipped).toEqual({ [EMPTY_CHAT]: 1 });
  });

  it("says a database folder it cannot open is the LobeHub database that could not be opened, naming it", { timeout: 60_000 }, async () => {
    // A data folder of PGlite 0.2's Postgres whose control file is damaged: opened, it cannot start.
    const folder = join(tempDir("mnemo-lobehub-damaged-"), "lobehub-local-db");
    await mkdir(join(folder, "global"), { recursive: true });
    await writeFile(join(folder, "PG_VERSION"), "16\n");
    await writeFile(join(folder, "global", "pg_control"), Buffer.alloc(8192, 7));
    await expect(collect(folder)).rejects.toThrow(/lobehub-local-db: the LobeHub desktop database could not be opened/);
  });

  it("leaves another Postgres's data folder (not PGlite 0.2's version) to the other formats", async () => {
    const folder = tempDir("mnemo-postgres-17-");
    await writeFile(join(folder, "PG_VERSION"), "17\n");
    await writeFile(join(folder, "postgresql.conf"), "# a server's\n");
    await expect(collect(folder)).rejects.toThrow(/no chat export/i);
  });
});
