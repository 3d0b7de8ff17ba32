import { execFile } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { AppError } from "../../shared/errors.js";
import { LAUNCHD_LABEL, launchdPlist, SYSTEMD_UNIT, systemdUnit, WINDOWS_TASK, windowsTaskCommand, type ServiceSpec } from "./units.js";

/** What the service manager says of the service. */
export interface ManagerState {
  /** Loaded and set to start at login. */
  enabled: boolean;
  running: boolean;
  pid?: number | undefined;
  /** Times the manager has started it again after it died. */
  restarts?: number | undefined;
  /** How the last run ended, in the manager's words, when it ended badly. */
  failure?: string | undefined;
}

/**
 * One entry per platform: where its file goes, what the file says, and how its manager loads,
 * unloads and reports it. `mnemo service` works through the entry of the platform it runs on.
 */
export interface ServiceManager {
  /** What the user reads: "systemd user unit mnemo.service". */
  name: string;
  /** Where mnemo keeps the service's log and settings. */
  folder: string;
  unitFile: string;
  render(spec: ServiceSpec): string;
  /** Throws, with what to do instead, when this machine's manager cannot take the service (before any file is written). */
  check(spec: ServiceSpec): Promise<void>;
  /** Loads the file, sets it to start at login, and starts it (again, when `changed`). */
  start(spec: ServiceSpec, changed: boolean): Promise<void>;
  /** Stops it and stops it starting at login (the file is removed by the caller). */
  stop(): Promise<void>;
  state(): Promise<ManagerState>;
}

export function serviceManager(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): ServiceManager {
  const home = env["HOME"] || os.homedir();
  if (platform === "darwin") return launchd(home, env);
  if (platform === "win32") return windows(env);
  return systemd(home, env);
}

function systemd(home: string, env: NodeJS.ProcessEnv): ServiceManager {
  const config = absolute(env["XDG_CONFIG_HOME"]) ?? path.join(home, ".config");
  const systemctl = (...args: string[]) => run("systemctl", ["--user", ...args], env, systemdMissing);
  return {
    name: `systemd user unit ${SYSTEMD_UNIT}`,
    folder: path.join(absolute(env["XDG_STATE_HOME"]) ?? path.join(home, ".local", "state"), "mnemo"),
    unitFile: path.join(config, "systemd", "user", SYSTEMD_UNIT),
    render: systemdUnit,
    check: async () => {
      await systemctl("show-environment");
    },
    start: async (_spec, changed) => {
      await systemctl("daemon-reload");
      await systemctl("enable", SYSTEMD_UNIT);
      // A unit that gave up after failing (start limit) would refuse to start again.
      await systemctl("reset-failed", SYSTEMD_UNIT).catch(() => undefined);
      await systemctl(changed ? "restart" : "start", SYSTEMD_UNIT);
    },
    // A manager that cannot be reached runs nothing: the files go all the same.
    stop: async () => {
      await systemctl("disable", "--now", SYSTEMD_UNIT).catch(() => undefined);
      await systemctl("daemon-reload").catch(() => undefined);
    },
    state: async () => {
      const fields = parseProperties(
        await systemctl("show", SYSTEMD_UNIT, "-p", "UnitFileState,ActiveState,SubState,MainPID,NRestarts,Result,ExecMainStatus"),
      );
      const pid = Number(fields["MainPID"] ?? 0);
      return {
        enabled: fields["UnitFileState"] === "enabled",
        running: fields["ActiveState"] === "active" && fields["SubState"] === "running",
        pid: pid > 0 ? pid : undefined,
        restarts: Number(fields["NRestarts"] ?? 0),
        failure:
          fields["Result"] && fields["Result"] !== "success"
            ? `${fields["Result"]} (exit status ${fields["ExecMainStatus"] ?? "?"})`
            : undefined,
      };
    },
  };
}

function systemdMissing(output: string): AppError {
  return new AppError("unavailable", `systemd's user manager cannot be reached here: ${output.trim().split("\n")[0]}`, {
    suggestion:
      "On a system without a systemd user session (a container, WSL without systemd), run `mnemo serve` from your own startup script instead (README: mnemo at login).",
  });
}

/** Written for macOS and tested for its content only: launchctl could not be run where mnemo is tested. */
function launchd(home: string, env: NodeJS.ProcessEnv): ServiceManager {
  const domain = `gui/${process.getuid?.() ?? 501}`;
  const target = `${domain}/${LAUNCHD_LABEL}`;
  const unitFile = path.join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
  const launchctl = (...args: string[]) => run("launchctl", args, env, launchdFailed);
  return {
    name: `launchd agent ${LAUNCHD_LABEL}`,
    folder: path.join(home, "Library", "Logs", "mnemo"),
    unitFile,
    render: launchdPlist,
    check: async () => undefined,
    start: async (_spec, changed) => {
      const loaded = await launchctl("print", target).then(
        () => true,
        () => false,
      );
      if (loaded && changed) await launchctl("bootout", target);
      if (!loaded || changed) await launchctl("bootstrap", domain, unitFile);
      await launchctl("enable", target);
      await launchctl("kickstart", target);
    },
    stop: async () => {
      await launchctl("bootout", target).catch(() => undefined);
    },
    state: async () => {
      let printed: string;
      try {
        printed = await launchctl("print", target);
      } catch {
        return { enabled: false, running: false };
      }
      const value = (key: string) => printed.match(new RegExp(`^\\s*${key} = (.*)$`, "m"))?.[1]?.trim();
      const pid = Number(value("pid") ?? 0);
      const exit = value("last exit code");
      return {
        enabled: true,
        running: value("state") === "running",
        pid: pid > 0 ? pid : undefined,
        failure: exit && exit !== "0" && exit !== "(never exited)" ? `last exit code ${exit}` : undefined,
      };
    },
  };
}

function launchdFailed(output: string): AppError {
  return new AppError("unavailable", `launchctl failed: ${output.trim().split("\n")[0]}`, {
    suggestion: "Run `mnemo service install` again from a Terminal of the logged-in user.",
  });
}

/** Windows: no manager mnemo drives itself; `install` says which Task Scheduler command to run. */
function windows(env: NodeJS.ProcessEnv): ServiceManager {
  const folder = path.join(env["LOCALAPPDATA"] || path.join(os.homedir(), "AppData", "Local"), "mnemo");
  return {
    name: `Task Scheduler task ${WINDOWS_TASK}`,
    folder,
    unitFile: path.join(folder, "task.txt"),
    render: (spec) => `${windowsTaskCommand(spec)}\n`,
    check: async (spec) => {
      throw new AppError("unavailable", "mnemo does not register itself with Task Scheduler", {
        suggestion: `Run this once in a Command Prompt (it starts mnemo serve at logon): ${windowsTaskCommand(spec)}`,
      });
    },
    start: async (spec) => {
      throw new AppError("unavailable", "mnemo does not register itself with Task Scheduler", {
        suggestion: `Run this once in a Command Prompt (it starts mnemo serve at logon): ${windowsTaskCommand(spec)}`,
      });
    },
    stop: async () => {
      throw new AppError("unavailable", "mnemo does not register itself with Task Scheduler", {
        suggestion: `Remove the task with: schtasks /Delete /F /TN ${WINDOWS_TASK}`,
      });
    },
    state: async () => ({ enabled: false, running: false }),
  };
}

/** `KEY=value` lines (systemctl show). */
export function parseProperties(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

function absolute(dir: string | undefined): string | undefined {
  return dir && path.isAbsolute(dir) ? dir : undefined;
}

/** A manager's command; its failure becomes `failed(output)`. A command that is not installed fails the same way. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, failed: (output: string) => AppError): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const code = (error as NodeJS.ErrnoException).code;
      reject(failed(code === "ENOENT" ? `${command} is not installed` : `${stderr || stdout || error.message}`));
    });
  });
}
