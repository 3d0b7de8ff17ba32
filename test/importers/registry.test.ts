// The importers' registry: no detector takes another format's file (every fixture is shown to every
// detector), and what mnemo says about the formats (the README's table among it) comes from it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { ROUTES } from "../../src/http/routes.js";
import { renderOverview } from "../../src/mcp/render.js";
import { TOOLS } from "../../src/mcp/tools.js";
import { ConversationsPage } from "../../src/web/views/conversations.js";
import { ImportPage } from "../../src/web/views/import.js";
import { detect, samples } from "../../src/importers/detect.js";
import { openExport } from "../../src/importers/index.js";
import { IMPORTERS } from "../../src/importers/registry.js";
import { fileSource } from "../../src/importers/source.js";
import { chatAppNames, FORMATS, formatLines, formatNames, formatsTable, supportedFormats } from "../../src/importers/words.js";
import { ROOT } from "../paths.js";
import { fixtures } from "./collect.js";
import { COUNTS } from "./fixture-counts.js";

/**
 * Every JSON and text file of the fixtures and the format it is: a format's id, "<id>:memories" (one
 * of its memory files), "aside" (its shape without its data), none (an export's other file, no
 * export, a note that is no transcript) or "unreadable" (detection refuses it). A new fixture must be
 * added here, so that every detector is shown it.
 */
const EXPECTED: Record<string, string | null> = {
  "chatgpt-2026/ads.json": null,
  "chatgpt-2026/conversation_asset_file_names.json": null,
  "chatgpt-2026/conversations-000.json": "chatgpt",
  "chatgpt-2026/conversations-001.json": "chatgpt",
  "chatgpt-2026/export_manifest.json": null,
  "chatgpt-2026/user.json": null,
  "chatgpt-sharded/conversations-000.json": "chatgpt",
  "chatgpt-sharded/conversations-001.json": "chatgpt",
  "chatgpt-sharded/export_manifest.json": null,
  "chatgpt-sharded/user.json": null,
  "chatgpt-exporter-all/ChatGPT-Cacilhas ferry.json": "chatgpt", // Export All → JSON: the API's conversation
  "chatgpt-exporter-all/ChatGPT-Tram 28 in Lisbon.json": "chatgpt",
  "chatgpt-exporter/ChatGPT-Sourdough Starter Rescue.md": "chatgpt-exporter",
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.json": "chatgpt",
  "chatgpt-exporter/ChatGPT-Tram 28 in Lisbon.md": "chatgpt-exporter",
  "chatgpt/conversations.json": "chatgpt",
  "chatgpt/message_feedback.json": "upload", // []
  "chatgpt/shared_conversations.json": null,
  "chatgpt/user.json": null,
  "claude-2026/conversations.json": "claude",
  "claude-2026/memories.json": "claude:memories",
  "claude-2026/users.json": null,
  "claude-memories-2026/memories/7e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b.json": "claude:memories",
  "claude-memories-2026/projects/019a0b1c-2d3e-7f40-8152-63748596a7b8.json": "claude:memories",
  "claude-memories/conversations.json": "claude",
  "claude-memories/memories.json": "claude:memories",
  "claude-memories/projects.json": "claude:memories",
  "claude-memories/users.json": null,
  "claude/conversations.json": "claude",
  "claude/projects.json": "claude:memories",
  "claude/users.json": null,
  "gemini-2026/My Activity.json": "gemini",
  "gemini-ja/Takeout/マイ アクティビティ/Gemini アプリ/マイアクティビティ.json": "gemini",
  "gemini-ja/Takeout/マイ アクティビティ/検索/マイアクティビティ.json": "aside",
  "gemini-locales/de.json": "gemini",
  "gemini-locales/el.json": "gemini",
  "gemini-locales/es.json": "gemini",
  "gemini-locales/fr.json": "gemini",
  "gemini-locales/it.json": "gemini",
  "gemini-locales/ko.json": "gemini",
  "gemini-locales/pt.json": "gemini",
  "gemini-locales/zh.json": "gemini",
  "gemini/My Activity.json": "gemini",
  "gemini/Search/My Activity.json": "aside",
  "markdown/claude-converted.md": "markdown",
  "markdown/copied-page.txt": "markdown",
  "markdown/notes-headings.md": null,
  "markdown/notes-not-a-chat.md": null,
  "markdown/pasted-bold.txt": "markdown",
  "markdown/prompt-response.md": "markdown",
  "markdown/user-assistant.md": "markdown",
  "malformed/chatgpt-truncated.json": "chatgpt",
  "malformed/claude-truncated.json": "claude",
  "malformed/cut-in-escape.json": "claude",
  "malformed/empty.json": "unreadable",
  "malformed/gemini-truncated.json": "gemini",
  "malformed/not-an-export.json": null,
  "malformed/upload-bad-line.ndjson": "upload",
  "malformed/upload-truncated.json": "upload",
  "README.md": null, // a note about the fixtures, no transcript
  "odd/chatgpt-2023-code.json": "chatgpt",
  "odd/chatgpt-analysis-channel.json": "chatgpt",
  "odd/chatgpt-empty/conversations.json": "upload", // an empty list: no conversations, whoever wrote it
  "odd/chatgpt-empty/message_feedback.json": "upload",
  "odd/chatgpt-empty/user.json": null,
  "odd/chatgpt-times.json": "chatgpt",
  "odd/chatgpt-wrapped.json": "chatgpt",
  "odd/chatgpt-writing.json": "chatgpt",
  "odd/claude-2024-artifacts.json": "claude",
  "odd/claude-files-v2.json": "claude",
  "odd/claude-partly-linked.json": "claude",
  "odd/claude-repeated-ids.json": "claude",
  "odd/claude-utf16.json": "unreadable",
  "odd/gemini-fr-mixed.json": "gemini",
  "upload/array.json": "upload",
  "upload/conversations.ndjson": "upload",
  "upload/single.json": "upload",
};

function exportFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return exportFiles(path);
    return /\.(?:json|jsonl|ndjson|md|markdown|txt)$/.test(name) ? [relative(fixtures, path)] : [];
  });
}

/** What detection makes of a fixture, in the words of EXPECTED. */
async function detected(file: string): Promise<string | null> {
  const detection = await detect(await fileSource(join(fixtures, file))).catch(() => "unreadable" as const);
  if (detection === "unreadable") return detection;
  if (detection === undefined) return null;
  return detection.aside ? "aside" : detection.memories ? `${detection.format}:memories` : detection.format;
}

describe("detection", () => {
  it("knows every fixture: a new one is listed above, and so shown to every detector", () => {
    expect(exportFiles(fixtures).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it("no two detectors take one file, in any way it is read", async () => {
    for (const file of Object.keys(EXPECTED)) {
      const shown = await samples(await fileSource(join(fixtures, file))).catch(() => []);
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
    for (const [file, format] of Object.entries(EXPECTED)) expect(await detected(file), file).toBe(format);
  });
});

describe("what is said about the formats", () => {
  it("comes from the registry, every format in its order", () => {
    const names = IMPORTERS.map((importer) => importer.name);
    expect(formatNames("or")).toBe("ChatGPT, Claude, Gemini, ChatGPT Exporter, Markdown transcript or mnemo's upload shape");
    expect(chatAppNames("and")).toBe("ChatGPT, Claude and Gemini");
    for (const text of [supportedFormats(), formatLines(), formatsTable()]) {
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

  it("the REST upload's summary, the MCP recall tool and the overview of an empty store", () => {
    const upload = ROUTES.find((route) => route.method === "post" && route.path === "/api/chat-history/imports");
    expect(upload?.summary).toContain(formatNames("or"));
    expect(TOOLS.find((tool) => tool.name === "recall_chat_history")?.description).toContain(chatAppNames("and"));
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
