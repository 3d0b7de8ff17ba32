// The importers' registry: no detector takes another format's file (every fixture is shown to every
// detector), and what mnemo says about the formats (the README's table among it) comes from it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { ROUTES } from "../../src/http/routes.js";
import { renderOverview } from "../../src/mcp/render.js";
import { ConversationsPage } from "../../src/web/views/conversations.js";
import { ImportPage } from "../../src/web/views/import.js";
import { appFolderLines } from "../../src/importers/app-folders.js";
import { detect, samples } from "../../src/importers/detect.js";
import type { AppFolder } from "../../src/importers/importer.js";
import { openExport } from "../../src/importers/index.js";
import { IMPORTERS } from "../../src/importers/registry.js";
import { fileSource } from "../../src/importers/source.js";
import { asUtf8 } from "../../src/importers/utf16.js";
import { chatAppNames, FORMATS, formatLines, formatNames, formatsTable } from "../../src/importers/words.js";
import { ROOT } from "../paths.js";
import { collect, fixtures } from "./collect.js";
import { FIXTURES, formatOf, importedFixtures } from "./fixture-table.js";

import { COUNTS } from "./fixture-counts.js";

/**
 * Held to its counts where it is read beside its data export (lobechat-desktop.test.ts): each read
 * starts PGlite on a copy of its folder, 4 s of CPU.
 */
const READ_WITH_ITS_EXPORT = "lobehub-local-db.zip";

/** The fixtures a detector may be shown: JSON, text and HTML files, databases (Cursor's, OpenCode's), GPT4All's chats, and files named without a type (Google Drive's). */
function exportFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return exportFiles(path);
    return /\.(?:json|jsonl|ndjson|md|markdown|txt|html|vscdb|db|chat)$/.test(name) || !/\.[a-z][a-z0-9]{0,4}$/i.test(name)
      ? [relative(fixtures, path)]
      : [];
  });
}

/**
 * A fixture that is one file of an export, not a zip of one: a zip's row is there for its counts,
 * as a format whose every file holds a part of a conversation (OpenCode's) is imported whole.
 */
function isFile(fixture: string): boolean {
  return !fixture.endsWith(".zip");
}

/** What detection makes of a fixture, in the words of FIXTURES (of a zip: the format its plan reads). */
async function detected(file: string): Promise<string | null> {
  if (!isFile(file)) return (await openExport(join(fixtures, file))).format;
  const detection = await detect(await asUtf8(await fileSource(join(fixtures, file)))).catch(() => "unreadable" as const);
  if (detection === "unreadable") return detection;
  if (detection === undefined) return null;
  return detection.aside ? "aside" : detection.memories ? `${detection.format}:memories` : detection.format;
}

describe("detection", () => {
  it("knows every fixture: a new one is listed above, and so shown to every detector", () => {
    expect(exportFiles(fixtures).sort()).toEqual(Object.keys(FIXTURES).filter(isFile).sort());
  });

  it("no two detectors take one file, in any way it is read", async () => {
    for (const file of Object.keys(FIXTURES).filter(isFile)) {
      const shown = await samples(await asUtf8(await fileSource(join(fixtures, file)))).catch(() => []);
      for (const sample of shown) {
        const takers = [
          ...IMPORTERS.filter((importer) => importer.detect(sample) !== undefined).map((importer) => importer.id),
          ...IMPORTERS.filter((importer) => importer.memories?.detect(sample)).map((importer) => `${importer.id}:memories`),
        ];
        expect(takers.length, `${file}: ${takers.join(", ")}`).toBeLessThanOrEqual(1);
      }
    }
  });

  it("each fixture of COUNTS gives the conversations, messages and memories it says", async () => {
    for (const [fixture, expected] of Object.entries(COUNTS)) {
      if (fixture === READ_WITH_ITS_EXPORT) continue;
      const reader = await openExport(join(fixtures, fixture));
      const counted = { conversations: 0, messages: 0, memories: 0 };
      for await (const { conversation } of reader.conversations()) {
        counted.conversations++;
        counted.messages += conversation.messages.length;
      }
      for await (const _ of reader.memories()) counted.memories++;
      expect(counted, fixture).toEqual(expected);
    }
  });

  it("each fixture is read as the format it is", async () => {
    for (const [file, row] of Object.entries(FIXTURES)) expect(await detected(file), file).toBe(formatOf(row));
  });
});

describe("the fixtures imported through every face (every-format.int.test.ts)", () => {
  it("include a file of every format", () => {
    const imported = new Set(importedFixtures().map(([, row]) => row.format));
    const missing = IMPORTERS.map((importer) => importer.id).filter((id) => !imported.has(id));
    expect(missing, "give a fixture of each of these formats its counts in test/importers/fixture-table.ts").toEqual([]);
  });

  it.each(importedFixtures())(
    "%s gives the conversations and messages its row says, and holds the words search must find",
    async (file, row) => {
      const conversations = await collect(join(fixtures, file));
      expect(conversations.length).toBe(row.conversations);
      const messages = conversations.flatMap((conversation) => conversation.conversation.messages);
      expect(messages.length).toBe(row.messages);
      const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const holder = messages.find((message) => words(row.finds).every((word) => words(message.content).includes(word)));
      expect(holder, `no message of ${file} holds every word of "${row.finds}"`).toBeDefined();
    },
  );
});

describe("what is said about the formats", () => {
  it("comes from the registry, every format in its order", () => {
    const names = IMPORTERS.map((importer) => importer.name);
    expect(formatNames("or")).toBe(
      "ChatGPT, Claude, Gemini, Open WebUI, LibreChat, Grok, DeepSeek, TypingMind, Chatbot UI, SillyTavern, LM Studio, GPT4All, NextChat, Chatbox, Cherry Studio, Page Assist, LobeChat, Jan, big-AGI, Google AI Studio, Claude Code, Codex, GitHub Copilot CLI, Gemini CLI, Qwen Code, VS Code chat, Cline, Continue, Cursor, OpenCode, AnythingLLM, Zed, Goose, Pi coding agent, Crush, Amazon Q Developer CLI, LLM CLI, Kimi CLI, Kimi Code CLI, Kiro CLI, Ollama, DeepChat, OpenHands, text-generation-webui, Aider, ChatGPT Exporter, Markdown transcript or mnemo's upload shape",
    );
    expect(chatAppNames("and")).toBe(
      "ChatGPT, Claude, Gemini, Open WebUI, LibreChat, Grok, DeepSeek, TypingMind, Chatbot UI, SillyTavern, LM Studio, GPT4All, NextChat, Chatbox, Cherry Studio, Page Assist, LobeChat, Jan, big-AGI, Google AI Studio, Claude Code, Codex, GitHub Copilot CLI, Gemini CLI, Qwen Code, VS Code chat, Cline, Continue, Cursor, OpenCode, AnythingLLM, Zed, Goose, Pi coding agent, Crush, Amazon Q Developer CLI, LLM CLI, Kimi CLI, Kimi Code CLI, Kiro CLI, Ollama, DeepChat, OpenHands, text-generation-webui and Aider",
    );
    for (const text of [formatLines(), formatsTable()]) {
      for (const name of names) expect(text).toContain(name);
    }
    for (const line of formatLines().split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  });

  it("the README's table of formats is the registry's (regenerate it with the text below if this fails)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const table = /<!-- formats: generated from src\/importers\/registry\.ts -->\n([\s\S]*?)\n<!-- \/formats -->/.exec(readme)?.[1];
    expect(table, `README.md's table should read:\n${formatsTable()}`).toBe(formatsTable());
  });
});

describe("every face says the registry's words", () => {
  const html = async (element: unknown) => String(await (element as { toString(): string | Promise<string> }).toString());
  const ctx = { userName: "default", csrf: "x", flash: undefined };

  it("the CLI's import help", async () => {
    const program = buildProgram();
    let help = "";
    program.commands.find((command) => command.name() === "import")!.configureOutput({ writeOut: (text) => (help += text) });
    await expect(program.parseAsync(["import", "--help"], { from: "user" })).rejects.toBeInstanceOf(CommanderError);
    expect(help).toContain(formatLines());
  });

  it("the CLI's watch help: the apps --apps watches, those that write their sessions or a database as they go on", async () => {
    const program = buildProgram();
    let help = "";
    program.commands.find((command) => command.name() === "watch")!.configureOutput({ writeOut: (text) => (help += text) });
    await expect(program.parseAsync(["watch", "--help"], { from: "user" })).rejects.toBeInstanceOf(CommanderError);
    expect(help).toContain(appFolderLines(undefined, { watching: true }));
    const here = (folder: AppFolder) => folder.only === undefined || folder.only === process.platform;
    for (const importer of IMPORTERS.filter((importer) => (importer.appFolders ?? []).some(here))) {
      const named = new RegExp(`^ {2}${importer.name} {2,}`, "m").test(help);
      const watched =
        importer.sessionLogs === true ||
        importer.watchedDatabase === true ||
        (importer.appFolders ?? []).some((folder) => folder.watchedDatabase !== undefined);
      expect({ app: importer.name, named }).toEqual({ app: importer.name, named: watched });
    }
  });

  it("the REST upload's summary and the MCP overview of an empty store", () => {
    const upload = ROUTES.find((route) => route.method === "post" && route.path === "/api/chat-history/imports");
    expect(upload?.summary).toContain(formatNames("or"));
    const empty = renderOverview({ conversations: 0 } as Parameters<typeof renderOverview>[0]);
    expect(empty).toContain(chatAppNames("or"));
  });

  it("the web's Import page and the empty Conversations page", async () => {
    const importPage = await html(ImportPage({ ctx, jobs: [] }));
    const escaped = (text: string) => text.replaceAll("&", "&amp;").replaceAll("'", "&#39;");
    for (const format of FORMATS) expect(importPage).toContain(`<strong>${escaped(format.name)}</strong>: ${escaped(format.accepts)}`);
    const none = { platform: "", title: "", from: "", to: "", pinned: false, importId: "" };
    const list = { items: [], pageSize: 25, total: 0, page: 1, totalPages: 0 };
    expect(await html(ConversationsPage({ ctx, list, filters: none, platforms: [], back: "/conversations" }))).toContain(
      `from ${chatAppNames("or")}.`,
    );
  });
});
