// Simon Willison's LLM (simonw/llm, the `llm` command) to the upload shape. What each rule rests on,
// read at 0.32 (August 2026) and back through its tags: llm/migrations.py (every table, m001 to m027),
// llm/models.py (0.5 to 0.31 Response.log_to_db: `responses.prompt` is the prompt as typed, the
// fragments given with -f in prompt_fragments, `system` and --sf in system_fragments, attachments in
// prompt_attachments, tool calls in tool_calls; `conversations.name` is `_conversation_name`: the
// first prompt, else the system prompt, cut to 32 characters), llm/logs.py (0.32 LogStore.log: a
// thread per conversation, its id the conversation's; a turn per model call, its prompt the message
// at parent_message_hash and its answer the messages up to tip_message_hash; a part's text borrowing
// a fragment stored as `text_ref` pieces, `{fragment: id}` or `{literal: text}`; `llm logs` merging
// both generations, a response also written as a turn read once), llm/parts.py (part types) and
// 0.4's cli.py (`logs`: a chat is its first row's id, `chat_id` in the rest).
// - One conversation per conversations row or thread (the same id: llm 0.32 continues an older
//   conversation as a thread of its id, so both tables' exchanges are one conversation, in id order,
//   as `llm logs` sorts their ULIDs), and one per 0.4 chat.
// - A prompt as typed, each fragment (a file, a URL given with -f) as `[fragment: its source]` where it
//   stood: the model read the file, the user typed its name. Attachments by their file's name.
// - The answer's text, tools it called named (`[tool: name]`); tools' output and the model's
//   reasoning left out. A tool loop's follow-up calls (no prompt) join the answer they continue.
// - The system prompt (-s, --sf) the user gave, as the conversation's first message.
// - Title: llm's name of the conversation (as `llm logs` shows it), else the first prompt; the first
//   prompt too where the name is only that prompt cut at 32 characters ("Turn this timetable photo
//   into …"): the same words, not cut shorter than every other app's title.
// - Ids: the conversation's, and each message's from its response's (or turn's) id.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { isObject, isoFromTime, jsonObjectIn, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { filePlaceholder, joinPieces, toolPlaceholder, withSystemPrompt } from "../placeholders.js";
import type { Row } from "../sqlite.js";
import type { RecordContext } from "../types.js";
import { isLlmExchange, type LlmPart } from "./database.js";

/** A prompt and what answered it, as what they say. */
export interface LlmItem {
  conversation: string;
  name: string | undefined;
  order: string;
  system: string | undefined;
  said: Utterance[];
  context: RecordContext;
}

export function llmItem(record: unknown, context: RecordContext): LlmItem | undefined {
  if (!isLlmExchange(record)) return undefined;
  const time = isoFromTime(record.time);
  const read = (parts: LlmPart[]) => parts.flatMap((part) => pieceOf(part, context));
  const system = joinPieces(read(record.system).map((piece) => piece.text));
  return {
    conversation: record.conversation,
    name: nonEmptyString(record.name)?.trim(),
    order: record.order,
    system: system === "" ? undefined : system,
    said: [
      { id: `${record.id}-prompt`, role: "human", pieces: read(record.prompt).map((piece) => ({ ...piece, tool: false })), time },
      { id: `${record.id}-response`, role: "assistant", pieces: read(record.answer), time },
    ],
    context,
  };
}

/** What a part shows: text (its fragments by their source), a tool called, an attachment; nothing of the rest. */
function pieceOf(part: LlmPart, context: RecordContext): TurnPiece[] {
  switch (part.type) {
    case "text": // blank in a tool loop's follow-up call, which has no prompt
      return textOf(part, context)
        .filter((text) => text.trim() !== "")
        .map((text) => ({ text, tool: false }));
    case "fragment":
      return [{ text: fragmentPlaceholder(part.source), tool: false }];
    case "attachment":
      return [{ text: attachmentPlaceholder(part.attachment), tool: false }];
    case "tool_call":
      return [{ text: toolPlaceholder(part.toolName), tool: true }];
    default:
      return []; // reasoning, a tool's result: the model's reading, not what was said
  }
}

/** A text part's text: the text column, or its text_ref pieces, each fragment by its source. */
function textOf(part: LlmPart, context: RecordContext): string[] {
  const text = stringOf(part.text);
  if (text !== undefined || part.payload === undefined) return text === undefined ? [] : [text];
  const payload = jsonObjectIn(part.payload);
  if (payload === undefined) {
    context.skip("parts of messages whose stored JSON is damaged (left out)");
    return [];
  }
  if (typeof payload.text === "string") return [payload.text];
  const pieces = Array.isArray(payload.text_ref) ? payload.text_ref.filter(isObject) : [];
  return pieces.flatMap((piece) => {
    if (typeof piece.literal === "string") return [piece.literal];
    return piece.fragment === undefined ? [] : [fragmentPlaceholder(part.fragments?.[String(piece.fragment)])];
  });
}

function fragmentPlaceholder(source: unknown): string {
  const named = nonEmptyString(source)?.trim();
  return named === undefined ? "[fragment]" : `[fragment: ${named}]`;
}

/** An attachment by its file's name (or URL); an image passed without one (piped in) as `[image]`. */
function attachmentPlaceholder(attachment: Row | undefined): string {
  const path = nonEmptyString(attachment?.path)?.replace(/^.*[\\/]/, "");
  const named = path ?? nonEmptyString(attachment?.url);
  if (named !== undefined) return filePlaceholder(named);
  return stringOf(attachment?.type)?.startsWith("image/") ? "[image]" : "[file]";
}

/** llm's name, unless it is the first prompt cut short (llm cuts it at 32 characters, whitespace collapsed, and adds "…"): then the prompt. */
function titleOf(name: string | undefined, prompt: string | undefined): string | undefined {
  if (name === undefined || prompt === undefined || !name.endsWith("…")) return name ?? prompt;
  return prompt.replace(/\s+/g, " ").startsWith(name.slice(0, -1).trimEnd()) ? prompt : name;
}

/** Each conversation's exchanges, in llm's order, to its conversation. */
export function llmConversations(items: LlmItem[]): UploadConversation[] {
  const conversations = new Map<string, LlmItem[]>();
  for (const item of items) {
    const its = conversations.get(item.conversation);
    if (its === undefined) conversations.set(item.conversation, [item]);
    else its.push(item);
  }
  return [...conversations.entries()].flatMap(([id, its]) => {
    const conversation = conversationOf(
      id,
      its.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0)),
    );
    return conversation === undefined ? [] : [conversation];
  });
}

function conversationOf(id: string, items: LlmItem[]): UploadConversation | undefined {
  const { skip, fallbackDate } = items[0]!.context;
  const said = items.flatMap((item) => item.said);
  const answered = agentTurns(said);
  if (answered.length === 0) {
    skip("conversations without any message text");
    return undefined;
  }
  const messages = withSystemPrompt(items[0]!.system, answered, answered[0]!.createdAt);
  return sessionConversation({
    id,
    title: titleFrom(titleOf(items.find((item) => item.name !== undefined)?.name, promptTitle(answered))),
    messages,
    said,
    fallbackDate,
  });
}
