/**
 * What each service manager is given to run `mnemo serve` at login and start it again when it dies:
 * the file's text, built from one ServiceSpec. Pure functions, tested for their content.
 */

/** The service as installed: what runs, on which store, where it logs, which folders it watches. */
export interface ServiceSpec {
  /** Absolute path of the node binary that installed it (a service does not see the shell's PATH). */
  node: string;
  /** Absolute path of bin/mnemo.js. */
  bin: string;
  /** The store: an absolute data dir, or a URI (s3://…). */
  store: string;
  logFile: string;
  port?: number | undefined;
  /** Folders whose new exports are imported (`mnemo serve --watch`). */
  watch: string[];
  /** Whether the coding agents' folders found at each start are watched too (`mnemo serve --watch-apps`). */
  watchApps?: boolean | undefined;
}

/** The command line the service runs. */
export function serveArguments(spec: ServiceSpec): string[] {
  return [
    spec.node,
    spec.bin,
    "--store",
    spec.store,
    "serve",
    "--log-file",
    spec.logFile,
    ...(spec.port === undefined ? [] : ["--port", String(spec.port)]),
    ...spec.watch.flatMap((folder) => ["--watch", folder]),
    ...(spec.watchApps ? ["--watch-apps"] : []),
  ];
}

export const SYSTEMD_UNIT = "mnemo.service";

/**
 * A systemd user unit. `Restart=on-failure` starts it again after a crash or a kill (not after a stop
 * by systemctl or a clean exit); five failures within five minutes stop the retries, so a server that
 * cannot start (its port taken) is not restarted for ever. `default.target` is reached at login.
 */
export function systemdUnit(spec: ServiceSpec): string {
  return `[Unit]
Description=mnemo: memories and chat history for your AI tools (mnemo serve)
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=exec
ExecStart=${serveArguments(spec).map(systemdQuote).join(" ")}
Restart=on-failure
RestartSec=5
# mnemo serve gives requests in flight 10 s after SIGTERM.
TimeoutStopSec=20
# What mnemo does not write to its log itself (Node's own report of a crash) goes to the same file.
StandardOutput=append:${systemdPath(spec.logFile)}
StandardError=append:${systemdPath(spec.logFile)}

[Install]
WantedBy=default.target
`;
}

/** One ExecStart word: quoted, with systemd's specifiers (%) and variables ($) kept literal. */
function systemdQuote(word: string): string {
  const escaped = word.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%").replace(/\$/g, "$$$$");
  return `"${escaped}"`;
}

/** A path after `append:`, which takes the rest of the line as it is but for specifiers. */
function systemdPath(file: string): string {
  return file.replace(/%/g, "%%");
}

export const LAUNCHD_LABEL = "dev.mnemo.serve";

/**
 * A launchd agent (~/Library/LaunchAgents): loaded at login (`RunAtLoad`), started again when it
 * exits with a failure or is killed (`KeepAlive` / `SuccessfulExit` false), at most every 5 s.
 */
export function launchdPlist(spec: ServiceSpec): string {
  const strings = (values: string[]) => values.map((value) => `\t\t<string>${xml(value)}</string>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>Label</key>
\t<string>${LAUNCHD_LABEL}</string>
\t<key>ProgramArguments</key>
\t<array>
${strings(serveArguments(spec))}
\t</array>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<dict>
\t\t<key>SuccessfulExit</key>
\t\t<false/>
\t</dict>
\t<key>ThrottleInterval</key>
\t<integer>5</integer>
\t<key>ExitTimeOut</key>
\t<integer>20</integer>
\t<key>ProcessType</key>
\t<string>Background</string>
\t<key>StandardOutPath</key>
\t<string>${xml(spec.logFile)}</string>
\t<key>StandardErrorPath</key>
\t<string>${xml(spec.logFile)}</string>
</dict>
</plist>
`;
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export const WINDOWS_TASK = "mnemo";

/**
 * Windows: a Task Scheduler task that starts the server at logon (`schtasks /Create`), for the
 * user to run. Task Scheduler does not start it again when it dies unless told in the task's
 * settings (README, "mnemo at login").
 */
export function windowsTaskCommand(spec: ServiceSpec): string {
  const line = serveArguments(spec)
    .map((word) => (/[\s"]/.test(word) ? `\\"${word.replace(/"/g, '\\\\\\"')}\\"` : word))
    .join(" ");
  return `schtasks /Create /F /TN ${WINDOWS_TASK} /SC ONLOGON /RL LIMITED /TR "${line}"`;
}
