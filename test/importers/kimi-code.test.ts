import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessions = join(fixtures, "kimi-code", "sessions");
const bucket = join(sessions, "wd_tidepool_66fa9b73f26c");
const SALINITY = "6b0f4c2e-93d1-4a7e-b5c8-2f1e0d9a7c34";
const tmp = tempDir("mnemo-kimi-code-");

describe("Kimi Code CLI sessions", () => {
  it("~/.kimi-code/sessions: a conversation per session's main agent, titled by state.json; sub-agents and undone prompts counted", async () => {
    const { conversations, skipped } = await collectWithSkips(sessions);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      [SALINITY, "Salinity drops at 02:00", 4],
      ["ses_lagoon7q2m", "Tide gauge offset", 5],
    ]);
    expect(skipped).toMatchObject({
      "sub-agents' wire files (agents/<id>/ beside agents/main: their events are the agent's side work)": 1,
      "prompts undone (/undo), with what followed them, which the session no longer shows": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.complete]).toEqual(["kimi-code", true]);
    }
  });

  it("reads the main agent as the resumed session shows it: prompts as typed, the open steps' text and tools, a shell command as typed, no thinking, no injected reminder or task notice, no undone prompt", async () => {
    const [session] = await collect(join(bucket, "ses_lagoon7q2m", "agents", "main", "wire.jsonl"));
    expect(session?.conversation).toMatchObject({
      id: "ses_lagoon7q2m",
      title: "Tide gauge offset",
      createdAt: "2026-07-25T03:36:41.001Z",
    });
    expect(session?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Why is the tide gauge 20 cm off since Monday? Here is the plot: [image]"],
      [
        "assistant",
        "Let me read the calibration log.\n\n[tool: Read] [tool: Agent]\n\nThe datum moved from MSL to LAT on Monday: the 20 cm is the offset between them.",
      ],
      ["human", '! grep -c "LAT" config/datum.toml && echo ok'], // run with !, its output left out
      ["human", "Set it back to MSL."], // a background task's notice before it left out
      ["assistant", "[tool: Write]\n\nDone: the datum is MSL again."],
    ]);
  });

  it("a session /upgrade copied from Kimi CLI keeps Kimi CLI's id (the same conversation), its copied messages and the turns added since, the CLI's own <system> lines left out", async () => {
    const [session] = await collect(join(bucket, `ses_${SALINITY}`, "agents", "main", "wire.jsonl"));
    expect(session?.conversation).toMatchObject({ id: SALINITY, createdAt: "2026-05-29T08:00:00.000Z" }); // the metadata line's: the copy's messages have no times
    expect(session?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "The salinity sensor reads 0.0 every night after 02:00. Why?"],
      [
        "assistant",
        "Let me look at the logger.\n\n[tool: ReadFile]\n\nThe nightly rollover truncates the file before the last reading is flushed. Flush before truncating.",
      ],
      ["human", "Now add a test for it."],
      ["assistant", "[tool: Write]\n\nAdded tests/test_rollover.py."],
    ]);
  });

  it("a damaged line costs only itself (the session then added to, not replaced); a session without a word is said empty; a state.json that is no JSON is counted", async () => {
    const folder = join(tmp, "damaged", "ses_lagoon7q2m");
    await cp(join(bucket, "ses_lagoon7q2m"), folder, { recursive: true });
    const wire = join(folder, "agents", "main", "wire.jsonl");
    const lines = (await readFile(wire, "utf8")).split("\n");
    await writeFile(
      wire,
      [...lines.slice(0, 9), '{"type":"context.append_loop_event","event":{"type":"tool.ca', ...lines.slice(10)].join("\n"),
    );
    await writeFile(join(folder, "state.json"), '{"title": "Tide');
    const empty = join(tmp, "damaged", "ses_empty", "agents", "main");
    await mkdir(empty, { recursive: true });
    await writeFile(
      join(empty, "wire.jsonl"),
      `${JSON.stringify({ type: "metadata", protocol_version: "1.5", created_at: 1784950600000 })}\n`,
    );
    const { conversations, problems } = await collectReporting(join(tmp, "damaged"));
    expect(problems).toHaveLength(1);
    expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.length, c.complete])).toEqual([
      ["Why is the tide gauge 20 cm off since Monday? Here is the plot: [image]", 5, false],
    ]);
    await writeFile(wire, lines.join("\n"));
    const { skipped } = await collectWithSkips(join(tmp, "damaged"));
    expect(skipped).toMatchObject({
      "sessions without any message text": 1,
      "state.json files that could not be read (the session keeps the title its first prompt gives)": 1,
    });
    await rm(join(tmp, "damaged"), { recursive: true });
  });
});
