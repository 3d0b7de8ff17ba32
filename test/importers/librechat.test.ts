// LibreChat's conversation exports (fixtures/exports/librechat), in each of its layouts: the branch
// LibreChat opens on (the last answer of each message), an agent's parts, a failed answer passed over.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { libreChatConversation } from "../../src/importers/librechat/conversation.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../helpers.js";
import { collect, fixtures, recordContext } from "./collect.js";

const file = (name: string) => join(fixtures, "librechat", name);

describe("LibreChat's JSON export", () => {
  it("recursive (messagesTree): the chat's promptPrefix first, the answer regenerated last, an agent's text without its reasoning or tool call, files as placeholders", async () => {
    const [proxmox] = await collect(file("proxmox-zfs-tree.json"));
    expect(proxmox).toMatchObject({ platform: "librechat", platformDisplayName: "LibreChat", complete: true });
    expect(proxmox!.conversation).toMatchObject({
      id: "9d3c1f7a-2b4e-4c6d-8e9f-0a1b2c3d4e5f",
      title: "Proxmox ZFS pool missing after reboot",
      createdAt: "2025-02-11T19:04:05.120Z",
    });
    expect(proxmox!.conversation.messages[0]!.content).toBe("[system prompt]\nYou are a patient Linux sysadmin.");
    expect(proxmox!.conversation.messages.map((m) => [m.id, m.role])).toEqual([
      ["system-prompt", "human"],
      ["lc-q1", "human"],
      ["lc-a1b", "assistant"],
      ["lc-q2", "human"],
      ["lc-a2", "assistant"],
    ]);
    const [, question, answer, , scrub] = proxmox!.conversation.messages.map((m) => m.content);
    expect(question).toBe("My Proxmox host keeps dropping its ZFS pool after reboot. Where do I start?\n\n[image]\n\n[file: dmesg.txt]");
    expect(answer).toMatch(/^Your pool was created with \/dev\/sdX names\./);
    expect(answer).not.toMatch(/cachefile or by-id paths are the usual causes|web_search/);
    expect(scrub).toBe("Yes: a monthly `zpool scrub tank` from a systemd timer catches silent corruption early."); // an Assistants `{ value }` part
  });

  it("flat with branches: the edited first prompt's tree, its answer rather than the error LibreChat saved after it; the title from options", async () => {
    const [haiku] = await collect(file("cron-haiku-branches.json"));
    expect(haiku!.conversation.title).toBe("Cron haiku");
    expect(haiku!.conversation.messages.map((m) => m.content)).toEqual([
      "Write a haiku about cron jobs failing at 3 a.m.",
      "Three a.m. pager / the crontab forgot PATH again / coffee, then rollback",
    ]);
  });

  it("an older recursive export under `messages`: every message of the branch on screen, one without a time, an unfinished answer", async () => {
    const [bash] = await collect(file("bash-strict-mode.json"));
    expect(bash!.conversation.messages.map((m) => [m.id, m.createdAt])).toEqual([
      ["vs-q1", "2024-03-02T09:00:00.000Z"],
      ["vs-a1", "2024-03-02T09:00:03.000Z"],
      ["vs-q2", undefined],
      ["vs-a2", "2024-03-02T09:01:00.000Z"],
    ]);
    expect(bash!.conversation.messages[3]!.content).toBe("-e is skipped inside `if` conditions and in commands joined with `||` or");
  });

  it("a flat list without parents is read as it stands; a conversation without text is counted, not stored", () => {
    const linear = {
      conversationId: "c",
      title: "t",
      exportAt: "x",
      messages: [
        { messageId: "1", isCreatedByUser: true, text: "hi", createdAt: "2024-01-01T00:00:00Z" },
        { messageId: "2", isCreatedByUser: false, text: "hello", createdAt: "2024-01-01T00:00:01Z" },
      ],
    };
    expect(libreChatConversation(linear, recordContext())!.conversation.messages.map((m) => m.content)).toEqual(["hi", "hello"]);
    const context = recordContext();
    expect(libreChatConversation({ conversationId: "e", exportAt: "x", messages: [] }, context)).toBeUndefined();
    expect(context.skipped.get("conversations without any message text")).toBe(1);
  });

  it("a time past what ISO writes in four digits (JavaScript's first day, -271821) is no time: the conversation is still stored", () => {
    const chat = {
      conversationId: "c",
      title: "t",
      exportAt: "x",
      messages: [
        { messageId: "1", isCreatedByUser: true, text: "hi", createdAt: "-271821-04-20T00:00:00Z" },
        { messageId: "2", isCreatedByUser: false, text: "hello", createdAt: "2024-01-01T00:00:01Z" },
      ],
    };
    const upload = libreChatConversation(chat, recordContext())!;
    expect(upload.conversation.createdAt).toBe("2024-01-01T00:00:01.000Z");
    expect(upload.conversation.messages[0]!.createdAt).toBeUndefined();
    expect(UploadConversation.safeParse(upload).success).toBe(true);
  });

  it("a message id longer than an upload takes is shortened, the same at every import: the conversation was refused for it (found by fuzzing)", async () => {
    const long = "x".repeat(600);
    const path = join(tempDir("mnemo-librechat-"), "long-id.json");
    writeFileSync(path, readFileSync(file("cron-haiku-branches.json"), "utf8").replaceAll('"fb-a2"', JSON.stringify(long)));
    const [upload] = await collect(path);
    const ids = upload!.conversation.messages.map((m) => m.id);
    expect(ids[0]).toBe("fb-q2");
    expect(ids[1]).toMatch(/^id-[0-9a-f]{32}$/);
    expect((await collect(path))[0]!.conversation.messages[1]!.id).toBe(ids[1]);
    expect(UploadConversation.safeParse(upload).success).toBe(true);
  });
});
