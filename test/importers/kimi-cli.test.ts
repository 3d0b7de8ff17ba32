import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportFormat } from "../../src/core/jobs/watch-sessions.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "kimi-cli", "sessions");
const TIDEPOOL = "92a49af72d608970e86aec3cc07aecb9";
const SALINITY = "6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34";
const KELP = "0d8e5b71-2c4a-4f93-8e16-7a5b3c9d1e20";
const HARBOUR = "9a3c7e15-4b2d-4e8f-a061-5d7c2b9e4f18";
const salinity = join(sessions, TIDEPOOL, SALINITY);
const harbour = join(sessions, "fe5b4af56ba5bbab909b4d3355f0b860", `${HARBOUR}.jsonl`);

const tmp = tempDir("mnemo-kimi-cli-");

describe("Kimi CLI sessions", () => {
  it("~/.kimi/sessions: a conversation per session, by its id; the title given, else the first prompt; contexts beside a wire and sub-agents counted", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      [KELP, "Exportar kelp para CSV", 4], // the web's metadata.json, before state.json
      [SALINITY, "Salinity drops at 02:00", 6], // state.json's custom_title
      [HARBOUR, "Why does the harbour tide chart skip the 29th of February?", 2],
    ]);
    expect(skipped).toEqual({
      "model contexts (context.jsonl) beside a session's wire.jsonl, not read: the wire holds what the session showed": 2,
      "contexts the CLI set aside when it reverted, cleared or compacted one (context_N.jsonl), not read": 2,
      "sub-agents' session files (subagents/<id>/: their events are the agent's side work)": 2,
      "sub-agents' events (the agent's side work, left out as its reasoning is)": 2,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.complete]).toEqual(["kimi-cli", true]);
    }
  });

  it("reads the wire as the UI showed it: prompts and steers as typed, an image as [image], the agent's text and tools, no thinking", async () => {
    const [session] = await collect(join(salinity, "wire.jsonl"));
    expect(session?.conversation).toMatchObject({ createdAt: "2026-05-29T08:00:00.512Z", updatedAt: "2026-05-29T08:00:59.420Z" });
    expect(session?.conversation.messages).toEqual([
      {
        id: "line-2",
        role: "human",
        content: "The salinity sensor reads 0.0 every night after 02:00. Why?",
        createdAt: "2026-05-29T08:00:00.512Z",
      },
      {
        id: "line-5",
        role: "assistant",
        content:
          "Let me look at the logger.\n\n[tool: ReadFile] [tool: Agent]\n\nThe nightly rollover truncates the file before the last reading is flushed, so the 02:00 sample is written as 0.0. Flush before truncating.",
        createdAt: "2026-05-29T08:00:03.900Z",
      },
      { id: "line-17", role: "human", content: "Here is last night's plot: [image]", createdAt: "2026-05-29T08:00:50.040Z" },
      { id: "line-19", role: "assistant", content: "[tool: Shell]", createdAt: "2026-05-29T08:00:53.600Z" },
      { id: "line-21", role: "human", content: "Also keep the raw file.", createdAt: "2026-05-29T08:00:56.000Z" },
      {
        id: "line-23",
        role: "assistant",
        content: "The plot shows the drop at 02:00 exactly. Flushed before truncating, and the raw file is kept as logger.raw.",
        createdAt: "2026-05-29T08:00:59.420Z",
      },
    ]);
  });

  it("each file of a session passed alone (as the watcher imports the one that changed) gives the folder's conversation; a sub-agent's none", async () => {
    const [whole] = (await collect(sessions)).filter((c) => c.conversation.id === SALINITY);
    for (const file of ["wire.jsonl", "context.jsonl", "context_1.jsonl", "state.json"]) {
      expect(await exportFormat(join(salinity, file)), file).toBe("kimi-cli");
      expect(await collect(join(salinity, file)), file).toEqual([whole]);
    }
    for (const file of ["wire.jsonl", "context.jsonl"]) expect(await collect(join(salinity, "subagents", "a1c9e2f04", file))).toEqual([]);
  });

  it("a session from its last /clear on, as the CLI's resume and its web app show it; what came before counted", async () => {
    const folder = join(tmp, "cleared", SALINITY);
    await cp(salinity, folder, { recursive: true });
    const at = (timestamp: number, type: string, payload: object) => JSON.stringify({ timestamp, message: { type, payload } });
    const after = [
      at(1780042000.1, "TurnBegin", { user_input: "/clear" }),
      at(1780042000.2, "ContentPart", { type: "text", text: "The context has been cleared." }),
      at(1780042000.3, "TurnEnd", {}),
      at(1780042100.1, "TurnBegin", { user_input: [{ type: "text", text: "Now the temperature sensor: it lags by an hour." }] }),
      at(1780042104.2, "ContentPart", { type: "text", text: "It logs local time; I switched it to UTC." }),
    ];
    await writeFile(
      join(folder, "wire.jsonl"),
      `${(await readFile(join(salinity, "wire.jsonl"), "utf8")).trimEnd()}\n${after.join("\n")}\n`,
    );
    const { conversations, skipped } = await collectWithSkips(join(folder, "wire.jsonl"));
    expect(conversations.map((c) => c.conversation.messages.map((m) => [m.role, m.content]))).toEqual([
      [
        ["human", "/clear"],
        ["assistant", "The context has been cleared."],
        ["human", "Now the temperature sensor: it lags by an hour."],
        ["assistant", "It logs local time; I switched it to UTC."],
      ],
    ]);
    expect(skipped).toMatchObject({ "messages before the session's last /clear, which the CLI and its web app no longer show": 6 });
  });

  it("a wire of 0.59 (no metadata line) is read, a slash command as typed, the compaction's summary in the context beside it not", async () => {
    const [kelp] = await collect(join(sessions, TIDEPOOL, KELP, "context.jsonl"));
    expect(kelp?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Como exporto as leituras de kelp para CSV?"],
      ["assistant", "Use `tidepool export --format csv kelp`; the columns are time, depth and density."],
      ["human", "/compact"],
      ["assistant", "The context has been compacted."],
    ]);
  });

  it("a session of before 0.59 is its context: the CLI's own checkpoints left out, the tools named; the one a D-Mail set aside not read", async () => {
    const [session] = await collect(harbour);
    expect(session?.conversation.messages).toEqual([
      { id: "line-2", role: "human", content: "Why does the harbour tide chart skip the 29th of February?" },
      {
        id: "line-5",
        role: "assistant",
        content:
          "[tool: Glob]\n\ncalendar.py builds the year from a table of 365 days, so leap days are never generated. I made it use `calendar.isleap`.",
      },
    ]);
    expect(await collect(harbour.replace(".jsonl", "_1.jsonl"))).toEqual([]);
  });

  it("a context moved into its session's folder without a wire (the CLI moves <id>.jsonl so) is read, under the folder's id", async () => {
    const folder = join(tmp, "moved", HARBOUR);
    await cp(harbour, join(folder, "context.jsonl"));
    const [session] = await collect(join(folder, "context.jsonl"));
    expect([session?.conversation.id, session?.conversation.messages.length]).toEqual([HARBOUR, 2]);
  });

  it("a session begun before 0.59 and continued after (its context moved into the folder, a wire from then on) has all its turns once, in order, under its id", async () => {
    const folder = join(tmp, "continued", HARBOUR);
    await mkdir(folder, { recursive: true });
    const before = await readFile(harbour, "utf8");
    const prompt = "Does the tide table handle 2100, which is no leap year?";
    const answer = "Yes: `calendar.isleap(2100)` is false, so the 29th is skipped that year.";
    const since = [
      { role: "_checkpoint", id: 2 },
      { role: "user", content: prompt },
      { role: "assistant", content: answer },
    ];
    await writeFile(join(folder, "context.jsonl"), `${before.trimEnd()}\n${since.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const at = (timestamp: number, type: string, payload: object) => JSON.stringify({ timestamp, message: { type, payload } });
    const wire = [
      at(1780042000.1, "TurnBegin", { user_input: prompt }),
      at(1780042004.2, "ContentPart", { type: "text", text: answer }),
      at(1780042004.3, "TurnEnd", {}),
    ];
    await writeFile(join(folder, "wire.jsonl"), `${wire.join("\n")}\n`);
    const expected = [
      ["context-line-2", "human", "Why does the harbour tide chart skip the 29th of February?"],
      ["context-line-5", "assistant", expect.stringContaining("calendar.isleap")],
      ["line-1", "human", prompt],
      ["line-2", "assistant", answer],
    ];
    const read = async () =>
      (await collect(join(tmp, "continued"))).map((c) => [
        c.conversation.id,
        c.conversation.messages.map((m) => [m.id, m.role, m.content]),
      ]);
    expect(await read()).toEqual([[HARBOUR, expected]]);
    // A /clear or compaction since set the migrated context aside as context_1.jsonl: the turns before the wire are read from it.
    await writeFile(join(folder, "context_1.jsonl"), await readFile(join(folder, "context.jsonl")));
    await writeFile(
      join(folder, "context.jsonl"),
      `${JSON.stringify({ role: "user", content: [{ type: "text", text: "<system>Summary: leap years fixed.</system>" }] })}\n`,
    );
    expect(await read()).toEqual([[HARBOUR, expected]]);
  });

  it("a session begun since 0.59 whose first prompt was a skill (its text, not the command, in the context) gets no turns twice", async () => {
    const folder = join(tmp, "skill", SALINITY);
    await mkdir(folder, { recursive: true });
    const answer = "Run `tidepool calibrate` before the nightly rollover.";
    const context = [
      { role: "_checkpoint", id: 0 },
      { role: "user", content: "Calibrate the salinity sensor: the skill's steps, written out at length." },
      { role: "assistant", content: answer },
    ];
    await writeFile(join(folder, "context.jsonl"), `${context.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const at = (timestamp: number, type: string, payload: object) => JSON.stringify({ timestamp, message: { type, payload } });
    const wire = [
      at(1780042000.1, "TurnBegin", { user_input: "/skill:calibrate" }),
      at(1780042004.2, "ContentPart", { type: "text", text: answer }),
    ];
    await writeFile(join(folder, "wire.jsonl"), `${wire.join("\n")}\n`);
    const [session] = await collect(join(folder, "wire.jsonl"));
    expect(session?.conversation.messages.map((m) => [m.id, m.content])).toEqual([
      ["line-1", "/skill:calibrate"],
      ["line-2", answer],
    ]);
  });

  it("a damaged line costs only itself; the session is then added to, not replaced; a title file that is no JSON is counted", async () => {
    const folder = join(tmp, "damaged", SALINITY);
    await cp(salinity, folder, { recursive: true });
    const lines = (await readFile(join(salinity, "wire.jsonl"), "utf8")).split("\n");
    await writeFile(
      join(folder, "wire.jsonl"),
      [...lines.slice(0, 4), '{"timestamp": 1780041603.9, "message": {"type": "Cont', ...lines.slice(5)].join("\n"),
    );
    await writeFile(join(folder, "state.json"), '{"version": 1, "approval": {');
    const { conversations, problems } = await collectReporting(join(tmp, "damaged"));
    expect(problems).toHaveLength(1);
    expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.length, c.complete])).toEqual([
      ["The salinity sensor reads 0.0 every night after 02:00. Why?", 6, false],
    ]);
    await writeFile(join(folder, "wire.jsonl"), lines.join("\n"));
    const { skipped } = await collectWithSkips(join(folder, "wire.jsonl"));
    expect(skipped).toMatchObject({ "state.json files that could not be read (the session keeps the title its first prompt gives)": 1 });
    await rm(join(tmp, "damaged"), { recursive: true });
  });

  it("Kimi Code's wire.jsonl (its successor's, another format) is not taken for Kimi CLI's: it is Kimi Code's", async () => {
    const folder = join(tmp, "kimi-code", "sessions", "wd", "s1", "agents", "main");
    await mkdir(folder, { recursive: true });
    const lines = [
      { type: "metadata", protocol_version: "1.4", created_at: 1784950509920 },
      { type: "turn.prompt", input: [{ type: "text", text: "hi" }], origin: { kind: "user" }, time: 1784950605093 },
      {
        type: "context.append_message",
        message: { role: "user", content: [{ type: "text", text: "hi" }], toolCalls: [] },
        time: 1784950605094,
      },
    ];
    await writeFile(join(folder, "wire.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    expect(await exportFormat(join(folder, "wire.jsonl"))).toBe("kimi-code");
  });

  it("an upload's copy of a wire, without its folder: its first time names it, the first prompt titles it", async () => {
    const stored = join(tmp, "0b5e.upload"); // the server keeps an upload under a name of its own
    await cp(join(salinity, "wire.jsonl"), stored);
    const [copy] = await collect(stored, { name: "wire.jsonl" });
    expect([copy?.conversation.id, copy?.conversation.title]).toEqual([
      "session-2026-05-29T08:00:00.512Z",
      "The salinity sensor reads 0.0 every night after 02:00. Why?",
    ]);
  });
});
