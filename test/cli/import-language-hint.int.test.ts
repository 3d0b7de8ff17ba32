import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openTestApp, ROOT, runCli, tempDir } from "../helpers.js";

const chat = (id: string, title: string, contents: string[]) => ({
  platform: "chatgpt",
  conversation: {
    id,
    title,
    createdAt: "2024-03-01T09:00:00Z",
    messages: contents.map((content, i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "human", content })),
  },
});

const RUSSIAN = [
  chat("ru1", "Собака", ["Моя собака не ест уже два дня. Что делать?", "Обратитесь к ветеринару, если собака вялая."]),
  chat("ru2", "Поездка", ["Мы едем в Казань в мае. Что посмотреть?", "Кремль и мечеть Кул-Шариф стоит увидеть."]),
  chat("ru3", "Рецепт", ["Как испечь хлеб на закваске?", "Закваске нужно два дня в тепле."]),
];
const ENGLISH = [chat("en1", "Tram", ["Is tram 28 worth it in Lisbon?", "Yes, once: board at Martim Moniz before nine."])];

function exportOf(chats: unknown[]): string {
  const file = path.join(tempDir(), "export.json");
  fs.writeFileSync(file, JSON.stringify(chats));
  return file;
}

describe("an import of conversations in languages the embedder does not read", () => {
  it("says they are found by their words alone, and how to re-embed them; not for English ones, nor with another embedder", async () => {
    // A store of the bundled embedder; the dry runs store nothing in it, and make none where there is none.
    const store = tempDir();
    await (await openTestApp({ store })).close();
    const file = exportOf([...RUSSIAN, ...ENGLISH]);
    const bundled = await runCli(["--store", store, "import", "--dry-run", file]);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.stderr).toContain(
      "3 of these 4 conversations are mostly in languages other than English, which the embedder (bundled) does not read",
    );
    expect(bundled.stderr).toContain("mnemo reindex --embedder transformers:Xenova/paraphrase-multilingual-MiniLM-L12-v2");
    const json = JSON.parse((await runCli(["--json", "--store", store, "import", "--dry-run", file])).stdout);
    expect(json.languageHint).toMatch(/^3 of these 4 conversations/);
    // No store yet: the embedder a new store would take, the one mnemo picks by itself (which reads English only).
    const none = await runCli(["--store", path.join(tempDir(), "none"), "import", "--dry-run", file]);
    expect(none.stderr).toContain(
      "3 of these 4 conversations are mostly in languages other than English, which the embedder (auto) does not read",
    );

    const english = await runCli([
      "--json",
      "--store",
      tempDir(),
      "import",
      "--dry-run",
      exportOf([...ENGLISH, ...ENGLISH.map((c) => ({ ...c, conversation: { ...c.conversation, id: "en2" } }))]),
    ]);
    expect(JSON.parse(english.stdout).languageHint).toBeUndefined();
    // An embedder not known to read English only (here a tiny BERT) is trusted in every language.
    const tiny = `transformers:${path.join(ROOT, "fixtures", "models", "tiny-bert")}`;
    const other = await runCli(["--json", "--store", tempDir(), "--embedder", tiny, "import", "--dry-run", file]);
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout).languageHint).toBeUndefined();
  });
});
