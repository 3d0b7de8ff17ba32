import fs from "node:fs";
import path from "node:path";
import { openExport } from "../../importers/index.js";
import { isAppError } from "../../shared/errors.js";

/**
 * Claude Code's resumed sessions, for the sessions' watcher (watch-sessions.ts). `claude --resume` or
 * `--continue` (before Claude Code appended to the same file) goes on in a new file under a new
 * session id that starts with the old file's lines, their uuids kept and their sessionId the new one
 * (the claude-code importer's header). Imported one file at a time, the old conversation was stored
 * beside the new one that holds it whole; an import of the whole folder keeps only the longer
 * (claude-code withoutResumed), and the watcher now does the same with what this finds.
 *
 * - Cost: only the files of the same folder whose first uuid is the file's are read whole to compare,
 *   by the importer; each file's start is read once per size and time for its first uuid.
 * - The rule is the importer's: one holds another when it has every message of it, and more; two
 *   equal files are both kept. A fork (--fork-session) that has not diverged is held the same way.
 */

/** A Claude Code session file and the others in its folder: the one that holds it whole (it was resumed there), or those it holds whole. */
export async function resumption(file: string): Promise<{ heldBy: string | undefined; holds: string[] }> {
  const none = { heldBy: undefined, holds: [] };
  const first = firstUuid(file);
  if (first === undefined) return none;
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return none;
  }
  const siblings = names
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => path.join(dir, name))
    .filter((other) => other !== file && firstUuid(other) === first);
  if (siblings.length === 0) return none;
  const own = await messageIds(file);
  const holds: string[] = [];
  for (const other of siblings) {
    const theirs = await messageIds(other);
    if (holdsWhole(theirs, own)) return { heldBy: other, holds: [] };
    if (holdsWhole(own, theirs)) holds.push(other);
  }
  return { heldBy: undefined, holds };
}

/** The importer's rule (claude-code withoutResumed): every message of the shorter, and more; two equal files are both kept. */
function holdsWhole(longer: Set<string>, shorter: Set<string>): boolean {
  return shorter.size > 0 && longer.size > shorter.size && [...shorter].every((id) => longer.has(id));
}

/** The ids of the messages of a file's conversations, as the importer reads the file alone. */
async function messageIds(file: string): Promise<Set<string>> {
  const ids = new Set<string>();
  try {
    for await (const upload of (await openExport(file)).conversations()) {
      for (const message of upload.conversation.messages) ids.add(message.id);
    }
  } catch (error) {
    if (!isAppError(error)) throw error;
  }
  return ids;
}

/** How far into a file its first `uuid` is looked for: a first prompt may hold a whole pasted log. */
const FIRST_UUID_BYTES = 4 * 1024 * 1024;
/** Each file's first `uuid` (a key of its own, not one inside a string), with the size and time it was read at. */
const firstUuids = new Map<string, { size: number; mtimeMs: number; uuid: string | undefined }>();

/** The first `uuid` a Claude Code session file holds: a resumed session's file starts with the old one's lines, their uuids kept. */
function firstUuid(file: string): string | undefined {
  const info = fs.statSync(file, { throwIfNoEntry: false });
  if (!info) return undefined;
  const known = firstUuids.get(file);
  if (known?.size === info.size && known.mtimeMs === info.mtimeMs) return known.uuid;
  const uuid = readFirstUuid(file);
  firstUuids.set(file, { size: info.size, mtimeMs: info.mtimeMs, uuid });
  return uuid;
}

function readFirstUuid(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    let text = "";
    for (let at = 0; at < FIRST_UUID_BYTES; ) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, at);
      if (read === 0) return undefined;
      at += read;
      // Only what was read since, and the end of what came before (a key cut between two reads).
      text = text.slice(-100) + buffer.toString("latin1", 0, read);
      const found = /"uuid"\s*:\s*"([^"]+)"/.exec(text);
      if (found) return found[1];
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
