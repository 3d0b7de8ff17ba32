// Open WebUI's exports (fixtures/exports/open-webui): the branch `currentId` names, whichever sibling
// is newer; Open WebUI's own blocks out of the answers; files as placeholders.
import { execFileSync } from "node:child_process";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderLines, appFolderPath } from "../../src/importers/app-folders.js";
import { openWebUiConversation } from "../../src/importers/open-webui/conversation.js";
import { openWebUi } from "../../src/importers/open-webui/index.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures, recordContext } from "./collect.js";

const all = join(fixtures, "open-webui", "chat-export-1738400000000.json");
const single = join(fixtures, "open-webui", "chat-export-1715000100000.json");

const byTitle = async (title: string) => (await collect(all)).find((c) => c.conversation.title === title)!.conversation;

describe("Open WebUI's Export chats", () => {
  it("reads every chat with text, as Open WebUI's, and says the empty one was left out", async () => {
    const { conversations, skipped } = await collectWithSkips(all);
    expect(conversations.map((c) => [c.platform, c.platformDisplayName, c.conversation.title, c.conversation.messages.length])).toEqual([
      ["open-webui", "Open WebUI", "Levain hydration maths", 5],
      ["open-webui", "Open WebUI", "Undo last commit", 2],
      ["open-webui", "Open WebUI", "Porto weather and Euler", 5],
      ["open-webui", "Open WebUI", "Portuguese greetings", 3],
    ]);
    expect(skipped).toEqual({ "conversations without any message text": 1 });
    expect(conversations.every((c) => c.complete)).toBe(true);
  });

  it("keeps the branch currentId ends on, though a regenerated answer beside it is newer", async () => {
    const levain = await byTitle("Levain hydration maths");
    expect(levain.messages.map((m) => m.id.split("-")[1])).toEqual(["prompt", "0001", "0002", "0004", "0005"]);
    expect(levain.messages.map((m) => m.content).join("\n")).not.toContain("forgets the levain");
    expect(levain).toMatchObject({ id: "1b5e6c3a-5b0d-4d3e-9a8f-0c1d2e3f4a50", createdAt: "2025-01-20T08:35:01.000Z" });
    expect(levain.updatedAt).toBe("2025-01-20T08:38:08.000Z");
  });

  it("keeps the answer of the model the chat shows when several answered side by side", async () => {
    const git = await byTitle("Undo last commit");
    expect(git.messages.map((m) => m.content)).toEqual([
      "Give me a one-line git command to undo the last commit but keep the changes.",
      "`git reset --soft HEAD~1` moves the branch back one commit and leaves your changes staged.",
    ]);
  });

  it("leaves reasoning and tool calls out of the answers, keeps the code the interpreter ran, and drops a failed answer", async () => {
    const levain = await byTitle("Levain hydration maths");
    expect(levain.messages[2]!.content).toBe(
      "With 100 g of levain (50 g flour, 50 g water) the dough holds 550 g of flour, so 75% hydration needs 412 g of water in all: add 362 g to the mix.",
    );
    const porto = await byTitle("Porto weather and Euler");
    expect(porto.messages.map((m) => [m.role, m.content])).toEqual([
      ["human", "Is it raining in Porto right now?"],
      ["assistant", "Yes: 19 °C with light rain in Porto, so take an umbrella to the Ribeira."],
      ["human", "Compute Euler's number in Python."],
      ["assistant", "```python\nimport math\nprint(math.e)\n```\n\nEuler's number e is about 2.71828."],
      ["human", "Now plot it."],
    ]);
  });

  it("keeps the edited first prompt's tree, its system message first (what the user wrote for the model), without a raw <think> block", async () => {
    const greetings = await byTitle("Portuguese greetings");
    expect(greetings.messages.map((m) => m.content)).toEqual([
      "[system prompt]\nYou are a terse assistant.",
      "Translate 'good evening, neighbour' to European Portuguese",
      "Boa noite, vizinho.",
    ]);
  });

  it("shows attachments as placeholders and leaves a message without a time undated; the chat's own system prompt first", async () => {
    const levain = await byTitle("Levain hydration maths");
    expect(levain.messages[0]).toEqual({ id: "system-prompt", role: "human", content: "[system prompt]\nAnswer in grams." });
    expect(levain.messages[1]!.content).toBe(
      "My levain is 100% hydration. How much water for a 75% hydration loaf with 500 g of flour?\n\n[image]\n\n[file: starter-log.pdf]",
    );
    expect(levain.messages[3]).toEqual({ id: "a1f0c7d2-0004-4c55-9a10-1d2e3f4a5b61", role: "human", content: "And the salt?" });
  });
});

describe("one chat's Export chat (.json)", () => {
  it("reads an older install's chat, stored as JSON text with only its messages list", async () => {
    const [chat] = await collect(single);
    expect(chat!.conversation).toEqual({
      id: "6a0d1b8f-0a5c-4c8d-8fde-5b6c7d8e9fa5",
      title: "Ollama on a Raspberry Pi",
      createdAt: "2024-05-06T12:53:20.000Z",
      updatedAt: "2024-05-06T12:53:32.000Z",
      messages: [
        { id: "e5b4", role: "human", content: "Can a Raspberry Pi 5 run phi3:mini with Ollama?", createdAt: "2024-05-06T12:53:20.000Z" },
        {
          id: "e5b5",
          role: "assistant",
          content: "Yes. With 8 GB of RAM phi3:mini (3.8B, 4-bit) runs at a few tokens per second on the CPU.",
          createdAt: "2024-05-06T12:53:32.000Z",
        },
      ],
    });
  });
});

describe("an early version's export", () => {
  it("reads a list of bare chats (no record around them)", async () => {
    const [docker] = await collect(join(fixtures, "open-webui", "ollama-webui-2024.json"));
    expect(docker!.conversation).toMatchObject({ id: "f3c1a9e2-4b7d-4e0a-9c21-7d5e8f0a1b2c", createdAt: "2024-01-01T10:00:00.000Z" });
    expect(docker!.conversation.messages.map((m) => m.id)).toEqual(["m1", "m2"]);
  });
});

describe("odd chats", () => {
  const message = (id: string, parentId: string | null, role: string, content: string, timestamp?: number) => ({
    id,
    parentId,
    role,
    content,
    ...(timestamp === undefined ? {} : { timestamp }),
  });

  it("without currentId, ends on the newest message nothing answers", () => {
    const chat = {
      title: "no current",
      models: ["m"],
      history: {
        messages: {
          q: message("q", null, "user", "question", 1_717_000_100),
          a1: message("a1", "q", "assistant", "first answer", 1_717_000_110),
          a2: message("a2", "q", "assistant", "second answer", 1_717_000_120),
        },
      },
    };
    const converted = openWebUiConversation(chat, recordContext());
    expect(converted!.conversation.messages.map((m) => m.content)).toEqual(["question", "second answer"]);
    expect(converted!.conversation.id).toMatch(/^open-webui-[0-9a-f]{32}$/); // stable, from what it holds
    expect(openWebUiConversation(chat, recordContext())!.conversation.id).toBe(converted!.conversation.id);
  });

  it("survives a cycle of parents and a chat that is unreadable JSON text", () => {
    const looped = {
      id: "loop",
      chat: {
        history: {
          currentId: "b",
          messages: { a: message("a", "b", "user", "one", 1), b: message("b", "a", "assistant", "two", 2) },
        },
      },
    };
    expect(openWebUiConversation(looped, recordContext())!.conversation.messages.map((m) => m.content)).toEqual(["one", "two"]);
    const context = recordContext();
    expect(openWebUiConversation({ id: "x", title: "t", chat: "{not json" }, context)).toBeUndefined();
    expect(context.skipped.get("chats whose stored JSON is damaged (left out)")).toBe(1);
  });
});

// The same chats in webui.db (fixtures/exports/open-webui/build-databases.mjs), as the server stores them.
describe("Open WebUI's database, webui.db", () => {
  const database = join(fixtures, "open-webui", "data", "webui.db");
  const older = join(fixtures, "open-webui", "data-2024", "webui.db");

  it("reads each chat as its JSON export does: the same ids and messages, an archived chat among them", async () => {
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations).toEqual(await collect(all));
    expect(conversations.map((c) => c.conversation.title)).toContain("Undo last commit"); // archived
    for (const conversation of conversations) expect(UploadConversation.parse(conversation)).toEqual(conversation);
    expect(skipped).toEqual({
      "conversations without any message text": 1,
      "copies of chats their share links show (the same chats again)": 1,
      "internal chats (a note's or a task's, which Open WebUI's chat list leaves out)": 1,
      "chats whose stored JSON is damaged (left out)": 1, // costs only itself: the chats after it are read
      "other users' chats (a server's database: its first admin's are imported; each user's own Export Chats file imports theirs)": 1,
    });
  });

  it("a folder holding the export and the database reads each chat once", async () => {
    const folder = tempDir("mnemo-open-webui-both-");
    await copyFile(all, join(folder, "chat-export-1738400000000.json"));
    await copyFile(database, join(folder, "webui.db"));
    expect((await collect(folder)).map((c) => c.conversation.id).sort()).toEqual((await collect(all)).map((c) => c.conversation.id).sort());
  });

  it("reads peewee's schema of early 2024 (`timestamp`, the chat as text) as that version's export", async () => {
    const [chat] = await collect(older);
    const [exported] = await collect(join(fixtures, "open-webui", "ollama-webui-2024.json"));
    expect(chat!.conversation).toMatchObject({ id: exported!.conversation.id, createdAt: "2024-01-01T10:00:00.000Z" });
    expect(chat!.conversation.messages).toEqual(exported!.conversation.messages);
  });

  it("on a server of several users, the first admin's chats: one who has none gives way, an earlier admin who chats takes them", async () => {
    const folder = tempDir("mnemo-open-webui-users-");
    const copy = join(folder, "webui.db");
    const titles = async (sql: string) => {
      await copyFile(database, copy);
      execFileSync("sqlite3", [copy, sql]);
      return (await collect(copy)).map((c) => c.conversation.title);
    };
    const keeper = "INSERT INTO user (id, name, role, created_at) VALUES ('root', 'Root', 'admin', 1700000000)";
    expect(await titles(keeper)).toHaveLength(4); // Ines's, though Root is the older admin: Root has no chats
    expect(await titles("UPDATE user SET role = 'admin', created_at = 1700000000 WHERE name = 'Rui'")).toEqual(["Bike chain lube"]);
  });

  it("a damaged chat row costs only itself", () => {
    const context = recordContext("webui.db");
    const row = { id: "d", user_id: "u", title: "t", chat: '{"history": {"messages": {', created_at: 1738310000 };
    expect(openWebUiConversation({ openWebUiRow: row, owner: undefined }, context)).toBeUndefined();
    expect([...context.skipped]).toEqual([["chats whose stored JSON is damaged (left out)", 1]]);
  });

  it("a server's database of one user: every chat is that user's, read whatever the user table says", () => {
    const context = recordContext("webui.db");
    const chat = {
      history: {
        currentId: "a",
        messages: { q: { id: "q", role: "user", content: "hi" }, a: { id: "a", parentId: "q", role: "assistant", content: "hello" } },
      },
    };
    const row = { id: "c", user_id: "someone", title: "t", chat: JSON.stringify(chat), created_at: 1738310000 };
    expect(openWebUiConversation({ openWebUiRow: row, owner: undefined }, context)?.conversation.messages).toHaveLength(2);
    expect(openWebUiConversation({ openWebUiRow: row, owner: "admin" }, context)).toBeUndefined();
  });

  it("in a folder, only the database named webui.db is opened, not its backups or the vector store beside it", async () => {
    const folder = tempDir("mnemo-open-webui-");
    await mkdir(join(folder, "vector_db"));
    await copyFile(database, join(folder, "webui.db"));
    await copyFile(database, join(folder, "webui-backup.db"));
    await copyFile(database, join(folder, "vector_db", "chroma.sqlite3"));
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations).toHaveLength(4);
    expect(skipped["chats whose stored JSON is damaged (left out)"]).toBe(1); // one database read, not three
  });

  it("the command said of a database over 1 GB copies the chats and users, and the copy reads the same", async () => {
    const folder = tempDir("mnemo-open-webui-smaller-");
    await copyFile(database, join(folder, "webui.db"));
    const command = openWebUi.smallerDatabase!.replace(/^sqlite3 webui\.db "|"$/g, "").replaceAll('\\"', '"');
    execFileSync("sqlite3", ["webui.db", command], { cwd: folder });
    expect(await collect(join(folder, "webui-chats.db"))).toEqual(await collect(database));
  });

  it("is looked for in the desktop app's data folder", () => {
    const paths = openWebUi.appFolders!.map((f) => appFolderPath(f, { platform: "darwin", env: { HOME: "/Users/ana" } }));
    expect(paths).toEqual([
      "/Users/ana/Library/Application Support/Open WebUI/data/webui.db",
      "/Users/ana/Library/Application Support/open-webui/data/webui.db",
    ]);
    expect(openWebUi.watchedDatabase).toBe(true);
    expect(appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } })).toMatch(
      /^ {2}Open WebUI +~\/\.config\/\{Open WebUI,open-webui\}\/data\/webui\.db$/m,
    );
  });
});
