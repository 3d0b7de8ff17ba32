import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const sessionState = join(fixtures, "copilot-cli", "session-state");
const FERRY = "3f9c2a71-5b84-4d1e-9a6f-0c2e7d8b4a15";
const ferry = join(sessionState, FERRY, "events.jsonl");

const tmp = tempDir("mnemo-copilot-cli-");

describe("GitHub Copilot CLI sessions", () => {
  it("~/.copilot/session-state: a conversation per session, by its id; its title the name in workspace.yaml, else the first prompt; sub-agents' events counted", async () => {
    const { conversations, skipped } = await collectWithSkips(sessionState);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length]).sort()).toEqual([
      [FERRY, "Ferry board: departures after midnight", 4], // the user's /rename, over the title the CLI gave
      ["a7e4b1c9-2d3f-4a5b-8c6d-9e0f1a2b3c4d", "Qual é o comando para ver o tamanho de uma pasta?", 2],
    ]);
    expect(skipped).toEqual({ "sub-agents' events (the agent's side work, left out as its reasoning is)": 2 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.complete]).toEqual(["copilot-cli", true]);
    }
  });

  it("says each prompt as typed and the agent's whole answer once, tools on one line; what a rewind removed left out", async () => {
    const [session] = await collect(ferry);
    expect(session?.conversation).toMatchObject({ createdAt: "2026-08-12T09:30:05.411Z", updatedAt: "2026-08-12T09:32:19.250Z" });
    expect(session?.conversation.messages).toEqual([
      {
        id: "00000004-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        role: "human",
        content: "Why does /departures return nothing for Cacilhas after 23:00?",
        createdAt: "2026-08-12T09:30:05.411Z",
      },
      {
        id: "00000006-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        role: "assistant",
        content:
          "Let me look at how departures are filtered.\n\n[tool: grep] [tool: view] [tool: task]\n\nThe GTFS feed writes boats after midnight as `24:15`, and `strptime('%H:%M')` rejects hours past 23, so those departures are dropped. I will read such times as the next day.\n\n[tool: edit]",
        createdAt: "2026-08-12T09:30:09.020Z",
      },
      {
        id: "00000015-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        role: "human",
        content: "Add a test for a 24:15 departure.",
        createdAt: "2026-08-12T09:32:00.501Z",
      },
      {
        id: "00000017-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
        role: "assistant",
        content: "[tool: create] [tool: bash]\n\nAdded `test_departure_after_midnight` in tests/test_gtfs.py; all 18 tests pass.",
        createdAt: "2026-08-12T09:32:06.000Z",
      },
    ]);
  });

  it("a damaged line costs only itself; without a session.start the session's folder names it", async () => {
    const lines = (await readFile(ferry, "utf8")).split("\n");
    const folder = join(tmp, "session-state", "5d6e7f80-1111-4222-8333-944455556666");
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, "events.jsonl"),
      [...lines.slice(1, 6), '{"type":"assistant.message","data":{"conte', ...lines.slice(6)].join("\n"),
    );
    const { conversations, problems } = await collectReporting(join(tmp, "session-state"));
    expect(problems).toHaveLength(1);
    expect(conversations[0]?.conversation).toMatchObject({ id: "5d6e7f80-1111-4222-8333-944455556666", title: "Late Cacilhas departures" });
    expect(conversations[0]?.conversation.messages).toHaveLength(4);
  });

  describe("the session's name, from the workspace.yaml beside its events", () => {
    const lines = async () => (await readFile(ferry, "utf8")).split("\n");
    /** A session folder of the ferry's events and this workspace.yaml (none when undefined). */
    async function session(name: string, workspace: string | undefined): Promise<string> {
      const folder = join(tmp, name, "session-state", FERRY);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, "events.jsonl"), (await lines()).join("\n"));
      if (workspace !== undefined) await writeFile(join(folder, "workspace.yaml"), workspace);
      return join(tmp, name, "session-state");
    }

    it("is read for events.jsonl passed alone (as the watcher imports it) and in a zip of the folder", async () => {
      expect((await collect(ferry))[0]?.conversation.title).toBe("Ferry board: departures after midnight");
      const archive = join(tmp, "session-state.zip");
      execFileSync("zip", ["-q", "-r", "-X", archive, "session-state"], { cwd: join(fixtures, "copilot-cli") });
      const titles = (await collect(archive)).map((c) => c.conversation.title).sort();
      expect(titles).toEqual(["Ferry board: departures after midnight", "Qual é o comando para ver o tamanho de uma pasta?"]);
    });

    it("an earlier CLI's `summary` names it too; without a name, the title its events give", async () => {
      const older = await session("older", "id: x\ncwd: /home/rita/ferry-timetable\nsummary_count: 0\nsummary: Cacilhas timetable fix\n");
      expect((await collect(older))[0]?.conversation.title).toBe("Cacilhas timetable fix");
      const unnamed = await session("unnamed", "id: x\ncwd: /home/rita/ferry-timetable\n");
      expect((await collect(unnamed))[0]?.conversation.title).toBe("Late Cacilhas departures");
    });

    it("a workspace.yaml that is no YAML: the session imported all the same, with its events' title, and the file counted", async () => {
      const broken = await session("broken", 'id: x\nname: "Ferry board\n  user_named: [true\n');
      const { conversations, skipped } = await collectWithSkips(broken);
      expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.length])).toEqual([["Late Cacilhas departures", 4]]);
      expect(skipped).toMatchObject({ "workspace.yaml files that could not be read (the session keeps the title its events give)": 1 });
    });

    it("not read beside an upload's copy, whose folder is not the session's", async () => {
      const folder = join(await session("upload", "name: Someone else's session\n"), FERRY);
      const [copy] = await collect(join(folder, "events.jsonl"), { name: "events.jsonl" });
      expect(copy?.conversation.title).toBe("Late Cacilhas departures");
    });
  });
});
