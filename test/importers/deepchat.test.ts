import { execFileSync } from "node:child_process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { appFolderLines, foundApps } from "../../src/importers/app-folders.js";
import { deepchat } from "../../src/importers/deepchat/index.js";
import { openExport } from "../../src/importers/index.js";
import { watchedDatabaseOf } from "../../src/importers/registry.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const data = join(fixtures, "deepchat", "DeepChat");
const agentDb = join(data, "app_db", "agent.db");
const chatDb = join(data, "app_db", "chat.db");
const ids = (conversations: UploadConversation[]) => conversations.map((c) => c.conversation.id);

describe("DeepChat's chats", () => {
  it("agent.db: every session the app lists, those copied from chat.db under 1.0's ids; a sub-agent's, an empty one, a deleted one's and a damaged answer left out", async () => {
    const { conversations, skipped } = await collectWithSkips(agentDb);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["V1StGXR8_Z5jdHi6B-myT", "When does the first tram 28 leave Martim Moniz on Sundays?", 4], // "New Chat": the first prompt
      ["hBr1dg3sS3ss10n000001", "Bridges over the Tagus", 3],
      ["legacy-session-conv-fado", "Fado houses", 4],
      ["legacy-session-conv-tiles", "Azulejo restoration", 4],
    ]);
    expect(skipped).toEqual({
      "messages of sessions no longer in the database (the app never shows them)": 1,
      "messages whose stored JSON is damaged (left out)": 1,
      "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1,
      "sessions without any message text": 1, // conv-empty, copied with no message
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["deepchat", "DeepChat", true]);
    }
  });

  it("a session as the chat shows it: files by name, images as [image], tools named, thinking, web results and the compaction note left out, an answer still streaming read from its blocks", async () => {
    const [tram] = await collect(agentDb);
    expect(tram?.conversation).toEqual({
      id: "V1StGXR8_Z5jdHi6B-myT",
      title: "When does the first tram 28 leave Martim Moniz on Sundays?",
      createdAt: "2026-04-14T18:02:11.000Z",
      updatedAt: "2026-04-14T18:07:16.000Z",
      messages: [
        {
          id: "aU7sdQ2n9xY0bK3mP1cZe",
          role: "human",
          content: "When does the first tram 28 leave Martim Moniz on Sundays?\n\n[file: tram-28-timetable.pdf]\n\n[image]",
          createdAt: "2026-04-14T18:02:11.000Z",
        },
        {
          id: "bT2kLm9QpX4rWv8sY0aNc",
          role: "assistant",
          content: "[tool: read_file]\n\nOn Sundays the first 28 leaves Martim Moniz at 06:00, then every 12 minutes.\n\n[image]",
          createdAt: "2026-04-14T18:02:20.000Z", // when the answer was finished
        },
        { id: "dQ4wErTy6uIoP8aSdFgHj", role: "human", content: "Is the 28E the same route?", createdAt: "2026-04-14T18:07:11.000Z" },
        {
          id: "eZ5xCvBn7mLkJhG3fDsA2",
          role: "assistant",
          content: "The 28E runs the same line from Martim Moniz, stopping at fewer streets",
          createdAt: "2026-04-14T18:07:16.000Z",
        },
      ],
    });
  });

  it("chat.db (before 1.0): the variant the user picked, the last one before 0.3.9, under 1.0's ids; system rows and a damaged answer left out", async () => {
    const { conversations, skipped } = await collectWithSkips(chatDb);
    expect(ids(conversations)).toEqual(["legacy-session-conv-fado", "legacy-session-conv-tiles"]);
    const [fado, tiles] = conversations.map((c) => c.conversation.messages.map((m) => [m.id, m.content]));
    expect(tiles).toEqual([
      ["legacy-msg-tiles-u1", "How do I reattach a loose azulejo tile without damaging the glaze?\n\n[image]"],
      ["legacy-msg-tiles-a1", "Soak the tile, then bed it in a lime putty mortar; cement would crack the old glaze."], // picked: the first of two variants
      ["legacy-msg-tiles-u2", "Where can I buy lime putty in Lisbon?"],
      ["legacy-msg-tiles-a2", "[tool: web_search]\n\nA conservation supplier in Xabregas sells lime putty by the kilo."],
    ]);
    expect(fado).toEqual([
      ["legacy-msg-fado-u1", "Which fado house in Alfama has no minimum spend?"],
      ["legacy-msg-fado-a1", "Tasca do Chico's Alfama room has no minimum: arrive before nine."], // 0.3.8: the last variant
      ["legacy-msg-fado-u2", "And on Mondays?"],
    ]);
    expect(skipped).toEqual({ "messages whose stored JSON is damaged (left out)": 1, "sessions without any message text": 1 });
  });

  it("the data folder: chat.db beside the agent.db it was copied into gives each chat once, as agent.db has it", async () => {
    const { conversations, skipped } = await collectWithSkips(data);
    expect(ids(conversations)).toEqual(ids(await collect(agentDb)));
    expect(skipped["conversations met again in the export, no newer (read once)"]).toBe(2);
    const tiles = conversations.find((c) => c.conversation.id === "legacy-session-conv-tiles");
    expect(tiles?.conversation.messages[1]?.content).toBe("Hydraulic lime mortar, pressed in gently: the third try."); // 1.0's import kept the last variant
  });

  it("the first agent.db (1.0.0-beta.1): no session_kind, no structured tables, each message read from its content", async () => {
    const [nata] = await collect(join(fixtures, "deepchat", "agent-1.0-beta", "agent.db"));
    expect(nata?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Why do pastéis de nata blister on top?"],
      ["assistant", "The oven runs near 300 °C, so the custard's sugar caramelises in spots before the filling sets."],
    ]);
  });

  it("its Markdown export is DeepChat's, under the session's id, read as its database is: thinking, web results and tools' params out", async () => {
    const [exported] = await collect(join(fixtures, "markdown", "export_deepchat_2026-04-14_18-20-00.md"));
    const [stored] = await collect(agentDb);
    expect([exported?.platform, exported?.platformDisplayName, exported?.conversation.id]).toEqual([
      "deepchat",
      "DeepChat",
      stored?.conversation.id,
    ]);
    expect(exported?.conversation.title).toBe(stored?.conversation.title);
    // The export leaves out an answer still streaming (AgentSessionExportService: status 'sent' alone).
    expect(exported?.conversation.messages.map((m) => [m.role, m.content])).toEqual(
      stored?.conversation.messages.slice(0, 3).map((m) => [m.role, m.content]),
    );
  });

  it("an encrypted agent.db is said to be DeepChat's, encrypted, with what to do; in the folder chat.db is still read", async () => {
    const folder = tempDir("mnemo-deepchat-");
    const appDb = join(folder, "DeepChat", "app_db");
    await mkdir(appDb, { recursive: true });
    await writeFile(join(appDb, "agent.db"), sqlcipherLike());
    await copyFile(chatDb, join(appDb, "chat.db"));
    const settings = {
      metadata: { version: 1, enabled: true, cipher: "sqlcipher", passwordStorage: "safeStorage", wrappedPassword: "djEwAAAA" },
    };
    await writeFile(join(folder, "DeepChat", "database-security.json"), JSON.stringify(settings));

    const alone = await openExport(join(appDb, "agent.db")).catch((error: unknown) => error);
    expect(alone).toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/agent\.db: DeepChat's database, encrypted \(database-security\.json .* says encryption is on\)/),
      suggestion: expect.stringContaining("Settings → Data → SQLite database encryption"),
    });
    const reader = await openExport(appDb);
    expect(reader.unreadable.map((problem) => problem.message)).toEqual([expect.stringContaining("DeepChat's database, encrypted")]);
    expect(ids(await collect(appDb))).toEqual(["legacy-session-conv-fado", "legacy-session-conv-tiles"]);

    await writeFile(join(folder, "DeepChat", "database-security.json"), "{}"); // copied without it, or it says nothing
    expect(await openExport(join(appDb, "agent.db")).catch((error: unknown) => error)).toMatchObject({
      message: expect.stringContaining("encrypted by DeepChat's database encryption, or damaged"),
    });
  });

  it("another app's database is not taken for DeepChat's, and in a folder only agent.db and chat.db are opened", async () => {
    const folder = tempDir("mnemo-deepchat-");
    const SQL = await initSqlJs();
    const other = new SQL.Database();
    other.exec(
      "CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER, updated_at INTEGER); " +
        "CREATE TABLE messages (id TEXT PRIMARY KEY, conversation_id TEXT, role TEXT, content TEXT, created_at INTEGER)",
    );
    await writeFile(join(folder, "chats.db"), Buffer.from(other.export()));
    other.close();
    await expect(openExport(join(folder, "chats.db"))).rejects.toThrow(
      /not a supported chat export \(a SQLite database of none of the apps/,
    );
    await writeFile(join(folder, "random.bin"), sqlcipherLike()); // binary, not named as DeepChat's: no word of encryption
    await expect(openExport(join(folder, "random.bin"))).rejects.not.toThrow(/encrypt/);
    await copyFile(agentDb, join(folder, "agent.db.1778000000000.bak")); // DeepChat's own backup (mainDatabase.ts)
    await copyFile(chatDb, join(folder, "chat.db"));
    expect(ids(await collect(folder))).toEqual(["legacy-session-conv-fado", "legacy-session-conv-tiles"]);
  });

  it("is looked for in Electron's userData on every system, and watched as it changes", async () => {
    const home = tempDir("mnemo-apps-");
    const places = {
      darwin: join(home, "Library", "Application Support", "DeepChat", "app_db"),
      win32: join(home, "AppData", "Roaming", "DeepChat", "app_db"),
      linux: join(home, ".config", "DeepChat", "app_db"),
    } as const;
    for (const place of Object.values(places)) {
      await mkdir(place, { recursive: true });
      await writeFile(join(place, "agent.db"), "");
    }
    for (const [platform, place] of Object.entries(places)) {
      const machine = { platform: platform as NodeJS.Platform, env: { HOME: home } };
      const found = (how = {}) =>
        foundApps(machine, how)
          .filter((app) => app.format === "deepchat")
          .map((app) => app.folder);
      expect(found()).toEqual([place]);
      expect(found({ watching: true })).toEqual([join(place, "agent.db")]); // the database, watched as DeepChat writes each message
    }
    expect(watchedDatabaseOf("agent.db")?.id).toBe("deepchat");
    expect(appFolderLines({ platform: "linux", env: { HOME: home } })).toMatch(/^ {2}DeepChat +~\/\.config\/DeepChat\/app_db$/m);
  });

  // sqlite3, the command the user runs, is a Debian package of this machine's; without it there is nothing to run.
  it.skipIf(!hasSqlite3())("its smallerDatabase command keeps every chat as imported", async () => {
    const copies = tempDir("mnemo-deepchat-");
    await copyFile(agentDb, join(copies, "agent.db"));
    execFileSync("sh", ["-c", deepchat.smallerDatabase!], { cwd: copies });
    expect(await collect(join(copies, "deepchat-chats.db"))).toEqual(await collect(agentDb));
    // Indexed by message as DeepChat's tables are: without, the reader groups each table whole in memory.
    const indexed = execFileSync("sqlite3", ["deepchat-chats.db", "SELECT tbl_name FROM sqlite_master WHERE type = 'index' ORDER BY 1"], {
      cwd: copies,
      encoding: "utf8",
    });
    expect(indexed.split("\n").filter(Boolean)).toEqual(["deepchat_assistant_blocks", "deepchat_user_message_files"]);
  });
});

/** What SQLCipher writes: a random salt, then pages no reader tells from noise (no "SQLite format 3" header). */
function sqlcipherLike(): Buffer {
  const bytes = Buffer.alloc(8192);
  let seed = 7;
  for (let i = 0; i < bytes.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = seed >> 16;
  }
  return bytes;
}

function hasSqlite3(): boolean {
  try {
    execFileSync("sqlite3", ["-version"]);
    return true;
  } catch {
    return false;
  }
}
