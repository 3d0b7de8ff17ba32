// Gemini CLI's saved chats (`/chat save <tag>`, since 2026 also `/resume save <tag>`) to the upload
// shape, one conversation per file. What each rule rests on: google-gemini/gemini-cli
// packages/core/src/core/logger.ts (saveCheckpoint, loadCheckpoint, encodeTagName),
// cli/src/ui/commands/chatCommand.ts (what is saved, and what /chat resume shows of it) and
// core/src/utils/environmentContext.ts (the history's first message):
// - The file: ~/.gemini/tmp/<project>/checkpoint-<tag>.json, the tag URI-encoded (`checkpoint.json`
//   before the tag was required, July 2025). Since November 2025 `{ history, authType }`, before it
//   the history alone, a list. `history` is the chat as the model is sent it: Gemini API `Content`
//   objects, `{ role: "user" | "model", parts }`; saving again under a tag writes the file again, whole.
// - Left out, as /chat resume leaves it out: the first message, the CLI's context for the model
//   ("…setting up the context for our chat", the date, the folders; `<session_context>` since
//   November 2025), and the model's "Got it. Thanks for the context!" that followed it to December 2025.
// - Parts as in the session logs (session.ts): a prompt's text without the files an @path added,
//   images and files as placeholders; a tool's result (`functionResponse`) no message; an answer's
//   text and the tools it called (`functionCall`) as `[tool: name]`; thoughts left out.
// - Title: the tag, else the first prompt's first line. Times: the file's, as the file holds none
//   (no message is dated); a chat saved again is dated again. Id: the project and the tag, so that
//   saving under the same tag again replaces the conversation, however the file is passed: the project
//   as the context message names it ("The project's temporary directory is: …" since November 2025,
//   "I'm currently working in the directory: …" before), else the file's folder in the path imported
//   (none for a lone file). Messages: their place in the history.
// - The same exchanges are also in the session log the chat was saved from: see src/README.md.
//   Fixtures: fixtures/exports/gemini-cli/tmp/<hash>/checkpoint-tides.json (the current shape) and
//   checkpoint-brest%20csv.json (the list of 2025, its two context messages), built from the sources above.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, type Utterance } from "../agent-sessions.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, titleFrom, type JsonObject } from "../json-values.js";
import { uniqueIds } from "../message-ids.js";
import type { SourcedRecord } from "../types.js";
import { answerPieces, promptPieces } from "./session.js";

const CONTEXT_SETUP = /context for our chat/;
const CONTEXT_THANKS = "Got it. Thanks for the context!";
const TEMP_DIR = /^The project's temporary directory is: (.+)$/m;
const WORKING_DIR = /I'm currently working in the directory: (.+)$/m;

/** Whether a file's records are a saved chat: `{ history }`, or the history alone (a list of `Content`). */
export function isCheckpoint(records: readonly SourcedRecord[]): boolean {
  const first = records[0]?.value;
  return isObject(first) && (Array.isArray(first.history) || (typeof first.role === "string" && Array.isArray(first.parts)));
}

export function geminiCliCheckpoint(records: readonly SourcedRecord[]): UploadConversation | undefined {
  const { skip, fallbackDate, path } = records[0]!.context;
  const first = records[0]!.value as JsonObject;
  const history = (Array.isArray(first.history) ? first.history : records.map((record) => record.value)).filter(isObject);
  const setup = contextSetup(history);
  const messages = uniqueIds(agentTurns(utterances(history.slice(setup.length))));
  if (messages.length === 0) {
    skip("saved chats without any message text");
    return undefined;
  }
  const tag = tagOf(path);
  return {
    complete: true, // the file holds the whole chat as saved
    conversation: {
      id: derivedId("gemini-cli-checkpoint", [projectOf(setup[0], path) ?? null, tag ?? null]),
      title: titleFrom(tag ?? promptTitle(messages)),
      createdAt: fallbackDate.toISOString(),
      messages,
    },
  };
}

/** The CLI's context for the model at the history's start, and the model's thanks for it (to December 2025). */
function contextSetup(history: JsonObject[]): JsonObject[] {
  const [first, second] = history;
  if (first?.role !== "user" || !CONTEXT_SETUP.test(textOf(first))) return [];
  return second?.role === "model" && textOf(second).trim() === CONTEXT_THANKS ? [first, second] : [first];
}

function utterances(history: JsonObject[]): Utterance[] {
  return history.map((content, i) => {
    const message = { content: arrayOf(content.parts) };
    const human = content.role === "user";
    return {
      id: `m${i + 1}`,
      role: human ? "human" : "assistant",
      pieces: human ? promptPieces(message) : answerPieces(message),
      time: undefined,
    };
  });
}

function textOf(content: JsonObject): string {
  return arrayOf(content.parts)
    .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** The tag of `checkpoint-<tag>.json`, decoded as the CLI decodes it (decodeTagName). */
function tagOf(path: string): string | undefined {
  const encoded = /(?:^|\/)checkpoint-(.+)\.json$/i.exec(path)?.[1];
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded.replace(/%([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}

/**
 * The project, as the context message names it: its folder in ~/.gemini/tmp (since November 2025), else
 * the folder the CLI ran in (2025); else the file's folder in the path, which a lone file lacks.
 */
function projectOf(setup: JsonObject | undefined, path: string): string | undefined {
  const text = setup === undefined ? "" : textOf(setup);
  const tempDir = TEMP_DIR.exec(text)?.[1]?.trim();
  if (tempDir !== undefined) return tempDir.split(/[\\/]/).filter(Boolean).at(-1);
  return WORKING_DIR.exec(text)?.[1]?.trim() ?? path.split("/").at(-2);
}
