import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const backup = join(fixtures, "cherry-studio/data.json");
const zip = join(fixtures, "cherry-studio.202506030712.zip");
const tmp = tempDir("mnemo-cherry-studio-");

type Backup = { localStorage: Record<string, string>; indexedDB: Record<string, unknown[]> };

async function altered(name: string, change: (data: Backup) => void): Promise<string> {
  const data = JSON.parse(await readFile(backup, "utf8")) as Backup;
  change(data);
  const file = join(tmp, name);
  await writeFile(file, JSON.stringify(data));
  return file;
}

describe("Cherry Studio's backup", () => {
  it("every topic with text is a conversation, its id the topic's, named and dated as the app's state has it; an empty topic is counted", async () => {
    const { conversations, skipped } = await collectWithSkips(backup);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        [
          "cherry-studio-5b1c7e2a-0d4f-4a8e-9c3b-6f2e1d0a9b81",
          "Sourdough hydration",
          "2025-05-10T08:00:00.000Z",
          "2025-05-10T08:06:40.000Z",
        ],
        [
          "cherry-studio-a7d9e3f1-2c5b-4e6a-8f10-3b4c5d6e7f80",
          "Borrow checker puzzle",
          "2025-06-02T19:30:00.000Z",
          "2025-06-02T19:31:10.000Z",
        ],
        // a topic the state no longer names: its first prompt's first line, its messages' times (zoneless: UTC)
        [
          "cherry-studio-e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b",
          "Wie lange hält sich Sauerteig im Kühlschrank?",
          "2025-01-20T09:15:00.000Z",
          "2025-01-20T09:15:09.000Z",
        ],
      ],
    );
    expect(skipped).toEqual({ "conversations without any message text (an empty new topic)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["cherry-studio", "Cherry Studio"]);
    }
  });

  it("a message is its blocks as shown: text, code, placeholders for images, files and tools; no thinking, citations, translations, errors or the clear divider", async () => {
    const [topic] = await collect(backup);
    expect(topic?.conversation.messages.map((m) => [m.id, m.role, m.content, m.createdAt])).toEqual([
      [
        "m1-u1",
        "human",
        "My starter doubles in 6 hours. What hydration should I use for a first loaf?\n\n[image]",
        "2025-05-10T08:00:12.000Z",
      ],
      [
        "m1-a1",
        "assistant",
        "Start at 70% hydration: the dough is easy to shape and forgiving of a young starter.",
        "2025-05-10T08:00:15.000Z",
      ],
      ["m1-u2", "human", "Here is my weekly schedule; when should I feed it?\n\n[file: bakery-schedule.pdf]", "2025-05-10T08:03:00.000Z"],
      [
        "m1-a2",
        "assistant",
        "[tool: read_pdf]\n\nFeed it the evening before each bake: Sunday and Wednesday at 21:00.\n\n```python\nfeed = bake_time - timedelta(hours=10)\n```",
        "2025-05-10T08:03:04.000Z",
      ],
      ["m1-u3", "human", "And for rye?", "2025-05-10T08:06:30.000Z"],
    ]);
  });

  it("the topic's own prompt is its system prompt, else its assistant's; every answer of a multi-model reply is kept, a generated image as [image]", async () => {
    const [, reviewed] = await collect(backup);
    expect(reviewed?.conversation.messages.map((m) => [m.id, m.content])).toEqual([
      ["system-prompt", "[system prompt]\nAnswer in British English."],
      ["m2-u1", "Why does `let r = &v[0]; v.push(1);` not compile?"],
      ["m2-a1", "Pushing may reallocate the vector, which would leave the shared borrow r dangling."],
      ["m2-a2", "[image]\n\nThe mutable borrow for push conflicts with the live immutable borrow r."],
    ]);
    const file = await altered("data.json", (data) => {
      const state = JSON.parse(data.localStorage["persist:cherry-studio"]!) as Record<string, string>;
      data.localStorage["persist:cherry-studio"] = JSON.stringify({
        ...state,
        assistants: state.assistants!.replace(',"prompt":"Answer in British English."', ""),
      });
    });
    const [, withoutTopicPrompt] = await collect(file);
    expect(withoutTopicPrompt?.conversation.messages[0]?.content).toBe(
      "[system prompt]\nYou review Rust code. Point out ownership mistakes first.",
    );
  });

  it("a message from before blocks is read by its content and files", async () => {
    const [, , older] = await collect(backup);
    expect(older?.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["m4-u1", "human", "Wie lange hält sich Sauerteig im Kühlschrank?\n\n[file: notizen.txt]"],
      ["m4-a1", "assistant", "Im Kühlschrank hält sich ein Sauerteig etwa zwei Wochen ohne Fütterung."],
    ]);
  });

  it("the backup zip reads as its data.json, the attachments beside it not taken for chats; so does a copy under another name (an upload)", async () => {
    const expected = await collect(backup);
    const { conversations, skipped } = await collectWithSkips(zip);
    expect(conversations).toEqual(expected);
    expect(Object.keys(skipped)).toEqual(["conversations without any message text (an empty new topic)"]);
    const copy = join(tmp, "upload-1234");
    await copyFile(backup, copy);
    expect(await collect(copy, { name: "data.json" })).toEqual(expected);
  });

  it("without the app's state, topics are named by their first prompt", async () => {
    const file = await altered("no-state.json", (data) => {
      data.localStorage = { i18nextLng: "en-US" };
    });
    expect((await collect(file)).map((c) => c.conversation.title)).toEqual([
      "My starter doubles in 6 hours. What hydration should I use for a first loaf?",
      "Why does `let r = &v[0]; v.push(1);` not compile?",
      "Wie lange hält sich Sauerteig im Kühlschrank?",
    ]);
  });

  it("a damaged topic costs only itself; a block that is not one costs only its text", async () => {
    const file = await altered("damaged.json", (data) => {
      data.indexedDB.topics![1] = "not a topic";
      data.indexedDB.message_blocks![0] = 42;
    });
    const { conversations, problems } = await collectReporting(file);
    expect(conversations.map((c) => c.conversation.title)).toEqual([
      "Sourdough hydration",
      "Wie lange hält sich Sauerteig im Kühlschrank?",
    ]);
    expect(conversations[0]?.conversation.messages[0]?.content).toBe("[image]");
    expect(problems).toHaveLength(1);
  });

  it("images held as base64 and a long app state before the topics do not hide the backup", async () => {
    const image = `data:image/png;base64,${"A".repeat(4 * 1024 * 1024)}`;
    const file = await altered("large.json", (data) => {
      data.localStorage.avatarCache = image; // the state, longer than the sample, comes first
      data.indexedDB.settings = [{ id: "image://avatar", value: image }];
      data.indexedDB.message_blocks!.push({
        id: "b-big",
        messageId: "m-big",
        type: "image",
        createdAt: "2025-05-10T08:00:12.000Z",
        url: image,
      });
    });
    expect(await collect(file)).toEqual(await collect(backup));
  });
});
