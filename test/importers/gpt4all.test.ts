import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderPath, foundApps } from "../../src/importers/app-folders.js";
import { gpt4all, modelFolders } from "../../src/importers/gpt4all/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, fixtures } from "./collect.js";

const dataFolder = join(fixtures, "gpt4all", "GPT4All");
const VERSION_12 = "gpt4all-6f1c2a0e-3b7d-4c1e-9a52-0d4e8b1f7c31.chat";
const CUT = join(fixtures, "gpt4all", "cut", "gpt4all-0c9d2e4f-8a1b-4d6c-b3e5-7f2a1c0d9e84.chat");

describe("GPT4All chats", () => {
  it("its data folder: the chat files of format versions 12, 10 and 5, titled as the app shows them", async () => {
    const conversations = await collect(dataFolder);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt])).toEqual([
      ["gpt4all-6f1c2a0e-3b7d-4c1e-9a52-0d4e8b1f7c31", "Porto high tide", "2025-02-18T09:30:00.000Z"], // the user's rename
      ["gpt4all-b2d84f0c-1e6a-4f3b-8c27-5a9e3d0f6b12", "Ferry fares", "2024-06-01T08:00:00.000Z"],
      ["gpt4all-e7a3910d-5c2f-4b8e-a1d6-3f0b9c4e2d57", "Which Lisbon tram climbs to the castle?", "2023-07-22T08:00:00.000Z"], // still "New Chat"
    ]);
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["gpt4all", "GPT4All", true]);
    }
  });

  it("version 12: an answer's text and tool call kept, its thinking and the tool's output left out", async () => {
    const [chat] = await collect(join(dataFolder, VERSION_12));
    expect(chat?.conversation.messages).toEqual([
      { id: "item-0", role: "human", content: "High water at Porto was 03:40 and the next is 12h25m later. When is it?" },
      { id: "item-1", role: "assistant", content: "Let me compute it.\n\n[tool: javascript_interpret]" },
      { id: "item-3", role: "assistant", content: "The next high water is at 16:05 the same day." },
    ]);
  });

  it("versions 10 and 5: prompts as typed, without the LocalDocs excerpts, attachments or the model's state", async () => {
    const conversations = await collect(dataFolder);
    expect(conversations.slice(1).map((c) => c.conversation.messages.map((m) => [m.role, m.content]))).toEqual([
      [
        ["human", "What does a single Cacilhas ferry ticket cost?"],
        ["assistant", "A single ticket costs 1.45 EUR with a Navegante card."],
      ],
      [
        ["human", "Which Lisbon tram climbs to the castle?"],
        ["assistant", "Tram 28 stops at Miradouro de Santa Luzia, a short walk below the castle."],
      ],
    ]);
  });

  it("a file cut short, or of a future version, costs itself: the folder's other chats are read", async () => {
    const folder = tempDir("mnemo-gpt4all-");
    await copyFile(join(dataFolder, VERSION_12), join(folder, VERSION_12));
    await copyFile(CUT, join(folder, "gpt4all-cut.chat"));
    const future = Buffer.from(await readFile(join(dataFolder, VERSION_12)));
    future.writeInt32BE(13, 4);
    await writeFile(join(folder, "gpt4all-future.chat"), future);
    const { conversations, problems } = await collectReporting(folder);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["Porto high tide"]);
    expect(problems).toHaveLength(2);
    expect(problems.find((p) => p.includes("gpt4all-cut.chat"))).toMatch(/stops short/);
    expect(problems.find((p) => p.includes("gpt4all-future.chat"))).toMatch(/format version is 13; mnemo reads GPT4All's versions 0 to 12/);
  });

  it("version 0 (2.4.0 and 2.4.1, without magic or version, in the settings folder): read under its chat's id, as GPT4All converts it", async () => {
    const [chat] = await collect(join(fixtures, "gpt4all", "nomic.ai"));
    expect(chat?.conversation).toEqual({
      id: "gpt4all-4c8e2a91-7d3b-4f06-b5a2-9e1c0d7f3a68",
      title: "Alfama viewpoints",
      createdAt: "2023-05-06T19:06:40.000Z",
      messages: [
        { id: "item-0", role: "human", content: "Which viewpoints in Alfama face the river?" },
        { id: "item-1", role: "assistant", content: "Santa Luzia and Portas do Sol both look over the Tagus." },
      ],
    });
  });

  it("in its data folder, only .chat files are read (its models and the app's half-written .tmp are not)", async () => {
    const folder = tempDir("mnemo-gpt4all-");
    await mkdir(join(folder, "models"));
    await copyFile(join(dataFolder, VERSION_12), join(folder, VERSION_12));
    await copyFile(CUT, join(folder, `${VERSION_12}.tmp`));
    await writeFile(join(folder, "Llama-3.2-1B-Instruct-Q4_0.gguf"), Buffer.from("GGUF\x03\x00\x00\x00"));
    expect((await collect(folder)).map((c) => c.conversation.id)).toEqual(["gpt4all-6f1c2a0e-3b7d-4c1e-9a52-0d4e8b1f7c31"]);
  });

  it("a chat whose first prompt is megabytes long is still known, by its first bytes", async () => {
    const bytes = await readFile(join(dataFolder, VERSION_12));
    const prompt = "High water at Porto was 03:40";
    const at = bytes.indexOf(Buffer.from(prompt, "utf16le").swap16());
    const length = bytes.readUInt32BE(at - 4);
    const longer = Buffer.from(`${prompt}${" and the tide table, page after page.".repeat(40_000)}`, "utf16le").swap16();
    const size = Buffer.alloc(4);
    size.writeUInt32BE(longer.length);
    const folder = tempDir("mnemo-gpt4all-");
    const path = join(folder, VERSION_12);
    await writeFile(path, Buffer.concat([bytes.subarray(0, at - 4), size, longer, bytes.subarray(at + length)]));
    const [chat] = await collect(path);
    expect(chat?.conversation.messages[0]?.content).toHaveLength(longer.length / 2);
    expect(chat?.conversation.messages.at(-1)?.content).toBe("The next high water is at 16:05 the same day.");
  });

  it("is looked for in QStandardPaths' app data folder of each system", () => {
    const [linux, mac, windows] = gpt4all.appFolders!;
    expect(appFolderPath(linux!, { platform: "linux", env: { HOME: "/home/ana" } })).toBe("/home/ana/.local/share/nomic.ai/GPT4All");
    expect(appFolderPath(mac!, { platform: "darwin", env: { HOME: "/Users/ana" } })).toBe(
      "/Users/ana/Library/Application Support/nomic.ai/GPT4All",
    );
    expect(appFolderPath(windows!, { platform: "win32", env: { USERPROFILE: "/Users/ana" } })).toBe(
      join("/Users/ana", "AppData", "Local", "nomic.ai", "GPT4All"),
    );
    expect([linux?.only, mac?.only, windows?.only]).toEqual(["linux", "darwin", "win32"]);
  });

  it("a download folder moved in its settings is found from GPT4All.ini, where each system's Qt keeps it", async () => {
    const home = tempDir("mnemo-gpt4all-home-");
    const moved = join(home, "Models; big", "GPT4All");
    await mkdir(moved, { recursive: true });
    await copyFile(join(dataFolder, VERSION_12), join(moved, VERSION_12));
    await mkdir(join(home, ".config", "nomic.ai"), { recursive: true });
    const ini = ["[General]", `modelPath="${moved.replaceAll("\\", "/")}/"`, "chatTheme=Dark", "", "[network]", "isActive=false", ""];
    await writeFile(join(home, ".config", "nomic.ai", "GPT4All.ini"), ini.join("\n"));
    const found = foundApps({ platform: "linux", env: { HOME: home } }).filter((app) => app.format === "gpt4all");
    expect(found.map((app) => app.folder)).toEqual([moved]);
    expect(modelFolders("[General]\nmodelPaths=/srv/llm/\n")).toEqual([join("/srv/llm")]); // as 2.4.11 named it
    expect(modelFolders("[General]\nmodelPath=models/\n[other]\nmodelPath=/elsewhere/\n")).toEqual([]);
    const settings = gpt4all.appFolders!.slice(3);
    expect(settings.map((folder) => appFolderPath(folder, { platform: folder.only!, env: { HOME: "/h", APPDATA: "/h/Roaming" } }))).toEqual(
      [
        join("/h", ".config", "nomic.ai", "GPT4All.ini"),
        join("/h", ".config", "nomic.ai", "GPT4All.ini"),
        join("/h/Roaming", "nomic.ai", "GPT4All.ini"),
      ],
    );
  });
});
