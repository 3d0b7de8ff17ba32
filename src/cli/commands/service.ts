import fs from "node:fs";
import path from "node:path";
import { Option, type Command } from "commander";
import type { ServerInfo } from "../../config/server-info.js";
import { conversationsOutcome, type WatchedImport } from "../../core/index.js";
import { AppError } from "../../shared/errors.js";
import type { ServiceManager, ManagerState } from "../service/managers.js";
import type { ServiceSpec } from "../service/units.js";
import { BIN } from "../bin-path.js";
import { action, type Session } from "../session.js";
import { shortDate } from "../../text/local-time.js";
import { parseCount } from "./memories.js";
import { isRemoteUri } from "../../config/paths.js";
import { locateStore } from "../../config/location.js";
import { runningServer } from "../../config/server-info.js";
import { lastLogLines } from "../log-file.js";

/** How long `install` waits for the server to answer before it says what went wrong. */
const START_TIMEOUT_MS = 60_000;

export function registerService(program: Command): void {
  const service = program
    .command("service")
    .description("run `mnemo serve` on your store at every login, started again if it dies: install, uninstall, status, logs");

  service
    .command("install")
    .description("install and start the service (a systemd user unit, a launchd agent); running it again updates it")
    .option("-p, --port <port>", "port of the server (default 7411, or server.port in config.json)")
    .addOption(
      new Option(
        "-w, --watch <folder...>",
        "also import each new chat export that appears in <folder>, and coding agents' sessions below it",
      ),
    )
    .option(
      "--watch-apps",
      "also the sessions of the coding agents found on this machine each time it starts (Claude Code, Codex, OpenCode…: `mnemo watch --help` lists them)",
    )
    .action(action(async (session, options: InstallOptions) => install(session, options)));

  service
    .command("uninstall")
    .description("stop the service and remove it; your store, memories and conversations stay as they are")
    .action(action(async (session) => uninstall(session)));

  service
    .command("status")
    .description("whether the server runs, where, on which store, since when, and its last errors and imports")
    .action(action(async (session) => status(session)));

  service
    .command("logs")
    .description("the service's log: its last lines, or follow it with -f")
    .option("-n, --lines <n>", "how many of the last lines", "50")
    .option("-f, --follow", "keep printing lines as they are written (Ctrl-C stops)")
    .action(action(async (session, options: { lines: string; follow?: boolean }) => logs(session, options)));
}

/** What `install` leaves beside the log: the spec the unit file was made from, which `status` reads. */
interface Installed {
  spec: ServiceSpec;
  unitFile: string;
  installedAt: string;
}

interface InstallOptions {
  port?: string;
  watch?: string[];
  watchApps?: boolean;
}

async function install(session: Session, options: InstallOptions): Promise<void> {
  const { manager, location } = await context(session);
  if (location.remote) {
    throw AppError.invalid("--remote", "the service serves this machine's store", "Run it without --remote (and without $MNEMO_URL).");
  }
  const spec: ServiceSpec = {
    node: process.execPath,
    bin: BIN,
    store: isRemoteUri(location.storeUri) ? location.storeUri : path.resolve(location.paths.dataDir),
    logFile: path.join(manager.folder, "serve.log"),
    port: options.port === undefined ? undefined : parseCount("--port", options.port, 1, 65_535),
    watch: (options.watch ?? []).map(watchedFolder),
    watchApps: options.watchApps,
  };
  await manager.check(spec);
  const before = await manager.state().catch(() => undefined);
  const other = runningServer(location.paths.serverInfo);
  if (other && other.pid !== before?.pid) {
    throw new AppError("conflict", `mnemo serve (pid ${other.pid}) already serves this store at ${other.url}`, {
      suggestion: "Stop it (Ctrl-C where it runs), then run `mnemo service install` again: the service takes its place.",
    });
  }
  const content = manager.render(spec);
  const changed = readText(manager.unitFile) !== content;
  fs.mkdirSync(path.dirname(manager.unitFile), { recursive: true });
  fs.mkdirSync(manager.folder, { recursive: true, mode: 0o700 });
  fs.writeFileSync(manager.unitFile, content);
  const installed: Installed = { spec, unitFile: manager.unitFile, installedAt: new Date().toISOString() };
  fs.writeFileSync(installedFile(manager), `${JSON.stringify(installed, null, 2)}\n`, { mode: 0o600 });
  await manager.start(spec, changed);
  const server = await started(manager, location.paths.serverInfo, spec.logFile);
  if (session.out.json) return session.out.data({ url: server.url, store: spec.store, unitFile: manager.unitFile, logFile: spec.logFile });
  session.out.success(
    `${changed ? "Installed" : "Already installed:"} mnemo serves ${server.url} now and at every login (${manager.name}, ${manager.unitFile})`,
  );
  for (const folder of spec.watch) session.out.notice(`New exports in ${folder} are imported.`);
  if (spec.watchApps) session.out.notice("The sessions of the coding agents it finds as it starts are imported as they go on.");
  session.out.notice(`Its log: ${spec.logFile} (\`mnemo service logs\`); \`mnemo service status\` says how it is doing.`);
}

/** The folder to watch, as the service will see it: absolute, and there. */
function watchedFolder(folder: string): string {
  const absolute = path.resolve(folder);
  if (!fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) {
    throw AppError.invalid("--watch", `${absolute} is not a folder`, "Give a folder that exists, such as ~/Downloads.");
  }
  return absolute;
}

/** Waits for the service's server to record itself on the store; says why not when it fails or takes too long. */
async function started(manager: ServiceManager, serverInfo: string, logFile: string): Promise<ServerInfo> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let state: ManagerState | undefined;
  while (Date.now() < deadline) {
    state = await manager.state();
    const server = runningServer(serverInfo);
    if (server && state.pid === server.pid) return server;
    if (!state.running && state.failure) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const tail = lastLogLines(logFile, 5).join("\n  ");
  throw new AppError(
    "unavailable",
    `The service did not start${state?.failure ? ` (${state.failure})` : ""}${tail ? `. Its log ends:\n  ${tail}` : ""}`,
    {
      suggestion: "Fix what the log says, then run `mnemo service install` again (`mnemo service logs` shows more).",
    },
  );
}

async function uninstall(session: Session): Promise<void> {
  const { manager } = await context(session);
  const installed = readInstalled(manager);
  if (!installed && !fs.existsSync(manager.unitFile)) {
    if (session.out.json) return session.out.data({ removed: false });
    return session.out.notice("The service is not installed: nothing to remove.");
  }
  await manager.stop();
  fs.rmSync(manager.unitFile, { force: true });
  fs.rmSync(installedFile(manager), { force: true });
  if (session.out.json) return session.out.data({ removed: true, store: installed?.spec.store, logFile: installed?.spec.logFile });
  session.out.success(`Stopped and removed the ${manager.name}; it no longer starts at login`);
  if (installed) session.out.notice(`Your store at ${installed.spec.store} is untouched; the log stays at ${installed.spec.logFile}.`);
}

/** What `status` reports. */
interface ServiceStatus {
  installed: boolean;
  manager: string;
  unitFile: string;
  enabledAtLogin: boolean;
  running: boolean;
  server: ServerInfo | null;
  store: string;
  watching: string[];
  /** Whether the coding agents' folders found at each start are watched too. */
  watchingApps: boolean;
  /** The last exports imported from watched folders, newest last. */
  recentImports: WatchedImport[];
  logFile: string | null;
  restarts: number | null;
  failure: string | null;
  lastErrors: string[];
  managerError: string | null;
}

async function status(session: Session): Promise<void> {
  const { manager, location, locateStore } = await context(session);
  const installed = readInstalled(manager);
  const store = installed?.spec.store ?? (isRemoteUri(location.storeUri) ? location.storeUri : location.paths.dataDir);
  const served = installed ? locateStore({ store: installed.spec.store }, session.io.env) : location;
  let state: ManagerState = { enabled: false, running: false };
  let managerError: string | null = null;
  if (installed) {
    state = await manager.state().catch((error: unknown) => {
      managerError = error instanceof Error ? error.message : String(error);
      return state;
    });
  }
  const server = runningServer(served.paths.serverInfo) ?? null;
  const logFile = installed?.spec.logFile ?? null;
  const report: ServiceStatus = {
    installed: installed !== undefined,
    manager: manager.name,
    unitFile: manager.unitFile,
    enabledAtLogin: state.enabled,
    running: server !== null,
    server,
    store,
    watching: installed?.spec.watch ?? [],
    watchingApps: installed?.spec.watchApps === true,
    recentImports: (await (await import("../../core/index.js")).watchedImports(served.paths.watchState)).slice(-3),
    logFile,
    restarts: state.restarts ?? null,
    failure: state.failure ?? null,
    lastErrors: logFile ? errorLines(logFile) : [],
    managerError,
  };
  if (session.out.json) return session.out.data(report);
  printStatus(session, report);
}

function printStatus(session: Session, report: ServiceStatus): void {
  const { out } = session;
  const headline = report.installed
    ? `${report.running ? "running" : "not running"} (${report.manager}${report.enabledAtLogin ? ", starts at login" : ""})`
    : `not installed${report.running ? ", but a mnemo serve runs on this store" : ""} (\`mnemo service install\` sets it up)`;
  const rows: [string, string | undefined][] = [
    ["Service", headline],
    [
      "Serving",
      report.server
        ? `${report.server.url} (pid ${report.server.pid}, since ${shortDate(report.server.startedAt, out.timeZone)})`
        : undefined,
    ],
    ["Store", report.store],
    ["Watching", [...report.watching, ...(report.watchingApps ? ["the coding agents' sessions"] : [])].join(", ") || undefined],
    ["Log", report.logFile ? `${report.logFile} (\`mnemo service logs\`)` : undefined],
    ["Restarts", report.restarts ? `${report.restarts} after it died` : undefined],
    ["Last exit", report.failure ?? undefined],
    ["Manager", report.managerError ?? undefined],
  ];
  for (const [label, value] of rows) if (value !== undefined) out.line(`${`${label}:`.padEnd(11)}${value}`);
  if (report.recentImports.length > 0) {
    out.line("Imported from watched folders:");
    for (const entry of report.recentImports) {
      out.line(
        `  ${shortDate(entry.importedAt, out.timeZone)}  ${entry.file} (${entry.format}): ${conversationsOutcome({ ...entry, unchanged: entry.unchanged ?? Math.max(0, entry.conversations - entry.new - entry.updated) })}`,
      );
    }
  }
  if (report.lastErrors.length > 0) {
    out.line("Last errors:");
    for (const line of report.lastErrors) out.line(`  ${line}`);
  }
}

/** The log's lines that report a problem: warnings (!), errors (✖), and what the server could not answer. */
function errorLines(logFile: string): string[] {
  return lastLogLines(logFile, 2_000)
    .filter((line) => /^\S+ (! |✖ |internal error)/.test(line))
    .slice(-5);
}

async function logs(session: Session, options: { lines: string; follow?: boolean }): Promise<void> {
  const { manager } = await context(session);
  const logFile = readInstalled(manager)?.spec.logFile ?? path.join(manager.folder, "serve.log");
  const count = parseCount("--lines", options.lines, 0);
  if (!fs.existsSync(logFile) && !options.follow) {
    throw new AppError("not_found", `No log at ${logFile}`, { suggestion: "Install the service first: `mnemo service install`." });
  }
  for (const line of lastLogLines(logFile, count)) session.out.line(line);
  if (options.follow) await follow(logFile, (text) => session.io.stdout.write(text));
}

/** Prints what is appended to the file until Ctrl-C; a rotation (the file emptied) starts it from the top. */
async function follow(file: string, write: (text: string) => void): Promise<void> {
  let offset = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const stopped = new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
  for (;;) {
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    if (size < offset) offset = 0;
    if (size > offset) {
      const fd = fs.openSync(file, "r");
      const buffer = Buffer.alloc(size - offset);
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      fs.closeSync(fd);
      write(buffer.toString("utf8"));
      offset = size;
    }
    const tick = new Promise<"tick">((resolve) => setTimeout(() => resolve("tick"), 500));
    if ((await Promise.race([stopped, tick])) !== "tick") return;
  }
}

async function context(session: Session) {
  const { serviceManager } = await import("../service/managers.js");
  const { store, user, remote, token } = session.options;
  return { manager: serviceManager(session.io.env), location: locateStore({ store, user, remote, token }, session.io.env), locateStore };
}

function installedFile(manager: ServiceManager): string {
  return path.join(manager.folder, "service.json");
}

function readInstalled(manager: ServiceManager): Installed | undefined {
  const text = readText(installedFile(manager));
  try {
    return text === undefined ? undefined : (JSON.parse(text) as Installed);
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
