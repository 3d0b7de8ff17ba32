import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { amazonQ } from "../../src/importers/amazon-q/index.js";
import { appFolderLines, appFolderPath } from "../../src/importers/app-folders.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "amazon-q");
const amazonQDatabase = join(folder, "amazon-q", "data.sqlite3");
const kiroDatabase = join(folder, "kiro-cli", "data.sqlite3");

describe("Amazon Q Developer CLI's and Kiro CLI's chats", () => {
  it("both databases and a saved chat: each conversation once, by its conversation_id, as the app that wrote it", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.platform, c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["amazon-q", "5a0e7b19-2c4d-4f6a-8e3b-9d1c7a2b4e02", "Add Seixal to the ferry timetable importer.", 6],
      ["amazon-q", "0b6f3c2e-5d41-4a8e-9b7c-2f1e8d9a6c01", "Why does the tide table for Porto show high water at 25:10?", 4],
      ["kiro-cli", "e7c3a915-6b2d-4c8f-a1e0-4d5f6a7b8c05", "Why do refunds for cancelled crossings fail?", 2],
      ["kiro-cli", "4d6e8f10-7a9b-4c2d-b3e4-5f6a7b8c9d06", "Now let monthly passes cover the Seixal line.", 2],
      ["amazon-q", "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e08", "Which fare does a child under 4 pay on the Cacilhas line?", 2],
    ]);
    expect(skipped).toEqual({
      "conversations whose stored JSON is damaged (left out)": 1,
      "conversations without any message text": 1,
      "conversations met again in the export, no newer (read once)": 1, // Amazon Q's, in Kiro's database too
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect(conversation.complete).toBe(false); // /compact and /clear drop messages under the same id
    }
    expect(conversations.find((c) => c.platform === "kiro-cli")?.platformDisplayName).toBe("Kiro CLI");
  });

  it("Amazon Q of May 2025: history pairs, each prompt and the answers until the next, tools named, results left out", async () => {
    const tides = (await collect(amazonQDatabase)).find((c) => c.conversation.id.startsWith("0b6f3c2e"));
    expect(tides?.conversation.messages).toEqual([
      {
        id: "7d2a4c1e-0f3b-4e5a-8c6d-1b2a3c4d5e01-prompt",
        role: "human",
        content: "Why does the tide table for Porto show high water at 25:10?",
      },
      {
        id: "7d2a4c1e-0f3b-4e5a-8c6d-1b2a3c4d5e01",
        role: "assistant",
        content:
          "Let me read the parser.\n\n[tool: fs_read]\n\nThe parser adds 24 hours to times after midnight twice; it should roll over once.",
      },
      { id: "7d2a4c1e-0f3b-4e5a-8c6d-1b2a3c4d5e03-prompt", role: "human", content: "Fix it and run the tests." },
      {
        id: "7d2a4c1e-0f3b-4e5a-8c6d-1b2a3c4d5e03",
        role: "assistant",
        content: "[tool: fs_write] [tool: execute_bash]\n\nFixed: times past midnight roll over once, and the 12 tests pass.",
      },
    ]);
  });

  it("a chat of the old table without times is dated when its table was made (migration 007), not by the file's time, which any write moves", async () => {
    const tides = (await collect(amazonQDatabase)).find((c) => c.conversation.id.startsWith("0b6f3c2e"));
    expect(tides?.conversation).toMatchObject({ createdAt: "2025-05-11T21:46:47.000Z" });
    expect(tides?.conversation.updatedAt).toBeUndefined();
  });

  it("later entries: prompt times with their offset, answers' end times, a prompt typed over a pending tool, an image, an MCP tool by its own name", async () => {
    const ferries = (await collect(amazonQDatabase)).find((c) => c.conversation.id.startsWith("5a0e7b19"));
    expect(ferries?.conversation).toMatchObject({ createdAt: "2025-10-02T08:14:03.512Z", updatedAt: "2025-10-02T08:20:09.000Z" });
    expect(ferries?.conversation.messages.map((m) => [m.role, m.content, m.createdAt])).toEqual([
      ["human", "Add Seixal to the ferry timetable importer.", "2025-10-02T08:14:03.512Z"],
      ["assistant", "I'll look up the Seixal pier code first.\n\n[tool: pier_lookup]", "2025-10-02T08:14:06.100Z"],
      ["human", "Skip the lookup, the code is SXL.", "2025-10-02T08:14:30.020Z"],
      ["assistant", "Added Seixal (SXL) with its weekday crossings.", "2025-10-02T08:14:35.900Z"],
      ["human", "This is the weekend timetable from the pier.\n\n[image]", "2025-10-02T08:20:00.000Z"],
      ["assistant", "On weekends the Seixal line runs every 90 minutes; I added those crossings.", "2025-10-02T08:20:09.000Z"],
    ]);
  });

  it("Kiro CLI's database: conversations_v2 alone (a chat deleted there stays deleted), Amazon Q's copied chat still Amazon Q's", async () => {
    const conversations = await collect(kiroDatabase);
    expect(conversations.map((c) => [c.platform, c.conversation.id])).toEqual([
      ["amazon-q", "5a0e7b19-2c4d-4f6a-8e3b-9d1c7a2b4e02"],
      ["kiro-cli", "e7c3a915-6b2d-4c8f-a1e0-4d5f6a7b8c05"],
      ["kiro-cli", "4d6e8f10-7a9b-4c2d-b3e4-5f6a7b8c9d06"],
    ]);
    expect(conversations[1]?.conversation).toMatchObject({ createdAt: "2026-01-14T16:02:11.000Z", updatedAt: "2026-01-14T16:02:20.000Z" });
  });

  it("a chat /save wrote is read whatever its name", async () => {
    const file = join(tempDir("mnemo-amazon-q-"), "fares");
    await copyFile(join(folder, "saved", "ferry-fares.json"), file);
    expect((await collect(file)).map((c) => [c.platform, c.conversation.id])).toEqual([
      ["amazon-q", "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e08"],
    ]);
  });

  it("in a folder, only the database named data.sqlite3 is opened", async () => {
    const data = tempDir("mnemo-amazon-q-");
    await mkdir(join(data, "backups"));
    await copyFile(kiroDatabase, join(data, "backups", "data.sqlite3.bak"));
    await copyFile(kiroDatabase, join(data, "data.sqlite3"));
    await writeFile(join(data, "settings.json"), JSON.stringify({ "chat.defaultModel": "claude-sonnet-4" }));
    expect((await collect(data)).map((c) => c.conversation.id)).toHaveLength(3);
  });

  it("is looked for in each app's data folder: XDG's on Linux, Application Support on macOS, %LOCALAPPDATA% for Kiro CLI on Windows", () => {
    const on = (platform: NodeJS.Platform, env: Record<string, string>) =>
      amazonQ.appFolders!.filter((f) => f.only === platform).map((f) => appFolderPath(f, { platform, env }));
    expect(on("linux", { HOME: "/home/rui", XDG_DATA_HOME: "/data" })).toEqual([
      "/data/amazon-q/data.sqlite3",
      "/data/kiro-cli/data.sqlite3",
    ]);
    expect(on("darwin", { HOME: "/Users/rui" })).toEqual([
      "/Users/rui/Library/Application Support/amazon-q/data.sqlite3",
      "/Users/rui/Library/Application Support/kiro-cli/data.sqlite3",
    ]);
    expect(on("win32", { USERPROFILE: "/Users/rui" })).toEqual([join("/Users/rui", "AppData", "Local", "kiro-cli", "data.sqlite3")]);
    expect(amazonQ.appFolders!.every((f) => f.file === true)).toBe(true);
    expect(appFolderLines({ platform: "linux", env: { HOME: "/home/rui" } })).toMatch(
      /^ {2}Amazon Q Developer CLI +~\/\.local\/share\/\{amazon-q,kiro-cli\}\/data\.sqlite3$/m,
    );
  });
});
