import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { registerBuckets } from "./commands/buckets.js";
import { registerChats } from "./commands/chats.js";
import { registerCompletion } from "./commands/completion.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerExport } from "./commands/export.js";
import { registerImport } from "./commands/import.js";
import { registerInfo } from "./commands/info.js";
import { registerMaintain } from "./commands/maintain.js";
import { registerMcp } from "./commands/mcp.js";
import { registerMemories } from "./commands/memories.js";
import { registerReindex } from "./commands/reindex.js";
import { registerRemember } from "./commands/remember.js";
import { registerSearch } from "./commands/search.js";
import { registerServe } from "./commands/serve.js";
import { registerService } from "./commands/service.js";
import { registerTrash } from "./commands/trash.js";
import { registerUi } from "./commands/ui.js";
import { registerUsers } from "./commands/users.js";
import { registerWatch } from "./commands/watch.js";
import { checkArgumentsAreUtf8 } from "./arguments.js";
import { EXIT, handleError } from "./handle-error.js";
import { bindIo, processIo, type CliIo } from "./io.js";

// Command modules only declare their commands; what they run is imported when they run, so
// `mnemo --help` never loads LanceDB or a model.
export function buildProgram(io: CliIo = processIo()): Command {
  const program = new Command("mnemo")
    // Before the commands are added: each copies its parent's settings.
    .configureOutput(commanderOutput(io))
    .description("Local-first memory and chat history for people who live in AI chats")
    .version(packageVersion(), "-V, --version")
    .option("--json", "print machine-readable JSON on stdout", false)
    .option("-y, --yes", "do not ask before deleting", false)
    .option("--store <dir|uri>", "data dir or LanceDB URI (default: $MNEMO_STORE, $XDG_DATA_HOME/mnemo or ~/.mnemo)")
    .option("--user <name>", "act as this user of the store (default: $MNEMO_USER or default)")
    .option("--embedder <spec>", "auto, bundled, or transformers:<model id or folder>")
    .option("--remote <url>", "use a running `mnemo serve` instead of the store (or $MNEMO_URL)")
    .option("--token <token>", "API token for --remote (or $MNEMO_TOKEN)")
    .option("--local", "work on the store directly, even when a `mnemo serve` runs on it", false)
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerRemember(program);
  registerMemories(program);
  registerBuckets(program);
  registerImport(program);
  registerExport(program);
  registerChats(program);
  registerTrash(program);
  registerSearch(program);
  registerServe(program);
  registerService(program);
  registerWatch(program);
  registerMcp(program);
  registerUi(program);
  registerInfo(program);
  registerUsers(program);
  registerReindex(program);
  registerMaintain(program);
  registerDoctor(program);
  registerCompletion(program);
  bindIo(program, io);
  return program;
}

/** Help, usage errors and --version on the run's streams, in colour only on a terminal and without NO_COLOR. */
function commanderOutput(io: CliIo) {
  const colour = (stream: CliIo["stdout"]) => Boolean(stream.isTTY) && !io.env["NO_COLOR"];
  return {
    writeOut: (text: string) => void io.stdout.write(text),
    writeErr: (text: string) => void io.stderr.write(text),
    // Commander's own default: the terminal's width, else 80.
    getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
    getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
    getOutHasColors: () => colour(io.stdout),
    getErrHasColors: () => colour(io.stderr),
  };
}

/** Our own package.json's version: npm_package_version is the version of whatever project `npm run` runs in. */
function packageVersion(): string {
  const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };
  return version;
}

/** The process's entry (bin/mnemo.js): what only a process of its own does, then the program on its stdio. */
export async function main(argv: string[]): Promise<void> {
  process.env["LANCEDB_LOG"] ??= "error";
  // A damaged store's file can make LanceDB panic; the error that follows names the table (store/damage.ts).
  // Its backtrace is for LanceDB's developers, not for a user's terminal, whatever their RUST_BACKTRACE.
  if (!process.env["MNEMO_DEBUG"]) process.env["RUST_BACKTRACE"] = "0";
  const io = processIo();
  // `mnemo search … | head`: the reader has gone; stop quietly, as other Unix tools do.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(io.exitCode);
  });
  try {
    checkArgumentsAreUtf8(argv);
  } catch (error) {
    const { createOutput } = await import("./output.js");
    process.exitCode = handleError(error, createOutput({ json: argv.includes("--json"), io }));
    return;
  }
  process.exitCode = await runProgram(argv.slice(2), io);
}

/** Runs the program on `args` (the words after `mnemo`) with this io; the exit code it ends with. Tests call it in process. */
export async function runProgram(args: string[], io: CliIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(args, { from: "user" });
    return io.exitCode;
  } catch (error) {
    // Help and version exit 0; every usage error exits 2.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
}
