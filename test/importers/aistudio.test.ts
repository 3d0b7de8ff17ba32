import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openExport } from "../../src/importers/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const folder = join(fixtures, "aistudio/Google AI Studio");
const tides = join(folder, "Tides in Brest");

const tmp = tempDir("mnemo-aistudio-");

describe("Google AI Studio prompts", () => {
  it("Drive's folder of files without a type: a conversation per prompt, titled by its file; one never sent is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.length])).toEqual([
      ["Branch of Tides in Brest", 5],
      ["Dr. Lee's notes v1.2", 5],
      ["Tides in Brest", 9], // the system instructions and 8 of 10 chunks: a thought and an empty answer are not
    ]);
    expect(skipped).toEqual({ "prompts without any message text": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["aistudio", "Google AI Studio"]);
    }
  });

  it("Drive's zip of the folder reads the same", async () => {
    const fromZip = await collect(join(fixtures, "aistudio-drive.zip"));
    const fromFolder = await collect(folder);
    expect(fromZip.map((c) => c.conversation.messages)).toEqual(fromFolder.map((c) => c.conversation.messages));
    expect(fromZip.map((c) => c.conversation.id)).toEqual(fromFolder.map((c) => c.conversation.id));
  });

  it("keeps every chunk as AI Studio shows it, the system instructions first; not thoughts, grounding or the unsent draft", async () => {
    const [prompt] = await collect(tides);
    expect(prompt?.conversation.createdAt).toBe("2025-06-10T07:58:02.114Z");
    expect(prompt?.conversation.updatedAt).toBe("2025-06-10T07:58:15.000Z");
    expect(prompt?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["system-instruction", "human", "[system prompt]\nYou are a sailing tutor. Give times in local time (CEST) and heights in metres."],
      ["chunk-1", "human", "When is high tide in Brest on 14 June, and how high?"],
      [
        "chunk-3",
        "assistant",
        "High water in Brest on 14 June is at **06:41** (6.9 m) and **19:02** (7.1 m) CEST — spring tides, so expect strong streams in the Goulet.",
      ],
      ["chunk-4", "human", "[image]"],
      ["chunk-5", "human", "Here is my passage plan. Is leaving at 05:30 sensible?"],
      [
        "chunk-6",
        "assistant",
        "Leaving at 05:30 puts you in the Goulet against the last of the flood. Leave at 07:00 instead and ride the ebb out.",
      ],
      ["chunk-7", "human", "And this is the boat's polar table. How long to Camaret at 6 knots?\n\n[file]"],
      [
        "chunk-8",
        "assistant",
        "Camaret is 8.3 nautical miles away:\n\n```python\nprint(round(8.3 / 6 * 60))\n```\n\nOutput:\n```\n83\n```",
      ],
      ["chunk-9", "assistant", "About 83 minutes, so you would arrive around 08:25."],
    ]);
    const text = prompt!.conversation.messages.map((m) => m.content).join("\n");
    for (const absent of ["SHOM predictions", "Weighing the stream", "maree.shom.fr", "the way back"]) expect(text).not.toContain(absent);
  });

  it("a branch is the prompt file it was saved as", async () => {
    const [branch] = await collect(join(folder, "Branch of Tides in Brest"));
    const [original] = await collect(tides);
    expect(branch?.conversation.id).not.toBe(original?.conversation.id);
    expect(branch?.conversation.messages.slice(-2).map((m) => m.content)).toEqual([
      "What about neap tides the week after?",
      "Around 21 June the range drops to about 3.5 m, and the streams in the Goulet roughly halve.",
    ]);
  });

  it("a prompt whose chunks carry no time is dated by its file; media chunks become placeholders", async () => {
    const file = join(folder, "Dr. Lee's notes v1.2");
    const [notes] = await collect(file);
    expect(notes?.conversation.createdAt).toBe((await stat(file)).mtime.toISOString());
    expect(notes?.conversation.messages.map((m) => m.content)).toEqual([
      "Turn Dr. Lee's notes into three bullet points: fermentation at 24 °C, feed 1:2:2, discard half.",
      "- Ferment at 24 °C\n- Feed at 1:2:2\n- Discard half before each feed",
      "[image]",
      "Does this video agree?\n\n[video]",
      "Partly: it feeds at 1:1:1, which makes a slower, more sour starter.",
    ]);
  });

  it("a prompt saved with .json, and parts with inline data and function calls", async () => {
    const file = join(tmp, "Weather tool.json");
    const prompt = {
      runSettings: { model: "models/gemini-2.5-flash" },
      systemInstruction: { parts: [{ text: "Answer in one line." }] },
      chunkedPrompt: {
        chunks: [
          { role: "user", parts: [{ text: "Weather in Oslo?" }, { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } }] },
          { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Oslo" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temp: 4 } } }] },
          { role: "model", parts: [{ text: "4 °C and drizzle.", thought: false }] },
        ],
      },
    };
    await writeFile(file, JSON.stringify(prompt));
    const [read] = await collect(file);
    expect(read?.conversation.title).toBe("Weather tool");
    expect(read?.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "[system prompt]\nAnswer in one line."],
      ["human", "Weather in Oslo?\n\n[audio]"],
      ["assistant", "[tool: get_weather]"],
      ["assistant", "4 °C and drizzle."],
    ]);
  });

  it("a file without a type that is not a prompt, inside a folder, is passed over", async () => {
    const dir = join(tmp, "drive");
    const { mkdir, copyFile } = await import("node:fs/promises");
    await mkdir(dir);
    await copyFile(tides, join(dir, "Tides in Brest"));
    await writeFile(join(dir, "LICENSE"), "MIT License\n\nPermission is hereby granted…");
    await writeFile(join(dir, "photo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const reader = await openExport(dir);
    expect(reader.format).toBe("aistudio");
    const titles: string[] = [];
    for await (const conversation of reader.conversations()) titles.push(conversation.conversation.title);
    expect(titles).toEqual(["Tides in Brest"]);
  });
});
