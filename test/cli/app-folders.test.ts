// The folders a watch keeps (`mnemo watch`, `mnemo serve --watch`): those given and the apps' found, each named by its app.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { foldersToWatch } from "../../src/cli/app-folders.js";
import { createOutput } from "../../src/cli/output.js";
import type { Session } from "../../src/cli/session.js";
import { tempDir } from "../temp-dirs.js";

function sessionIn(home: string): { session: Session; said: () => string } {
  let said = "";
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      said += chunk.toString();
      done();
    },
  });
  const io = { env: { HOME: home }, stdin: Readable.from([]), stdout: sink, stderr: sink, exitCode: 0 };
  return { session: { out: createOutput({ json: false, io }), options: { json: false, yes: false }, io }, said: () => said };
}

describe("the folders a watch keeps", () => {
  it("are those given and the apps' found, each once, each named by the app whose sessions it holds, from one look at the machine", async () => {
    const home = tempDir();
    const continueSessions = path.join(home, ".continue", "sessions");
    const claudeProjects = path.join(home, ".claude", "projects");
    const downloads = path.join(home, "Downloads");
    for (const folder of [continueSessions, claudeProjects, downloads]) await mkdir(folder, { recursive: true });
    const { session, said } = sessionIn(home);
    expect(await foldersToWatch(session, [downloads, continueSessions], { apps: true, flag: "--apps" })).toEqual([
      { folder: downloads, sessionsOf: undefined, format: undefined },
      { folder: continueSessions, sessionsOf: "Continue", format: "continue" },
      { folder: claudeProjects, sessionsOf: "Claude Code", format: "claude-code" },
    ]);
    expect(said()).toContain("Watching the chats of these apps:\n  Claude Code (~/.claude/projects)\n  Continue (~/.continue/sessions)");
    // Without --apps, a folder given is still named by its app.
    expect(await foldersToWatch(session, [continueSessions], { apps: false, flag: "--apps" })).toEqual([
      { folder: continueSessions, sessionsOf: "Continue", format: "continue" },
    ]);
  });
});
