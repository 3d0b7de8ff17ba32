import fs from "node:fs";
import { Command, CommanderError, type Option } from "commander";
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
import { bindIo, ioOf, processIo, type CliIo } from "./io.js";
import { AppError } from "../shared/errors.js";
import { createOutput } from "./output.js";

/**
 * Every command, in the order help lists them, with what declares it (search and recall together).
 * Command modules only declare their commands; what they run is imported when they run, so
 * `mnemo --help` never loads LanceDB or a model.
 */
const COMMANDS: [names: string[], register: (program: Command) => void][] = [
  [["remember"], registerRemember],
  [["memories"], registerMemories],
  [["buckets"], registerBuckets],
  [["import"], registerImport],
  [["export"], registerExport],
  [["chats"], registerChats],
  [["trash"], registerTrash],
  [["search", "recall"], registerSearch],
  [["serve"], registerServe],
  [["service"], registerService],
  [["watch"], registerWatch],
  [["mcp"], registerMcp],
  [["ui"], registerUi],
  [["info"], registerInfo],
  [["users"], registerUsers],
  [["reindex"], registerReindex],
  [["maintain"], registerMaintain],
  [["doctor"], registerDoctor],
];

/**
 * The program, with every command, or with `args` (a run's words) with only the command they name:
 * declaring all of them is ~3 ms of each command's start. Help, completion, and words that name no
 * command (a typo, to which commander suggests a name) get them all.
 */
export function buildProgram(io: CliIo = processIo(), args?: string[]): Command {
  const program = new MnemoCommand("mnemo")
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
    .configureHelp({ showGlobalOptions: true, visibleGlobalOptions: programOptions })
    .exitOverride();
  const named = args && commandNamed(program, args);
  for (const [names, register] of COMMANDS) if (!named || names.includes(named)) register(program);
  if (!named) registerCompletion(program);
  bindIo(program, io);
  return program;
}

/**
 * A command whose stray word is named as what it most likely is: a mistyped subcommand. Commander
 * reads `mnemo chats shwo x` as arguments of `chats`' default `list`, and `mnemo memories lsit` as
 * arguments of `memories`' own listing, and said "too many arguments for 'list'", naming neither
 * the word nor the subcommands.
 */
class MnemoCommand extends Command {
  override createCommand(name?: string): Command {
    return new MnemoCommand(name);
  }

  /**
   * Commander's usage errors (a missing argument, an unknown option or command, too many arguments)
   * as the CLI says its own: "✖ problem" and "→ fix", or JSON with --json; the exit code stays 2
   * (runProgram). An unknown word given to a command that lists by --query (`mnemo memories dog`)
   * is most likely a query.
   */
  override error(message: string, options?: { code?: string; exitCode?: number }): never {
    const [problem = message, ...said] = message.replace(/^error: /, "").split("\n");
    const query = this.options.some((option) => option.long === "--query");
    const likelyQuery = options?.code === "commander.unknownCommand" && query && !message.includes("Did you mean");
    const fix = likelyQuery
      ? `To find ${this.name()} by meaning: mnemo ${this.name()} --query ${JSON.stringify(this.args.join(" "))}`
      : said.length > 0
        ? said.join(" ").replace(/^\((.*)\)$/, "$1")
        : `Usage: ${commandPath(this)} ${this.usage()} (\`${commandPath(this)} --help\` says more)`;
    // Before the options are parsed: the words given. Commander keeps them (undeclared in its types).
    const words = (rootOf(this) as unknown as { rawArgs?: string[] }).rawArgs ?? [];
    createOutput({ json: words.includes("--json"), io: ioOf(this) }).error(new AppError("invalid_input", problem, { suggestion: fix }));
    throw new CommanderError(options?.exitCode ?? 1, options?.code ?? "commander.error", message);
  }

  // Commander's own (undeclared) hook for arguments beyond those a command declares.
  _excessArguments(received: string[]): void {
    const group = this.commands.length > 0 ? this : this.parent && isDefaultOf(this.parent, this) ? this.parent : undefined;
    if (group) return (group as unknown as { unknownCommand(): void }).unknownCommand();
    const expected = this.registeredArguments.length;
    const forSubcommand = this.parent ? ` for '${this.name()}'` : "";
    this.error(
      `error: too many arguments${forSubcommand}. Expected ${expected} argument${expected === 1 ? "" : "s"} but got ${received.length}.`,
      {
        code: "commander.excessArguments",
      },
    );
  }
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/** "mnemo memories move": the words that run `command`. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/** Whether `parent` ran `sub` as its default subcommand, not named: the first word given to `parent` is not `sub`'s name. */
function isDefaultOf(parent: Command, sub: Command): boolean {
  return parent.parent !== null && parent.args[0] !== sub.name() && !sub.aliases().includes(parent.args[0] ?? "");
}

/**
 * The global options a subcommand's help lists: mnemo's own, not its parent command's (`memories
 * edit --help` listed --query and --to <date>, which `memories` lists by and edit never reads).
 */
function programOptions(command: Command): Option[] {
  let root = command;
  while (root.parent) root = root.parent;
  return root === command ? [] : root.options.filter((option) => !option.hidden);
}

/** The command `args` name, when it is one of COMMANDS: the first word that is not a global option or its value. */
function commandNamed(program: Command, args: string[]): string | undefined {
  const at = commandAt(program, args);
  return at === undefined ? undefined : args[at];
}

function commandAt(program: Command, args: string[]): number | undefined {
  const takesValue = new Set(
    program.options.filter((option) => option.required || option.optional).flatMap((option) => [option.long, option.short]),
  );
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") return undefined;
    if (!word.startsWith("-")) return COMMANDS.some(([names]) => names.includes(word)) ? i : undefined;
    if (takesValue.has(word)) i++;
  }
  return undefined;
}

/** The commands that list when given no subcommand, whose listing has no name of its own. */
const LISTS_ITSELF = new Set(["memories", "buckets", "trash"]);

/**
 * `mnemo memories list`, `buckets list`, `trash list`: the command's own listing, as `chats list`
 * and `users list` are theirs (and as the README's "trash … list" reads), not an unknown command.
 */
function listingNamed(program: Command, args: string[]): string[] {
  const at = commandAt(program, args);
  if (at === undefined || !LISTS_ITSELF.has(args[at]!) || args[at + 1] !== "list") return args;
  return [...args.slice(0, at + 1), ...args.slice(at + 2)];
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
  // Read, not required: require's JSON loading is ~1.5 ms of every command's start.
  const { version } = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
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
    process.exitCode = handleError(error, createOutput({ json: argv.includes("--json"), io }));
    return;
  }
  process.exitCode = await runProgram(argv.slice(2), io);
}

/** Runs the program on `args` (the words after `mnemo`) with this io; the exit code it ends with. Tests call it in process. */
export async function runProgram(args: string[], io: CliIo): Promise<number> {
  try {
    const program = buildProgram(io, args);
    await program.parseAsync(listingNamed(program, args), { from: "user" });
    return io.exitCode;
  } catch (error) {
    // Help and version exit 0; every usage error exits 2.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
}
