import type { Command, Option } from "commander";
import type { MnemoService } from "../core/index.js";
import { forTerminal } from "./output.js";

/**
 * Shell completion, worked out from the commander program itself: the shells' scripts are small
 * shims that hand the words typed so far to `mnemo completion --complete -- …` and offer what it
 * prints, so every command, subcommand and option the program has is completed, with no list to
 * keep. Bucket names and memory and conversation ids are completed from a running server only:
 * opening the store for a Tab would take a second.
 */

export type ValueKind = "buckets" | "memories" | "conversations";

/** The options and arguments that take a stored thing's name or id, by name (and where it is ambiguous, by command). */
export function valueKind(commandPath: string, name: string): ValueKind | undefined {
  if (name === "bucket" || (commandPath === "memories move" && name === "to")) return "buckets";
  if (commandPath.startsWith("chats ") && (name === "id" || name === "ids")) return "conversations";
  if (commandPath.startsWith("memories ") && (name === "id" || name === "ids")) return "memories";
  return undefined;
}

export interface Candidate {
  value: string;
  description?: string | undefined;
}

/**
 * What to offer: fixed candidates, or the stored values of a kind from the store the words name
 * (`globals`: the global options typed, such as --store); no candidate lets the shell complete file names.
 */
export type Completion = { candidates: Candidate[] } | { kind: ValueKind; globals: Record<string, string> };

/** What may come at the last of `words` (the word being typed, possibly empty), after `mnemo`. */
export function complete(program: Command, words: string[]): Completion {
  const typed = words.slice(0, -1);
  const current = words.at(-1) ?? "";
  let command = program;
  let positional = 0;
  let pendingOption: Option | undefined;
  const globals: Record<string, string> = {};
  const isGlobal = (option: Option) => program.options.includes(option);
  for (const word of typed) {
    if (pendingOption) {
      if (isGlobal(pendingOption)) globals[pendingOption.attributeName()] = word;
      pendingOption = undefined;
      continue;
    }
    if (word.startsWith("-")) {
      const [flag, value] = splitFlag(word);
      const option = findOption(command, program, flag);
      if (option && takesValue(option) && value === undefined) pendingOption = option;
      else if (option && isGlobal(option)) globals[option.attributeName()] = value ?? "true";
      continue;
    }
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    if (sub && positional === 0) command = sub;
    else positional++;
  }
  const path = commandPath(command, program);
  if (pendingOption) {
    const kind = valueKind(path, pendingOption.attributeName());
    return kind ? { kind, globals } : { candidates: (pendingOption.argChoices ?? []).map((value) => ({ value })) };
  }
  if (current.startsWith("-")) {
    const options = [...command.options, ...(command === program ? [] : program.options)].filter((option) => !option.hidden);
    const flags = options.flatMap((option) =>
      [option.long, option.short]
        .filter((flag): flag is string => Boolean(flag))
        .map((flag) => ({ value: flag, description: option.description })),
    );
    return { candidates: [...flags, { value: "--help", description: "display help for command" }] };
  }
  const subcommands = positional === 0 ? visibleCommands(command) : [];
  if (subcommands.length > 0) return { candidates: subcommands.map((sub) => ({ value: sub.name(), description: sub.description() })) };
  const argument = command.registeredArguments[Math.min(positional, command.registeredArguments.length - 1)];
  const kind = argument ? valueKind(path, argument.name()) : undefined;
  if (kind) return { kind, globals };
  return { candidates: (argument?.argChoices ?? []).map((value) => ({ value })) };
}

function visibleCommands(command: Command): Command[] {
  return command.commands.filter((sub) => !(sub as Command & { _hidden?: boolean })._hidden && sub.name() !== "help");
}

/** `--store=x` as ["--store", "x"]; `--json` as ["--json", undefined]. */
function splitFlag(word: string): [string, string | undefined] {
  const at = word.indexOf("=");
  return at === -1 ? [word, undefined] : [word.slice(0, at), word.slice(at + 1)];
}

function findOption(command: Command, program: Command, flag: string): Option | undefined {
  const own = (where: Command) => where.options.find((option) => option.long === flag || option.short === flag);
  return own(command) ?? own(program);
}

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** "memories move" for `mnemo memories move`. */
function commandPath(command: Command, program: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at && at !== program; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/** The stored values of a kind, newest first where it matters, at most 100. */
export async function storedValues(service: MnemoService, kind: ValueKind): Promise<Candidate[]> {
  if (kind === "buckets")
    return (await service.buckets.list()).map((bucket) => ({ value: bucket.name, description: bucket.description ?? undefined }));
  if (kind === "memories") {
    const { memories } = await service.memories.listV2({ includeIds: true, count: 100, skip: 0 });
    return memories.flatMap((memory) =>
      typeof memory !== "string" && memory.id ? [{ value: memory.id, description: memory.text.slice(0, 60) }] : [],
    );
  }
  const { items } = await service.conversations.list({ page: 1, pageSize: 100 });
  return items.map((chat) => ({ value: chat.id, description: chat.title }));
}

/** The lines a shell reads: `value`, or `value<TAB>description` for fish, which shows it (stored text: without control characters). */
export function completionLines(candidates: Candidate[], withDescriptions: boolean): string {
  return candidates
    .map(({ value, description }) =>
      withDescriptions && description ? `${value}\t${forTerminal(description.replace(/\s+/g, " "), false)}` : value,
    )
    .map((line) => `${line}\n`)
    .join("");
}

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** Each shell's script: it asks `mnemo completion --complete` and offers file names when that has nothing. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case "bash":
      return `# mnemo completion for bash. Load it in ~/.bashrc:  eval "$(mnemo completion bash)"
_mnemo_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(mnemo completion --complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "\${COMP_WORDS[COMP_CWORD]}"))
  if [ \${#COMPREPLY[@]} -eq 0 ]; then compopt -o default 2>/dev/null; fi
}
complete -F _mnemo_complete mnemo
`;
    case "zsh":
      return `#compdef mnemo
# mnemo completion for zsh. Load it in ~/.zshrc (after compinit):  source <(mnemo completion zsh)
_mnemo() {
  local -a candidates
  candidates=("\${(@f)$(mnemo completion --complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then compadd -- "\${candidates[@]}"; else _files; fi
}
compdef _mnemo mnemo
`;
    case "fish":
      return `# mnemo completion for fish. Save it:  mnemo completion fish > ~/.config/fish/completions/mnemo.fish
function __mnemo_complete
  set -l words (commandline -opc) (commandline -ct)
  set -l candidates (mnemo completion --complete --describe -- $words[2..-1] 2>/dev/null)
  if test (count $candidates) -gt 0
    printf '%s\\n' $candidates
  else
    __fish_complete_path (commandline -ct)
  end
end
complete -c mnemo -f -a '(__mnemo_complete)'
`;
  }
}
