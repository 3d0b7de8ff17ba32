// The LobeHub desktop app's database folder (a PGlite data folder) read as its data export is. Seconds:
// each read copies the folder's thousand files and starts PGlite (Postgres in WASM) on the copy.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { foundApps } from "../../src/importers/app-folders.js";
import { zipSources } from "../../src/importers/zip.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

// lobehub-local-db.zip is the folder as the app's PGlite leaves it, holding the export's chats, a topic
// never written in, and one whose only reply failed (fixtures/exports/lobechat/build-desktop.mjs).
const zip = join(fixtures, "lobehub-local-db.zip");
const exported = join(fixtures, "lobechat/2025-06-14-09-12_LobeChat-data.json");
const EMPTY_CHAT = "conversations without any message text (an empty new chat)";

/** The zip's database folder written into `into` (its lobehub-local-db/ folder). */
async function unzippedInto(into: string): Promise<string> {
  for (const source of await zipSources(zip)) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
    await mkdir(dirname(join(into, source.path)), { recursive: true });
    await writeFile(join(into, source.path), Buffer.concat(chunks));
  }
  return join(into, "lobehub-local-db");
}

/** Every file of a folder and a hash of its bytes: what reading it must leave as it was. */
async function contentsOf(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  }
  return files;
}

describe("LobeHub desktop's database folder (lobehub-storage/lobehub-local-db)", () => {
  it("reads as the data export of the same chats: the same conversations and ids, an empty chat counted", { timeout: 60_000 }, async () => {
    const fromExport = await collect(exported);
    const { conversations, skipped } = await collectWithSkips(zip);
    expect(conversations.map((c) => c.conversation.id)).toEqual([
      "lobechat-session-ssn_Tr1pK9xWq2",
      "lobechat-tpc_Kef1r4Fm2zYx",
      "lobechat-tpc_Pt0WkEnd8q3R",
      "lobechat-thread-thd_G41aCv3sX9pL2mQe",
    ]);
    expect(conversations).toEqual(fromExport);
    expect(skipped).toEqual({ [EMPTY_CHAT]: 1 });
  });

  it("is found by --apps in Electron's userData and read there from a copy, the folder left as it was", { timeout: 60_000 }, async () => {
    const home = tempDir("mnemo-lobehub-home-");
    const folder = await unzippedInto(join(home, ".config", "LobeHub", "lobehub-storage"));
    const found = foundApps({ platform: "linux", env: { HOME: home } }).filter((app) => app.format === "lobechat");
    expect(found.map((app) => app.folder)).toEqual([folder]);
    const before = await contentsOf(folder);
    expect(await collect(folder)).toEqual(await collect(exported));
    expect(await contentsOf(folder)).toEqual(before); // no postmaster.pid, no recovery written into the app's own
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
