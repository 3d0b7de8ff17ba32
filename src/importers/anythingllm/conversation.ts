// AnythingLLM's chats (Mintplex-Labs/anything-llm, desktop and Docker) to the upload shape. What
// each rule rests on: server/prisma/schema.prisma and its migrations (the tables), models/workspaceChats.js
// (`new` writes `response` as JSON; `forWorkspace`, `forWorkspaceByUser` and the thread's `where`
// are what the app shows: `include` true, a thread's chats or a workspace's outside threads, one
// user's, API sessions apart), utils/helpers/chat/responses.js (`convertToChatHistory`: the prompt
// is the user's message with the response's `attachments`, `response.text` the assistant's, both at
// the row's `createdAt`), models/workspaceThread.js (the default name "Thread", renamed from the
// first prompt), and Prisma's SQLite DateTime (milliseconds; a migration's default, SQL's text).
// - workspaces `{ id, name, slug, createdAt }`, workspace_threads `{ id, name, slug, workspace_id, createdAt }`.
// - workspace_chats `{ id, workspaceId, prompt, response, include, user_id, thread_id, api_session_id,
//   createdAt }`; `response` is `{ text, sources, type, attachments, metrics, thoughts?, outputs? }`.
// - One conversation per thread, titled by its name (the first prompt while still "Thread"), and one
//   per workspace's default chat, per user and per API session, titled by the workspace's name (and the session's).
// - `include` false is a chat the app no longer shows (reset with /reset, deleted, a refused query,
//   an agent's run cut short): left out, counted. A chat of a workspace or thread deleted: left out.
// - Sources (the documents' text the model was given), metrics, thoughts and an agent's outputs are
//   left out: the model's reading, not what was said. Attachments (images) are `[image]`.
// - The chat export as JSON is read too (export.ts).
// - Ids: from the workspace's or thread's slug and creation time (autoincrement ids repeat across
//   installs), the messages' from the row's id, so importing the database again updates them.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { promptTitle } from "../agent-sessions.js";
import { derivedId } from "../derived-id.js";
import { arrayOf, isObject, isoFromTime, nonEmptyString, titleFrom, jsonObjectIn } from "../json-values.js";
import { uniqueIds } from "../message-ids.js";
import { filePlaceholder, joinPieces } from "../placeholders.js";
import type { Row } from "../sqlite.js";
import type { RecordContext, SkipReport } from "../types.js";
import { isAnythingLlmRow } from "./database.js";
import { type ExportedChat, exportedChatOf, exportedConversations, isExportedChat } from "./export.js";

export type AnythingLlmItem = Place | Chat | ExportedChat;

interface Place {
  kind: "workspaces" | "workspace_threads";
  id: number;
  name: string | undefined;
  slug: string | undefined;
  createdAt: string | undefined;
  workspaceId: number | undefined;
}

interface Chat {
  kind: "chat";
  id: number;
  workspaceId: number;
  threadId: number | undefined;
  /** Whose default chat of the workspace it is: a user's, or an API session's. */
  owner: [number | undefined, string | undefined];
  messages: UploadMessage[];
  fallbackDate: Date;
  skip: SkipReport;
}

/** AnythingLLM's name of a thread not renamed yet (models/workspaceThread.js `defaultName`). */
const DEFAULT_THREAD_NAME = "Thread";

/** A row of the database, or a chat of the JSON export (export.ts). */
export function anythingLlmRecord(value: unknown, context: RecordContext): AnythingLlmItem | undefined {
  if (isExportedChat(value)) return exportedChatOf(value, context);
  if (!isAnythingLlmRow(value)) return undefined;
  const { anythingllmTable: table, row } = value;
  const id = numberOf(row.id);
  if (id === undefined) return undefined;
  if (table !== "workspace_chats") {
    return {
      kind: table,
      id,
      name: nonEmptyString(row.name)?.trim(),
      slug: nonEmptyString(row.slug),
      createdAt: isoFromTime(row.createdAt),
      workspaceId: numberOf(row.workspace_id),
    };
  }
  return chatOf(id, row, context);
}

function chatOf(id: number, row: Row, context: RecordContext): Chat | undefined {
  const workspaceId = numberOf(row.workspaceId);
  if (workspaceId === undefined) return undefined;
  if (row.include === 0 || row.include === "false") {
    context.skip("chats AnythingLLM no longer shows (cleared with /reset, deleted, or a refused query: left out)");
    return undefined;
  }
  const response = jsonObjectIn(row.response);
  if (response === undefined) context.skip("answers whose stored JSON is damaged (left out)");
  const createdAt = isoFromTime(row.createdAt);
  const at = createdAt === undefined ? {} : { createdAt };
  const prompt = joinPieces([nonEmptyString(row.prompt), ...arrayOf(response?.attachments).map(attachmentPlaceholder)]);
  const answer = joinPieces([nonEmptyString(response?.text)]);
  const messages: UploadMessage[] = [
    ...(prompt === "" ? [] : [{ id: `${id}-prompt`, role: "human" as const, content: prompt, ...at }]),
    ...(answer === "" ? [] : [{ id: `${id}-response`, role: "assistant" as const, content: answer, ...at }]),
  ];
  return {
    kind: "chat",
    id,
    workspaceId,
    threadId: numberOf(row.thread_id),
    owner: [numberOf(row.user_id), nonEmptyString(row.api_session_id)],
    messages,
    fallbackDate: context.fallbackDate,
    skip: context.skip,
  };
}

/** A chat's attachment `{ name, mime, contentString }`: the images a prompt was sent with. */
function attachmentPlaceholder(attachment: unknown): string {
  const { name, mime } = isObject(attachment) ? attachment : {};
  return typeof mime === "string" && mime.startsWith("image/") ? "[image]" : filePlaceholder(name);
}

/** The conversations of the database's rows and of the export's chats. */
export function anythingLlmConversations(items: AnythingLlmItem[]): UploadConversation[] {
  const exported = items.filter((item) => item.kind === "exported");
  return [...databaseConversations(items), ...exportedConversations(exported)];
}

/** Every workspace's and thread's conversation, each chat in the one the app shows it in. */
function databaseConversations(items: AnythingLlmItem[]): UploadConversation[] {
  const workspaces = new Map<number, Place>();
  const threads = new Map<number, Place>();
  const chats = new Map<string, { place: Place; owner: Chat["owner"]; chats: Chat[] }>();
  for (const item of items) {
    if (item.kind === "workspaces") workspaces.set(item.id, item);
    else if (item.kind === "workspace_threads") threads.set(item.id, item);
  }
  for (const chat of items) {
    if (chat.kind !== "chat") continue;
    const place = chat.threadId === undefined ? workspaces.get(chat.workspaceId) : threads.get(chat.threadId);
    if (place === undefined) {
      chat.skip("chats of a workspace or thread no longer in the database (left out)");
      continue;
    }
    const key = chat.threadId === undefined ? JSON.stringify([place.kind, place.id, chat.owner]) : JSON.stringify([place.kind, place.id]);
    const group = chats.get(key) ?? { place, owner: chat.owner, chats: [] };
    group.chats.push(chat);
    chats.set(key, group);
  }
  return [...chats.values()].flatMap(({ place, owner, chats }) => {
    const workspace = place.kind === "workspaces" ? place : workspaces.get(place.workspaceId ?? -1);
    const conversation = conversationOf(place, workspace, owner, chats);
    if (conversation === undefined) chats[0]!.skip("conversations with no text (left out)");
    return conversation ?? [];
  });
}

function conversationOf(place: Place, workspace: Place | undefined, owner: Chat["owner"], chats: Chat[]): UploadConversation | undefined {
  const messages = uniqueIds(chats.flatMap((chat) => chat.messages));
  if (messages.length === 0) return undefined;
  const times = messages.flatMap((message) => message.createdAt ?? []).sort();
  const createdAt = times[0] ?? place.createdAt ?? chats[0]!.fallbackDate.toISOString();
  const updatedAt = times.at(-1);
  const threadName = place.kind === "workspace_threads" && place.name !== DEFAULT_THREAD_NAME ? place.name : undefined;
  const title = place.kind === "workspaces" ? defaultChatTitle(place, owner) : (threadName ?? promptTitle(messages) ?? workspace?.name);
  const seed = place.kind === "workspaces" ? ["workspace", place.slug, place.createdAt, ...owner] : ["thread", place.slug, place.createdAt];
  return {
    complete: true, // the database holds every chat as the app shows it now
    conversation: {
      id: derivedId("anythingllm", seed),
      title: titleFrom(title),
      createdAt,
      ...(updatedAt === undefined || updatedAt <= createdAt ? {} : { updatedAt }),
      messages,
    },
  };
}

/** A workspace's default chat is named as the workspace; one through the developer API, with its session. */
function defaultChatTitle(workspace: Place, [, apiSession]: Chat["owner"]): string | undefined {
  return apiSession === undefined || workspace.name === undefined ? workspace.name : `${workspace.name} (API session ${apiSession})`;
}

function numberOf(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) ? number : undefined;
}
