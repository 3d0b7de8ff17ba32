// Qwen Code (QwenLM/qwen-code), Gemini CLI's fork: to late 2025 it kept its sessions as Gemini CLI
// does, under ~/.qwen/tmp/<project hash>/chats/session-<start>-<id>.json (and /chat save's
// checkpoint-<tag>.json beside them), the same shape but for its answers' `type`, "qwen" where Gemini
// CLI writes "gemini" (third-party readers of those files: Dicklesworthstone/coding_agent_session_search
// #105, and a QwenSession reader's `type: 'user' | 'qwen'`). Its sessions since are JSONL
// transcripts under ~/.qwen/projects, another format (importers/qwen-code/). A file is Qwen Code's by its folder or its answers.
import { resolve } from "node:path";
import type { UploadConversation } from "../../schemas/chat-history.js";
import { isObject } from "../json-values.js";
import type { SourcedRecord } from "../types.js";

export const QWEN_ANSWER = "qwen";

const QWEN_FOLDER = /(^|[\\/])\.qwen[\\/]/;

/** The conversation as Qwen Code's (platform `qwen-code`) when its file is; unchanged otherwise. */
export function withQwenCode(
  records: readonly SourcedRecord[],
  conversation: UploadConversation | undefined,
): UploadConversation | undefined {
  if (conversation === undefined || !isQwenCode(records)) return conversation;
  return { ...conversation, platform: "qwen-code", platformDisplayName: "Qwen Code" };
}

function isQwenCode(records: readonly SourcedRecord[]): boolean {
  const { path, label } = records[0]!.context;
  return QWEN_FOLDER.test(path) || QWEN_FOLDER.test(resolve(label)) || records.some(({ value }) => hasQwenAnswer(value));
}

/** A record that is, or holds, a message Qwen Code wrote as its answer. */
function hasQwenAnswer(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.type === QWEN_ANSWER) return true;
  const messages = Array.isArray(value.messages)
    ? value.messages
    : isObject(value.$set) && Array.isArray(value.$set.messages)
      ? value.$set.messages
      : [];
  return messages.some((message) => isObject(message) && message.type === QWEN_ANSWER);
}
