import { cp, mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textGenerationWebUiHistory, textGenTime } from "../../src/importers/text-generation-webui/history.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures, recordContext } from "./collect.js";

const app = join(fixtures, "text-generation-webui");
const logs = join(app, "user_data", "logs");
const chiharu = join(logs, "chat", "Chiharu Yamada", "20250520-14-03-12.json");
const weather = join(logs, "instruct", "20260410-18-22-05.json");

const tmp = tempDir("mnemo-textgen-");

describe("text-generation-webui chat histories", () => {
  it("its user_data/logs folder: each character's chats and the instruct ones; an empty chat and a greeting alone are counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(logs);
    expect(
      conversations.map((c) => [c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt, c.conversation.messages.length]),
    ).toEqual([
      [
        'Chiharu Yamada: In C, is "x < y && y > z" true when x=1, y=5, z=2? I\'d like it short.',
        "2025-05-20T14:03:00.000Z",
        "2025-05-20T14:09:00.000Z",
        5,
      ],
      ["What's the weather in Porto tomorrow?", "2026-04-10T18:22:00.000Z", "2026-04-10T18:24:00.000Z", 4],
    ]);
    expect(skipped).toEqual({
      "chats of the character's greeting alone (a new chat never used)": 1,
      "chats without any message text": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual([
        "text-generation-webui",
        "text-generation-webui",
        true,
      ]);
    }
  });

  it("chat mode: the greeting, then what the chat showed: entities decoded, the swipe shown, attachments named, <USER> as the user's name", async () => {
    const [chat] = await collect(chiharu);
    expect(chat?.conversation.messages).toEqual([
      {
        id: "assistant_0",
        role: "assistant",
        content:
          "*Chiharu strides into the room with a smile, her eyes lighting up when she sees you.* Hey! I'm Chiharu. What are we building today?",
        createdAt: "2025-05-20T14:03:00.000Z",
      },
      {
        id: "user_1",
        role: "human",
        content: 'In C, is "x < y && y > z" true when x=1, y=5, z=2? I\'d like it short.\n\n[file: parser.c]\n\n[image]',
        createdAt: "2025-05-20T14:05:00.000Z",
      },
      {
        id: "assistant_1",
        role: "assistant",
        content: 'Yes: 1 < 5 and 5 > 2, so "x < y && y > z" is 1 (true).',
        createdAt: "2025-05-20T14:07:00.000Z",
      },
      { id: "user_2", role: "human", content: "Thanks <3 & see you", createdAt: "2025-05-20T14:09:00.000Z" },
      { id: "assistant_2", role: "assistant", content: "See you, Ana! Good luck with the parser.", createdAt: "2025-05-20T14:09:00.000Z" },
    ]);
    const text = chat!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of ["&amp;", "&lt;", "&quot;", "&#x27;", "both comparisons hold", "int main", "base64"])
      expect(text).not.toContain(absent);
  });

  it("instruct mode: a tool call named, its result and the thinking left out", async () => {
    const [chat] = await collect(weather);
    expect(chat?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["user_0", "human", "What's the weather in Porto tomorrow?"],
      ["assistant_0", "assistant", "[tool: get_weather]\n\nTomorrow Porto expects rain & about 14 °C: take an umbrella."],
      ["user_1", "human", "And is the ferry to Gaia running?"],
      ["assistant_1", "assistant", "Yes, every 20 minutes until 23:00."],
    ]);
    const text = chat!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of ["forecast", "celsius", "call get_weather", "Ferries run late", "think"]) expect(text).not.toContain(absent);
  });

  it("the logs folder of older versions: a renamed chat titled by its name, a persistent history of `data` and `data_visible`, dated by the file", async () => {
    const old = join(tmp, "logs");
    await cp(join(app, "logs"), old, { recursive: true });
    const saved = new Date("2023-07-01T10:00:00Z");
    await utimes(join(old, "Chiharu Yamada_persistent.json"), saved, saved);
    await utimes(join(old, "chat", "Chiharu Yamada", "Lisbon trip.json"), saved, saved);
    const { conversations, skipped } = await collectWithSkips(old);
    expect(skipped).toEqual({});
    expect(
      conversations.map((c) => [c.conversation.title, c.conversation.createdAt, c.conversation.messages.map((m) => [m.role, m.content])]),
    ).toEqual([
      [
        "Chiharu Yamada: Lisbon trip",
        "2023-07-01T10:00:00.000Z",
        [
          ["assistant", expect.stringContaining("Hey! I'm Chiharu.")],
          ["human", "Which tram goes to Belém?"],
          ["assistant", "Tram 15 from Praça da Figueira: about 25 minutes."],
        ],
      ],
      [
        "Chiharu Yamada: What does <br> do in HTML?", // written before the app escaped the visible text: read as it is
        "2023-07-01T10:00:00.000Z",
        [
          ["assistant", "Hey! I'm Chiharu."],
          ["human", "What does <br> do in HTML?"],
          ["assistant", "It breaks the line: <br> starts a new one."],
        ],
      ],
    ]);
  });

  it("ids: the same chat keeps its id from the logs folder, its chat folder, its character's or alone, and when logs/ moved into user_data/ (April 2025); one name under two characters is two chats", async () => {
    const [chat] = await collect(logs);
    const moved = join(tmp, "moved", "logs", "chat", "Chiharu Yamada");
    const other = join(tmp, "moved", "logs", "chat", "Assistant");
    await mkdir(moved, { recursive: true });
    await mkdir(other, { recursive: true });
    await cp(chiharu, join(moved, "20250520-14-03-12.json"));
    await cp(chiharu, join(other, "20250520-14-03-12.json"));
    const again = await collect(join(tmp, "moved", "logs"));
    expect(again.map((c) => c.conversation.title)).toEqual([
      expect.stringMatching(/^Assistant: In C/),
      expect.stringMatching(/^Chiharu Yamada: In C/),
    ]);
    expect(again[1]?.conversation.id).toBe(chat?.conversation.id);
    expect(again[0]?.conversation.id).not.toBe(chat?.conversation.id);
    for (const given of [join(logs, "chat"), join(logs, "chat", "Chiharu Yamada"), chiharu]) {
      const [same] = await collect(given);
      expect([same?.conversation.id, same?.conversation.title]).toEqual([chat?.conversation.id, chat?.conversation.title]);
    }
    expect(chat?.conversation.id).toMatch(/^text-generation-webui-[0-9a-f]{32}$/);
  });

  it("a damaged history costs only itself, named", async () => {
    const folder = join(tmp, "damaged", "instruct");
    await mkdir(folder, { recursive: true });
    await cp(weather, join(folder, "20260410-18-22-05.json"));
    const text = await readFile(weather, "utf8");
    await writeFile(join(folder, "20260412-09-30-00.json"), text.slice(0, text.length / 2));
    const { conversations, problems } = await collectReporting(join(tmp, "damaged"));
    expect(conversations.map((c) => c.conversation.title)).toEqual(["What's the weather in Porto tomorrow?"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("20260412-09-30-00.json");
  });

  it("a history outside the logs folder: its character from the download's name, the first prompt its title, the file its id", () => {
    const history = { internal: [["Hello?", "Hi!"]], visible: [["Hello?", "Hi!"]] };
    const titles = [
      "history_Chiharu Yamada_20250520T140312.json",
      "history_instruct_20250520T140312.json",
      "Chiharu Yamada_20230412-101500.json",
      "Instruct_20230412-101500.json",
      "persistent_Assistant.json",
    ].map((file) => textGenerationWebUiHistory(history, recordContext(file))?.conversation.title);
    expect(titles).toEqual(["Chiharu Yamada: Hello?", "Hello?", "Chiharu Yamada: Hello?", "Hello?", "Assistant: Hello?"]);
  });

  it("what output extensions write into the visible text: a player left out, a picture `[image]`; tags never closed are text", () => {
    const reply = 'Here it is.<audio src="file/extensions/silero_tts/outputs/1716213780.wav" controls autoplay></audio>';
    const picture = '<img src="file/extensions/sd_api_pictures/outputs/1716213781.png" alt="a ferry">';
    const unclosed = "&lt;tool_call&gt; stays text, and so does <tool_call>".repeat(3);
    const history = { internal: [["Draw a ferry", ""]], visible: [["Draw a ferry", `${reply}\n\n${picture}\n\n${unclosed}`]] };
    const chat = textGenerationWebUiHistory(history, recordContext("20240601-10-00-00.json"));
    expect(chat?.conversation.messages.map((m) => m.content)).toEqual([
      "Draw a ferry",
      `Here it is.\n\n[image]\n\n${"<tool_call> stays text, and so does <tool_call>".repeat(3)}`,
    ]);
  });

  it("message times: the app's local time read as UTC; a placeholder or an impossible date is none", () => {
    expect(textGenTime("May 20, 2025 14:03")).toBe("2025-05-20T14:03:00.000Z");
    expect(textGenTime("Dec 01, 2024 9:05")).toBe("2024-12-01T09:05:00.000Z");
    expect(textGenTime("")).toBeUndefined();
    expect(textGenTime("Feb 30, 2025 10:00")).toBeUndefined();
    expect(textGenTime(1716213780)).toBeUndefined();
  });
});
