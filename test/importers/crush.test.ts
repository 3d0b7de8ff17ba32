// Crush's crush.db (fixtures/exports/crush/build-fixtures.mjs: the tables every migration leaves,
// rows as Crush writes them), and where --apps finds each project's database (its projects.json).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { appFolderLines, foundApps } from "../../src/importers/app-folders.js";
import { crush } from "../../src/importers/crush/index.js";
import { detect } from "../../src/importers/detect.js";
import { fileSource } from "../../src/importers/source.js";
import { UploadConversation } from "../../src/schemas/chat-history.js";
import { tempDir } from "../temp-dirs.js";
import { collect, collectWithSkips, fixtures } from "./collect.js";

const database = join(fixtures, "crush", "crush.db");
const MAIN = "7d9c2b4e-5a61-4f0e-9b3d-2c8e1f6a4d20";
const LATER = "c4a1e9f2-3b7d-4e58-a6c0-9d2f8b1e7a35";

/** A copy of the fixture with `sql` run on it, as crush.db in a folder of its own. */
async function changedCopy(...sql: string[]): Promise<string> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(database));
  for (const statement of sql) db.run(statement);
  const path = join(tempDir("mnemo-crush-"), "crush.db");
  writeFileSync(path, db.export());
  db.close();
  return path;
}

describe("Crush's crush.db", () => {
  it("is known by its tables; the sessions Crush lists, sub-agents' and the title generator's left out, an empty one said", async () => {
    expect(await detect(await fileSource(database))).toMatchObject({ format: "crush", layout: "database" });
    const { conversations, skipped } = await collectWithSkips(database);
    expect(conversations.map(({ conversation }) => [conversation.id, conversation.title, conversation.messages.length])).toEqual([
      [MAIN, "Tide table parsing past midnight", 4],
      [LATER, "Add Aveiro's harbour to the stations list.", 5], // still "New Session": its first typed prompt, not the shell command before it
    ]);
    expect(skipped).toEqual({
      "sub-agents' and title generators' sessions (the agent's side work, left out as Crush's session list leaves them)": 2,
      "sessions without any message text": 1,
    });
    for (const conversation of conversations) {
      expect(UploadConversation.parse(conversation)).toEqual(conversation);
      expect([conversation.platform, conversation.platformDisplayName, conversation.complete]).toEqual(["crush", "Crush", true]);
    }
  });

  it("each prompt with its attachments by name, and the agent's whole answer, tools on one line; reasoning and results left out", async () => {
    const [session] = await collect(database);
    expect(session?.conversation).toMatchObject({ createdAt: "2025-12-08T10:00:00.000Z", updatedAt: "2025-12-08T10:07:00.000Z" });
    expect(session?.conversation.messages.map(({ role, content, createdAt }) => [role, content, createdAt])).toEqual([
      ["human", "The tide table for Porto shows high water at 25:10. Why?", "2025-12-08T10:00:00.000Z"],
      [
        "assistant",
        "Let me look at the parser and its tests.\n\n[tool: view] [tool: agent] [tool: edit] [tool: bash]\n\nThe parser added 24 hours to times past midnight twice; now they roll over to the next day once.",
        "2025-12-08T10:00:02.000Z",
      ],
      ["human", "Check it against this table too.\n\n[file: leixoes.csv]\n\n[image]", "2025-12-08T10:06:40.000Z"],
      ["assistant", "Leixões' table parses too: every time after midnight lands on the next day.", "2025-12-08T10:06:45.000Z"],
    ]);
  });

  it("a shell command as the user ran it; a summary, which the chat shows, an answer of its own; the prompt Crush queued after it left out", async () => {
    const [, later] = await collect(database);
    expect(later?.conversation.messages.map(({ id, role, content }) => [id, role, content])).toEqual([
      ["a3f5a7c9-1e2a-4b4c-9d5e-3f5a7c9e1b22", "human", "! git log --oneline -3"],
      ["b5a7c9e1-3a4c-4d6e-8f7a-5a7c9e1b3d24", "human", "Add Aveiro's harbour to the stations list.\nIts code is AVE."],
      ["c7c9e1b3-5c6e-4f8a-9b9c-7c9e1b3d5f26", "assistant", "[tool: edit]"],
      [
        "5b8d0f2a-4c6e-4a1b-9d3f-6e8a0c2b4d91",
        "assistant",
        "Summary: Aveiro (AVE) is being added to tides/stations.py; the parser's midnight fix is committed.",
      ],
      ["f3d5f7a9-1b2e-4f4a-9b5c-3d5f7a9c1e32", "assistant", "Aveiro is in the stations list, code AVE."],
    ]);
    // Before October 2025 a summary was known only as the session's summary_message_id.
    const older = await changedCopy("UPDATE messages SET is_summary_message = 0");
    expect((await collect(older))[1]?.conversation.messages).toHaveLength(5);
  });

  it("a message whose parts are damaged costs only itself; a named session keeps its name", async () => {
    const damaged = await changedCopy(
      `UPDATE messages SET parts = '[{"type":"text","data":{"te' WHERE id = 'd7f9b1c3-5e6a-4b8c-9d0f-7a9b1d3f5a16'`,
      `UPDATE sessions SET title = 'Aveiro station' WHERE id = '${LATER}'`,
    );
    const { conversations, skipped } = await collectWithSkips(damaged);
    expect(conversations.map(({ conversation }) => [conversation.title, conversation.messages.length])).toEqual([
      ["Tide table parsing past midnight", 3],
      ["Aveiro station", 5],
    ]);
    expect(skipped).toMatchObject({ "messages whose stored JSON is damaged (left out)": 1 });
  });

  it("in a folder, only the database Crush names crush.db is opened", async () => {
    const folder = tempDir("mnemo-crush-");
    copyFileSync(database, join(folder, "crush.db"));
    copyFileSync(database, join(folder, "crush-backup.db"));
    expect((await collect(folder)).map((c) => c.conversation.id)).toEqual([MAIN, LATER]);
  });

  it("--apps finds each project's crush.db that projects.json lists, a relative data folder under its project", () => {
    const home = tempDir("mnemo-crush-home-");
    const project = (folder: string) => {
      mkdirSync(folder, { recursive: true });
      copyFileSync(database, join(folder, "crush.db"));
    };
    project(join(home, "src", "tides", ".crush"));
    project(join(home, "src", "ferries", "state"));
    const list = {
      projects: [
        { path: join(home, "src", "tides"), data_dir: join(home, "src", "tides", ".crush"), last_accessed: "2026-08-20T09:00:00Z" },
        { path: join(home, "src", "tides", "docs"), data_dir: join(home, "src", "tides", ".crush"), last_accessed: "2026-08-19T09:00:00Z" },
        { path: join(home, "src", "ferries"), data_dir: "state", last_accessed: "2026-08-18T09:00:00Z" },
        { path: join(home, "src", "gone"), data_dir: join(home, "src", "gone", ".crush"), last_accessed: "2026-01-02T09:00:00Z" },
      ],
    };
    mkdirSync(join(home, ".local", "share", "crush"), { recursive: true });
    writeFileSync(join(home, ".local", "share", "crush", "projects.json"), JSON.stringify(list, null, 2));
    const crushFound = (env: Record<string, string>) =>
      foundApps({ platform: "linux", env })
        .filter((app) => app.format === "crush")
        .map((app) => app.folder);
    expect(crushFound({ HOME: home })).toEqual([
      join(home, "src", "tides", ".crush", "crush.db"),
      join(home, "src", "ferries", "state", "crush.db"),
    ]);
    // Where XDG's data folder is moved, Crush keeps its list there.
    expect(crushFound({ HOME: home, XDG_DATA_HOME: join(home, "data") })).toEqual([]);
    // And where CRUSH_GLOBAL_DATA names its data folder, there (before XDG's).
    const moved = tempDir("mnemo-crush-data-");
    writeFileSync(join(moved, "projects.json"), JSON.stringify({ projects: list.projects.slice(0, 1) }));
    expect(crushFound({ HOME: home, CRUSH_GLOBAL_DATA: moved, XDG_DATA_HOME: join(home, ".local", "share") })).toEqual([
      join(home, "src", "tides", ".crush", "crush.db"),
    ]);
    writeFileSync(join(home, ".local", "share", "crush", "projects.json"), "{ damaged");
    expect(crushFound({ HOME: home })).toEqual([]);
    expect(crush.sessionLogs).toBeUndefined(); // a database, imported, not watched
    expect(appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } })).toMatch(
      /^ {2}Crush +~\/\.local\/share\/crush\/projects\.json \(the databases it lists; \$CRUSH_GLOBAL_DATA\)$/m,
    );
    expect(appFolderLines({ platform: "win32", env: { USERPROFILE: "/Users/ana", HOME: "/Users/ana" } })).toMatch(
      /^ {2}Crush +\S+ \(the databases it lists; \$CRUSH_GLOBAL_DATA\)\n +.*AppData.Local.crush.projects\.json \(the databases it lists; \$CRUSH_GLOBAL_DATA\)$/m,
    );
  });
});
