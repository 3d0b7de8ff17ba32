// Every export format mnemo reads, one line each: adding a format is a folder beside these and a
// line here (src/README.md, "How to add an importer"). The order is the order lists are shown in;
// detection does not depend on it (each detector accepts only its own format's files).
import path from "node:path";
import { aider } from "./aider/index.js";
import { aistudio } from "./aistudio/index.js";
import { amazonQ } from "./amazon-q/index.js";
import { anythingLlm } from "./anythingllm/index.js";
import { bigAgi } from "./big-agi/index.js";
import { chatbotUi } from "./chatbot-ui/index.js";
import { chatbox } from "./chatbox/index.js";
import { cherryStudio } from "./cherry-studio/index.js";
import { chatgpt } from "./chatgpt/index.js";
import { chatgptExporter } from "./chatgpt-exporter/index.js";
import { claude } from "./claude/index.js";
import { claudeCode } from "./claude-code/index.js";
import { cline } from "./cline/index.js";
import { codex } from "./codex/index.js";
import { copilotCli } from "./copilot-cli/index.js";
import { crush } from "./crush/index.js";
import { deepchat } from "./deepchat/index.js";
import { continueDev } from "./continue/index.js";
import { cursor } from "./cursor/index.js";
import { deepSeek } from "./deepseek/index.js";
import { gemini } from "./gemini/index.js";
import { geminiCli } from "./gemini-cli/index.js";
import { goose } from "./goose/index.js";
import { grok } from "./grok/index.js";
import { companionsOf, type Importer, type Match, type Sample } from "./importer.js";
import { jan } from "./jan/index.js";
import { llm } from "./llm/index.js";
import { kimiCli } from "./kimi-cli/index.js";
import { kiroCli } from "./kiro-cli/index.js";
import { kimiCode } from "./kimi-code/index.js";
import { libreChat } from "./librechat/index.js";
import { lobeChat } from "./lobechat/index.js";
import { openWebUi } from "./open-webui/index.js";
import { lmstudio } from "./lmstudio/index.js";
import { gpt4all } from "./gpt4all/index.js";
import { nextChat } from "./nextchat/index.js";
import { ollama } from "./ollama/index.js";
import { opencode } from "./opencode/index.js";
import { openHands } from "./openhands/index.js";
import { pageAssist } from "./page-assist/index.js";
import { pi } from "./pi/index.js";
import { qwenCode } from "./qwen-code/index.js";
import { sillytavern } from "./sillytavern/index.js";
import { textGenerationWebUi } from "./text-generation-webui/index.js";
import { typingmind } from "./typingmind/index.js";
import { markdown } from "./markdown/index.js";
import { upload } from "./upload/index.js";
import { vscodeChat } from "./vscode-chat/index.js";
import { zed } from "./zed/index.js";

export const IMPORTERS: readonly Importer[] = [
  chatgpt,
  claude,
  gemini,
  openWebUi,
  libreChat,
  grok,
  deepSeek,
  typingmind,
  chatbotUi,
  sillytavern,
  lmstudio,
  gpt4all,
  nextChat,
  chatbox,
  cherryStudio,
  pageAssist,
  lobeChat,
  jan,
  bigAgi,
  aistudio,
  claudeCode,
  codex,
  copilotCli,
  geminiCli,
  qwenCode,
  vscodeChat,
  cline,
  continueDev,
  cursor,
  opencode,
  anythingLlm,
  zed,
  goose,
  pi,
  crush,
  amazonQ,
  llm,
  kimiCli,
  kimiCode,
  kiroCli,
  ollama,
  deepchat,
  openHands,
  textGenerationWebUi,
  aider, // Markdown, known by its own headings: before the transcripts of any app
  chatgptExporter,
  markdown, // transcripts of any app, after the exporters of one
  upload, // mnemo's own shape, after the apps
];

/** The importer of a format id the registry gave. */
export function importerOf(format: string): Importer {
  const importer = IMPORTERS.find((entry) => entry.id === format);
  if (importer === undefined) throw new Error(`no importer for the format "${format}"`);
  return importer;
}

/** Whether files of a format are an app's session logs, written as sessions go on (Importer.sessionLogs). */
export function isSessionLog(format: string): boolean {
  return IMPORTERS.find((entry) => entry.id === format)?.sessionLogs === true;
}

/** Whether a file by this name may be a session log to watch: `.json`, `.jsonl`, or a name an app gives its logs (Importer.sessionFileName). */
export function isSessionFileName(name: string): boolean {
  return /\.jsonl?$/i.test(name) || IMPORTERS.some((importer) => importer.sessionFileName?.test(name) === true);
}

/** The path a watch imports for a session log of this format: the folder of its whole session (Importer.sessionFolder), else the file. */
export function sessionPathOf(file: string, format: string): string {
  return IMPORTERS.find((entry) => entry.id === format)?.sessionFolder?.(file) ?? file;
}

/**
 * The files beside a session file that are the same session, read with it (Kimi CLI's wire.jsonl,
 * context.jsonl and state.json, each written at every turn): its format's companion files, when the
 * file is one of them; none for a file read with a shared one (Continue's sessions.json).
 */
export function sameSessionFiles(file: string, format: string): string[] {
  const importer = IMPORTERS.find((entry) => entry.id === format);
  const name = path.basename(file);
  const listed = importer?.companionFiles;
  if (importer === undefined || (Array.isArray(listed) && !listed.includes(name))) return [];
  return companionsOf(importer, name).map((companion) => path.join(path.dirname(file), companion));
}

/** Whether a format's database is imported again as it changes (Importer.watchedDatabase). */
export function isWatchedDatabase(format: string): boolean {
  return IMPORTERS.find((entry) => entry.id === format)?.watchedDatabase === true;
}

/** The endings of watched databases' files (those no session log has: `opencode.db`), each with its format, lower-cased once. */
let databaseEndings: { ending: string; importer: Importer }[] | undefined;

/** The format of a database to watch a file by this name may be: named by an ending of its format that no session log has (`opencode.db`). */
export function watchedDatabaseOf(name: string): Importer | undefined {
  databaseEndings ??= IMPORTERS.filter((importer) => importer.watchedDatabase === true).flatMap((importer) =>
    databaseEndingsOf(importer).map((ending) => ({ ending: ending.toLowerCase(), importer })),
  );
  const lower = name.toLowerCase();
  return databaseEndings.find(({ ending }) => lower.endsWith(ending))?.importer;
}

/** The endings of a format's files that no session log has: its database's (`opencode.db`, `.vscdb`). */
export function databaseEndingsOf(importer: Importer): string[] {
  return importer.extensions.filter((ending) => ending !== "" && !isSessionFileName(ending));
}

/** The format a sample is of, and what its detector said; undefined when none recognises it. */
export function recognise(sample: Sample): { importer: Importer; match: Match } | undefined {
  for (const importer of IMPORTERS) {
    const match = importer.detect(sample);
    if (match !== undefined) return { importer, match };
  }
  return undefined;
}

/** The format whose memory files (Importer.memories) a sample is one of; undefined when none. */
export function recogniseMemories(sample: Sample): Importer | undefined {
  return IMPORTERS.find((importer) => importer.memories?.detect(sample));
}
