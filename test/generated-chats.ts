import fs from "node:fs";
import path from "node:path";
import { tempDir } from "./temp-dirs.js";

/**
 * A file of `count` conversations in mnemo's upload shape, conversation `i` titled `Topic <i>` and
 * asking about "subject number <i>", its answer `sentences` sentences long.
 */
export function writeChatsFile(count: number, sentences = 6): string {
  const file = path.join(tempDir(), "chats.json");
  const chats = Array.from({ length: count }, (_, i) => ({
    conversation: {
      id: `k${i}`,
      title: `Topic ${i}`,
      createdAt: "2024-05-01T10:00:00Z",
      messages: [
        { id: "m1", role: "human", content: `Tell me about subject number ${i}` },
        {
          id: "m2",
          role: "assistant",
          content: `Subject ${i} is worth a word. ${"Many sides of it deserve a sentence of their own. ".repeat(sentences)}`,
        },
      ],
    },
  }));
  fs.writeFileSync(file, JSON.stringify(chats));
  return file;
}

/** Uploads of two-message conversations, `c<i>` titled as given: "Tell me about <title>" and its answer. */
export function titledChats(titles: string[]) {
  return titles.map((title, i) => ({
    conversation: {
      id: `c${i}`,
      title,
      createdAt: "2024-05-01T10:00:00Z",
      messages: [
        { id: "m1", role: "human" as const, content: `Tell me about ${title}` },
        { id: "m2", role: "assistant" as const, content: `${title} is a fine subject for a conversation.` },
      ],
    },
  }));
}
