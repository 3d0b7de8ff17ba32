// OpenHands' event files to the upload shape, one conversation per conversation folder. What each
// rule rests on:
// - The agent SDK (OpenHands/software-agent-sdk 611629e, 2026-08; its layout since 2025-09):
//   conversation/persistence_const.py and event_store.py (EventLog.append writes each event as
//   events/event-{idx:05d}-{event id}.json, `model_dump_json(exclude_none=True)`; "event-{idx:05d}.json"
//   in its first days), conversation/base.py get_persistence_dir (<persistence dir>/<id.hex>),
//   conversation/state.py (base_state.json: `id`, the agent's settings, no title), event/ (`kind` is
//   the class name: MessageEvent's `llm_message { role, content: [{ type: "text", text } | { type:
//   "image", image_urls }] }`, ActionEvent's `thought`, `tool_name`, `action`), tool/builtins/finish.py
//   (FinishAction's `message`, the agent's last words to the user). The CLI (OpenHands/OpenHands-CLI
//   6b3838c, 2026-05): locations.py (~/.openhands/conversations, OPENHANDS_PERSISTENCE_DIR,
//   OPENHANDS_CONVERSATIONS_DIR) and conversations/store/local.py, whose list reads the event files
//   in name order and titles a conversation by its first user message.
// - V0 (OpenHands/OpenHands d6fab19, 0.62, 2025-11): storage/locations.py (sessions/<id>/events/<n>.json,
//   metadata.json), events/stream.py (an event a file, and pages of them in event_cache/, not read
//   here: the same events again), events/serialization/event.py (event_to_dict: `{ id, timestamp,
//   source, message, action, args }` or `{ …, observation, content, extras }`), events/action/
//   (MessageAction's `content`, `image_urls`; AgentFinishAction's `final_thought`; an action's
//   `thought`), storage/data_models/conversation_metadata.py (`title`); what its chat shows, the frontend's
//   event-message-components (an action's `thought` as the agent's message, but the think action's;
//   the finish's `final_thought`: event-content-helpers/get-action-content.ts).
// - V1 GUI (OpenHands/OpenHands 2f7a3fe, app_server/event/filesystem_event_service*.py): the SDK's
//   events, `model_dump(mode="json")`, as v1/events/<conversation id>/<YYYYMMDDHHMMSS>_<kind>_<event
//   id hex>; its titles are kept in its openhands.db, not read: the first prompt names them.
// What is kept: the user's messages as typed, the agent's messages and its finish message, the text
// it wrote before acting, and each tool it ran as `[tool: terminal]`. Left out: tools' output
// (observations), the system prompt, condensations and their summaries, the think tool's and the
// model's reasoning, state changes, errors, and sub-agents' conversations (openhands-tools delegate/impl.py
// and task/manager.py keep them in <parent's folder>/subagents/<id>/, as conversations of their own). A prompt and everything the agent did until the next one
// is one exchange (agent-sessions.ts). Id: the conversation's, the folder's name without dashes (the
// SDK's id.hex; the V1 GUI names the same id with dashes), else base_state.json's or metadata.json's.
// Times: the events' (naive local times, read as UTC as every zoneless time is: json-values.ts).
import type { UploadConversation } from "../../schemas/chat-history.js";
import { agentTurns, promptTitle, sessionConversation, type TurnPiece, type Utterance } from "../agent-sessions.js";
import { type Converter, isolated } from "../importer.js";
import { arrayOf, isObject, isoFromTime, jsonObjectBeside, nonEmptyString, stringOf, titleFrom, type JsonObject } from "../json-values.js";
import { derivedId } from "../derived-id.js";
import { fittingId } from "../message-ids.js";
import { wholePath } from "../source.js";
import { toolPlaceholder } from "../placeholders.js";
import type { RecordContext, SkipReport } from "../types.js";

export interface OpenHandsEvent {
  /** The conversation's folder within what was passed ("" when the events' own folder, or one file, was passed). */
  folder: string;
  /** The folder's name as the conversation's id, when the path shows it. */
  folderId: string | undefined;
  /** Where the event is in its log (the SDK's file number, V0's event id); undefined in the V1 GUI's layout. */
  index: number | undefined;
  layout: "sdk" | "v0" | "gui";
  /** A sub-agent's conversation (the SDK's delegate and task tools keep them in <parent>/subagents/<id>/). */
  subagent: boolean;
  eventId: string | undefined;
  said?: Utterance | undefined;
  sibling: RecordContext["sibling"];
  fallbackDate: Date;
  skip: SkipReport;
}

/** The SDK's file name: event-00012-<event id>.json (event-00012.json in its first days). */
const SDK_FILE = /^event-(\d{5,})(?:-[0-9a-f-]{8,})?\.json$/i;
/** V0's file name: its event id. */
const V0_FILE = /^(\d+)\.json$/;
/** The V1 GUI's file name: 20251115094321_MessageEvent_<event id hex>. */
const GUI_FILE = /^\d{14}_[A-Za-z]+_[0-9a-f]{32}$/i;

/**
 * The event files of a folder (read in path order, so a conversation's come together) to their
 * conversations: a conversation ends where the next folder's events begin.
 */
export const openHandsEvents: Converter<UploadConversation> = async function* (records) {
  let events: OpenHandsEvent[] = [];
  for await (const { value, context } of records) {
    const event = isolated(readEvent, value, context);
    if (event === undefined) continue;
    if (events.length > 0 && events[0]!.folder !== event.folder) {
      yield* await conversationsOf(events);
      events = [];
    }
    events.push(event);
  }
  yield* await conversationsOf(events);
};

function readEvent(record: unknown, context: RecordContext): OpenHandsEvent | undefined {
  if (!isObject(record)) return undefined;
  const parts = context.path.split("/");
  const name = parts.at(-1) ?? "";
  const inEvents = parts.at(-2) === "events" || parts.length === 1;
  const sdk = typeof record.kind === "string";
  // V0's event_cache/ pages hold its events again, a list a file.
  if (!sdk && !inEvents) return undefined;
  const layout = !sdk ? "v0" : GUI_FILE.test(name) ? "gui" : "sdk";
  const folderOf = (path: string[]) => (layout === "gui" ? path.slice(0, -1) : path.at(-2) === "events" ? path.slice(0, -2) : []);
  const folderParts = folderOf(parts);
  // A conversation's folder passed itself (a watch imports it so) shows its id only in the path on disk.
  const placed = parts.length > 1 ? folderOf(wholePath(context).split("/")) : folderParts;
  const index =
    layout === "sdk"
      ? numberIn(SDK_FILE.exec(name)?.[1])
      : layout === "v0"
        ? (numberIn(V0_FILE.exec(name)?.[1]) ?? eventNumber(record.id))
        : undefined;
  const event: OpenHandsEvent = {
    folder: folderParts.join("/"),
    folderId: placed.at(-1),
    index,
    layout,
    subagent: placed.at(-2) === "subagents",
    eventId: stringOf(record.id) ?? (typeof record.id === "number" ? `event-${record.id}` : undefined),
    sibling: context.sibling,
    fallbackDate: context.fallbackDate,
    skip: context.skip,
  };
  const pieces = sdk ? sdkPieces(record) : fileStorePieces(record);
  if (pieces === undefined) return event;
  const role = record.source === "user" ? "human" : "assistant";
  return { ...event, said: { id: event.eventId ?? `event-${context.index}`, role, pieces, time: isoFromTime(record.timestamp) } };
}

function numberIn(digits: string | undefined): number | undefined {
  return digits === undefined ? undefined : Number(digits);
}

function eventNumber(id: unknown): number | undefined {
  return typeof id === "number" && Number.isInteger(id) && id >= 0 ? id : undefined;
}

/** What an SDK event said: a message of the user or the agent, or what the agent did (ActionEvent). */
function sdkPieces(event: JsonObject): TurnPiece[] | undefined {
  if (event.kind === "MessageEvent" && (event.source === "user" || event.source === "agent") && isObject(event.llm_message))
    return contentPieces(event.llm_message.content);
  if (event.kind !== "ActionEvent" || event.source !== "agent") return undefined;
  const thought = contentPieces(event.thought);
  const tool = stringOf(event.tool_name);
  if (tool === "think") return thought; // its thought is the model's reasoning
  if (tool === "finish") return [...thought, ...textPieces(isObject(event.action) ? event.action.message : undefined)];
  return [...thought, { text: toolPlaceholder(tool ?? "tool"), tool: true }];
}

/** TextContent and ImageContent (sdk/llm/message.py); a string, as Message's validator also takes. */
function contentPieces(content: unknown): TurnPiece[] {
  if (typeof content === "string") return textPieces(content);
  return arrayOf(content)
    .filter(isObject)
    .flatMap((block) =>
      block.type === "image" ? [{ text: "[image]", tool: false }] : block.type === "text" ? textPieces(block.text) : [],
    );
}

function textPieces(text: unknown): TurnPiece[] {
  const trimmed = nonEmptyString(text)?.trim();
  return trimmed === undefined || trimmed === "" ? [] : [{ text: trimmed, tool: false }];
}

/** V0's actions that are no tool the agent ran (core/schema/action.py): the system prompt, recalls, state changes, condensations. */
const V0_HIDDEN = new Set([
  "system",
  "recall",
  "think",
  "condensation",
  "condensation_request",
  "change_agent_state",
  "null",
  "pause",
  "resume",
  "stop",
  "start",
  "reject",
  "loop_recovery",
]);

/** What a V0 action said; observations (a tool's output, the environment's) say nothing here. */
function fileStorePieces(event: JsonObject): TurnPiece[] | undefined {
  const action = stringOf(event.action);
  const args = isObject(event.args) ? event.args : {};
  if (action === undefined || V0_HIDDEN.has(action)) return undefined;
  if (action === "message" && (event.source === "user" || event.source === "agent")) {
    const images = arrayOf(args.image_urls).map(() => ({ text: "[image]", tool: false }));
    return [...textPieces(args.content), ...images];
  }
  if (event.source !== "agent") return undefined;
  if (action === "finish") {
    const final = textPieces(args.final_thought);
    return final.length > 0 ? final : textPieces(args.thought);
  }
  const metadata = isObject(event.tool_call_metadata) ? event.tool_call_metadata : {};
  return [...textPieces(args.thought), { text: toolPlaceholder(stringOf(metadata.function_name) ?? action), tool: true }];
}

/** More than any metadata.json holds; base_state.json holds the agent's settings (its tools, MCP servers). */
const MAX_STATE_BYTES = 8 * 1024 * 1024;

async function conversationsOf(events: OpenHandsEvent[]): Promise<UploadConversation[]> {
  const first = events[0];
  if (first === undefined) return [];
  if (first.subagent) {
    first.skip("sub-agents' conversations (the agent's side work, left out as its reasoning is)");
    return [];
  }
  const sorted = inLogOrder(events);
  const missing = missingEvents(sorted);
  if (missing > 0)
    first.skip("events of a conversation whose files could not be read (damaged, or not passed): the others imported", missing);
  const utterances = sorted.filter((event) => event.said !== undefined).map((event) => event.said!);
  const messages = agentTurns(utterances);
  if (messages.length === 0) {
    first.skip("conversations without any message text");
    return [];
  }
  const state = await stateBeside(first);
  const id = normalId(first.folderId) ?? normalId(state.id) ?? derivedId("openhands", [first.eventId ?? first.folder]);
  const conversation = sessionConversation({
    id: fittingId(id),
    title: titleFrom(state.title ?? promptTitle(messages)),
    messages,
    said: utterances,
    fallbackDate: first.fallbackDate,
    partial: missing > 0,
  });
  return [conversation];
}

/** By their place in the log (the files' names order 00009 before 00010, but a zip's order may differ). */
function inLogOrder(events: OpenHandsEvent[]): OpenHandsEvent[] {
  return events.every((event) => event.index !== undefined) ? [...events].sort((a, b) => a.index! - b.index!) : events;
}

/** Events the log numbers that are not among those read: files that could not be read, or a single file passed. */
function missingEvents(sorted: OpenHandsEvent[]): number {
  const last = sorted.at(-1)?.index;
  if (last === undefined || sorted.some((event) => event.index === undefined)) return 0;
  return last + 1 - new Set(sorted.map((event) => event.index)).size;
}

/** The conversation's id and title in the file beside its events folder: the SDK's base_state.json, V0's metadata.json. */
async function stateBeside(event: OpenHandsEvent): Promise<{ id?: string | undefined; title?: string | undefined }> {
  // The SDK's base_state.json (the agent's settings, to megabytes) is read only for an id the path does not show.
  if (event.layout === "gui" || (event.layout === "sdk" && event.folderId !== undefined)) return {};
  const name = event.layout === "sdk" ? "base_state.json" : "metadata.json";
  const beside = { sibling: event.sibling, skip: event.skip };
  const unreadable = `${name} files that could not be read (the conversation is named by its first prompt)`;
  const state = await jsonObjectBeside(beside, `../${name}`, MAX_STATE_BYTES, unreadable);
  if (state === undefined) return {};
  return event.layout === "sdk" ? { id: stringOf(state.id) } : { id: stringOf(state.conversation_id), title: nonEmptyString(state.title) };
}

/** An id as the SDK names its folder: a UUID's hex, without dashes (the V1 GUI's folders keep them). */
function normalId(id: string | undefined): string | undefined {
  const trimmed = id?.trim();
  if (trimmed === undefined || trimmed === "") return undefined;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(trimmed)
    ? trimmed.replaceAll("-", "").toLowerCase()
    : trimmed;
}
