import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { resumption } from "../../../src/core/jobs/resumed-sessions.js";
import { tempDir } from "../../temp-dirs.js";

const message = (type: "user" | "assistant", uuid: string, parentUuid: string | null, content: string, sessionId: string) => ({
  parentUuid,
  isSidechain: false,
  sessionId,
  type,
  message:
    type === "user"
      ? { role: "user", content }
      : { id: `msg_${uuid}`, role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: content }] },
  uuid,
  timestamp: "2026-04-02T10:00:00.000Z",
});

/**
 * A session's records: a prompt, an answer, then those given (a prompt or an answer, in turn). A
 * resumed one starts with the old one's records, their uuids kept, under its own sessionId.
 */
function session(sessionId: string, firstPrompt: string, more: string[] = [], resumes = sessionId): object[] {
  const records = [
    message("user", `${resumes}-1`, null, firstPrompt, sessionId),
    message("assistant", `${resumes}-2`, `${resumes}-1`, "Done.", sessionId),
  ];
  more.forEach((content, index) => {
    const type = index % 2 === 0 ? "user" : "assistant";
    records.push(message(type, `${sessionId}-more-${index}`, records.at(-1)!.uuid, content, sessionId));
  });
  return records;
}

function write(dir: string, name: string, records: object[]): string {
  const file = path.join(dir, `${name}.jsonl`);
  fs.writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
  return file;
}

it("finds the file a session was resumed in, and the files a session holds whole, past a first prompt of a whole pasted log", async () => {
  const dir = tempDir("mnemo-resumed-");
  // Longer than a read: its uuid comes after the prompt, in the second read or later.
  const pasted = `Why does this fail?\n${"2026-04-02 ERROR tide table empty\n".repeat(6_000)}`;
  const old = write(dir, "old", session("old", pasted));
  const resumed = write(dir, "new", session("new", pasted, ["And now?", "It works."], "old"));
  write(dir, "other", session("other", "Something else entirely."));
  expect(await resumption(old)).toEqual({ heldBy: resumed, holds: [] });
  expect(await resumption(resumed)).toEqual({ heldBy: undefined, holds: [old] });
});

it("leaves apart a fork that went its own way, and two equal files", async () => {
  const dir = tempDir("mnemo-resumed-");
  const left = write(dir, "left", session("left", "Plan the trip.", ["By train?", "Yes."]));
  const right = write(dir, "right", session("right", "Plan the trip.", ["By boat?", "Yes."], "left"));
  expect(await resumption(left)).toEqual({ heldBy: undefined, holds: [] });
  expect(await resumption(right)).toEqual({ heldBy: undefined, holds: [] });
  fs.copyFileSync(left, path.join(dir, "copy.jsonl"));
  expect(await resumption(left)).toEqual({ heldBy: undefined, holds: [] });
});
