import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./temp-dirs.js";

/**
 * A Claude export of one conversation of `count` messages of ~100 KB of text, zipped to well under
 * 1 MB: as a hostile export expands. Its one record holds each message's text twice (as Claude
 * writes it), a JSON text of ~200 KB a message that a heap limit below it cannot parse (hostile.zip
 * in a folder of its own).
 */
export function expandingZip(count: number): string {
  const folder = expandingExport(count);
  execFileSync("zip", ["-q", "-X", "hostile.zip", "conversations.json"], { cwd: folder });
  fs.rmSync(path.join(folder, "conversations.json"));
  return path.join(folder, "hostile.zip");
}

/** The same export unzipped: conversations.json in a folder of its own, whose path is returned. */
export function expandingExport(count: number): string {
  const folder = tempDir();
  const text = "all work and no play makes a dull export ".repeat(2_500); // ~100 KB
  const messages = Array.from({ length: count }, (_, i) => ({
    uuid: `m-${i}`,
    sender: i % 2 === 0 ? "human" : "assistant",
    text,
    content: [{ type: "text", text }],
    created_at: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
  }));
  const conversation = {
    uuid: "huge",
    name: "Huge",
    created_at: messages[0]!.created_at,
    updated_at: messages.at(-1)!.created_at,
    chat_messages: messages,
  };
  fs.writeFileSync(path.join(folder, "conversations.json"), JSON.stringify([conversation]));
  return folder;
}
