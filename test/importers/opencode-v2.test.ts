// OpenCode 2.x's opencode.db (fixtures/exports/opencode-v2/build-databases.mjs): its own tables
// alone, and beside 1.x's, the sessions copied or being copied.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { foundApps } from "../../src/importers/app-folders.js";
import { detect } from "../../src/importers/detect.js";
import { fileSource } from "../../src/importers/source.js";
import type { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const v2 = join(fixtures, "opencode-v2", "opencode.db");
const migrated = join(fixtures, "opencode-v2", "migrated", "opencode.db");
const migrating = join(fixtures, "opencode-v2", "migrating", "opencode.db");
const v1 = join(fixtures, "opencode-db", "opencode.db");
const scratch = tempDir("mnemo-opencode-v2-");

const FIX_CSV = "ses_45c1a8e02ffeQm3VtK9pLx2RwN";
const SUBAGENT = "sub-agents' sessions (the agent's side work, left out as its reasoning is)";

const byId = (conversations: UploadConversation[]) => [...conversations].sort((a, b) => a.conversation.id.localeCompare(b.conversation.id));
const said = ({ conversation }: UploadConversation) => conversation.messages.map(({ role, content }) => [role, content]);
const ids = (conversations: UploadConversation[]) => byId(conversations).map(({ conversation }) => conversation.id);

describe("OpenCode 2.x's opencode.db", () => {
  it("with 2.x's tables alone: prompts and answers in order, tools named, OpenCode's own messages left out", async () => {
    expect(await detect(await fileSource(v2))).toMatchObject({ format: "opencode", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(v2);
    expect(conversations.map(({ conversation }) => conversation.title)).toEqual([
      "Rename the ledger package",
      "Sketch a schema for recurring transactions", // no title: its first prompt
      "Why the nightly backup job stopped",
    ]);
    const [, , backup] = conversations;
    expect(said(backup!)).toEqual([
      ["human", "The nightly backup stopped on Friday. Can you find out why?"],
      [
        "assistant",
        "I'll look at the timer first.\n\n[tool: shell] [tool: read]\n\nThe timer was disabled on Friday, and the NAS mount it writes to is gone.\n\n[tool: shell]",
      ],
      ["human", "Mounted it again. Re-enable the timer, please."],
      ["assistant", "[tool: shell]\n\nDone: backup.timer is enabled and next runs tonight at 02:00."],
    ]);
    expect(backup?.conversation).toMatchObject({
      id: "ses_0f6c1a2b3ffeAb1Cd2Ef3Gh4Ij",
      createdAt: "2026-10-12T09:00:01.000Z", // its first prompt
      updatedAt: "2026-10-12T09:01:35.000Z",
    });
    expect(backup?.conversation.messages.map(({ id }) => id)).toEqual([
      "msg_f093e5d4c002Pv5Qw6Rx7Sy8Tz",
      "msg_f093e5d4c003Ua9Vb0Wc1Xd2Ye",
      "msg_f093e5d4c006Jp1Kq2Lr3Ms4Nt",
      "msg_f093e5d4c008Tz9Ua0Vb1Wc2Xd",
    ]);
    expect(skipped).toEqual({ [SUBAGENT]: 1, "messages whose stored JSON is damaged (left out)": 1 });
  });

  it("a compaction's summary is OpenCode's, not the chat's", async () => {
    const [, compacted] = await collect(v2);
    expect(said(compacted!)).toEqual([
      ["human", "Sketch a schema for recurring transactions"],
      ["assistant", "A `recurrence` table keyed by transaction, with rule and next date."],
      ["human", "Now write the migration for it"],
      ["assistant", "[tool: write]\n\nWrote migrations/0007_recurrence.sql."],
    ]);
  });

  it("a damaged row costs only itself", async () => {
    const [renamed] = await collect(v2);
    expect(said(renamed!)).toEqual([
      ["human", "Rename the package from ledger to tally"],
      ["human", "And bump the version to 0.9"],
      ["assistant", "Renamed, and the version is 0.9.0."],
    ]);
  });

  it("messages follow seq, not their ids", async () => {
    const SQL = await initSqlJs();
    const db = new SQL.Database(readFileSync(v2));
    // The answer's id sorts before its prompt's; its seq after.
    db.run("UPDATE session_message SET id = 'msg_f093e5d4c000Aa0Aa0Aa0Aa0Aa' WHERE id = 'msg_f093e5d4c003Ua9Vb0Wc1Xd2Ye'");
    const path = join(scratch, "reordered.db");
    writeFileSync(path, db.export());
    db.close();
    const [, , backup] = await collect(path);
    expect(backup?.conversation.messages.map(({ role }) => role)).toEqual(["human", "assistant", "human", "assistant"]);
  });

  it("beside 1.x's tables, the copy completed: each session once, as 2.x has it, with the id it had in 1.x", async () => {
    expect(await detect(await fileSource(migrated))).toMatchObject({ format: "opencode", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(migrated);
    const before = await collect(v1);
    expect(conversations.map(({ conversation }) => conversation.title)).toEqual([
      "what does `git rebase --onto main feature~3 feature` do",
      "Negative amounts in CSV import", // renamed in 2.x since
      "Pin the Node version", // begun in 1.x after the copy: in 1.x's tables alone
    ]);
    // Deleted in 2.x after the copy (its 1.x rows left behind): not read.
    expect(conversations.map(({ conversation }) => conversation.title)).not.toContain("Scratch: try jq filters");
    // A session read from 1.x's tables before and from 2.x's now is the same conversation, its messages the same.
    expect(ids(conversations.slice(0, 2))).toEqual(ids(before));
    const [rebase, fixCsv] = conversations;
    const [rebaseBefore, fixCsvBefore] = byId(before);
    expect(said(rebase!)).toEqual(said(rebaseBefore!));
    expect(fixCsv?.conversation.messages.map(({ id }) => id)).toEqual(fixCsvBefore?.conversation.messages.map(({ id }) => id));
    // 2.x's copy of a prompt notes the file it could not carry, as OpenCode 2 shows it.
    expect(fixCsv?.conversation.messages[0]?.content).toBe(
      `${fixCsvBefore?.conversation.messages[0]?.content}\n\n[Attachment unavailable after migration: src/ledger/csv_import.py (text/plain)]`,
    );
    expect(said(fixCsv!).slice(1)).toEqual(said(fixCsvBefore!).slice(1));
    expect(skipped).toEqual({ [SUBAGENT]: 1 });
  });

  it("beside 1.x's tables, mid-copy: the sessions copied from 2.x's, the others from 1.x's, none twice", async () => {
    const conversations = await collect(migrating);
    expect(ids(conversations)).toEqual(ids(await collect(v1)));
    const [rebase, fixCsv] = byId(conversations);
    expect(said(rebase!)).toEqual(said(byId(await collect(v1))[0]!)); // not copied yet: 1.x's
    expect(fixCsv?.conversation.id).toBe(FIX_CSV); // copied: 2.x's, its prompt with the note of the file it could not carry
    expect(fixCsv?.conversation.messages[0]?.content).toMatch(
      /\n\n\[Attachment unavailable after migration: src\/ledger\/csv_import\.py \(text\/plain\)\]$/,
    );
  });

  it("--apps finds the database OPENCODE_DB names, and Kilo CLI's (OpenCode's tables in ~/.local/share/kilo/kilo.db), named so", async () => {
    const home = scratch;
    const data = join(home, ".local", "share");
    mkdirSync(join(data, "kilo"), { recursive: true });
    copyFileSync(v1, join(data, "kilo", "kilo.db"));
    mkdirSync(join(home, "disk"));
    const moved = join(home, "disk", "opencode.db");
    copyFileSync(v2, moved);
    const apps = (env: Record<string, string>, watching: boolean) =>
      foundApps({ platform: "linux", env: { HOME: home, ...env } }, { watching }).map(({ format, name, folder }) => [format, name, folder]);
    for (const watching of [false, true]) {
      expect(apps({ OPENCODE_DB: moved }, watching)).toEqual([
        ["opencode", "OpenCode", moved],
        ["opencode", "Kilo CLI", join(data, "kilo", ...(watching ? ["kilo.db"] : []))],
      ]);
      // A relative path (under OpenCode's data folder, as OpenCode reads it) or ":memory:" is not followed.
      expect(apps({ OPENCODE_DB: "opencode.db" }, watching)).toEqual([["opencode", "Kilo CLI", expect.any(String)]]);
    }
    expect(ids(await collect(join(data, "kilo")))).toEqual(ids(await collect(v1)));
  });
});
