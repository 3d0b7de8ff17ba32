import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort, isolatedEnv, ROOT, runCli, spawnCli, tempDir } from "../helpers.js";

const SYSTEMD = "/lib/systemd/systemd";

/**
 * systemd's user manager runs here without systemd as process 1 when it believes it was booted with
 * systemd: in a mount namespace of its own, /run/systemd/system is made to exist (on a tmpfs), which
 * is all it checks. Everything else is the real manager: the unit file read from ~/.config, enabled,
 * started, restarted after a kill -9, stopped. Needs root (to make the namespace) and Debian's systemd.
 */
const canRunUserManager =
  process.platform === "linux" &&
  process.getuid?.() === 0 &&
  fs.existsSync(SYSTEMD) &&
  spawnSync("unshare", ["--mount", "true"]).status === 0 &&
  spawnSync("systemctl", ["--version"]).status === 0;

interface UserManager {
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function startUserManager(): Promise<UserManager> {
  const home = tempDir("mnemo-home-");
  const runtime = tempDir("mnemo-runtime-");
  fs.chmodSync(runtime, 0o700);
  const env = isolatedEnv({ HOME: home, XDG_RUNTIME_DIR: runtime });
  const script = `mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec ${SYSTEMD} --user`;
  const child: ChildProcess = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", script], { env, stdio: "ignore" });
  await vi.waitFor(() => expect(fs.existsSync(path.join(runtime, "systemd", "private"))).toBe(true), { timeout: 20_000, interval: 100 });
  return {
    env,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const serverPid = (store: string): number | undefined => {
  try {
    return (JSON.parse(fs.readFileSync(path.join(store, "server.json"), "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
};

describe.skipIf(!canRunUserManager)("mnemo service with systemd's user manager", () => {
  let manager: UserManager;
  let env: NodeJS.ProcessEnv;
  let store: string;
  let port: number;
  // install and uninstall: the binary in a process of its own, as a user's shell runs it.
  const mnemo = (args: string[]) => spawnCli(args, { env });
  // What reads the service (status, logs) or goes through it (memories), looked at again and again: in
  // this process (runCli), each spawned process cost ~0.5 s of CPU to start.
  const here = (args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    manager = await startUserManager();
    // systemd reads % and $ in a unit as its own specifiers and variables, and splits on spaces.
    store = path.join(tempDir(), "my store, 100% $HOME");
    env = { ...manager.env, MNEMO_STORE: store };
    // The store records its embedder; the service opens it with the one it has.
    expect((await runCli(["remember", "My dog Biscuit is a golden retriever"], { env: { ...env, MNEMO_EMBEDDER: "bundled" } })).code).toBe(
      0,
    );
    port = await freePort();
  });
  afterAll(async () => {
    await mnemo(["service", "uninstall"]).catch(() => undefined);
    await manager?.stop();
  });

  it("install starts the server on the store; the CLI answers through it; installing again changes nothing", async () => {
    const installed = await mnemo(["service", "install", "--port", String(port)]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toMatch(
      new RegExp(`Installed mnemo serves http://127.0.0.1:${port} now and at every login \\(systemd user unit mnemo.service`),
    );
    const unit = fs.readFileSync(path.join(env["HOME"]!, ".config", "systemd", "user", "mnemo.service"), "utf8");
    expect(unit).toContain(`"--store" "${store.replace("%", "%%").replace("$", "$$$$")}" "serve"`);
    const pid = serverPid(store);
    expect(pid).toBeGreaterThan(0);

    const listed = await here(["memories"]);
    expect(listed.stdout).toMatch(/My dog Biscuit/);
    // The server writes its request lines in batches, a tenth of a second apart.
    await vi.waitFor(
      async () => expect((await here(["service", "logs", "-n", "20"])).stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+Z GET \/api\/v2\/memory 200 /m),
      { timeout: 10_000, interval: 200 },
    );

    const again = await mnemo(["service", "install", "--port", String(port)]);
    expect([again.code, again.stderr]).toEqual([0, expect.stringMatching(/Already installed: mnemo serves/)]);
    expect(serverPid(store)).toBe(pid);
  });

  it("status says whether it runs, where, on which store and since when", async () => {
    const status = JSON.parse((await here(["--json", "service", "status"])).stdout);
    expect(status).toMatchObject({
      installed: true,
      enabledAtLogin: true,
      running: true,
      store,
      server: { url: `http://127.0.0.1:${port}`, pid: serverPid(store), startedAt: expect.any(String) },
      lastErrors: [],
    });
    const human = await here(["service", "status"]);
    expect(human.stdout).toMatch(/^Service: +running \(systemd user unit mnemo.service, starts at login\)$/m);
    expect(human.stdout).toMatch(new RegExp(`^Store: +${escaped(store)}$`, "m"));
  });

  it("a server that dies is started again", async () => {
    const pid = serverPid(store)!;
    process.kill(pid, "SIGKILL");
    await vi.waitFor(() => expect(serverPid(store)).not.toBe(pid), { timeout: 30_000, interval: 250 });
    await vi.waitFor(
      async () => expect(JSON.parse((await here(["--json", "service", "status"])).stdout)).toMatchObject({ running: true, restarts: 1 }),
      { timeout: 30_000, interval: 500 },
    );
    expect((await here(["memories"])).stdout).toMatch(/My dog Biscuit/);
  });

  it("with --watch, the service imports new exports of a folder, in its log and its status", async () => {
    const downloads = tempDir("mnemo-downloads-");
    const changed = await mnemo(["service", "install", "--port", String(port), "--watch", downloads]);
    expect([changed.code, changed.stderr]).toEqual([0, expect.stringMatching(new RegExp(`New exports in ${downloads} are imported`))]);
    await vi.waitFor(async () => expect((await here(["service", "logs"])).stdout).toMatch(/Watching .* for chat exports/), {
      timeout: 30_000,
    });
    fs.copyFileSync(path.join(ROOT, "fixtures", "exports", "chatgpt-export.zip"), path.join(downloads, "chatgpt-export.zip"));
    await vi.waitFor(
      async () => {
        const status = JSON.parse((await here(["--json", "service", "status"])).stdout);
        expect(status.watching).toEqual([downloads]);
        expect(status.recentImports).toEqual([expect.objectContaining({ format: "chatgpt", conversations: 4, new: 4 })]);
      },
      { timeout: 60_000, interval: 500 },
    );
    expect((await here(["service", "logs"])).stdout).toMatch(/Z From .*chatgpt-export\.zip \(chatgpt\): Imported 4 new conversations$/m);
    expect((await here(["service", "status"])).stdout).toMatch(
      /^Imported from watched folders:\n {2}.*chatgpt-export\.zip \(chatgpt\): Imported 4 new conversations$/m,
    );
  });

  it("a server that cannot start is reported with its error, by install and by status", async () => {
    const taken = net.createServer();
    const busy = await freePort();
    await new Promise<void>((resolve) => taken.listen(busy, "127.0.0.1", resolve));
    try {
      const failed = await mnemo(["service", "install", "--port", String(busy)]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(new RegExp(`The service did not start .*Port ${busy} on 127.0.0.1 is already in use`, "s"));
      const status = JSON.parse((await here(["--json", "service", "status"])).stdout);
      expect(status).toMatchObject({ installed: true, running: false });
      expect(status.lastErrors.at(-1)).toMatch(new RegExp(`Z ✖ Port ${busy} on 127.0.0.1 is already in use`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const fixed = await mnemo(["service", "install", "--port", String(port)]);
    expect([fixed.code, fixed.stderr]).toEqual([0, expect.stringMatching(/Installed mnemo serves/)]);
  });

  it("uninstall stops it and removes it, and leaves the store alone", async () => {
    const pid = serverPid(store)!;
    const removed = await mnemo(["service", "uninstall"]);
    expect([removed.code, removed.stderr]).toEqual([0, expect.stringMatching(new RegExp(`Your store at ${escaped(store)} is untouched`))]);
    expect(fs.existsSync(path.join(env["HOME"]!, ".config", "systemd", "user", "mnemo.service"))).toBe(false);
    await vi.waitFor(() => expect(fs.existsSync(`/proc/${pid}`)).toBe(false), { timeout: 30_000 });
    expect((await here(["memories"])).stdout).toMatch(/My dog Biscuit/);
    const twice = await mnemo(["service", "uninstall"]);
    expect([twice.code, twice.stderr]).toEqual([0, expect.stringMatching(/not installed: nothing to remove/)]);
  });
});

describe("the systemd unit mnemo service installs", () => {
  it.skipIf(spawnSync("systemd-analyze", ["--version"]).status !== 0)("passes systemd-analyze verify", async () => {
    const { systemdUnit } = await import("../../src/cli/service/units.js");
    const dir = tempDir();
    const file = path.join(dir, "mnemo.service");
    fs.writeFileSync(
      file,
      systemdUnit({
        node: process.execPath,
        bin: path.join(dir, "with space", "mnemo.js"),
        store: path.join(dir, "100% store"),
        logFile: path.join(dir, "serve.log"),
        port: 7411,
        watch: [path.join(dir, "Downloads")],
      }),
    );
    const verified = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
    expect(verified.stderr).toBe("");
    expect(verified.status).toBe(0);
  });
});

/**
 * The launchd agent is written for macOS and cannot be loaded here (no launchctl): its file is read
 * back by Python's plistlib, the reader of Apple's format that Debian has, and checked key by key.
 */
describe("the launchd agent mnemo service installs on macOS", () => {
  it.skipIf(spawnSync("python3", ["--version"]).status !== 0)(
    "is a property list that runs mnemo serve at login, again when it dies",
    async () => {
      const { launchdPlist } = await import("../../src/cli/service/units.js");
      const spec = {
        node: "/usr/local/bin/node",
        bin: "/Users/me/Library/mnemo & co/bin/mnemo.js",
        store: "/Users/me/.mnemo",
        logFile: "/Users/me/Library/Logs/mnemo/serve.log",
        watch: ["/Users/me/Downloads"],
        watchApps: true,
      };
      const read = spawnSync("python3", ["-c", "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))"], {
        input: launchdPlist(spec),
        encoding: "utf8",
      });
      expect(read.stderr).toBe("");
      expect(JSON.parse(read.stdout)).toEqual({
        Label: "dev.mnemo.serve",
        ProgramArguments: [
          spec.node,
          spec.bin,
          "--store",
          spec.store,
          "serve",
          "--log-file",
          spec.logFile,
          "--watch",
          "/Users/me/Downloads",
          "--watch-apps",
        ],
        RunAtLoad: true,
        KeepAlive: { SuccessfulExit: false },
        ThrottleInterval: 5,
        ExitTimeOut: 20,
        ProcessType: "Background",
        StandardOutPath: spec.logFile,
        StandardErrorPath: spec.logFile,
      });
    },
  );
});

describe.skipIf(process.platform !== "linux" || spawnSync("systemctl", ["--version"]).status !== 0)(
  "mnemo service where no systemd user manager runs",
  () => {
    it("install says so and what to do instead, and writes nothing", async () => {
      const runtime = tempDir("mnemo-runtime-");
      const env = isolatedEnv({ XDG_RUNTIME_DIR: runtime, MNEMO_STORE: path.join(tempDir(), "store") });
      const result = await runCli(["service", "install"], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/systemd's user manager cannot be reached here: .*\n.*run `mnemo serve` from your own startup script/);
      expect(fs.existsSync(path.join(env["HOME"]!, ".config"))).toBe(false);
      expect(fs.existsSync(path.join(env["HOME"]!, ".local"))).toBe(false);
      const status = JSON.parse((await runCli(["--json", "service", "status"], { env })).stdout);
      expect(status).toMatchObject({ installed: false, running: false });
    });
  },
);
