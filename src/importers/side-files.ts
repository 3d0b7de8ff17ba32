// The other files of a chat export, known by their keys: passed alone instead of the
// conversations, each is named, with the file to pass instead.
import { AppError } from "../shared/errors.js";

interface SideFile {
  /** Keys the file's first record (or the file's object) has, all of them. */
  keys: string[];
  what: string;
  instead: string;
}

const CHATGPT_INSTEAD = "Pass conversations.json (or the conversations-NNN.json files) from the same folder, or the zip as downloaded.";
const CLAUDE_INSTEAD = "Pass conversations.json from the same folder, or the zip as downloaded.";

const SIDE_FILES: SideFile[] = [
  { keys: ["email", "chatgpt_plus_user"], what: "ChatGPT's user.json (the account's details)", instead: CHATGPT_INSTEAD },
  {
    keys: ["conversation_id", "is_anonymous"],
    what: "ChatGPT's shared_conversations.json (the links you shared)",
    instead: CHATGPT_INSTEAD,
  },
  { keys: ["conversation_id", "rating"], what: "ChatGPT's message_feedback.json (your ratings of answers)", instead: CHATGPT_INSTEAD },
  {
    keys: ["export_version", "logical_files"],
    what: "ChatGPT's export_manifest.json (the list of the export's files)",
    instead: CHATGPT_INSTEAD,
  },
  { keys: ["full_name", "email_address"], what: "Claude's users.json (the account's details)", instead: CLAUDE_INSTEAD },
  { keys: ["prompt_template", "docs"], what: "Claude's projects.json (projects and their documents, not chats)", instead: CLAUDE_INSTEAD },
  { keys: ["conversations_memory"], what: "Claude's memories.json (what Claude remembers, not chats)", instead: CLAUDE_INSTEAD },
];

/** The error for a lone file that is one of an export's other files, or undefined when it is none of them. */
export function sideFileError(label: string, keys: Set<string>): AppError | undefined {
  const known = SIDE_FILES.find((side) => side.keys.every((key) => keys.has(key)));
  if (known === undefined) return undefined;
  return new AppError("invalid_input", `${label}: this is ${known.what}, not the conversations`, { suggestion: known.instead });
}
