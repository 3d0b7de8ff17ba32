import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { collectReporting, collectWithSkips, fixtures } from "./collect.js";
import { tempDir } from "../temp-dirs.js";

const database = join(fixtures, "lobechat/2025-06-14-09-12_LobeChat-data.json");
const config = join(fixtures, "lobechat/LobeChat-sessions-v5.json");
const tmp = tempDir("mnemo-lobechat-");

type Export = { data: Record<string, Record<string, unknown>[]> };
const contents = (conversation: UploadConversation | undefined) =>
  conversation?.conversation.messages.map((m) => [m.id, m.role, m.content]);

/** The fixture with some of its tables changed, written to a file of its own. */
async function changed(change: (data: Export["data"]) => void): Promise<string> {
  const file = JSON.parse(await readFile(database, "utf8")) as Export;
  change(file.data);
  const path = join(tmp, "2025-06-14-09-12_LobeChat-data.json");
  await writeFile(path, JSON.stringify(file));
  return path;
}

describe("LobeChat's database export", () => {
  it("a conversation per topic, per thread and per agent's chat outside topics, their ids LobeChat's, dated by their messages", async () => {
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        ["lobechat-session-ssn_Tr1pK9xWq2", "Trip planner", "2025-06-11T16:20:00.000Z", "2025-06-11T16:20:06.000Z"],
        ["lobechat-tpc_Kef1r4Fm2zYx", "Ферментация кефира", "2025-06-12T21:00:00.000Z", "2025-06-12T21:14:09.551Z"],
        ["lobechat-tpc_Pt0WkEnd8q3R", "Week-end à Porto", "2025-06-13T08:00:00.000Z", "2025-06-13T08:03:15.000Z"],
        ["lobechat-thread-thd_G41aCv3sX9pL2mQe", "Caves de Gaia", "2025-06-13T08:15:00.000Z", "2025-06-13T08:16:40.000Z"],
      ],
    );
    expect(skipped).toEqual({});
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName]).toEqual(["lobechat", "LobeChat"]);
    }
  });

  it("keeps the agent's system prompt and the answer activeBranchIndex shows; a tool call is [tool: name], its result and the reasoning left out", async () => {
    const { conversations } = await collectWithSkips(database);
    expect(contents(conversations[2])).toEqual([
      [
        "system-prompt",
        "human",
        "[system prompt]\nTu es un guide de voyage concis. Réponds en français, avec des horaires et des prix en euros.",
      ],
      ["msg_U1qV8sPo2Rt", "human", "Que voir à Porto en deux jours, sans voiture ?"],
      [
        "msg_A1bR3gen7Kq2",
        "assistant",
        "Jour 1 : la Ribeira, le pont Dom-Luís I à pied et les caves de Gaia. Jour 2 : la librairie Lello (billet 10 €) et le tram 1 jusqu'à Foz.",
      ],
      ["msg_U2rA1nJk5Lp", "human", "Et s'il pleut le deuxième jour ?"],
      ["msg_A2tO0lCl8Mx", "assistant", "[tool: lobe-web-browsing]"],
      ["msg_A3rA1nAns2Vc", "assistant", "S'il pleut : le musée de Serralves (20 €), puis le marché do Bolhão, couvert."],
    ]);
  });

  it("an earlier answer the user switched back to is shown, and what was said after the other is not", async () => {
    const path = await changed((data) => {
      const question = data.messages!.find((m) => m.id === "msg_U1qV8sPo2Rt")!;
      question.metadata = { activeBranchIndex: 0 };
    });
    const { conversations } = await collectWithSkips(path);
    expect(contents(conversations[2])?.map(([id]) => id)).toEqual(["system-prompt", "msg_U1qV8sPo2Rt", "msg_A1oLdAns4Wz"]);
  });

  it("without activeBranchIndex the answer the user went on from is shown; a failed answer, a <think> block and the default agent's empty prompt are left out", async () => {
    const { conversations } = await collectWithSkips(database);
    expect(contents(conversations[1])).toEqual([
      ["msg_K1u7Zk3Rf", "human", "Почему кефир получается слишком кислым?"],
      [
        "msg_K1aOk8Tm2",
        "assistant",
        "Скорее всего, он бродит слишком долго или в тепле: при 22 °C хватает 18–24 часов, потом сразу в холодильник.",
      ],
      ["msg_K2u4Lp9Qs", "human", "А сколько зёрен на литр молока?"],
      ["msg_K2a1Zr6Yb", "assistant", "Одна столовая ложка зёрен на литр молока."],
    ]);
  });

  it("the prompt newer versions store for the built-in inbox agent is the app's, left out; one the user wrote there is kept", async () => {
    const stock =
      "You are Lobe, an AI Agent will help users.\n\nCurrent model: {{model}}\nToday's date: {{date}}\n\nPreferred reply language: ru-RU.";
    const prompts = async (systemRole: string) => {
      const path = await changed((data) => {
        data.agents!.find((agent) => agent.slug === "inbox")!.systemRole = systemRole;
      });
      return (await collectWithSkips(path)).conversations[1]?.conversation.messages[0]?.content;
    };
    expect(await prompts(stock)).toBe("Почему кефир получается слишком кислым?");
    expect(await prompts("Отвечай кратко, по-русски.")).toBe("[system prompt]\nОтвечай кратко, по-русски.");
  });

  it("a thread holds its own messages, from the one it branched off", async () => {
    const { conversations } = await collectWithSkips(database);
    expect(contents(conversations[3])?.map(([id]) => id)).toEqual(["system-prompt", "msg_Th1U9cAv5Gq", "msg_Th1A4cAv2Hr"]);
  });

  it("files the 2025 export listed (messagesFiles, files) are [image] or [file: name]", async () => {
    const path = await changed((data) => {
      data.files = [
        { id: "file_Rn3", name: "chuva-porto.png", fileType: "image/png", size: 48213, url: "files/chuva-porto.png" },
        { id: "file_Pd8", name: "roteiro.pdf", fileType: "application/pdf", size: 91022, url: "files/roteiro.pdf" },
      ];
      data.messagesFiles = [
        { fileId: "file_Rn3", messageId: "msg_U2rA1nJk5Lp" },
        { fileId: "file_Pd8", messageId: "msg_U2rA1nJk5Lp" },
      ];
    });
    const { conversations } = await collectWithSkips(path);
    expect(conversations[2]?.conversation.messages[3]?.content).toBe("Et s'il pleut le deuxième jour ?\n\n[image]\n\n[file: roteiro.pdf]");
  });

  it("a damaged message costs only itself: what answered it is shown from there", async () => {
    const path = await changed((data) => {
      const messages = data.messages as unknown[];
      messages[messages.findIndex((m) => (m as { id: string }).id === "msg_U2rA1nJk5Lp")] = "not a message";
    });
    const { conversations, problems } = await collectReporting(path);
    expect(conversations).toHaveLength(4);
    expect(problems).toEqual([]);
    expect(contents(conversations[2])?.map(([id]) => id)).toEqual([
      "system-prompt",
      "msg_U1qV8sPo2Rt",
      "msg_A1bR3gen7Kq2",
      "msg_A2tO0lCl8Mx",
      "msg_A3rA1nAns2Vc",
    ]);
  });

  it("an export whose tables outrun the first 256 KB, before schemaHash shows, is still LobeChat's, read whole", async () => {
    const path = await changed((data) => {
      for (let i = 0; i < 400; i++) {
        data.messages!.push({
          id: `msg_fill${i}`,
          role: i % 2 ? "assistant" : "user",
          content: `Note ${i}: ${"lorem ipsum ".repeat(90)}`,
          topicId: "tpc_Fill",
          parentId: i === 0 ? null : `msg_fill${i - 1}`,
          createdAt: new Date(Date.UTC(2025, 5, 14, 9, 0, i)).toISOString(),
        });
      }
    });
    expect((await readFile(path)).indexOf("schemaHash")).toBeGreaterThan(256 * 1024);
    const { conversations } = await collectWithSkips(path);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.messages.length])).toEqual([
      ["lobechat-session-ssn_Tr1pK9xWq2", 3],
      ["lobechat-tpc_Kef1r4Fm2zYx", 4],
      ["lobechat-tpc_Pt0WkEnd8q3R", 6],
      ["lobechat-thread-thd_G41aCv3sX9pL2mQe", 3],
      ["lobechat-tpc_Fill", 400],
    ]);
  });

  it("a conversation of only a failed answer is counted, not imported; a file whose data is no tables is reported", async () => {
    const path = await changed((data) => {
      data.messages = data.messages!.filter((m) => m.topicId === "tpc_Kef1r4Fm2zYx" && m.id === "msg_K1eRr0r5Wd");
      data.messages[0]!.parentId = null;
    });
    expect(await collectWithSkips(path)).toEqual({
      conversations: [],
      skipped: { "conversations without any message text (an empty new chat)": 1 },
    });
    const broken = join(tmp, "broken_LobeChat-data.json");
    await writeFile(broken, JSON.stringify({ data: "tables", mode: "pglite", schemaHash: "a3f1" }));
    const { conversations, problems } = await collectReporting(broken);
    expect([conversations, problems.length]).toEqual([[], 1]);
  });
});

describe("LobeChat's older config file (Export → Sessions)", () => {
  it("reads topics and the inbox's chat, the session's own prompt, a file by [file]", async () => {
    const { conversations } = await collectWithSkips(config);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt])).toEqual([
      ["lobechat-session-inbox", "Untitled", "2024-03-01T08:00:00.000Z"],
      ["lobechat-Fq7ZkT2p", "Wine for bacalhau", "2024-03-01T10:55:00.000Z"],
    ]);
    expect(contents(conversations[1])?.slice(0, 3)).toEqual([
      ["system-prompt", "human", "[system prompt]\nYou are a sommelier. Suggest one wine, with its region."],
      ["aB3dE5fG", "human", "What goes with bacalhau à Brás? Here is the recipe I follow.\n\n[file]"],
      ["hJ4kL6mN", "assistant", "A Vinho Verde Alvarinho from Monção e Melgaço: its acidity cuts the egg and the oil."],
    ]);
  });

  it("an export of its agents alone, without chats, is set aside in a folder", async () => {
    const folder = tempDir("mnemo-lobechat-agents-");
    await writeFile(
      join(folder, "LobeChat-agents-v5.json"),
      JSON.stringify({ exportType: "agents", state: { sessions: [], sessionGroups: [] }, version: 5 }),
    );
    await writeFile(join(folder, "LobeChat-sessions-v5.json"), await readFile(config));
    const { conversations, skipped } = await collectWithSkips(folder);
    expect(conversations).toHaveLength(2);
    expect(skipped).toEqual({ "LobeChat's export of its agents or settings alone, without chats": 1 });
  });
});
