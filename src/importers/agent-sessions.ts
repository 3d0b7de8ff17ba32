// What the session logs of coding agents (Claude Code, Codex, GitHub Copilot CLI, Gemini CLI, VS Code's chat, Cline) have in common: a file per session, in
// which the user's prompts alternate with runs of the agent's records (words, tool calls, their
// results), read as one conversation of prompts and answers.
import type { UploadConversation, UploadMessage } from "../schemas/chat-history.js";
import { cutText, firstLine } from "../text/cut-text.js";
import { uniqueIds } from "./message-ids.js";
import { joinPieces } from "./placeholders.js";

/** A piece of what was said: text, or a tool the agent ran (`[tool: Bash]`; those in a row share a line). */
export interface TurnPiece {
  text: string;
  tool: boolean;
}

/** One record's share of the conversation. */
export interface Utterance {
  id: string;
  role: UploadMessage["role"];
  pieces: TurnPiece[];
  time: string | undefined;
}

/**
 * Each prompt a human message, and everything the agent did until the next one a single assistant
 * message: agents write each block of an answer, and each tool call, as a record of their own, so a
 * session of 40 prompts read record by record made hundreds of messages of `[tool: Read]` alone.
 * Records with nothing said (a tool's result, thinking) are passed over.
 */
export function agentTurns(utterances: Utterance[]): UploadMessage[] {
  const runs: Utterance[] = [];
  for (const utterance of utterances) {
    if (utterance.pieces.length === 0) continue;
    const last = runs.at(-1);
    if (utterance.role === "assistant" && last?.role === "assistant") last.pieces.push(...utterance.pieces);
    else runs.push({ ...utterance, pieces: [...utterance.pieces] });
  }
  return runs.map(({ id, role, time, pieces }) => ({
    id,
    role,
    content: joinPieces(toolsOnOneLine(pieces)),
    ...(time === undefined ? {} : { createdAt: time }),
  }));
}

/** The pieces as paragraphs, the tools run in a row on one line. */
export function toolsOnOneLine(pieces: readonly TurnPiece[]): string[] {
  const texts: string[] = [];
  pieces.forEach((piece, i) => {
    if (piece.tool && pieces[i - 1]?.tool) texts[texts.length - 1] += ` ${piece.text}`;
    else texts.push(piece.text);
  });
  return texts;
}

/** The file's name without its folder and its .json or .jsonl: a session id where the records name none. */
export function sessionFileId(file: string): string {
  return file.replace(/^.*\//, "").replace(/\.jsonl?$/i, "");
}

/** What every agent importer says of the sessions its sub-agents kept beside the user's, left out. */
export const SUBAGENT_SESSIONS = "sub-agents' sessions (the agent's side work, left out as its reasoning is)";

const TITLE_CHARS = 100;

/** The first prompt's first line, cut to a title's length: what names a session that has no title. */
export function promptTitle(messages: readonly UploadMessage[]): string | undefined {
  const prompt = messages.find((message) => message.role === "human")?.content;
  return prompt === undefined ? undefined : cutText(firstLine(prompt), TITLE_CHARS);
}

/**
 * A session's conversation, its messages' ids made unique: started at its first message (else the
 * file's time), updated at the last thing said in it, the end of the agent's last answer rather
 * than its start. `partial`: the file was cut short, so its messages are added to those stored, not put in their place.
 */
export function sessionConversation(session: {
  id: string;
  title: string;
  messages: UploadMessage[];
  said: readonly Utterance[];
  fallbackDate: Date;
  partial?: boolean;
}): UploadConversation {
  const createdAt = session.messages.find((message) => message.createdAt !== undefined)?.createdAt ?? session.fallbackDate.toISOString();
  const updatedAt = session.said
    .filter((utterance) => utterance.pieces.length > 0)
    .map((utterance) => utterance.time)
    .filter((time) => time !== undefined)
    .sort()
    .at(-1);
  return {
    complete: session.partial !== true, // the file holds the whole session as it stands
    conversation: {
      id: session.id,
      title: session.title,
      createdAt,
      ...(updatedAt === undefined || updatedAt < createdAt ? {} : { updatedAt }),
      messages: uniqueIds(session.messages),
    },
  };
}
