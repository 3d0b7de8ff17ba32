// A text thread of Zed's assistant (before the agent panel: "contexts", saved as
// conversations/<summary> - <n>.zed.json in Zed's config folder on macOS, its data folder elsewhere;
// crates/paths contexts_dir) to the upload shape. What each rule rests on (zed-industries/zed
// crates/assistant_context/src/assistant_context.rs, `SavedContext`):
// - `{ id, zed: "context", version, text, messages, summary, slash_command_output_sections }`: the
//   whole thread is one text buffer, `text`; each message starts at its `start` and runs to the next
//   one's. Version 0.4.0: `messages: [{ id: { replica_id, value }, start, metadata: { role, status } }]`;
//   0.1.0 to 0.3.0: `messages: [{ id, start }]` and their roles in `message_metadata` by id.
// - A slash command's output (/file, /tab… : the files' text the model was sent) is a section of the
//   buffer the editor shows folded, as its label: it stands as `[label]` here.
// - Roles: user, assistant; system messages are left out. Nothing in the file is a time: the thread
//   starts at the file's modification time.
// - Ids: the thread's `id` (a uuid; a file without one, its summary and first message); a message's its own.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, nonEmptyString, titleFrom, type JsonObject } from "../json-values.js";
import type { RecordContext } from "../types.js";

interface Section {
  start: number;
  end: number;
  label: string;
}

/** A SavedContext file as one conversation; undefined when nothing in it was said. */
export function zedTextThread(value: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isTextThread(value)) return undefined;
  // Offsets are Rust's: bytes of the UTF-8 text.
  const text = Buffer.from(value.text as string);
  const sections = arrayOf(value.slash_command_output_sections).flatMap(sectionOf);
  const starts = arrayOf(value.messages).filter(isObject);
  const messages = starts.flatMap((message, index): UploadMessage[] => {
    const role = roleOf(message, value.message_metadata);
    const start = Number(message.start);
    const end = index + 1 < starts.length ? Number(starts[index + 1]!.start) : text.length;
    if (role === undefined || !Number.isInteger(start) || !(end >= start)) return [];
    const content = shown(text, start, end, sections).trim();
    return content === "" ? [] : [{ id: idOf(message.id, index), role, content }];
  });
  if (messages.length === 0) return undefined;
  const seed = [nonEmptyString(value.summary), messages[0]!.content];
  return {
    complete: true, // the file holds the whole thread as it stands
    conversation: {
      id: nonEmptyString(value.id) ?? derivedId("zed-text-thread", seed),
      title: titleFrom(value.summary),
      createdAt: context.fallbackDate.toISOString(),
      messages,
    },
  };
}

/** SavedContext: its `zed` says what the file is. */
export function isTextThread(value: unknown): value is JsonObject {
  return isObject(value) && value.zed === "context" && typeof value.text === "string" && Array.isArray(value.messages);
}

/** The message's role, from its metadata (0.4.0) or the file's `message_metadata` (before). */
function roleOf(message: JsonObject, metadata: unknown): UploadMessage["role"] | undefined {
  const own = isObject(message.metadata) ? message.metadata : isObject(metadata) ? metadata[String(message.id)] : undefined;
  const role = isObject(own) ? own.role : undefined;
  return role === "user" ? "human" : role === "assistant" ? "assistant" : undefined;
}

/** A Lamport timestamp `{ replica_id, value }` (0.4.0) or a number (before). */
function idOf(id: unknown, index: number): string {
  if (isObject(id) && Number.isInteger(id.value)) return `${Number(id.replica_id ?? 0)}.${Number(id.value)}`;
  return typeof id === "number" ? String(id) : `message-${index}`;
}

function sectionOf(section: unknown): Section[] {
  const range = isObject(section) && isObject(section.range) ? section.range : undefined;
  const [start, end] = [Number(range?.start), Number(range?.end)];
  const label = isObject(section) ? nonEmptyString(section.label) : undefined;
  return label !== undefined && Number.isInteger(start) && Number.isInteger(end) && end > start ? [{ start, end, label }] : [];
}

/** The buffer from `start` to `end` as the editor shows it, each folded section as `[label]`. */
function shown(text: Buffer, start: number, end: number, sections: readonly Section[]): string {
  let out = "";
  let at = start;
  for (const section of sections.filter((s) => s.start >= start && s.end <= end).sort((a, b) => a.start - b.start)) {
    if (section.start < at) continue; // nested in one already folded
    const folded = text.toString("utf8", section.start, section.end);
    out += `${text.toString("utf8", at, section.start)}[${section.label}]${folded.endsWith("\n") ? "\n" : ""}`;
    at = section.end;
  }
  return out + text.toString("utf8", at, end);
}
