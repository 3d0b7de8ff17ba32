// A generated export of small ChatGPT, Claude, Open WebUI or DeepSeek conversations, written as the
// apps write theirs (one minified list), with where each record's bytes are: for tests that damage
// one record.

export type Format = "chatgpt" | "claude" | "open-webui" | "deepseek";
type JsonRecord = Record<string, unknown>;

const WORDS = ["sourdough", "Grüße", "日本語", "tram", "café", "Ελληνικά", "naïve", "kanji"];
const id = (i: number) => `conv-${String(i).padStart(4, "0")}-x`;
const time = (i: number, step = 0) => 1_700_000_000 + i * 3_600 + step * 60;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const title = (i: number) => `Talk ${i} about ${WORDS[i % WORDS.length]} 🙂 and more`;
const question = (i: number) => `Question ${i}: how about ${WORDS[(i + 3) % WORDS.length]}? 🚋`;
const answer = (i: number) => `Answer ${i}: ${WORDS[(i + 5) % WORDS.length]}, then ${WORDS[(i + 1) % WORDS.length]}.`;

function chatgptRecord(i: number): JsonRecord {
  const message = (mid: string, role: string, text: string, step: number) => ({
    id: mid,
    author: { role },
    create_time: time(i, step),
    content: { content_type: "text", parts: [text] },
  });
  return {
    title: title(i),
    create_time: time(i),
    update_time: time(i, 2),
    mapping: {
      root: { id: "root", message: null, parent: null, children: ["u"] },
      u: { id: "u", message: message("u", "user", question(i), 1), parent: "root", children: ["a"] },
      a: { id: "a", message: message("a", "assistant", answer(i), 2), parent: "u", children: [] },
    },
    current_node: "a",
    conversation_id: id(i),
  };
}

function claudeRecord(i: number): JsonRecord {
  const message = (uuid: string, sender: string, text: string, step: number) => ({
    uuid,
    sender,
    text,
    content: [{ type: "text", text }],
    created_at: iso(time(i, step)),
  });
  return {
    uuid: id(i),
    name: title(i),
    created_at: iso(time(i)),
    updated_at: iso(time(i, 2)),
    chat_messages: [message(`${id(i)}-q`, "human", question(i), 1), message(`${id(i)}-a`, "assistant", answer(i), 2)],
  };
}

function openWebUiRecord(i: number): JsonRecord {
  const message = (mid: string, parentId: string | null, role: string, content: string, step: number) => ({
    id: mid,
    parentId,
    childrenIds: [],
    role,
    content,
    timestamp: time(i, step),
  });
  const q = `${id(i)}-q`;
  const a = `${id(i)}-a`;
  return {
    id: id(i),
    user_id: "u-1",
    title: title(i),
    chat: {
      title: title(i),
      models: ["llama3.1:8b"],
      history: { currentId: a, messages: { [q]: message(q, null, "user", question(i), 1), [a]: message(a, q, "assistant", answer(i), 2) } },
    },
    updated_at: time(i, 2),
    created_at: time(i),
  };
}

function deepSeekRecord(i: number): JsonRecord {
  const node = (nid: string, parent: string, type: string, text: string, step: number) => ({
    id: nid,
    parent,
    children: [],
    message: { files: [], model: "deepseek-chat", inserted_at: iso(time(i, step)), fragments: [{ type, content: text }] },
  });
  return {
    id: id(i),
    title: title(i),
    inserted_at: iso(time(i)),
    updated_at: iso(time(i, 2)),
    mapping: {
      root: { id: "root", parent: null, children: ["1"], message: null },
      "1": node("1", "root", "REQUEST", question(i), 1),
      "2": node("2", "1", "RESPONSE", answer(i), 2),
    },
  };
}

/** How many conversations each generated export holds. */
export const GENERATED = 1_000;

export const RECORDS: Record<Format, JsonRecord[]> = {
  chatgpt: Array.from({ length: GENERATED }, (_, i) => chatgptRecord(i)),
  claude: Array.from({ length: GENERATED }, (_, i) => claudeRecord(i)),
  "open-webui": Array.from({ length: GENERATED }, (_, i) => openWebUiRecord(i)),
  deepseek: Array.from({ length: GENERATED }, (_, i) => deepSeekRecord(i)),
};

/** The export as written (a minified list, as ChatGPT and Claude write it), and where each record's bytes are. */
export function serialise(records: unknown[]): { bytes: Buffer; spans: { start: number; end: number }[] } {
  const spans: { start: number; end: number }[] = [];
  const pieces: Buffer[] = [Buffer.from("[")];
  let at = 1;
  records.forEach((record, i) => {
    if (i > 0) {
      pieces.push(Buffer.from(","));
      at += 1;
    }
    const piece = Buffer.from(JSON.stringify(record));
    spans.push({ start: at, end: at + piece.length });
    pieces.push(piece);
    at += piece.length;
  });
  pieces.push(Buffer.from("]"));
  return { bytes: Buffer.concat(pieces), spans };
}
