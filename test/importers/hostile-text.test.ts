// Messages crafted so that a lazy regex scanning for a closing tag rescans the rest of the text from
// every opening tag: quadratic, hours on megabytes, holding `mnemo serve`'s import. Each is read as
// it would be, at once (these fail on the old patterns by the test's time limit, not by a timing asserted).
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { promptTitle } from "../../src/importers/agent-sessions.js";
import { openWebUiConversation } from "../../src/importers/open-webui/conversation.js";
import { textGenerationWebUiHistory } from "../../src/importers/text-generation-webui/history.js";
import { joinPieces } from "../../src/importers/placeholders.js";
import { replaceTagBlocks } from "../../src/text/tag-blocks.js";
import { tempDir } from "../temp-dirs.js";
import { collect, fixtures, recordContext } from "./collect.js";

/** A copy of a fixture folder with `edit` applied to one of its files. */
async function editedCopy(folder: string, file: string, edit: (text: string) => string): Promise<string> {
  const copy = join(tempDir("mnemo-hostile-text-"), "copy");
  await cp(folder, copy, { recursive: true });
  await writeFile(join(copy, file), edit(await readFile(join(copy, file), "utf8")));
  return join(copy, file);
}

function openWebUiAnswer(content: string): string | undefined {
  const chat = {
    history: {
      currentId: "a",
      messages: { q: { id: "q", role: "user", content: "hi" }, a: { id: "a", parentId: "q", role: "assistant", content } },
    },
  };
  const row = { id: "c", user_id: "u", title: "t", chat: JSON.stringify(chat), created_at: 1738310000 };
  return openWebUiConversation({ openWebUiRow: row, owner: undefined }, recordContext("webui.db"))?.conversation.messages[1]?.content;
}

describe("hostile message text", () => {
  it("Open WebUI: an answer of 200,000 unclosed <details> tags (3.6 MB) is kept as written", () => {
    const content = `${'<details type="reasoning">'.repeat(200_000)}The answer.`;
    expect(openWebUiAnswer(content)).toBe(content);
  });

  it("Open WebUI: a code interpreter block of 300,000 unclosed <summary> tags keeps its code", () => {
    const inside = "<summary>".repeat(300_000);
    expect(openWebUiAnswer(`<details type="code_interpreter" done="true">${inside}</details>\n\nThe answer.`)).toBe(
      `${inside}\n\nThe answer.`,
    );
  });

  it("Open WebUI: reasoning and tool blocks still go, the interpreter's code stays, as before", () => {
    const answer = openWebUiAnswer(
      '<details type="reasoning" done="true"><summary>Thought</summary>hmm</details>\n\nIntro <details type="code_interpreter"><summary>Ran</summary>print(1)</details>  then <details type="tool_calls" result="&quot;x&quot;">r</details>end',
    );
    expect(answer).toBe("Intro print(1)\n\nthen end");
  });

  it("replaceTagBlocks matches what the lazy pattern did on ordinary text", () => {
    const text = 'a<file name="x">1</file> b <file name="y">2<file name="z">3</file></file> <file name="w">open';
    const lazy = text.replace(/<file name="([^"]*)">[\s\S]*?<\/file>/g, (_, name: string) => `[${name}]`);
    expect(replaceTagBlocks(text, "<file", /<file name="([^"]*)">/y, "</file>", ([, name]) => `[${name}]`)).toBe(lazy);
  });

  it("Kimi Code: a shell command part of 300,000 unclosed <bash-input> tags is no command; a media tag of 160,000 path attributes and no end is text", async () => {
    const session = join(fixtures, "kimi-code", "sessions", "wd_tidepool_66fa9b73f26c", "ses_lagoon7q2m");
    const media = `<image ${'path=\\"\\" '.repeat(160_000)}`;
    const wire = await editedCopy(session, join("agents", "main", "wire.jsonl"), (text) =>
      text
        .replace(/<bash-input>[^"]*<\/bash-input>/, "<bash-input>".repeat(300_000))
        .replaceAll('<image path=\\"/home/mei/.kimi-code/media/a1.png\\"></image>', media),
    );
    const [read] = await collect(wire);
    const contents = read?.conversation.messages.map((message) => message.content) ?? [];
    expect(contents.some((content) => content.startsWith("! "))).toBe(false);
    expect(contents[0]).toContain('<image path="" path=""');
  });

  it("Pi: a prompt of 300,000 unclosed <file> tags is kept as typed", async () => {
    const folder = join(fixtures, "pi", "sessions", "--home-ana-bread--");
    const [name] = await readdir(folder);
    const tags = '<file name=\\"a\\">'.repeat(300_000);
    const file = await editedCopy(folder, name!, (text) => text.replace("Why is this dough so slack", `${tags}Why is this dough so slack`));
    const [read] = await collect(file);
    expect(read?.conversation.messages[0]?.content).toContain('<file name="a"><file name="a">');
  });
});

function textGenAnswer(answer: string): string | undefined {
  const history = { internal: [["hi", answer]], visible: [["hi", answer]] };
  return textGenerationWebUiHistory(history, recordContext("chat.json"))?.conversation.messages[1]?.content;
}

describe("hostile text-generation-webui answers", () => {
  // The old patterns cost 2,000 characters a tag, not the rest of the text: linear, so the test fails on
  // them by its own limit, 10 s, over 3,000,000 tags (18 MB: about 40 s there, a fraction of a second here).
  it("3,000,000 unended <audio and <img tags (18 MB) are kept as written, in one pass (the bounded patterns rescanned 2,000 characters from each)", {
    timeout: 10_000,
  }, () => {
    const text = `${"<audio ".repeat(1_500_000)}${"<img ".repeat(1_500_000)}${"x".repeat(2001)}> The answer.`;
    expect(textGenAnswer(text)).toBe(text);
  });

  it("a tool call of 150,000,000 line breaks (150 MB) is named by its first line, not split into lines (which ran the process out of memory)", () => {
    expect(textGenAnswer(`Looked.<tool_call>search("tides")${"\n".repeat(150_000_000)}</tool_call>Done.`)).toBe(
      "Looked.\n\n[tool: search]\n\nDone.",
    );
  });

  it("the extensions' players and pictures still go as the patterns took them; a tag longer than 2,000 characters stays", () => {
    const tags = '<audio src="a.wav" controls></audio>Hi <AUDIO x></Audio> <img src="p.png"> <IMG\tsrc="q.png">';
    expect(textGenAnswer(tags)).toBe("Hi  [image] [image]");
    const long = `<img ${"a".repeat(2001)}> end`;
    expect(textGenAnswer(long)).toBe(long);
    expect(textGenAnswer(`<img ${"a".repeat(1995)}> end`)).toBe("[image] end");
  });
});

describe("a prompt of line breaks", () => {
  // Split into lines for its first, 150,000,000 line breaks (150 MB) ran the process out of memory: a
  // fatal error no catch holds, the import and `mnemo serve`'s reader gone. 50 MB took 2.5 s and 600 MB.
  it("titles a session by its first line without splitting the rest (150 MB of line breaks)", () => {
    const content = `Why is the tide late?\n${"\n".repeat(150_000_000)}`;
    expect(promptTitle([{ id: "p", role: "human", content }])).toBe("Why is the tide late?");
  });
});

describe("images written into a message's text", () => {
  const png = `data:image/png;base64,${"iVBORw0KGgo".repeat(20)}`;

  it("are [image], Markdown's and HTML's, wherever they stand", () => {
    expect(joinPieces([`Here ![a chart](${png}) and <img alt="x" src="${png}" width=3> done`])).toBe("Here [image] and [image] done");
    expect(joinPieces([`![](  ${png})`, `<IMG SRC='${png}'>`])).toBe("[image]\n\n[image]");
    // Not images: a data: URL as a link, an alt text over two lines, an <img> whose src is a web address.
    for (const text of [`[a link](${png})`, `![two\nlines](${png})`, `<img src="https://example.org/a.png"> data: text`])
      expect(joinPieces([text])).toBe(text);
  });

  it("400,000 unclosed <img and ![ before a data: (3.6 MB) are kept as written, in one pass", () => {
    const text = `${'<img src="x" '.repeat(200_000)}${"![a](".repeat(200_000)} data: and no end`;
    expect(joinPieces([text])).toBe(text);
  });
});
