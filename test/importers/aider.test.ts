import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detect } from "../../src/importers/detect.js";
import { fileSource } from "../../src/importers/source.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectReporting, collectWithSkips, fixtures } from "./collect.js";

const aider = join(fixtures, "aider");
const tideapp = join(aider, "tideapp", ".aider.chat.history.md");
const scratch = tempDir("mnemo-aider-");

/** A history file of this text (lines joined as aider writes them). */
async function history(name: string, lines: string[]): Promise<string> {
  const file = join(scratch, name);
  await writeFile(file, lines.join("\n"));
  return file;
}

const heading = (time: string) => `# aider chat started at ${time}`;

describe("Aider's chat history", () => {
  it("a repository's folder: its hidden .aider.chat.history.md read, a conversation per session, one of aider's output alone counted", async () => {
    const { conversations, skipped } = await collectWithSkips(join(aider, "tideapp"));
    expect(conversations.map((c) => [c.conversation.title, c.conversation.createdAt, c.conversation.messages.length])).toEqual([
      ["The tide table shows high water an hour late in summer.", "2024-11-12T09:14:03.000Z", 8],
      ["Add a function that lists the spring tides of a month.", "2024-11-14T17:40:22.000Z", 4],
    ]);
    expect(skipped).toEqual({ "sessions without an answer (aider's output and commands alone)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["aider", "Aider", true]);
    }
  });

  it("prompts as typed (a command too, lines joined), answers whole with their edits; aider's output, confirmations and a blank prompt left out", async () => {
    const [session] = await collect(tideapp);
    const messages = session!.conversation.messages;
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ["line-11", "human"],
      ["line-14", "human"],
      ["line-17", "assistant"],
      ["line-69", "human"],
      ["line-71", "assistant"],
      ["line-80", "human"],
      ["line-82", "assistant"],
      ["line-126", "human"],
    ]);
    expect(messages[0]?.content).toBe("/add src/tides.py");
    expect(messages[1]?.content).toBe(
      "The tide table shows high water an hour late in summer.\nI think we ignore daylight saving time when converting from UTC.",
    );
    // The answer, the lint errors aider reported, and the answer to them: one message, the errors left out.
    const answer = messages[2]!.content;
    expect(answer).toContain("<<<<<<< SEARCH\nfrom datetime import datetime, timedelta\n\nLISBON_OFFSET");
    expect(answer).toContain("`next_high_water` still used the old constant.");
    expect(answer).not.toMatch(/Applied edit|Commit 3f2a9c1|F821|Attempt to fix lint errors/);
    // An answer's own heading and quote are its text, not a prompt and not aider's output.
    expect(messages[4]?.content).toMatch(
      /^#### Where the naive times come from\n\n[\s\S]*\n\n> Times are given in UTC unless stated otherwise\.\n\n/,
    );
    // A shell command's subject of several lines is aider's, quoted on its first line only.
    expect(messages[6]?.content.endsWith("```bash\npip install tzdata\npytest tests/test_tides.py\n```")).toBe(true);
    expect(messages.map((message) => message.content).join("\n")).not.toMatch(/<blank>|\(Y\)es\/\(N\)o|Running pytest/);
  });

  it("an answer cut off by ^C leaves its fence open; the next prompt is still one", async () => {
    const [, session] = await collect(tideapp);
    expect(session?.conversation.messages.map((message) => [message.role, message.content.split("\n")[0]])).toEqual([
      ["human", "Add a function that lists the spring tides of a month."],
      ["assistant", "I'll add `spring_tides(year, month)`, which keeps the high waters within a day of a new or full moon:"],
      ["human", "Use the moon phases from the astral package instead of computing them."],
      ["assistant", "Sure. `astral.moon.phase` gives the phase as a number from 0 to 27.99, new moon at 0 and full moon at 14:"],
    ]);
  });

  it("reads a history whose trailing spaces were trimmed (aider 0.8, a mode line on top) by its prefixes, outside fences", async () => {
    const [session] = await collect(join(aider, "copied", "bus-cli.aider.chat.history.md"));
    const messages = session!.conversation.messages;
    expect(messages.map((message) => [message.role, message.content.split("\n")[0]])).toEqual([
      ["human", "add a --verbose flag to the cli that prints each request to the bus API"],
      ["assistant", "To add a `--verbose` flag, we change `cli.py` to accept it and pass it to `fetch_departures`:"],
      ["human", "/run python cli.py 736 --verbose"],
      ["human", "the request is printed twice, why?"],
      [
        "assistant",
        "`fetch_departures` logs the request and `cli.py` prints it again when `--verbose` is on. Keep the one in `fetch_departures`:",
      ],
    ]);
    expect(messages[1]?.content).toContain(">>>>>>> UPDATED\n```");
    expect(messages.map((message) => message.content).join("\n")).not.toMatch(/Applied edit|200 OK/);
  });

  it("output aider wrote whole (/run, /test) is passed over to its last line, blank lines and all; the token report after an answer too", async () => {
    const file = await history("run.md", [
      "",
      heading("2024-08-19 14:05:41"),
      "",
      "#### /run pytest tests/test_feed.py  ",
      "> ============================= test session starts ==============================",
      "collected 2 items",
      "",
      "    ",
      "tests/test_feed.py .F                                      [100%]",
      "FAILED tests/test_feed.py::test_bom  ",
      "> Add the output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  ",
      "",
      "#### Why does test_bom fail?  ",
      "",
      "The BOM stays in the first field's name.",
      "",
      "> Tokens: 23,172 sent, 10,496 cache hit, 9 received.",
      "Cost: $0.0034 message, $0.0034 session.  ",
      "",
    ]);
    const [session] = await collect(file);
    expect(session?.conversation.messages.map((message) => message.content)).toEqual([
      "/run pytest tests/test_feed.py",
      "Why does test_bom fail?",
      "The BOM stays in the first field's name.",
    ]);
  });

  it("keeps its ids when the session goes on, so a re-import finds the same conversation", async () => {
    const start = ["", heading("2025-01-05 08:00:00"), "", "#### hello  ", "", "Hello! What shall we work on?", ""];
    const [before] = await collect(await history("before.md", start));
    const [after] = await collect(
      await history("after.md", [...start, "#### add a README  ", "", "README.md", "```", "# Tides", "```", ""]),
    );
    expect(after?.conversation.id).toBe(before?.conversation.id);
    expect(after?.conversation.messages.slice(0, 2)).toEqual(before?.conversation.messages);
    expect(after?.conversation.title).toBe("hello");
  });

  it("titles a session of commands by a chat command's words", async () => {
    const file = await history("ask.md", [
      "",
      heading("2025-01-05 08:00:00"),
      "",
      "#### /add src/feed.py  ",
      "> Added src/feed.py to the chat  ",
      "",
      "#### /ask what does parse_feed return?  ",
      "",
      "A list of rows, each a list of fields.",
      "",
    ]);
    const [session] = await collect(file);
    expect(session?.conversation.title).toBe("what does parse_feed return?");
  });

  it("a history trimmed at its start: the lines before the first heading are a session too, of the file's time", async () => {
    const lines = ["#### why is the feed empty?  ", "", "The harbour's server answered 204.", "", heading("2025-01-06 08:00:00"), ""];
    lines.push("#### second  ", "", "Two.", "");
    const { conversations } = await collectReporting(await history("trimmed.md", lines));
    expect(conversations.map((c) => c.conversation.title)).toEqual(["why is the feed empty?", "second"]);
    expect(conversations[1]?.conversation.createdAt).toBe("2025-01-06T08:00:00.000Z");
  });

  it("is Aider's, not a Markdown transcript, when an answer writes speakers' headings", async () => {
    const file = await history("transcript.md", [
      "",
      heading("2025-02-01 10:00:00"),
      "",
      "#### write a sample chat transcript for the docs  ",
      "",
      "Here is one:",
      "",
      "## User",
      "",
      "What time is high water in Lisbon today?",
      "",
      "## Assistant",
      "",
      "At 14:32.",
      "",
    ]);
    expect((await detect(await fileSource(file)))?.format).toBe("aider");
    const [session] = await collect(file);
    expect(session?.conversation.messages.map((message) => message.role)).toEqual(["human", "assistant"]);
  });

  // Writes a history of 65 MB (a second or two): past the 64 MB a session is read to.
  it("a history past 64 MB is read a session at a time: a session over 64 MB is said and left out, the others imported", async () => {
    const file = join(scratch, "years.aider.chat.history.md");
    const session = (time: string, prompt: string, answer: string) =>
      [heading(time), "", `#### ${prompt}  `, "", answer, "", ""].join("\n");
    const answer = `${"A pasted log line that goes on and on.\n".repeat(1_800_000)}That is all.`;
    await writeFile(file, [session("2025-03-01 09:00:00", "first", "One."), session("2025-03-02 09:00:00", "huge", answer)].join(""));
    await appendFile(file, session("2025-03-03 09:00:00", "third", "Three."));
    const { conversations, problems } = await collectReporting(file);
    expect(conversations.map((c) => c.conversation.title)).toEqual(["first", "third"]);
    expect(problems).toEqual([
      expect.stringMatching(/record 2 \(at byte 65\): a conversation of \d{8} bytes, over the 64 MB one is read to$/),
    ]);
  });

  it("a history with Windows line ends and a byte-order mark: its sessions cut at their headings all the same", async () => {
    const lines = [heading("2025-04-01 10:00:00"), "", "#### première question  ", "", "Réponse une.", "", heading("2025-04-01 10:00:00")];
    lines.push("", "#### 第二个问题  ", "", "回答二。", "");
    const file = join(scratch, "windows.md");
    await writeFile(file, `\uFEFF${lines.join("\r\n")}`);
    const conversations = await collect(file);
    expect(conversations.map((c) => [c.conversation.title, c.conversation.createdAt, c.conversation.messages.at(-1)?.content])).toEqual([
      ["première question", "2025-04-01T10:00:00.000Z", "Réponse une."],
      ["第二个问题", "2025-04-01T10:00:00.000Z", "回答二。"],
    ]);
    expect(new Set(conversations.map((c) => c.conversation.id)).size).toBe(2);
  });

  it("a README quoting a history in fenced code is no history: a repository's folder gives its .aider.chat.history.md alone", async () => {
    const repository = join(scratch, "quoting");
    await mkdir(repository);
    const readme = ["# tides", "", "Built with aider; a session's log reads:", "", "```", heading("2024-05-01 12:34:56"), ""];
    readme.push("#### add a --verbose flag  ", "", "Sure, here is the change.", "```", "", "## Install", "", "pip install tides", "");
    await writeFile(join(repository, "README.md"), readme.join("\n"));
    await writeFile(
      join(repository, ".aider.chat.history.md"),
      [heading("2025-05-01 08:00:00"), "", "#### hello  ", "", "Hi.", ""].join("\n"),
    );
    expect(await detect(await fileSource(join(repository, "README.md")))).toBeUndefined();
    expect((await collect(repository)).map((c) => c.conversation.title)).toEqual(["hello"]);
  });

  it("sessions started in the same second with the same prompt are each a conversation; one written twice is one", async () => {
    const session = (answer: string) => [heading("2024-06-01 10:00:00"), "", "#### fix the lint errors  ", "", answer, ""];
    const file = await history("scripted.md", [...session("Fixed a.py."), ...session("Fixed b.py."), ...session("Fixed b.py.")]);
    const conversations = await collect(file);
    expect(conversations.map((c) => c.conversation.messages[1]?.content)).toEqual(["Fixed a.py.", "Fixed b.py."]);
    expect(new Set(conversations.map((c) => c.conversation.id)).size).toBe(2);
  });
});
