// Simon Willison's LLM: logs.db of 0.32, of 0.5 to 0.16 and of 0.4 (fixtures/exports/llm/build-fixtures.mjs:
// each version's tables as its migrations leave them, rows as llm writes them).
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderPath } from "../../src/importers/app-folders.js";
import { detect } from "../../src/importers/detect.js";
import { llm } from "../../src/importers/llm/index.js";
import { fileSource } from "../../src/importers/source.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const current = join(fixtures, "llm", "logs.db");
const contents = async (path: string, id: string) =>
  (await collect(path))
    .find(({ conversation }) => conversation.id === id)
    ?.conversation.messages.map((message) => [message.id, message.role, message.content]);

describe("LLM's logs.db", () => {
  it("0.32's, FTS5 tables and all: a conversation per conversations row or thread, a damaged part counted", async () => {
    expect(await detect(await fileSource(current))).toMatchObject({ format: "llm", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(current);
    expect(conversations.map(({ conversation }) => [conversation.id, conversation.title, conversation.messages.length])).toEqual([
      ["01k6p0q2r4s6t8v0w2x4y6z8a0", "Name a pelican.", 2], // a response llm's code before 0.32rc1 also logged as a turn: read once
      ["01k7c0f4t8w2y6a0c4e8g2j6m0", "Turn this timetable photo into CSV.", 4], // 0.31's, continued by 0.32; llm's name its prompt cut: the prompt
      ["01k8d1e3f5g7h9j1k3m5n7p9q1", "# tide-tables Parses the tide t…", 5], // llm's name: the prompt as sent, its fragment first
      ["01k8f5g7h9j1k3m5n7p9q1r3s5", "# tide-tables Parses the tide t…", 1], // its prompt's part damaged: the answer kept
      ["01k7b3v9q2h6x8d4m1n5p7r9s3", "Why does the Porto tide table show high water at 25:10?", 5],
    ]);
    expect(skipped).toEqual({ "parts of messages whose stored JSON is damaged (left out)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["llm", "LLM CLI", true]);
    }
  });

  it("0.31's rows: the system prompt first, a fragment by its source, a tool loop one answer; a row whose JSON columns are damaged read whole", async () => {
    expect(await contents(current, "01k7b3v9q2h6x8d4m1n5p7r9s3")).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou review Python code tersely."],
      ["01k7b3v9q2j0a1b2c3d4e5f6g7-prompt", "human", "Why does the Porto tide table show high water at 25:10?"],
      [
        "01k7b3v9q2j0a1b2c3d4e5f6g7-response",
        "assistant",
        "parse_time adds 24 hours to times after midnight, and roll_over adds them again.",
      ],
      ["01k7b3v9q2j0a1b2c3d4e5f6h8-prompt", "human", "[fragment: tides/parse.py]\n\nFix it in this file."],
      [
        "01k7b3v9q2j0a1b2c3d4e5f6h8-response",
        "assistant",
        "[tool: edit_file]\n\nroll_over no longer adds the day: times after midnight now move to the next day once.",
      ],
    ]);
    const [conversation] = (await collect(current)).filter(({ conversation }) => conversation.id === "01k7b3v9q2h6x8d4m1n5p7r9s3");
    expect(conversation?.conversation).toMatchObject({ createdAt: "2025-10-14T09:15:02.481Z", updatedAt: "2025-10-14T09:16:44.930Z" });
  });

  it("0.32's threads: a prompt's text_ref read as typed, its fragment named; reasoning and a tool's result left out, a tool loop of turns one answer", async () => {
    expect(await contents(current, "01k8d1e3f5g7h9j1k3m5n7p9q1")).toEqual([
      ["system-prompt", "human", "[system prompt]\nAnswer in one paragraph."],
      ["01k8d1e3f5g7h9j1k3m5n7p9r2-prompt", "human", "[fragment: README.md]\n\nWhat does this project do?"],
      ["01k8d1e3f5g7h9j1k3m5n7p9r2-response", "assistant", "It parses the tide tables the Portuguese Hydrographic Institute publishes."],
      ["01k8d1e3f5g7h9j1k3m5n7p9s3-prompt", "human", "Which licence is it under?"],
      ["01k8d1e3f5g7h9j1k3m5n7p9s3-response", "assistant", "[tool: read_file]\n\nIt is under the MIT licence."],
    ]);
  });

  it("a conversation of 0.31 continued under 0.32 is one: its responses, then its thread's turns, the chain re-sent read once", async () => {
    expect(await contents(current, "01k7c0f4t8w2y6a0c4e8g2j6m0")).toEqual([
      ["01k7c0f4t8w2y6a0c4e8g2j6n1-prompt", "human", "Turn this timetable photo into CSV.\n\n[file: timetable.jpg]"],
      ["01k7c0f4t8w2y6a0c4e8g2j6n1-response", "assistant", "departure,arrival,pier\n07:10,07:20,Cacilhas"],
      ["01k8a2b4c6d8e0f2g4h6j8k0m2-prompt", "human", "Add the Seixal line too."],
      ["01k8a2b4c6d8e0f2g4h6j8k0m2-response", "assistant", "departure,arrival,pier\n07:10,07:20,Cacilhas\n07:35,08:00,Seixal"],
    ]);
  });

  it("an old database: 0.5's responses without the later columns and tables, and 0.4's rows it kept as `logs`, a chat by chat_id", async () => {
    const old = join(fixtures, "llm-0.9", "logs.db");
    expect(await detect(await fileSource(old))).toMatchObject({ format: "llm" });
    const conversations = await collect(old);
    expect(
      conversations.map(({ conversation }) => [conversation.id, conversation.title, conversation.createdAt, conversation.messages.length]),
    ).toEqual([
      ["01h6z8k2m4p6r8t0v2x4z6b8d0", "Suggest names for a ferry cat", "2023-08-03T18:02:11.204Z", 4], // naive UTC times
      ["logs-1", "What time is low tide in Lisbon today?", "2023-07-01T10:00:00.123Z", 4],
    ]);
  });

  it("0.4's database: its `log` table, a chat its first row and those naming it", async () => {
    const first = join(fixtures, "llm-0.4", "logs.db");
    expect(await detect(await fileSource(first))).toMatchObject({ format: "llm" });
    expect(
      (await collect(first)).map(({ conversation }) => [conversation.id, conversation.messages.map((message) => message.content)]),
    ).toEqual([
      [
        "logs-1",
        [
          "[system prompt]\nYou are a poet.",
          "Write a haiku about the 25 de Abril bridge.",
          "Red span in the fog / trams hum below on the quay / the river runs on",
          "Another, about the ferries.",
          "Orange hulls at dusk / Cacilhas lights on the water / gulls trail every wake",
        ],
      ],
      ["logs-3", ["How long is the Vasco da Gama bridge?", "About 12.3 km, with its viaducts."]],
    ]);
  });

  it("in a folder, only the database llm names logs.db is opened (not a backup, nor embeddings.db)", async () => {
    const folder = tempDir("mnemo-llm-");
    mkdirSync(join(folder, "io.datasette.llm"));
    copyFileSync(join(fixtures, "llm-0.4", "logs.db"), join(folder, "io.datasette.llm", "logs.db"));
    copyFileSync(current, join(folder, "io.datasette.llm", "logs-backup.db"));
    copyFileSync(current, join(folder, "io.datasette.llm", "embeddings.db"));
    expect((await collect(folder)).map(({ conversation }) => conversation.id)).toEqual(["logs-1", "logs-3"]);
  });

  it("is looked for where click.get_app_dir puts io.datasette.llm on each system: the database file", () => {
    const [folder] = llm.appFolders!;
    expect(folder?.file).toBe(true);
    expect(appFolderPath(folder!, { platform: "linux", env: { HOME: "/home/ana" } })).toBe("/home/ana/.config/io.datasette.llm/logs.db");
    expect(appFolderPath(folder!, { platform: "linux", env: { HOME: "/home/ana", XDG_CONFIG_HOME: "/home/ana/.xdg" } })).toBe(
      "/home/ana/.xdg/io.datasette.llm/logs.db",
    );
    expect(appFolderPath(folder!, { platform: "darwin", env: { HOME: "/Users/ana" } })).toBe(
      "/Users/ana/Library/Application Support/io.datasette.llm/logs.db",
    );
    const windows = { platform: "win32" as const, env: { USERPROFILE: "/Users/ana", APPDATA: "/Users/ana/AppData/Roaming" } };
    expect(appFolderPath(folder!, windows)).toBe(join("/Users/ana/AppData/Roaming", "io.datasette.llm", "logs.db"));
  });
});
