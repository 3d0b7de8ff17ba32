// Every format is still recognised when its first record's first text is megabytes long (a pasted
// document, an image inlined as a data URL): detection's prefix (256 KB) then shows none of the keys
// that come after it, and the scan of the whole file (detect-scan.ts) must tell the format.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { fileSource } from "../../src/importers/source.js";
import { FORMATS } from "../../src/importers/words.js";
import { collect, fixtures } from "./collect.js";
import { FIXTURES, formatOf } from "./fixture-table.js";

/**
 * Longer than detection's prefix (256 KB), so that no key after the text is in it: with the scan
 * left out, the same 91 files fail as at 1 MB, at a quarter of the bytes to write, detect and read.
 */
const LONG = 272 * 1024;

/**
 * A string of a record's text, not a label, an id, a time or JSON kept as a string (Chatbot UI's
 * conversationHistory): it is not short, and has words (or is not ASCII: Japanese has no spaces).
 */
function isText(value: string): boolean {
  return value.length >= 20 && (value.includes(" ") || /[^\x00-\x7f]/.test(value)) && !/^(?:http|[[{])/.test(value);
}

/** The value with its first text (in the order its JSON writes it) made `extra` longer. */
function withFirstTextLonger(value: unknown, extra: string): { value: unknown; done: boolean } {
  if (typeof value === "string") return isText(value) ? { value: value + extra, done: true } : { value, done: false };
  if (Array.isArray(value)) {
    const out = [...value];
    for (let i = 0; i < out.length; i++) {
      const next = withFirstTextLonger(out[i], extra);
      out[i] = next.value;
      if (next.done) return { value: out, done: true };
    }
    return { value: out, done: false };
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const key of Object.keys(out)) {
      const next = withFirstTextLonger(out[key], extra);
      out[key] = next.value;
      if (next.done) return { value: out, done: true };
    }
  }
  return { value, done: false };
}

/**
 * The file's text with its first text `extra` longer (for NDJSON, that of the first line holding
 * one: a session's first lines may be a summary or a snapshot); undefined when it has none.
 */
function lengthened(text: string, lines: boolean, extra: string): string | undefined {
  if (!lines) {
    const { value, done } = withFirstTextLonger(JSON.parse(text), extra);
    return done ? JSON.stringify(value, null, 1) : undefined;
  }
  const all = text.split("\n");
  for (const [i, line] of all.entries()) {
    if (line.trim() === "") continue;
    const { value, done } = withFirstTextLonger(JSON.parse(line), extra);
    if (done) return [...all.slice(0, i), JSON.stringify(value), ...all.slice(i + 1)].join("\n");
  }
  return undefined;
}

function isLines(file: string, text: string): boolean {
  return /\.(?:jsonl|ndjson)$/.test(file) || (!text.trimStart().startsWith("[") && text.trim().includes("}\n{"));
}

/**
 * The fixtures of a JSON format (Markdown, HTML, databases and GPT4All's chats are read otherwise; damaged ones are not JSON)
 * that hold a text to lengthen, and their formats.
 */
const JSON_FIXTURES = Object.entries(FIXTURES).flatMap(([file, row]) => {
  const format = formatOf(row);
  const json =
    !/\.(?:md|markdown|txt|html|vscdb|db|sqlite|sqlite3|zip|chat)$/.test(file) &&
    !file.startsWith("malformed/") &&
    file !== "odd/claude-utf16.json";
  if (format === null || !json || ["unreadable", "aside"].includes(format) || format.includes(":")) return [];
  const text = readFileSync(join(fixtures, file), "utf8");
  return lengthened(text, isLines(file, text), " more") === undefined ? [] : [[file, format] as const];
});

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "mnemo-long-first-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("a first record whose first text is megabytes long", () => {
  it("is tried for every format of JSON", () => {
    const json = FORMATS.map((format) => format.id).filter(
      (id) => !["markdown", "chatgpt-exporter", "aider", "cursor", "crush", "llm", "ollama", "deepchat", "gpt4all"].includes(id),
    ); // the text formats, the formats of databases alone, GPT4All's binary files (gpt4all.test.ts)
    expect([...new Set(JSON_FIXTURES.map(([, format]) => format))].sort()).toEqual(json.sort());
  });

  const paste = ` ${"A pasted document, page after page. ".repeat(LONG / 36)}`;
  const image = ` data:image/png;base64,${"iVBORw0KGgoAAAANSUhEUgAA".repeat(LONG / 24)}`;
  it.each(JSON_FIXTURES)("%s is still %s", async (file, format) => {
    const text = await readFile(join(fixtures, file), "utf8");
    const found: string[] = [];
    for (const [kind, extra] of [
      ["paste", paste],
      ["image", image],
    ] as const) {
      const path = join(tmp, `${kind}-${basename(file)}`);
      await writeFile(path, lengthened(text, isLines(file, text), extra)!);
      const detection = await detect(await fileSource(path)).catch((error: Error) => ({ format: error.message.slice(0, 200) }));
      found.push(`${kind}: ${detection?.format}`);
    }
    expect(found).toEqual([`paste: ${format}`, `image: ${format}`]);
    // And read as the file it came from, alone as it is here (no file beside it, as ChatGPT's library):
    // as many conversations (or the same refusal, for a file read with others).
    const counted = (path: string) =>
      collect(path).then(
        (conversations) => conversations.length,
        (error: Error) => error.message.replace(path, "…"),
      );
    const plain = join(tmp, `plain-${basename(file)}`);
    await writeFile(plain, text);
    expect(await counted(join(tmp, `paste-${basename(file)}`))).toEqual(await counted(plain));
  });
});

describe("an export of one object whose first field is megabytes long", () => {
  it("is known once the keys after that field are read, not at the file's end (Chatbox's settings with an image inline)", async () => {
    const text = await readFile(join(fixtures, "chatbox", "chatbox-exported-data-2025-3-5.json"), "utf8");
    const value = JSON.parse(text) as Record<string, unknown>;
    const settings = { ...(value.settings as object), avatar: `data:image/png;base64,${"iVBORw0KGgo".repeat(LONG / 11)}` };
    const sessions = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`session:extra-${i}`, { id: `extra-${i}`, name: "x".repeat(4000), messages: [] }]),
    );
    const path = join(tmp, "chatbox-long-settings.json");
    await writeFile(path, JSON.stringify({ ...value, settings, ...sessions }));
    const file = await fileSource(path);
    let read = 0;
    const counted = {
      ...file,
      open: async () => {
        const input = await file.open();
        input.on("data", (chunk: Buffer) => (read += chunk.length));
        return input;
      },
    };
    expect((await detect(counted))?.format).toBe("chatbox");
    // The settings and the first keys after them, not the 8 MB of sessions after those.
    expect(read).toBeLessThan(LONG + 1024 * 1024);
    expect(file.size).toBeGreaterThan(LONG + 7 * 1024 * 1024);
  });
});
