// DeepSeek (fixtures/exports/deepseek and deepseek-export.zip): the data export's mapping and the web
// app's chat JSON in both its layouts; the branch the app names, else the newest; reasoning left out.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deepSeekConversation } from "../../src/importers/deepseek/conversation.js";
import { collect, collectWithSkips, fixtures, recordContext } from "./collect.js";

const file = (name: string) => join(fixtures, "deepseek", name);

describe("DeepSeek's data export", () => {
  it("reads conversations.json, in the zip as downloaded too, as DeepSeek's, and says the empty chat was left out", async () => {
    const { conversations, skipped } = await collectWithSkips(file("conversations.json"));
    expect(conversations.map((c) => [c.platform, c.platformDisplayName, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["deepseek", "DeepSeek", "Rust borrow checker and async closures", 4],
      ["deepseek", "DeepSeek", "水饺 dough ratio", 2],
    ]);
    expect(skipped).toEqual({ "conversations without any message text": 1 });
    expect(await collect(join(fixtures, "deepseek-export.zip"))).toEqual(conversations);
  });

  it("keeps the regenerated answer the chat went on from, without its reasoning, search or citation markers", async () => {
    const [rust] = await collect(file("conversations.json"));
    expect(rust!.conversation).toMatchObject({
      id: "3f9a1c2e-7b4d-4e8f-9a0b-1c2d3e4f5a6b",
      createdAt: "2025-02-14T02:03:11.635Z", // +08:00 in the export
      updatedAt: "2025-02-14T02:20:40.402Z",
    });
    expect(rust!.conversation.messages.map((m) => [m.id, m.role])).toEqual([
      ["1", "human"],
      ["4", "assistant"],
      ["5", "human"],
      ["6", "assistant"],
    ]);
    expect(rust!.conversation.messages[1]!.content).toBe(
      "The future returned by the closure keeps the `&mut self` borrow alive across `.await`, so a second call would alias it. " +
        "Move the state into an `Arc<Mutex<_>>` or restructure so the closure takes ownership.",
    );
    expect(JSON.stringify(rust)).not.toMatch(/Regenerated: explain|Because the future may outlive|Shared-State Concurrency/);
  });

  it("keeps the edited first prompt's tree and names the file attached", async () => {
    const [, dumplings] = await collect(file("conversations.json"));
    expect(dumplings!.conversation.messages.map((m) => m.content)).toEqual([
      "饺子皮的面和水比例是多少？我用的是高筋面粉。\n\n[file: flour-label.jpg]",
      "高筋面粉吸水多，500克面粉配水270到280克，醒面30分钟。",
    ]);
  });
});

describe("the chat JSON DeepSeek's web app loads", () => {
  it("typed fragments: the branch current_message_id names, though a newer answer was regenerated beside it", async () => {
    const [nginx] = await collect(file("history_messages.json"));
    expect(nginx).toMatchObject({ platform: "deepseek", complete: true });
    expect(nginx!.conversation).toMatchObject({
      id: "6c2d4f5b-0e7a-4b1c-8d3e-4f5a6b7c8d9e",
      title: "Nginx 502 after upgrade",
      createdAt: "2025-02-25T08:00:00.123Z",
      updatedAt: "2025-02-25T08:10:00.456Z",
    });
    expect(nginx!.conversation.messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ["1", "human", "After upgrading to PHP 8.3, nginx returns 502 Bad Gateway. Where do I look?"],
      ["2", "assistant", "The php-fpm socket moved: point fastcgi_pass at /run/php/php8.3-fpm.sock and reload nginx."],
      ["4", "human", "That was it, thanks!"],
    ]);
  });

  it("the flat layout: `content`, without `thinking_content`", async () => {
    const [markov] = await collect(file("history_messages-flat.json"));
    expect(markov!.conversation.messages.map((m) => [m.role, m.createdAt])).toEqual([
      ["human", "2025-01-01T00:00:00.000Z"],
      ["assistant", "2025-01-01T00:01:00.000Z"],
    ]);
    expect(markov!.conversation.messages[1]!.content).toMatch(/^```python\nimport random/);
    expect(markov!.conversation.messages[1]!.content).not.toContain("A dict from each word");
  });

  it("is read from its envelope at any depth: the response, its data, its biz_data", () => {
    const biz = {
      chat_session: { id: "s", title: "t", inserted_at: 1700000000 },
      chat_messages: [
        { message_id: 1, parent_id: null, role: "USER", fragments: [{ type: "REQUEST", content: "q" }], inserted_at: 1700000000 },
        { message_id: 2, parent_id: 1, role: "ASSISTANT", fragments: [{ type: "RESPONSE", content: "a" }], inserted_at: 1700000001 },
      ],
    };
    for (const record of [{ code: 0, msg: "", data: { biz_code: 0, biz_data: biz } }, { biz_code: 0, biz_data: biz }, biz]) {
      expect(deepSeekConversation(record, recordContext())!.conversation.messages.map((m) => m.content)).toEqual(["q", "a"]);
    }
  });
});
