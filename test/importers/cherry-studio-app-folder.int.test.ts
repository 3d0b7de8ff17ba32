// Cherry Studio's chats read straight from the app's own data folder (Electron's userData: Chromium's
// IndexedDB and Local Storage folders among its caches, no metadata.json), as the app may be writing it:
// through the folder, and found by `import --apps` (the import runs in a worker thread, on the compiled code).
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { zipSources } from "../../src/importers/zip.js";
import { isolatedEnv, runCli, tempDir } from "../helpers.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const zip = join(fixtures, "cherry-studio-direct.zip");
const DATABASE = "IndexedDB/file__0.indexeddb.leveldb";
const EMPTY_TOPIC = "conversations without any message text (an empty new topic)";
const DAMAGED = "LevelDB log records and table blocks that could not be read (damaged): the rows in them are lost";

/** The backup's storage folders laid out as the app keeps them in `dir`: no metadata.json, caches beside (one holding another app's export, read if the caches were walked). */
async function appFolder(dir = tempDir("mnemo-cherry-app-")): Promise<string> {
  for (const source of await zipSources(zip)) {
    if (source.path === "metadata.json") continue;
    const chunks: Buffer[] = [];
    for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
    mkdirSync(join(dir, source.path, ".."), { recursive: true });
    writeFileSync(join(dir, source.path), Buffer.concat(chunks));
  }
  for (const cache of ["Cache/Cache_Data", "Code Cache/js", "GPUCache", "logs"]) mkdirSync(join(dir, cache), { recursive: true });
  writeFileSync(join(dir, "Cache/Cache_Data/index"), Buffer.alloc(64));
  writeFileSync(join(dir, "Code Cache/js/index"), Buffer.alloc(24));
  cpSync(join(fixtures, "chatgpt", "conversations.json"), join(dir, "Cache/Cache_Data/conversations.json"));
  writeFileSync(join(dir, "config.json"), "{}");
  return dir;
}

/** Every file under a folder with its size and modification time. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = statSync(path);
    files[relative(dir, path)] = `${info.size} ${info.mtimeMs}`;
  }
  return files;
}

/** A copy of the table with a byte of a topic's row flipped: its block's checksum fails. */
function damaged(table: Buffer): Buffer {
  const bytes = Buffer.from(table);
  const at = bytes.indexOf("a7d9e3f1-2c5b") + 2;
  bytes[at] = (bytes[at] ?? 0) ^ 0xff;
  return bytes;
}

function liveFile(dir: string, ending: string): string {
  const name = readdirSync(join(dir, DATABASE)).find((file) => file.endsWith(ending));
  if (name === undefined) throw new Error(`the fixture has no ${ending}`);
  return join(dir, DATABASE, name);
}

describe("Cherry Studio's own data folder", () => {
  it("reads as its backup does, its caches never walked, nothing in it created or changed", async () => {
    const dir = await appFolder();
    const before = snapshot(dir);
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(conversations).toEqual(await collect(zip));
    expect(conversations.map((c) => c.platform)).not.toContain("chatgpt"); // the export in its Cache was not read
    expect(skipped).toEqual({ [EMPTY_TOPIC]: 1 });
    expect(snapshot(dir)).toEqual(before); // no LOCK taken, no file created
  });

  it("as the app writes it: a log record half written, a table a compaction is writing and one it replaced are not read", async () => {
    const dir = await appFolder();
    const log = liveFile(dir, ".log");
    const record = Buffer.alloc(7 + 10);
    record.writeUInt16LE(1000, 4); // a record of 1,000 bytes, 10 of them written so far
    record[6] = 1;
    writeFileSync(log, Buffer.concat([readFileSync(log), record]));
    const table = readFileSync(liveFile(dir, ".ldb"));
    writeFileSync(join(dir, DATABASE, "000009.ldb"), table.subarray(0, table.length >> 1)); // being written
    writeFileSync(join(dir, DATABASE, "000002.ldb"), damaged(table)); // replaced, not yet deleted (damaged, to tell if it is read)
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(conversations).toEqual(await collect(zip));
    expect(skipped).toEqual({ [EMPTY_TOPIC]: 1 });
  });

  it("a table its MANIFEST names that is not there (a copy made mid-compaction): every table there is read instead", async () => {
    const dir = await appFolder();
    const table = liveFile(dir, ".ldb");
    renameSync(table, join(dir, DATABASE, "000099.ldb"));
    expect(await collect(dir)).toEqual(await collect(zip));
  });

  it("a damaged live table is still counted", async () => {
    const dir = await appFolder();
    const table = liveFile(dir, ".ldb");
    writeFileSync(table, damaged(readFileSync(table)));
    expect((await collectWithSkips(dir)).skipped).toMatchObject({ [DAMAGED]: 1 });
  });

  it("another Electron app's data folder is walked as any folder: its files read, its IndexedDB not taken for Cherry Studio's", async () => {
    const dir = await appFolder();
    const database = join(dir, DATABASE);
    rmSync(database, { recursive: true });
    mkdirSync(database);
    const conversations = await collect(dir);
    expect(conversations.map((c) => c.platform)).toEqual(
      (await collect(join(fixtures, "chatgpt", "conversations.json"))).map(() => "chatgpt"),
    );
  });

  // Two imports through the CLI: some seconds. --no-wait: what is stored, not its indexing, is the subject.
  it("`import --apps` finds it in the apps' settings folder; importing it after the backup zip stores nothing twice", async () => {
    const home = tempDir("mnemo-cherry-home-");
    const config = join(home, ".config");
    await appFolder(join(config, "CherryStudio"));
    const env = isolatedEnv({ HOME: home, XDG_CONFIG_HOME: config });
    const backup = await runCli(["import", "--no-wait", zip], { env });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toContain("Imported 4 new conversations");
    const importId = /Import id (imp_\w+)/.exec(backup.stderr)?.[1];
    // --apps imports the folder as its path would: one run proves both.
    const again = await runCli(["import", "--no-wait", "--apps"], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Nothing new: all 4 conversations were already imported");
    expect(again.stderr).toContain("Found on this machine:\n  Cherry Studio (~/.config/CherryStudio)");
    const listed = await runCli(["chats", "list", "--json"], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const { items } = JSON.parse(listed.stdout) as { items: { importId: string }[] };
    expect(items.map((item) => item.importId)).toEqual([importId, importId, importId, importId]); // the backup's conversations, none new
  });

  it("`import --apps` finds it where Settings → Data Settings moved it, as ~/.cherrystudio/config/config.json names it", async () => {
    const home = tempDir("mnemo-cherry-home-");
    const moved = await appFolder();
    mkdirSync(join(home, ".cherrystudio", "config"), { recursive: true });
    const executablePath = "/opt/Cherry Studio/cherry-studio";
    writeFileSync(
      join(home, ".cherrystudio", "config", "config.json"),
      JSON.stringify({ appDataPath: [{ executablePath, dataPath: moved }] }),
    );
    const imported = await runCli(["import", "--no-wait", "--apps"], { env: isolatedEnv({ HOME: home }) });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`Found on this machine:\n  Cherry Studio (${moved})`);
    expect(imported.stderr).toContain("Imported 4 new conversations");
  });
});
