import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const threads = join(fixtures, "jan/threads");
const sourdough = "9b2f6a14-3c7e-4d8a-b1f0-6e2c9d4a7b35";
const contents = (conversation: UploadConversation | undefined) =>
  conversation?.conversation.messages.map((m) => [m.id, m.role, m.content]);

/** A copy of the threads folder, for a test to change. */
async function copied(): Promise<string> {
  const folder = join(tempDir("mnemo-jan-"), "threads");
  await cp(threads, folder, { recursive: true });
  return folder;
}

describe("Jan's threads folder", () => {
  it("a conversation per thread folder, its id the thread's, titled and dated by thread.json; a thread without messages is counted, not imported", async () => {
    const { conversations, skipped } = await collectWithSkips(threads);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["jan-4e8d1c0b-7a2f-4b6e-8c3d-5f9a0e1b2c74", "鎌倉への日帰り旅行", "2025-05-30T10:13:20.000Z", "2025-05-30T10:14:50.000Z"],
        [`jan-${sourdough}`, "Sauerteig-Starter wiederbeleben", "2025-01-03T10:26:40.000Z", "2025-01-03T11:28:20.000Z"],
      ],
    );
    expect(skipped).toEqual({ "conversations without any message text (an empty new chat)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["jan", "Jan"]);
    }
  });

  it("the assistant's own instructions and the versions shown (activeChildId); files, images and tools as placeholders; thinking, reasoning and an error left out", async () => {
    const { conversations } = await collectWithSkips(threads);
    expect(contents(conversations[1])).toEqual([
      ["system-prompt", "human", "[system prompt]\nDu bist ein erfahrener Bäcker. Antworte knapp, mit Grammangaben."],
      ["01JGX7A0B1C2D3E4F5G6H7J8K9", "human", "Mein Starter riecht nach Aceton. Ist er tot?"],
      ["01JGX7A9Z8Y7X6W5V4T3S2R1Q0", "assistant", "Nein, er ist nur hungrig. Füttere 20 g Starter mit 40 g Mehl und 40 g Wasser."],
      [
        "01JGX7C1D2E3F4G5H6J7K8M9N0",
        "human",
        "Wie oft füttern bei 24 °C? Hier mein Glas und mein Plan.\n\n[file: Fütterungsplan, Woche 1.pdf]\n\n[image]",
      ],
      ["01JGX7D5E6F7G8H9J0K1M2N3P4", "assistant", "[tool: web_search]\n\nBei 24 °C zweimal täglich, alle 12 Stunden, im Verhältnis 1:2:2."],
      ["01JGX7F9G0H1J2K3M4N5P6Q7R8", "human", "Und wenn ich eine Woche verreise?"],
      ["01JGX7G1H2J3K4M5N6P7Q8R9S0", "assistant", "Füttere ihn, lass ihn zwei Stunden stehen und stell ihn dann in den Kühlschrank."],
      ["01JGX7H3J4K5M6N7P8Q9R0S1T2", "human", "Geht auch Roggenmehl?"],
    ]);
  });

  it("the default Jan assistant's instructions are the app's, left out; a thread without branching is its messages in order", async () => {
    const { conversations } = await collectWithSkips(threads);
    expect(contents(conversations[0])?.map(([id, role]) => [id, role])).toEqual([
      ["01JWA0A1B2C3D4E5F6G7H8J9K0", "human"],
      ["01JWA0B1C2D3E4F5G6H7J8K9M0", "assistant"],
      ["01JWA0C1D2E3F4G5H6J7K8M9N0", "human"],
      ["01JWA0D1E2F3G4H5J6K7M8N9P0", "assistant"],
    ]);
  });

  it("without activeChildId the newest version is shown", async () => {
    const folder = await copied();
    const file = join(folder, sourdough, "messages.jsonl");
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { metadata: Record<string, unknown> });
    delete lines[2]!.metadata.activeChildId;
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const { conversations } = await collectWithSkips(folder);
    expect(
      contents(conversations[1])
        ?.slice(4)
        .map(([id, , content]) => [id, content]),
    ).toEqual([["01JGX7E7F8G9H0J1K2M3N4P5Q6", "Einmal am Tag reicht."]]);
  });

  it("a messages.jsonl whose first line outruns the detection sample (an image pasted as a data URL) is still Jan's", async () => {
    const folder = await copied();
    const file = join(folder, sourdough, "messages.jsonl");
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const photo = { image_url: { detail: "auto", url: `data:image/jpeg;base64,${"/9j/4AAQ".repeat(40_000)}` }, type: "image_url" };
    lines[0]!.content = [photo, ...(lines[0]!.content as unknown[])];
    await rm(join(folder, sourdough, "thread.json"));
    const alone = join(tempDir("mnemo-jan-"), "messages.jsonl");
    await writeFile(alone, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    expect((await readFile(alone, "utf8")).indexOf("thread_id")).toBeGreaterThan(256 * 1024);
    const { conversations } = await collectWithSkips(alone);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages[0]?.content])).toEqual([
      [`jan-${sourdough}`, "[image]\n\nMein Starter riecht nach Aceton. Ist er tot?"],
    ]);
  });

  it("a damaged line costs only itself; a messages.jsonl alone is its thread, untitled", async () => {
    const folder = await copied();
    const file = join(folder, sourdough, "messages.jsonl");
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    lines[5] = '{"id":"01JGX7F9G0H1J2K3M4N5P6Q7R8","object":"thread.message","thread_id":';
    await writeFile(file, `${lines.join("\n")}\n`);
    await rm(join(folder, sourdough, "thread.json"));
    const { conversations, problems } = await collectReporting(folder);
    expect(problems).toHaveLength(1);
    const sour = conversations.find((c) => c.conversation.id === `jan-${sourdough}`);
    expect(sour?.conversation.title).toBe("Untitled");
    expect(sour?.conversation.messages.map((m) => m.id)).toEqual([
      "01JGX7A0B1C2D3E4F5G6H7J8K9",
      "01JGX7A9Z8Y7X6W5V4T3S2R1Q0",
      "01JGX7C1D2E3F4G5H6J7K8M9N0",
      "01JGX7D5E6F7G8H9J0K1M2N3P4",
      "01JGX7G1H2J3K4M5N6P7Q8R9S0",
      "01JGX7H3J4K5M6N7P8Q9R0S1T2",
    ]);
  });
});
