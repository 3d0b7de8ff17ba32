// Which of Cline's files a record is of: a task's ui_messages.json (a record a message) or an SDK
// session's <id>.messages.json (one record, the whole file), each read by its own converter.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { groupedPerFile, type Converter } from "../importer.js";
import { isObject } from "../json-values.js";
import type { RecordContext } from "../types.js";
import { isSessionFile, sdkSession } from "./session.js";
import { taskMessage, tasks, type TaskMessage } from "./task.js";

interface Session {
  session: UploadConversation | undefined;
}

function read(record: unknown, context: RecordContext): TaskMessage | Session | undefined {
  return isObject(record) && isSessionFile(record) ? { session: sdkSession(record, context) } : taskMessage(record, context);
}

function group(items: (TaskMessage | Session)[]): UploadConversation[] {
  const sessions = items.filter((item): item is Session => "session" in item);
  if (sessions.length > 0) return sessions.flatMap(({ session }) => (session === undefined ? [] : [session]));
  return tasks(items as TaskMessage[]);
}

export const clineFiles: Converter<UploadConversation> = groupedPerFile(read, group);
