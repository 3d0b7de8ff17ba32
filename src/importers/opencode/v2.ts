// OpenCode 2.x's messages (anomalyco/opencode packages/schema/src/session-message.ts, Session.Message
// .Info; a session_message row's `data` is one less its `id` and `type`, which are columns): of the
// types, `user` is the prompt as typed (`text`; its files and agents aside), `assistant` the agent's
// step (`content`: `text`, `reasoning`, `tool` items in the order they came), and `shell` a command
// the user ran from the prompt, as 1.x kept it: a tool call. The rest are OpenCode's, not the chat's,
// left out: `compaction` (its summary, as 1.x's summary message is), `synthetic` and `system` (what
// OpenCode tells the model), `skill`, `agent-switched`, `model-switched`, `location-switched`, `idle`.
import type { TurnPiece, Utterance } from "../agent-sessions.js";
import { arrayOf, isObject, type JsonObject, nonEmptyString } from "../json-values.js";
import { toolPlaceholder } from "../placeholders.js";

/** Who said a message and what, when the chat shows it. */
export function v2Said(message: JsonObject): { role: Utterance["role"]; pieces: TurnPiece[] } | undefined {
  if (message.type === "user") return { role: "human", pieces: textPiece(message.text) };
  if (message.type === "shell") return { role: "assistant", pieces: [{ text: toolPlaceholder("shell"), tool: true }] };
  if (message.type !== "assistant") return undefined;
  return { role: "assistant", pieces: arrayOf(message.content).flatMap(contentPiece) };
}

/** An assistant's item: its text, or the tool it called (by its name, as stored: 1.x's copied keep theirs, `bash`); reasoning left out. */
function contentPiece(item: unknown): TurnPiece[] {
  if (!isObject(item)) return [];
  if (item.type === "tool") return [{ text: toolPlaceholder(item.name), tool: true }];
  return item.type === "text" ? textPiece(item.text) : [];
}

function textPiece(value: unknown): TurnPiece[] {
  const text = nonEmptyString(value);
  return text === undefined ? [] : [{ text, tool: false }];
}
