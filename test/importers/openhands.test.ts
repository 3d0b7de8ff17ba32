import { cp, readdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderPath } from "../../src/importers/app-folders.js";
import { openHands } from "../../src/importers/openhands/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const folder = join(fixtures, "openhands");
const cliConversation = "7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6";
const cliEvents = join(folder, "conversations", cliConversation, "events");

describe("OpenHands conversations", () => {
  it("~/.openhands's folders: the CLI's, V0's and the V1 GUI's conversations; one opened and left and a sub-agent's said, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.messages.length])).toEqual([
      [cliConversation, "The tide table parser crashes on times after midnight. Fix it.", 4], // no title kept: the first prompt
      ["5a6b7c8d9e0f4a1b8c2d3e4f5a6b7c8d", "Ferry timetable importer", 2], // metadata.json's title
      ["2b3c4d5e6f704819a2b3c4d5e6f70819", "How many crossings a day does the Seixal line run?", 2], // the GUI's id, as the SDK names it
    ]);
    expect(skipped).toEqual({
      "conversations without any message text": 1,
      "sub-agents' conversations (the agent's side work, left out as its reasoning is)": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["openhands", "OpenHands", true]);
    }
  });

  it("the CLI's events: prompts, the agent's words and finish message, tools named; output, thinking and condensation left out", async () => {
    const [conversation] = await collect(join(folder, "conversations"));
    expect(conversation?.conversation).toMatchObject({ createdAt: "2026-03-14T09:15:02.481Z", updatedAt: "2026-03-14T09:20:19.385Z" });
    expect(conversation?.conversation.messages).toEqual([
      {
        id: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
        role: "human",
        content: "The tide table parser crashes on times after midnight. Fix it.",
        createdAt: "2026-03-14T09:15:02.481Z",
      },
      {
        id: "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e",
        role: "assistant",
        content:
          "Let me look at how the parser reads hours.\n\n[tool: terminal] [tool: file_editor]\n\nThe parser added 24 hours twice to times after midnight; it now rolls them over to the next day once.",
        createdAt: "2026-03-14T09:15:07.902Z",
      },
      {
        id: "4bf2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
        role: "human",
        content: "Thanks. Does it read 24:00 as well?",
        createdAt: "2026-03-14T09:20:04.733Z",
      },
      {
        id: "5c03b4c5-d6e7-4f80-91a2-b3c4d5e6f708",
        role: "assistant",
        content: "Yes: 24:00 is read as midnight of the next day, as the tables print it.",
        createdAt: "2026-03-14T09:20:19.385Z",
      },
    ]);
  });

  it("V0's events: the system prompt and recalls left out, tools by the names the model called them, the finish's final thought", async () => {
    const [conversation] = await collect(join(folder, "sessions"));
    expect(conversation?.conversation.messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ["event-1", "human", "Write an importer for the Cacilhas ferry timetable CSV."],
      [
        "event-4",
        "assistant",
        "I'll look at the CSV's first rows.\n\n[tool: execute_bash] [tool: str_replace_editor]\n\nThe importer reads each row's departure, arrival and pier, and skips the header.",
      ],
    ]);
  });

  it("a damaged event file costs only itself, counted; the conversation is then added to, not replaced", async () => {
    const copy = tempDir("mnemo-openhands-");
    await cp(join(folder, "conversations"), copy, { recursive: true });
    const events = join(copy, cliConversation, "events");
    const damaged = (await readdir(events)).find((name) => name.startsWith("event-00002-"))!;
    await writeFile(join(events, damaged), '{"id":"b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e","timestamp":"2026-03-14T09:15:07.902114","sou');
    const { conversations, skipped } = await collectWithSkips(copy);
    expect(conversations.map((c) => [c.conversation.id, c.complete, c.conversation.messages.length])).toEqual([
      [cliConversation, false, 4],
    ]);
    expect(conversations[0]?.conversation.messages[1]?.content).toBe(
      "[tool: file_editor]\n\nThe parser added 24 hours twice to times after midnight; it now rolls them over to the next day once.",
    );
    expect(skipped["events of a conversation whose files could not be read (damaged, or not passed): the others imported"]).toBe(1);
  });

  it("the events folder, or one event file, alone: the id in base_state.json beside it, added to what is stored", async () => {
    const [whole] = await collect(cliEvents);
    expect([whole?.conversation.id, whole?.complete, whole?.conversation.messages.length]).toEqual([cliConversation, true, 4]);
    const last = (await readdir(cliEvents)).find((name) => name.startsWith("event-00012-"))!;
    const [one] = await collect(join(cliEvents, last));
    expect([one?.conversation.id, one?.complete, one?.conversation.messages.map((message) => message.content)]).toEqual([
      cliConversation,
      false,
      ["Yes: 24:00 is read as midnight of the next day, as the tables print it."],
    ]);
  });

  it("is looked for in ~/.openhands, where OPENHANDS_CONVERSATIONS_DIR, OPENHANDS_PERSISTENCE_DIR and OH_PERSISTENCE_DIR move it; watched a conversation's folder at a time, an event a file", () => {
    const linux = (env: Record<string, string> = {}) => ({ platform: "linux" as const, env: { HOME: "/home/ana", ...env } });
    const [named, cli, v0, gui, before044] = openHands.appFolders!;
    expect(appFolderPath(named!, linux({ OPENHANDS_CONVERSATIONS_DIR: "/srv/chats" }))).toBe("/srv/chats");
    expect(appFolderPath(cli!, linux())).toBe("/home/ana/.openhands/conversations");
    expect(appFolderPath(cli!, linux({ OPENHANDS_PERSISTENCE_DIR: "/srv/oh" }))).toBe(join("/srv/oh", "conversations"));
    expect(appFolderPath(v0!, linux())).toBe("/home/ana/.openhands/sessions");
    expect(appFolderPath(gui!, linux({ OH_PERSISTENCE_DIR: "/srv/oh" }))).toBe(join("/srv/oh", "v1", "events"));
    expect(appFolderPath(before044!, linux())).toBe("/home/ana/.openhands-state/sessions");
    // One event is no conversation: the watcher imports the folder of the one a changed event file is of.
    const conversation = "/home/ana/.openhands/conversations/7c1e2f3a4b5d4c6e8f90a1b2c3d4e5f6";
    const folderOf = (file: string) => openHands.sessionFolder!(resolve(file));
    expect(folderOf(`${conversation}/events/event-00012-5c03b4c5.json`)).toBe(resolve(conversation));
    expect(folderOf(`${conversation}/subagents/8f7e6d5c/events/event-00000-71e2d3c4.json`)).toBe(resolve(conversation));
    expect(folderOf("/home/ana/.openhands/sessions/5a6b7c8d/events/3.json")).toBe(resolve("/home/ana/.openhands/sessions/5a6b7c8d"));
    expect(gui!.notWatched).toBeDefined();
  });
});
