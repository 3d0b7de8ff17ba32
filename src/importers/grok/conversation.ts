// Grok (xAI): one conversation of the data export's prod-grok-backend.json to the upload shape. What
// each rule is based on (field notes from real exports: portable-ai-memory.org/providers/grok, Feb
// 2026; codeface-io/mac-stack's grok/export_conversations; the web app's response object in Grok3API):
// - The file is `{ "conversations": [...], "projects", "tasks", "media_posts" }`; each conversation
//   is `{ conversation: { id, title, create_time, modify_time, … }, responses: [{ response, share_link }] }`.
//   Conversation times are ISO 8601; a response's `create_time` is MongoDB's extended JSON
//   (`{ "$date": { "$numberLong": "<ms>" } }`), or an ISO string.
// - `sender` is "human" for the user; the answers have been written "assistant", "ASSISTANT" and a
//   model's name ("grok-3"): anything not human is Grok.
// - Most responses name `parent_response_id`: a regenerated answer or an edited prompt is a
//   sibling. The export does not say which one was on screen; the branch kept ends at the newest
//   response nothing answers (as for Claude). A response without the field (written before
//   responses named their parent) follows the one before it in time.
// - `message` is the text. Grok writes `<grok:render …>` tags (inline citations) into it, left out,
//   and `<xaiArtifact … title="…">` around a document it wrote, kept as `[artifact: title]` and the
//   document. `thinking_trace`, `agent_thinking_traces` and `steps` (reasoning, tool runs, searches)
//   are not the answer, as for ChatGPT and Claude. An answer that failed (an `error`, no text) is
//   left out, and one nothing follows is not where the branch ends.
// - Images Grok made (`generated_image_urls`) and images attached (`image_attachments`) are
//   `[image]`; uploaded files (`file_attachments`, asset ids; names in `file_attachments_metadata`
//   when present) are `[file: name]`.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { compareTimes, newestBranch, withoutFailedLeaves, type Linked } from "../branch.js";
import { exportedConversation } from "../exported-conversation.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, stringOf, type JsonObject } from "../json-values.js";
import { notAConversation } from "../record-errors.js";
import type { RecordContext } from "../types.js";

interface Node extends Linked {
  raw: JsonObject;
  time: string | undefined;
}

export function grokConversation(record: unknown, context: RecordContext): UploadConversation | undefined {
  if (!isObject(record)) throw notAConversation(context);
  const conversation = isObject(record.conversation) ? record.conversation : {};
  const nodes = withoutFailedLeaves(nodesOf(record), (node) => node.raw.error !== undefined && !nonEmptyString(node.raw.message));
  const found = {
    id: nonEmptyString(conversation.id),
    title: conversation.title,
    createdAt: isoFromTime(conversation.create_time),
    updatedAt: isoFromTime(conversation.modify_time),
    messages: newestBranch(nodes, newer).flatMap((node) => toMessage(node) ?? []),
  };
  return exportedConversation("grok", found, context);
}

/** Time order, then the export's order. */
function newer(a: Node, b: Node): number {
  return compareTimes(a.time, b.time);
}

/** The responses, each with its parent: the one it names, else (no such field) the one before it in time. */
function nodesOf(record: JsonObject): Node[] {
  const nodes = arrayOf(record.responses)
    .map((entry) => (isObject(entry) && isObject(entry.response) ? entry.response : entry))
    .filter(isObject)
    .map((raw, i) => ({
      id: nonEmptyString(raw._id) ?? nonEmptyString(raw.response_id) ?? `response-${i}`,
      parent: nonEmptyString(raw.parent_response_id),
      raw,
      time: timeOf(raw.create_time),
    }));
  const inTime = [...nodes].sort(newer);
  for (const [i, node] of inTime.entries()) {
    if (i > 0 && node.parent === undefined && !("parent_response_id" in node.raw)) node.parent = inTime[i - 1]!.id;
  }
  return nodes;
}

/** A time as the export writes it: `{ "$date": { "$numberLong": "…" } }`, `{ "$date": "…" }`, or plain. */
function timeOf(value: unknown): string | undefined {
  if (!isObject(value)) return isoFromTime(value);
  const date = value.$date;
  return isObject(date) ? isoFromTime(date.$numberLong) : isoFromTime(date);
}

function toMessage({ id, raw, time }: Node): UploadMessage | undefined {
  const role = /^(?:human|user)$/i.test(stringOf(raw.sender) ?? "") ? "human" : "assistant";
  const text = cleaned(stringOf(raw.message) ?? "");
  const content = [text, ...attachments(raw)].filter((piece) => piece !== "").join("\n\n");
  if (content === "") return undefined;
  return { id, role, content, ...(time === undefined ? {} : { createdAt: time }) };
}

/** An inline citation Grok renders from a tag in its answer. */
const RENDER_TAG = /[ \t]*<grok:render\b[^>]*>[\s\S]*?<\/grok:render>|[ \t]*<grok:render\b[^>]*\/>/g;
/** A document Grok wrote, with its title. */
const ARTIFACT = /<xaiArtifact\b([^>]*)>([\s\S]*?)(?:<\/xaiArtifact>|$)/g;
/** A tool's card from Grok's reasoning, should one be left in an answer. */
const TOOL_CARD = /<xai:tool_usage_card\b[\s\S]*?<\/xai:tool_usage_card>\s*/g;

function cleaned(message: string): string {
  return message
    .replace(RENDER_TAG, "")
    .replace(TOOL_CARD, "")
    .replace(ARTIFACT, (_, attributes: string, body: string) => {
      const title = /\btitle="([^"]*)"/.exec(attributes)?.[1]?.trim();
      return `${title ? `[artifact: ${title}]` : "[artifact]"}\n${body.trim()}`;
    })
    .trim();
}

function attachments(raw: JsonObject): string[] {
  const images = [...arrayOf(raw.generated_image_urls), ...arrayOf(raw.image_attachments)].map(() => "[image]");
  const metadata = arrayOf(raw.file_attachments_metadata).filter(isObject);
  const files = arrayOf(raw.file_attachments).map((_, i) => {
    const meta = metadata[i] ?? {};
    const name = nonEmptyString(meta.file_name) ?? nonEmptyString(meta.fileName) ?? nonEmptyString(meta.name);
    return name === undefined ? "[file]" : `[file: ${name}]`;
  });
  return [...images, ...files];
}
