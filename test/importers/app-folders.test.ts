// Where `--apps` looks for each app's chats, on each system, and what it finds in a home folder.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appFolderLines, appFolderPath, appsOn, foundApps } from "../../src/importers/app-folders.js";
import { IMPORTERS } from "../../src/importers/registry.js";
import { tempDir } from "../temp-dirs.js";

describe("the apps' folders", () => {
  it("are under the home folder, the apps' settings folder of each system, or XDG's data folder", () => {
    const linux = { platform: "linux" as const, env: { HOME: "/home/ana" } };
    expect(appFolderPath({ home: ".claude/projects" }, linux)).toBe("/home/ana/.claude/projects");
    expect(appFolderPath({ appData: "Cursor/User" }, linux)).toBe("/home/ana/.config/Cursor/User");
    expect(appFolderPath({ appData: "Cursor/User" }, { ...linux, env: { HOME: "/home/ana", XDG_CONFIG_HOME: "/cfg" } })).toBe(
      "/cfg/Cursor/User",
    );
    expect(appFolderPath({ xdgData: "opencode/storage" }, linux)).toBe("/home/ana/.local/share/opencode/storage");
    expect(appFolderPath({ xdgData: "opencode/storage" }, { ...linux, env: { HOME: "/home/ana", XDG_DATA_HOME: "/data" } })).toBe(
      "/data/opencode/storage",
    );
    const mac = { platform: "darwin" as const, env: { HOME: "/Users/ana" } };
    expect(appFolderPath({ appData: "Cursor/User" }, mac)).toBe("/Users/ana/Library/Application Support/Cursor/User");
    const windows = { platform: "win32" as const, env: { USERPROFILE: "/Users/ana", APPDATA: "/Users/ana/AppData/Roaming" } };
    expect(appFolderPath({ appData: "Cursor/User" }, windows)).toBe(path.join("/Users/ana/AppData/Roaming", "Cursor", "User"));
    expect(appFolderPath({ home: ".codex/sessions" }, windows)).toBe(path.join("/Users/ana", ".codex", "sessions"));
  });

  it("on Windows, under %LOCALAPPDATA% as the variable says, where a profile moved to another disk keeps it", async () => {
    const ollama = { localAppData: "Ollama/db.sqlite" };
    const windows = { platform: "win32" as const, env: { USERPROFILE: "/Users/ana" } };
    expect(appFolderPath(ollama, windows)).toBe(path.join("/Users/ana", "AppData", "Local", "Ollama", "db.sqlite"));
    expect(appFolderPath(ollama, { ...windows, env: { ...windows.env, LOCALAPPDATA: "/D/ana/Local" } })).toBe(
      path.join("/D/ana/Local", "Ollama", "db.sqlite"),
    );
    const home = tempDir("mnemo-apps-");
    const local = tempDir("mnemo-localappdata-");
    for (const folder of [local, path.join(home, "AppData", "Local")]) {
      for (const file of ["Ollama/db.sqlite", "kiro-cli/data.sqlite3"]) {
        await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
        await writeFile(path.join(folder, file), "");
      }
    }
    const machine = { platform: "win32" as const, env: { USERPROFILE: home, LOCALAPPDATA: local } };
    expect(foundApps(machine, { watching: true }).map((app) => [app.name, app.folder])).toEqual([
      ["Kiro CLI", path.join(local, "kiro-cli", "data.sqlite3")],
      ["Ollama", path.join(local, "Ollama", "db.sqlite")],
    ]);
  });

  it("found are those that are folders on this machine, one inside another found left to it", async () => {
    const home = tempDir("mnemo-apps-");
    const config = path.join(home, ".config");
    for (const folder of [".claude/projects", ".codex/sessions", ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks"])
      await mkdir(path.join(home, folder), { recursive: true });
    // AnythingLLM's storage folder holds documents and vector caches: its database is what is found.
    await mkdir(path.join(config, "anythingllm-desktop", "storage", "documents"), { recursive: true });
    await writeFile(path.join(config, "anythingllm-desktop", "storage", "anythingllm.db"), "");
    // Zed's threads.db, in XDG's data folder on Linux (its macOS and Windows places are not looked at there).
    await mkdir(path.join(home, ".local", "share", "zed", "threads"), { recursive: true });
    await writeFile(path.join(home, ".local", "share", "zed", "threads", "threads.db"), "");
    await mkdir(path.join(home, "Library", "Application Support", "Zed", "threads"), { recursive: true });
    await writeFile(path.join(home, "Library", "Application Support", "Zed", "threads", "threads.db"), "");
    await mkdir(path.join(home, ".continue"), { recursive: true });
    await writeFile(path.join(home, ".continue", "sessions"), "a file, not the folder");
    const found = foundApps({ platform: "linux", env: { HOME: home } });
    expect(found.map((app) => [app.name, path.relative(home, app.folder), app.sessionLogs])).toEqual([
      ["Claude Code", path.join(".claude", "projects"), true],
      ["Codex", path.join(".codex", "sessions"), true],
      // Cline's tasks in Cursor's User folder are read with it.
      ["Cursor", path.join(".config", "Cursor", "User"), false],
      ["AnythingLLM", path.join(".config", "anythingllm-desktop", "storage", "anythingllm.db"), false],
      ["Zed", path.join(".local", "share", "zed", "threads", "threads.db"), false],
    ]);
    expect(
      foundApps({ platform: "linux", env: { HOME: home, XDG_CONFIG_HOME: path.join(config, "none") } }).map((app) => app.name),
    ).toEqual(["Claude Code", "Codex", "Zed"]);
    expect(foundApps({ platform: "darwin", env: { HOME: home } }).find((app) => app.name === "Zed")?.folder).toBe(
      path.join(home, "Library", "Application Support", "Zed", "threads", "threads.db"),
    );
    // Cursor's folder is imported, not watched: Cline's tasks in it are watched on their own. The apps'
    // databases written as they go on are watched, each the one file found (Importer.watchedDatabase).
    expect(
      foundApps({ platform: "linux", env: { HOME: home } }, { watching: true }).map((app) => [app.name, path.relative(home, app.folder)]),
    ).toEqual([
      ["Claude Code", path.join(".claude", "projects")],
      ["Codex", path.join(".codex", "sessions")],
      ["Cline", path.join(".config", "Cursor", "User", "globalStorage", "saoudrizwan.claude-dev", "tasks")],
      ["AnythingLLM", path.join(".config", "anythingllm-desktop", "storage", "anythingllm.db")],
      ["Zed", path.join(".local", "share", "zed", "threads", "threads.db")],
    ]);
  });

  it("watched are an app's session folders, and of an app that writes a database its database alone, not the folder around it", async () => {
    const home = tempDir("mnemo-apps-");
    const data = path.join(home, ".local", "share");
    // OpenCode's folder: opencode.db beside the storage files of before 1.2, which an import reads and a watch would detect at each start.
    await mkdir(path.join(data, "opencode", "storage", "part"), { recursive: true });
    await writeFile(path.join(data, "opencode", "opencode.db"), "");
    // Goose writes session logs too: its folder, with sessions.db in it.
    await mkdir(path.join(data, "goose", "sessions"), { recursive: true });
    // Zed's text threads are imported, not watched; its threads.db is.
    await mkdir(path.join(data, "zed", "conversations"), { recursive: true });
    await mkdir(path.join(data, "zed", "threads"), { recursive: true });
    await writeFile(path.join(data, "zed", "threads", "threads.db"), "");
    const machine = { platform: "linux" as const, env: { HOME: home } };
    expect(foundApps(machine).map((app) => [app.name, path.relative(data, app.folder)])).toEqual([
      ["OpenCode", "opencode"],
      ["Zed", path.join("zed", "threads", "threads.db")],
      ["Zed", path.join("zed", "conversations")],
      ["Goose", path.join("goose", "sessions")],
    ]);
    expect(foundApps(machine, { watching: true }).map((app) => [app.name, path.relative(data, app.folder)])).toEqual([
      ["OpenCode", path.join("opencode", "opencode.db")],
      ["Zed", path.join("zed", "threads", "threads.db")],
      ["Goose", path.join("goose", "sessions")],
    ]);
  });

  it("are listed for help, this machine's, home as ~", () => {
    const lines = appFolderLines({ platform: "darwin", env: { HOME: "/Users/ana" } });
    expect(lines).toMatch(/^ {2}Claude Code +~\/\.claude\/projects \(\$CLAUDE_CONFIG_DIR\)$/m);
    expect(lines).toMatch(/^ {2}Cursor +~\/Library\/Application Support\/Cursor\/User$/m);
    expect(lines).toMatch(/^ {2}AnythingLLM +~\/Library\/Application Support\/anythingllm-desktop\/storage\/anythingllm\.db$/m);
    expect(lines).toMatch(/^ {2}Zed +~\/Library\/Application Support\/Zed\/threads\/threads\.db\n +~\/\.config\/zed\/conversations$/m);
    // Folders that differ in one part are said once: every one named, none "and 15 more".
    expect(lines).toMatch(
      /^ {2}Cline +~\/Library\/Application Support\/<editor>\/User\/globalStorage\/\{saoudrizwan\.claude-dev,rooveterinaryinc\.roo-cline,kilocode\.kilo-code\}\/tasks\n +~\/\.cline\/data\/\{tasks,sessions\}$/m,
    );
    expect(lines).toMatch(/^ {2}Qwen Code +~\/\.qwen\/\{projects,tmp\} \(\$QWEN_RUNTIME_DIR or \$QWEN_HOME\)$/m);
    expect(lines).toMatch(
      /^ {2}<editor> is the folder of VS Code or of an editor built on it: Code, Code - Insiders, Cursor, Windsurf, VSCodium$/m,
    );
    expect(lines).not.toContain("more");
    // Complete: the braces and <editor> spelled out are each app's folders on this system, and no other.
    const editors = ["Code", "Code - Insiders", "Cursor", "Windsurf", "VSCodium"];
    const spelled = lines
      .split("\n")
      .filter((line) => !line.includes(" is the folder of ") && !line.includes(" is the variable that moves it"))
      .flatMap((line) =>
        line
          .trim()
          .replace(/^.*?\s{2,}/, "")
          .split(", ")
          .map((pattern) => pattern.replace(/ \([^)]*\)$/, "")),
      )
      .flatMap((pattern) => expand(pattern.replace("<editor>", `{${editors.join(",")}}`)));
    const machine = { platform: "darwin" as const, env: { HOME: "/Users/ana" } };
    const folders = IMPORTERS.flatMap((importer) =>
      (importer.appFolders ?? []).filter((folder) => folder.only === undefined || folder.only === "darwin"),
    ).map((folder) => appFolderPath(folder, machine).replace("/Users/ana/", "~/"));
    expect(new Set(spelled)).toEqual(new Set(folders));
    expect(spelled).toHaveLength(folders.length);
  });

  it("found are named by the app that keeps them: Kiro CLI's database, read as Amazon Q Developer CLI's", async () => {
    const home = tempDir("mnemo-apps-");
    const data = path.join(home, ".local", "share");
    for (const app of ["amazon-q", "kiro-cli"]) {
      await mkdir(path.join(data, app), { recursive: true });
      await writeFile(path.join(data, app, "data.sqlite3"), "");
    }
    const machine = { platform: "linux" as const, env: { HOME: home } };
    for (const watching of [false, true]) {
      expect(foundApps(machine, { watching }).map((app) => [app.format, app.name, path.relative(data, app.folder)])).toEqual([
        ["amazon-q", "Amazon Q Developer CLI", path.join("amazon-q", "data.sqlite3")],
        ["amazon-q", "Kiro CLI", path.join("kiro-cli", "data.sqlite3")],
      ]);
    }
  });

  it("to watch are listed without those only imported: Zed's text threads", () => {
    for (const machine of [
      { platform: "linux" as const, env: { HOME: "/home/ana" } },
      { platform: "darwin" as const, env: { HOME: "/Users/ana" } },
    ]) {
      const watched = appFolderLines(machine, { watching: true });
      expect(watched).toMatch(/^ {2}Zed +~\/(\.local\/share\/zed|Library\/Application Support\/Zed)\/threads\/threads\.db$/m);
      expect(watched).not.toMatch(/zed\/conversations/i);
      expect(appFolderLines(machine)).toContain("zed/conversations");
    }
  });
});

describe("every app --apps finds", () => {
  const apps = IMPORTERS.filter((importer) => (importer.appFolders ?? []).length > 0);

  it("is watched (its session logs, or a database it writes as it goes on), or says why not", () => {
    for (const importer of apps) {
      const watched =
        importer.sessionLogs === true ||
        importer.watchedDatabase === true ||
        (importer.appFolders ?? []).some((folder) => folder.watchedDatabase !== undefined);
      // Watched, it says no reason; not, it says why (`mnemo watch --apps` tells the user).
      expect({ app: importer.name, saysWhyNot: importer.notWatched !== undefined }).toEqual({ app: importer.name, saysWhyNot: !watched });
    }
  });

  it("on a machine with every app's folder and databases, each found is watched or said not to be with its app's reason", async () => {
    const home = tempDir("mnemo-apps-");
    const machine = { platform: "linux" as const, env: { HOME: home } };
    const reasons = new Map<string, Set<string>>();
    for (const importer of apps) {
      const folders = (importer.appFolders ?? []).filter(
        (folder) => (folder.only === undefined || folder.only === "linux") && !folder.listed,
      );
      const declared = [importer.notWatched, ...folders.map((folder) => folder.notWatched)].filter((why) => why !== undefined);
      reasons.set(importer.id, new Set(declared));
      for (const folder of folders) {
        const place = appFolderPath(folder, machine);
        if (folder.file) {
          await mkdir(path.dirname(place), { recursive: true });
          await writeFile(place, "");
          continue;
        }
        await mkdir(place, { recursive: true });
        const databases = folder.watchedDatabase ?? importer.extensions.filter((ending) => /^[^.].*\.\w+$/.test(ending));
        for (const database of databases) {
          await mkdir(path.dirname(path.join(place, database)), { recursive: true });
          await writeFile(path.join(place, database), "");
        }
      }
    }
    const found = appsOn(machine);
    expect(found.imported.length).toBeGreaterThan(30);
    for (const app of found.imported) {
      const watched = found.watched.some((other) => other.folder === app.folder || other.folder.startsWith(app.folder + path.sep));
      const said = found.notWatched.find((other) => other.folder === app.folder);
      expect({ app: app.name, folder: app.folder, watched, why: said?.why }).toEqual({
        app: app.name,
        folder: app.folder,
        watched: said === undefined,
        why: said === undefined ? undefined : [...reasons.get(app.format)!].find((why) => why === said.why),
      });
    }
  });
});

describe("an app's folder named in its settings", () => {
  it("is Jan's threads folder in the data folder its settings.json names, each place the app keeps settings.json, the same folder found once", async () => {
    const home = tempDir("mnemo-apps-");
    const moved = tempDir("mnemo-jan-data-");
    const settings = async (folder: string, dataFolder: unknown) => {
      await mkdir(path.join(home, folder), { recursive: true });
      await writeFile(path.join(home, folder, "settings.json"), JSON.stringify({ data_folder: dataFolder }));
    };
    // Jan 0.5 (Electron): settings.json in ~/.config/Jan, its data in ~/jan; Jan 0.6 on (Tauri): in ~/.local/share/Jan, moved.
    await settings(".config/Jan", path.join(home, "jan"));
    await settings(".local/share/Jan", moved);
    await mkdir(path.join(home, "jan", "threads", "jan_1"), { recursive: true });
    await mkdir(path.join(moved, "threads"), { recursive: true });
    const linux = { platform: "linux" as const, env: { HOME: home } };
    const jan = (machine: { platform: NodeJS.Platform; env: Record<string, string> }) =>
      foundApps(machine)
        .filter((app) => app.name === "Jan")
        .map((app) => app.folder);
    expect(jan(linux)).toEqual([path.join(home, "jan", "threads"), path.join(moved, "threads")]);
    // Both naming one folder (the upgrade copied settings.json over): it is read once.
    await settings(".config/Jan", moved);
    expect(jan(linux)).toEqual([path.join(moved, "threads")]);
    // A data folder without threads, a relative or missing data_folder, a damaged settings.json: nothing found.
    await settings(".local/share/Jan", "./data");
    await settings(".config/Jan", path.join(home, "nowhere"));
    expect(jan(linux)).toEqual([]);
    await writeFile(path.join(home, ".config", "Jan", "settings.json"), "{ damaged");
    expect(jan(linux)).toEqual([]);
    // macOS: both versions' settings.json in Application Support/Jan; XDG's folder is not looked in there.
    await settings("Library/Application Support/Jan", path.join(home, "Library", "Application Support", "Jan", "data"));
    await mkdir(path.join(home, "Library", "Application Support", "Jan", "data", "threads"), { recursive: true });
    await settings(".local/share/Jan", moved);
    expect(jan({ platform: "darwin", env: { HOME: home } })).toEqual([
      path.join(home, "Library", "Application Support", "Jan", "data", "threads"),
    ]);
  });

  it("is LM Studio's conversations in the home ~/.lmstudio-home-pointer names, beside its usual places", async () => {
    const home = tempDir("mnemo-apps-");
    const moved = tempDir("mnemo-lmstudio-home-");
    await mkdir(path.join(moved, "conversations"), { recursive: true });
    await mkdir(path.join(home, ".cache", "lm-studio", "conversations"), { recursive: true });
    await writeFile(path.join(home, ".lmstudio-home-pointer"), `${moved}\n`);
    const lmStudio = () =>
      foundApps({ platform: "linux", env: { HOME: home } })
        .filter((app) => app.name === "LM Studio")
        .map((app) => app.folder);
    expect(lmStudio()).toEqual([path.join(moved, "conversations"), path.join(home, ".cache", "lm-studio", "conversations")]);
    // The pointer naming the usual home (what LM Studio writes when it is not moved): found once.
    await mkdir(path.join(home, ".lmstudio", "conversations"), { recursive: true });
    await writeFile(path.join(home, ".lmstudio-home-pointer"), path.join(home, ".lmstudio"));
    expect(lmStudio()).toEqual([path.join(home, ".lmstudio", "conversations"), path.join(home, ".cache", "lm-studio", "conversations")]);
  });

  it("is Cherry Studio's data folder each copy of the app was moved to, named in ~/.cherrystudio/config/config.json, beside its usual place", async () => {
    const home = tempDir("mnemo-apps-");
    const [moved, portable, gone] = [tempDir("mnemo-cherry-"), tempDir("mnemo-cherry-"), path.join(tempDir("mnemo-cherry-"), "gone")];
    await mkdir(path.join(home, ".config", "CherryStudio"), { recursive: true });
    await mkdir(path.join(home, ".cherrystudio", "config"), { recursive: true });
    const config = path.join(home, ".cherrystudio", "config", "config.json");
    const cherry = () =>
      foundApps({ platform: "linux", env: { HOME: home } })
        .filter((app) => app.name === "Cherry Studio")
        .map((app) => app.folder);
    await writeFile(
      config,
      JSON.stringify({
        appDataPath: [
          { executablePath: "/opt/Cherry Studio/cherry-studio", dataPath: moved },
          { executablePath: "/home/ana/cherry-studio.appimage", dataPath: portable },
          { executablePath: "/old/cherry-studio", dataPath: gone },
        ],
      }),
    );
    expect(cherry()).toEqual([moved, portable, path.join(home, ".config", "CherryStudio")]);
    // Before the list, the one path as a string.
    await writeFile(config, JSON.stringify({ appDataPath: moved }));
    expect(cherry()).toEqual([moved, path.join(home, ".config", "CherryStudio")]);
  });

  it("watched is Cherry Studio 2's database alone in each data folder, not the folder whose caches change constantly; imported, the folder", async () => {
    const home = tempDir("mnemo-apps-");
    const [moved, older, alpha] = [tempDir("mnemo-cherry-"), tempDir("mnemo-cherry-"), tempDir("mnemo-cherry-")];
    const usual = path.join(home, ".config", "CherryStudio");
    for (const folder of [usual, moved, older, alpha]) await mkdir(path.join(folder, "IndexedDB"), { recursive: true });
    // 1.x's data folder (`older`) holds no database: imported, nothing to watch, and said so.
    for (const folder of [usual, moved]) {
      await mkdir(path.join(folder, "Data"));
      await writeFile(path.join(folder, "Data", "cherrystudio.sqlite"), "");
    }
    // 2.0's alphas and betas kept it in the data folder itself.
    await writeFile(path.join(alpha, "cherrystudio.sqlite"), "");
    await mkdir(path.join(home, ".cherrystudio", "config"), { recursive: true });
    await writeFile(
      path.join(home, ".cherrystudio", "config", "config.json"),
      JSON.stringify({ appDataPath: [{ dataPath: moved }, { dataPath: older }, { dataPath: alpha }] }),
    );
    const machine = { platform: "linux" as const, env: { HOME: home } };
    const cherry = (how: { watching?: boolean }) =>
      foundApps(machine, how)
        .filter((app) => app.name === "Cherry Studio")
        .map((app) => app.folder);
    expect(cherry({})).toEqual([moved, older, alpha, usual]);
    expect(cherry({ watching: true })).toEqual([
      path.join(moved, "Data", "cherrystudio.sqlite"),
      path.join(alpha, "cherrystudio.sqlite"),
      path.join(usual, "Data", "cherrystudio.sqlite"),
    ]);
    expect(appsOn(machine).notWatched.map((app) => [app.folder, app.why])).toEqual([
      [older, "no Data/cherrystudio.sqlite or cherrystudio.sqlite in it, the database watched as the app writes it"],
    ]);
    const lines = appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } }, { watching: true });
    expect(lines).toMatch(
      /^ {2}Cherry Studio +~\/\.cherrystudio\/config\/config\.json \(the data folders it names: the Data\/cherrystudio\.sqlite or cherrystudio\.sqlite in each\)\n +~\/\.config\/CherryStudio\/Data\/cherrystudio\.sqlite\n +~\/\.config\/CherryStudio\/cherrystudio\.sqlite$/m,
    );
  });

  it("is said in help as the list with what it names", () => {
    const lines = appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } });
    expect(lines).toMatch(
      /^ {2}Jan +~\/\.config\/Jan\/settings\.json \(the data folder it names\)\n +~\/\.local\/share\/Jan\/settings\.json \(the data folder it names\)$/m,
    );
    expect(lines).toMatch(
      /^ {2}Cherry Studio +~\/\.cherrystudio\/config\/config\.json \(the data folders it names\)\n +~\/\.config\/CherryStudio$/m,
    );
  });
});

describe("an app's folder moved by the variable the app reads", () => {
  const linux = (env: Record<string, string>) => ({ platform: "linux" as const, env: { HOME: "/home/ana", ...env } });
  const codex = { home: ".codex/sessions", moved: { env: "CODEX_HOME", path: "sessions" } };

  it("is under the variable's folder when it is set, else in its place", () => {
    expect(appFolderPath(codex, linux({ CODEX_HOME: "/data/codex" }))).toBe(path.join("/data/codex", "sessions"));
    expect(appFolderPath(codex, linux({}))).toBe("/home/ana/.codex/sessions");
    expect(appFolderPath(codex, linux({ CODEX_HOME: "" }))).toBe("/home/ana/.codex/sessions");
    // The first of its variables set (Qwen Code's QWEN_RUNTIME_DIR before QWEN_HOME), ~ as home where the app reads it so.
    const qwen = { home: ".qwen/projects", moved: { env: ["QWEN_RUNTIME_DIR", "QWEN_HOME"], path: "projects", tilde: true as const } };
    expect(appFolderPath(qwen, linux({ QWEN_HOME: "/q", QWEN_RUNTIME_DIR: "~/runtime" }))).toBe(
      path.join("/home/ana", "runtime", "projects"),
    );
    expect(appFolderPath(qwen, linux({ QWEN_HOME: "/q" }))).toBe(path.join("/q", "projects"));
    // Codex reads no ~ in CODEX_HOME: a relative path, as any other, from the working folder.
    expect(appFolderPath(codex, linux({ CODEX_HOME: "~/codex" }))).toBe(path.resolve("~/codex", "sessions"));
    // Goose ignores a GOOSE_PATH_ROOT that is not absolute.
    const goose = { xdgData: "goose/sessions", moved: { env: "GOOSE_PATH_ROOT", path: "data/sessions", absolute: true as const } };
    expect(appFolderPath(goose, linux({ GOOSE_PATH_ROOT: "relative/root" }))).toBe("/home/ana/.local/share/goose/sessions");
    expect(appFolderPath(goose, linux({ GOOSE_PATH_ROOT: "/goose" }))).toBe(path.join("/goose", "data", "sessions"));
  });

  it("is found there and not in the default place, which the app no longer writes; a folder the variable does not move still is", async () => {
    const home = tempDir("mnemo-apps-");
    const moved = tempDir("mnemo-codex-home-");
    for (const folder of [".codex/sessions", ".kimi/sessions", ".local/share/kimi/sessions"])
      await mkdir(path.join(home, folder), { recursive: true });
    await mkdir(path.join(moved, "sessions"), { recursive: true });
    await mkdir(path.join(moved, "kimi", "sessions"), { recursive: true });
    const machine = { platform: "linux" as const, env: { HOME: home, CODEX_HOME: moved, KIMI_SHARE_DIR: path.join(moved, "kimi") } };
    expect(foundApps(machine).map((app) => [app.name, app.folder])).toEqual([
      ["Codex", path.join(moved, "sessions")],
      ["Kimi CLI", path.join(moved, "kimi", "sessions")],
      // Kimi CLI's folder of before 0.34, which KIMI_SHARE_DIR never moved.
      ["Kimi CLI", path.join(home, ".local", "share", "kimi", "sessions")],
    ]);
  });

  it("is OpenCode's database where OPENCODE_DB names it: an absolute path as it is, a relative one under OpenCode's data folder", () => {
    const opencode = IMPORTERS.find((importer) => importer.id === "opencode")!.appFolders!.find((folder) => folder.file === true)!;
    expect(appFolderPath(opencode, linux({}))).toBe("/home/ana/.local/share/opencode/opencode.db");
    expect(appFolderPath(opencode, linux({ OPENCODE_DB: "/work/oc.sqlite" }))).toBe("/work/oc.sqlite");
    expect(appFolderPath(opencode, linux({ OPENCODE_DB: "chats/oc.sqlite" }))).toBe("/home/ana/.local/share/opencode/chats/oc.sqlite");
    expect(appFolderPath(opencode, linux({ OPENCODE_DB: "oc.sqlite", XDG_DATA_HOME: "/data" }))).toBe("/data/opencode/oc.sqlite");
    const kilo = IMPORTERS.find((importer) => importer.id === "opencode")!.appFolders!.find((folder) => folder.moved?.env === "KILO_DB")!;
    expect(appFolderPath(kilo, linux({}))).toBe("/home/ana/.local/share/kilo/kilo.db");
    expect(appFolderPath(kilo, linux({ KILO_DB: "/work/kilo.sqlite", OPENCODE_DB: "/work/oc.sqlite" }))).toBe("/work/kilo.sqlite");
  });

  it("is listed for help with its variable, where it is when it is set", () => {
    const unset = appFolderLines({ platform: "linux", env: { HOME: "/home/ana" } });
    expect(unset).toMatch(/^ {2}Codex +~\/\.codex\/sessions \(\$CODEX_HOME\)$/m);
    expect(unset).toMatch(/^ {2}Crush +~\/\.local\/share\/crush\/projects\.json \(the databases it lists; \$CRUSH_GLOBAL_DATA\)$/m);
    expect(unset).toMatch(/^ {2}\(\$NAME\) after a folder is the variable that moves it: where it is set, --apps looks under it instead$/m);
    const set = appFolderLines({ platform: "linux", env: { HOME: "/home/ana", CODEX_HOME: "/data/codex" } }, { watching: true });
    expect(set).toMatch(/^ {2}Codex +\/data\/codex\/sessions \(\$CODEX_HOME\)$/m);
  });
});

/** A pattern's braces spelled out: a/{b,c}/d is a/b/d and a/c/d. */
function expand(pattern: string): string[] {
  const brace = /\{([^}]*)\}/.exec(pattern);
  if (!brace) return [pattern];
  return brace[1]!
    .split(",")
    .flatMap((name) => expand(pattern.slice(0, brace.index) + name + pattern.slice(brace.index + brace[0].length)));
}
