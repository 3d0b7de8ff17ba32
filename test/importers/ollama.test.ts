import { execFileSync } from "node:child_process";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderLines, foundApps } from "../../src/importers/app-folders.js";
import { ollama } from "../../src/importers/ollama/index.js";
import { watchedDatabaseOf } from "../../src/importers/registry.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "ollama");

describe("Ollama app chats", () => {
  it("its db.sqlite of today's schema and of the first released: every chat the app lists, an empty one and a deleted chat's messages left out", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["0198a3c2-5f10-7a3e-9c41-2b7d8e6f1a20", "What does this timetable say about the last ferry from Cacilhas on Sundays?", 4], // never renamed: the first prompt
      ["0198a7e1-0c44-7b12-8f03-64c1d2e9b7a5", "Sourdough hydration", 2],
      ["0198812f-6b3a-7c55-9d0e-1f2a3b4c5d6e", "Which tram goes up to the Graça viewpoint?", 2], // schema 2: no attachments table
    ]);
    expect(skipped).toEqual({
      "messages of chats no longer in the database (the app never shows them)": 1,
      "chats without any message text": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["ollama", "Ollama", true]);
    }
  });

  it("a chat as the app shows it: files by name, thinking and tool results left out, the tools the model called named", async () => {
    const [ferry] = await collect(join(folder, "db.sqlite"));
    expect(ferry?.conversation.messages).toEqual([
      {
        id: "msg-0",
        role: "human",
        content: "What does this timetable say about the last ferry from Cacilhas on Sundays?\n\n[file: cacilhas-timetable.png]",
        createdAt: "2025-08-12T08:14:02.120Z",
      },
      {
        id: "msg-1",
        role: "assistant",
        content: "The last Sunday crossing from Cacilhas leaves at 23:40, arriving at Cais do Sodré at 23:50.",
        createdAt: "2025-08-12T08:14:02.131Z",
      },
      {
        id: "msg-2",
        role: "human",
        content: "Is it still running this month, or is there a summer change?",
        createdAt: "2025-08-12T08:15:30.004Z",
      },
      {
        id: "msg-3",
        role: "assistant",
        content: "[tool: browser.search]\n\nTranstejo's summer timetable keeps the 23:40 Sunday crossing through September.",
        createdAt: "2025-08-12T08:15:30.010Z",
      },
    ]);
    // Go's times in the app's zone (+01:00); updated when the last answer finished streaming.
    expect(ferry?.conversation).toMatchObject({ createdAt: "2025-08-12T08:14:02.120Z", updatedAt: "2025-08-12T08:15:51.877Z" });
  });

  it("in a folder, only the database named db.sqlite is opened", async () => {
    const copies = tempDir("mnemo-ollama-");
    await copyFile(join(folder, "db.sqlite"), join(copies, "db.sqlite"));
    await copyFile(join(folder, "db.sqlite"), join(copies, "db.sqlite.backup"));
    await copyFile(join(folder, "db.sqlite"), join(copies, "old.db"));
    expect((await collect(copies)).map((c) => c.conversation.id)).toEqual([
      "0198a3c2-5f10-7a3e-9c41-2b7d8e6f1a20",
      "0198a7e1-0c44-7b12-8f03-64c1d2e9b7a5",
    ]);
  });

  it("is looked for where the app keeps it on macOS and Windows, and watched as it changes", async () => {
    const home = tempDir("mnemo-apps-");
    const mac = join(home, "Library", "Application Support", "Ollama");
    const windows = join(home, "AppData", "Local", "Ollama");
    for (const place of [mac, windows]) {
      await mkdir(place, { recursive: true });
      await writeFile(join(place, "db.sqlite"), "");
      await writeFile(join(place, "config.json"), "{}");
    }
    const ollamaOn = (platform: NodeJS.Platform) =>
      foundApps({ platform, env: { HOME: home } }, { watching: true })
        .filter((app) => app.format === "ollama")
        .map((app) => app.folder);
    expect(ollamaOn("darwin")).toEqual([join(mac, "db.sqlite")]);
    expect(ollamaOn("win32")).toEqual([join(windows, "db.sqlite")]);
    expect(ollamaOn("linux")).toEqual([]); // app/store is built for macOS and Windows alone
    expect(watchedDatabaseOf("db.sqlite")?.id).toBe("ollama");
    // Help names where --apps looks on this system: on Linux, nowhere for Ollama, so no line of it.
    expect(appFolderLines({ platform: "darwin", env: { HOME: home } }, { watching: true })).toMatch(
      /^ {2}Ollama +~\/Library\/Application Support\/Ollama\/db\.sqlite$/m,
    );
    expect(appFolderLines({ platform: "linux", env: { HOME: home } })).not.toMatch(/Ollama/);
  });

  // sqlite3, the command the user runs, is a Debian package of this machine's; without it there is nothing to run.
  it.skipIf(!hasSqlite3())("its smallerDatabase command keeps every chat as imported, without the attachments' bytes", async () => {
    const copies = tempDir("mnemo-ollama-");
    await copyFile(join(folder, "db.sqlite"), join(copies, "db.sqlite"));
    execFileSync("sh", ["-c", ollama.smallerDatabase!], { cwd: copies });
    const smaller = await collect(join(copies, "ollama-chats.db"));
    expect(smaller).toEqual(await collect(join(folder, "db.sqlite")));
  });
});

function hasSqlite3(): boolean {
  try {
    execFileSync("sqlite3", ["-version"]);
    return true;
  } catch {
    return false;
  }
}
