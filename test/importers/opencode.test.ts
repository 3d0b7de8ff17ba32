import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const storage = join(fixtures, "opencode", "storage");
const scratch = tempDir("mnemo-opencode-");
const FIX_CSV = "ses_45c1a8e02ffeQm3VtK9pLx2RwN";
const SESSION_NOT_READ =
  "sessions whose session file was not read (damaged, or not passed: pass ~/.local/share/opencode/storage, every file of a session)";

/** A copy of the storage fixture to change. */
async function copied(name: string): Promise<string> {
  const dir = join(scratch, name, "storage");
  await cp(storage, dir, { recursive: true });
  return dir;
}

describe("OpenCode sessions", () => {
  it("~/.local/share/opencode/storage: a conversation per session, titled as OpenCode shows it, a subagent's left out", async () => {
    const { conversations, skipped } = await collectWithSkips(storage);
    expect(conversations.map((c) => [c.conversation.id, c.conversation.title, c.conversation.createdAt, c.conversation.updatedAt])).toEqual(
      [
        [FIX_CSV, "Fix CSV import of negative amounts", "2026-01-12T09:14:05.871Z", "2026-01-12T09:21:48.811Z"],
        // "New session - <time>" is OpenCode's placeholder: the first prompt's first line instead.
        [
          "ses_45b2f0c19ffeH7dJs4ZnYc8UoE",
          "what does `git rebase --onto main feature~3 feature` do",
          "2026-01-14T18:02:11.530Z",
          "2026-01-14T18:02:38.902Z",
        ],
      ],
    );
    expect(skipped).toEqual({ "sub-agents' sessions (the agent's side work, left out as its reasoning is)": 1 });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["opencode", "OpenCode", true]);
    }
  });

  it("a session: each prompt as typed, and the answer's words and tools on one message; reasoning, tool output, synthetic text and files left out", async () => {
    const [session] = await collect(storage);
    expect(session?.conversation.messages).toEqual([
      {
        id: "msg_ba3e57fe1001Xw2QpL7cTz9KjR",
        role: "human",
        content:
          "The import fails on amounts like (12.50) from the bank's CSV. Can you make parse_amount read them as negative? @src/ledger/csv_import.py",
        createdAt: "2026-01-12T09:14:05.871Z",
      },
      {
        id: "msg_ba3e58023002Nf8YhB3dVs6MqP",
        role: "assistant",
        content:
          "Accounting exports write negative amounts in parentheses. I'll look at parse_amount first.\n\n[tool: task] [tool: edit]\n\nparse_amount now reads (12.50) as -12.50, after the thousands separators are removed, so (1,204.00) works too.",
        createdAt: "2026-01-12T09:14:06.020Z",
      },
      { id: "msg_ba3e5b7c9003Rk4GtW1xZa5LcH", role: "human", content: "Add a test for it too.", createdAt: "2026-01-12T09:20:31.447Z" },
      {
        id: "msg_ba3e5b84e004Jm7SuD2pFq8NvB",
        role: "assistant",
        content: "[tool: edit] [tool: bash]\n\nAdded test_parenthesised_negative to tests/test_csv_import.py; the suite passes (14 tests).",
        createdAt: "2026-01-12T09:20:31.602Z",
      },
    ]);
  });

  it("the 2025 layout (storage/session/{info,message,part}): the first messages with their parts inside, and later ones with parts apart", async () => {
    const conversations = await collect(join(fixtures, "opencode-2025"));
    expect(conversations.map((c) => [c.conversation.title, c.conversation.messages.map((m) => m.content)])).toEqual([
      [
        "Why is the cron job running twice",
        [
          "The nightly export cron runs twice since we moved to two replicas. Why?",
          "[tool: grep]\n\nEach replica starts its own scheduler in worker/cron.py, so both run the job; take a lock in Redis before the export, or run the scheduler in one replica only.",
        ],
      ],
      [
        "Dockerfile for the worker",
        [
          "Write a Dockerfile for the worker: python 3.12, slim, run as a non-root user",
          "Here is a slim image that installs the worker and drops to an unprivileged user.\n\n[tool: write] [tool: bash]\n\nThe image builds; the worker runs as uid 10001 with the useradd line in the Dockerfile.",
        ],
      ],
    ]);
    expect(conversations[1]?.conversation.updatedAt).toBe("2025-06-20T15:43:04.977Z"); // the answer's completion
  });

  it("the opencode folder above storage and a zip of storage read alike", async () => {
    const ids = async (path: string) => (await collect(path)).map((c) => c.conversation.id);
    const expected = await ids(storage);
    expect(await ids(join(fixtures, "opencode"))).toEqual(expected);
    expect(await ids(join(fixtures, "opencode-storage.zip"))).toEqual(expected);
  });

  it("a session that grew is the same conversation, longer; read again, the same", async () => {
    const dir = await copied("grew");
    const before = await collect(dir);
    expect(await collect(dir)).toEqual(before);
    const message = "msg_ba3e5c0a1005Zq1WxE2rT3yU4i";
    await writeFile(
      join(dir, "message", FIX_CSV, `${message}.json`),
      JSON.stringify({ id: message, sessionID: FIX_CSV, role: "user", time: { created: Date.parse("2026-01-13T08:00:00Z") } }),
    );
    await mkdir(join(dir, "part", message));
    await writeFile(
      join(dir, "part", message, "prt_ba3e5c0a1101Ab.json"),
      JSON.stringify({
        id: "prt_ba3e5c0a1101Ab",
        sessionID: FIX_CSV,
        messageID: message,
        type: "text",
        text: "And amounts with a trailing minus?",
      }),
    );
    const [grown] = await collect(dir);
    expect(grown?.conversation.id).toBe(FIX_CSV);
    expect(grown?.conversation.messages.map((m) => m.content).at(-1)).toBe("And amounts with a trailing minus?");
    expect(grown?.conversation.messages.slice(0, 4)).toEqual(before[0]?.conversation.messages);
  });

  it("a damaged part costs that part, a damaged message its message, a damaged session file its session", async () => {
    const dir = await copied("damaged");
    await writeFile(
      join(dir, "part", "msg_ba3e58023002Nf8YhB3dVs6MqP", "prt_ba3e5804e006iJ1cFe6GlV8hMa.json"),
      '{"id": "prt_ba3e5804e006iJ1c',
    );
    await writeFile(join(dir, "message", FIX_CSV, "msg_ba3e5b7c9003Rk4GtW1xZa5LcH.json"), '{"id": "msg_ba3e5b7c9003R');
    const conversations = await collect(dir);
    expect(conversations[0]?.conversation.messages.map((m) => m.content)).toEqual([
      "The import fails on amounts like (12.50) from the bank's CSV. Can you make parse_amount read them as negative? @src/ledger/csv_import.py",
      // the damaged part's text gone; the damaged prompt gone, so both answers are one run of the agent's
      "Accounting exports write negative amounts in parentheses. I'll look at parse_amount first.\n\n[tool: task] [tool: edit] [tool: edit] [tool: bash]\n\nAdded test_parenthesised_negative to tests/test_csv_import.py; the suite passes (14 tests).",
    ]);
    await writeFile(join(dir, "session", "global", "ses_45b2f0c19ffeH7dJs4ZnYc8UoE.json"), "{");
    const { conversations: left, skipped } = await collectWithSkips(dir);
    expect(left.map((c) => c.conversation.id)).toEqual([FIX_CSV]);
    expect(skipped).toMatchObject({ [SESSION_NOT_READ]: 1 });
  });

  it("a lone file is said to be part of a session, not imported as one", async () => {
    const { conversations, skipped } = await collectWithSkips(join(storage, "message", FIX_CSV, "msg_ba3e57fe1001Xw2QpL7cTz9KjR.json"));
    expect(conversations).toEqual([]);
    expect(skipped).toEqual({ [SESSION_NOT_READ]: 1 });
  });
});
