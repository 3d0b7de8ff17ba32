import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderLines, appFolderPath } from "../../src/importers/app-folders.js";
import { goose } from "../../src/importers/goose/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "goose", "sessions");

describe("Goose sessions", () => {
  it("its sessions folder: .jsonl files' sessions (to 1.9) and sessions.db's (since 1.10), a subagent's left out", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["20250119_101500", "Rename the tides package to mares.", 2], // the first versions' file: no metadata line, so no description
      ["20250612_091500", "Fix tide table parsing", 3],
      ["20251108_1", "Ferry timetable importer", 4],
      ["20251108_2", "How many crossings a day does the Seixal line run?", 2], // no name: the first prompt's first line
    ]);
    expect(skipped).toEqual({ "subagents' and hidden sessions (the agent's side work, left out as Goose's session list leaves them)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["goose", "Goose", true]);
    }
  });

  it("a session file: each prompt and the agent's whole answer, tools named on one line; results and thinking left out", async () => {
    const [session] = await collect(join(sessions, "20250612_091500.jsonl"));
    expect(session?.conversation).toMatchObject({ createdAt: "2025-06-12T09:15:00.000Z", updatedAt: "2025-06-12T09:16:00.000Z" });
    expect(session?.conversation.messages).toEqual([
      {
        id: "msg-0",
        role: "human",
        content: "The tide table for Porto shows high water at 25:10. Why?",
        createdAt: "2025-06-12T09:15:00.000Z",
      },
      {
        id: "msg-1",
        role: "assistant",
        content:
          "Let me look at the parser.\n\n[tool: developer__text_editor] [tool: developer__shell]\n\nThe parser added 24 hours to times after midnight twice; times past midnight now roll over to the next day once.",
        createdAt: "2025-06-12T09:15:05.000Z",
      },
      { id: "msg-4", role: "human", content: "Thanks, commit it.", createdAt: "2025-06-12T09:16:00.000Z" },
    ]);
  });

  it("sessions.db: messages by their place in the session; a compacted conversation's summary, which the user is not shown, left out", async () => {
    const conversations = await collect(join(sessions, "sessions.db"));
    expect(conversations[0]?.conversation.messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ["msg-0", "human", "Write an importer for the Cacilhas ferry timetable CSV."],
      [
        "msg-1",
        "assistant",
        "[tool: developer__text_editor]\n\nThe importer reads each row's departure, arrival and pier, and skips the header.",
      ],
      ["msg-5", "human", "Now make it accept semicolons as separators."],
      ["msg-6", "assistant", "It now sniffs the delimiter, so semicolon files from the operator's site import too."],
    ]);
    expect(conversations[0]?.conversation).toMatchObject({ createdAt: "2025-11-08T10:00:00.000Z", updatedAt: "2025-11-08T10:06:30.000Z" });
  });

  it("in a folder, only the database Goose names sessions.db is opened", async () => {
    const folder = tempDir("mnemo-goose-");
    await mkdir(join(folder, "backups"));
    await copyFile(join(sessions, "sessions.db"), join(folder, "backups", "backup_20251108_120000.db"));
    await copyFile(join(sessions, "sessions.db"), join(folder, "sessions.db"));
    expect((await collect(folder)).map((c) => c.conversation.id)).toEqual(["20251108_1", "20251108_2"]);
  });

  it("is looked for in XDG's data folder, and in %APPDATA%\\Block\\goose\\data on Windows", () => {
    const [xdg, windowsFolder] = goose.appFolders!;
    expect(appFolderPath(xdg!, { platform: "darwin", env: { HOME: "/Users/ana" } })).toBe("/Users/ana/.local/share/goose/sessions");
    const windows = { platform: "win32" as const, env: { USERPROFILE: "/Users/ana", APPDATA: "/Users/ana/AppData/Roaming" } };
    expect(appFolderPath(windowsFolder!, windows)).toBe(join("/Users/ana/AppData/Roaming", "Block", "goose", "data", "sessions"));
    expect(goose.sessionLogs).toBe(true);
    // Only on Windows: elsewhere the same path under ~/.config is no folder of Goose's.
    expect(appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } })).toMatch(
      /^ {2}Goose +~\/\.local\/share\/goose\/sessions \(\$GOOSE_PATH_ROOT\)$/m,
    );
  });
});
