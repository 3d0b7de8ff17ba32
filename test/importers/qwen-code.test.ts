import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { foundApps } from "../../src/importers/app-folders.js";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, fixtures } from "./collect.js";

const projects = join(fixtures, "qwen-code", "projects");
const session = join(projects, "-home-rita-src-tram", "chats", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl");

describe("Qwen Code's transcripts (~/.qwen/projects)", () => {
  it("are Qwen Code's, not Claude Code's, whose envelope they share", async () => {
    expect((await openExport(projects)).format).toBe("qwen-code");
    expect((await openExport(join(fixtures, "claude-code"))).format).toBe("claude-code");
  });

  it("a session: each prompt and the agent's whole answer, tools named; prompts as typed; thoughts, tool results and what /rewind undid left out; titled as renamed", async () => {
    const [conversation] = await collect(session);
    expect(UploadConversation.parse(conversation)).toEqual(conversation);
    expect([conversation?.platform, conversation?.platformDisplayName, conversation?.complete]).toEqual(["qwen-code", "Qwen Code", true]);
    expect(conversation?.conversation).toMatchObject({
      id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
      title: "Graça timetable drops 07:40",
      createdAt: "2025-12-02T09:00:00.000Z",
      updatedAt: "2025-12-02T09:02:12.000Z",
    });
    expect(conversation?.conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ["human", "Why does the Graça timetable skip the 07:40 departure? @timetable.py"], // as typed: not the file's text @ added
      ["assistant", "[tool: read_file]"],
      ["human", "keep the header check for the old feed"], // typed while the tool ran
      [
        "assistant",
        "departures() dropped the first row as if it were a header, but the feed has none: the 07:40 tram was that row. It now keeps every row.",
      ],
      ["human", "Add a test with a feed that has no header."],
      ["assistant", "Added test_headerless_feed_keeps_first_departure."],
    ]);
  });

  it("--apps finds ~/.qwen/projects and ~/.qwen/tmp (its sessions of 2025) as Qwen Code's, watched as they go on", async () => {
    const home = tempDir("mnemo-qwen-");
    for (const folder of [".qwen/projects", ".qwen/tmp", ".gemini/tmp"]) await mkdir(join(home, folder), { recursive: true });
    const found = foundApps({ platform: "linux", env: { HOME: home } });
    expect(found.map((app) => [app.name, app.folder.slice(home.length + 1), app.sessionLogs])).toEqual([
      ["Gemini CLI", join(".gemini", "tmp"), true],
      ["Qwen Code", join(".qwen", "projects"), true],
      ["Qwen Code", join(".qwen", "tmp"), true],
    ]);
  });
});
