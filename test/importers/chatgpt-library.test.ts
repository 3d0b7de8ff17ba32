// Deep-research reports that a 2026 ChatGPT export keeps in its library (library_files.json and a
// file_….dat per report, fixtures/exports/chatgpt-2026-library), not in the conversation that asked
// for them. Shapes from public parsers of real exports (the fixture's row in fixtures/exports/README.md).
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { AppError } from "../../src/shared/errors.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "chatgpt-2026-library");
const ferries = "69b2c0de-1111-8000-9000-00000000d001";
const ferriesReport = "file_00000000b1a2c3d4e5f60718293a4b5c";
const lacksItsFile = "deep-research reports whose file the export lacks (file_….dat)";

/** A copy of the fixture's folder to change. */
function copyOfFolder(): string {
  const dir = join(tempDir("mnemo-chatgpt-library-"), "export");
  cpSync(folder, dir, { recursive: true });
  return dir;
}

type LibraryEntry = Record<string, unknown>;

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

describe("a ChatGPT export's deep-research reports kept in its library", () => {
  it("puts a report in its conversation at its time, as the assistant's, the research's activity left out", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    const chat = conversations.find((c) => c.conversation.id === ferries)!;
    expect(chat.complete).toBe(true);
    expect(chat.conversation.messages.map((m) => m.id)).toEqual(["u1", "a1-start", ferriesReport, "u2", "a2"]);
    const report = chat.conversation.messages[2]!;
    expect(report).toMatchObject({ role: "assistant", createdAt: "2026-03-09T10:20:00.000Z" });
    expect(report.content).toMatch(/^# Ferries between the Azores islands in summer\n\nAtlânticoline runs two networks\./);
    expect(report.content).toContain("Horta to Madalena is a 30-minute crossing several times a day. The summer line");
    expect(report.content).not.toMatch(/[\ue200-\ue202]|turn0search0/); // its citation markers, as for any answer
    const everything = conversations.flatMap((c) => c.conversation.messages.map((m) => m.content)).join("\n");
    expect(everything).not.toMatch(/Searching for Atlântico Line timetables|island,port/); // activity; an uploaded file of the library
    expect(skipped).toEqual({ [lacksItsFile]: 1 }); // the Pico chat's report
  });

  it("gives a report whose conversation the export lacks a conversation of its own, under that conversation's id", async () => {
    const conversations = await collect(folder);
    expect(conversations.map((c) => c.conversation.id)).toEqual([
      ferries,
      "69b2c0de-2222-8000-9000-00000000d002",
      "69b2c0de-9999-8000-9000-00000000d009",
    ]);
    const own = conversations[2]!;
    expect(own.complete).toBeUndefined(); // adds to that conversation if it was stored before, never replaces it
    expect(own.conversation).toMatchObject({ title: "Whale season around São Miguel", createdAt: "2026-03-08T10:00:00.000Z" });
    expect(own.conversation.messages).toEqual([
      {
        id: "file_00000000b3a2c3d4e5f60718293a4b5c",
        role: "assistant",
        content:
          "# Whale season around São Miguel\n\nSperm whales are seen all year; blue and fin whales pass between March and June, when boats from Ponta Delgada sight them on most trips.",
        createdAt: "2026-03-08T10:00:00.000Z",
      },
    ]);
  });

  it("the zip gives what the folder gives, and its conversations file alone reads the library beside it", async () => {
    const plain = await collect(folder);
    expect(await collect(join(fixtures, "chatgpt-2026-library-export.zip"))).toEqual(plain);
    expect(await collect(join(folder, "conversations-000.json"))).toEqual(plain);
  });

  it("does not repeat a report the conversation holds on a tool message", async () => {
    const dir = copyOfFolder();
    const shard = join(fixtures, "chatgpt-2026/conversations-001.json");
    type Node = { message: { metadata?: { chatgpt_sdk?: { widget_state?: string } } } | null };
    const whales = readJson<{ conversation_id: string; mapping: Record<string, Node> }[]>(shard).find((c) => c.mapping["t1-report"]);
    const state = JSON.parse(whales!.mapping["t1-report"]!.message!.metadata!.chatgpt_sdk!.widget_state!) as object;
    writeFileSync(join(dir, "conversations-000.json"), JSON.stringify([whales]));
    const fileId = "file_00000000d4a2c3d4e5f60718293a4b5c";
    writeFileSync(join(dir, `${fileId}.dat`), JSON.stringify({ version: 1, title: "Whale watching in the Azores", widget_state: state }));
    const library = [{ file_id: fileId, library_artifact_type: "deep_research_report", origination_thread_id: whales!.conversation_id }];
    writeFileSync(join(dir, "library_files.json"), JSON.stringify(library));
    const [chat, ...others] = await collect(dir);
    expect(others).toEqual([]);
    expect(chat!.conversation.messages.map((m) => m.id)).toEqual(["u1", "a1-start", "t1-report"]);
  });

  it("gives a conversation met again, newer, its report too: that copy is the one kept", async () => {
    const dir = copyOfFolder();
    const shard = readJson<{ conversation_id: string; update_time: number }[]>(join(dir, "conversations-000.json"));
    const newer = { ...shard.find((c) => c.conversation_id === ferries)!, update_time: 1773140000 };
    writeFileSync(join(dir, "conversations-001.json"), JSON.stringify([newer]));
    const kept = (await collect(dir)).filter((c) => c.conversation.id === ferries).at(-1)!;
    expect(kept.conversation.updatedAt).toBe("2026-03-10T10:53:20.000Z");
    expect(kept.conversation.messages.map((m) => m.id)).toContain(ferriesReport);
  });

  it("counts a report too large to read and one not finished, and reads the others", async () => {
    const dir = copyOfFolder();
    const library = readJson<LibraryEntry[]>(join(dir, "library_files.json"));
    const big = "file_00000000e1a2c3d4e5f60718293a4b5c";
    const running = "file_00000000e2a2c3d4e5f60718293a4b5c";
    library.push(
      { file_id: big, library_artifact_type: "deep_research_report", origination_thread_id: ferries },
      { file_id: running, library_artifact_type: "deep_research_report", origination_thread_id: ferries },
    );
    writeFileSync(join(dir, "library_files.json"), JSON.stringify(library));
    writeFileSync(join(dir, `${big}.dat`), Buffer.alloc(8 * 1024 * 1024 + 1, " ")); // 8 MB and a byte: not read
    // "completed" is the only status seen in the exports read; any other is a report still being written.
    const body = readJson<{ widget_state: { status: string } }>(join(dir, `${ferriesReport}.dat`));
    writeFileSync(join(dir, `${running}.dat`), JSON.stringify({ ...body, widget_state: { ...body.widget_state, status: "in_progress" } }));
    const { conversations, skipped } = await collectWithSkips(dir);
    expect(conversations.find((c) => c.conversation.id === ferries)!.conversation.messages.map((m) => m.id)).toContain(ferriesReport);
    expect(skipped).toEqual({
      [lacksItsFile]: 1,
      "deep-research reports over 8 MB, not read": 1,
      "deep-research reports not finished when exported": 1,
    });
  });

  it("library_files.json passed alone is named, with what to pass instead", async () => {
    const path = join(folder, "library_files.json");
    const error = await openExport(path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toBe(
      `${path}: this is ChatGPT's library_files.json (the files of your library, deep-research reports among them), not the conversations`,
    );
    expect((error as AppError).suggestion).toMatch(/the zip as downloaded, or the folder it unzips to/);
  });
});
