// Which of Cline's files a record is of: a task's ui_messages.json (a record a message) or an SDK
// session's <id>.messages.json (one record, the whole file), each read by its own converter.
import type { UploadConversation } from "../../schemas/chat-history.js";
import { groupedPerFile, type Converter } from "../importer.js";
import { isObject, titleFrom } from "../json-values.js";
import type { RecordContext } from "../types.js";
import { isSessionFile, manifestTitle, sdkSession } from "./session.js";
import { taskMessage, tasks, type TaskMessage } from "./task.js";

interface Session {
  session: UploadConversation | undefined;
  /** Where its manifest is read from (manifestTitle). */
  context: RecordContext;
}

function read(record: unknown, context: RecordContext): TaskMessage | Session | undefined {
  return isObject(record) && isSessionFile(record) ? { session: sdkSession(record, context), context } : taskMessage(record, context);
}

async function group(items: (TaskMessage | Session)[]): Promise<UploadConversation[]> {
  const sessions = items.filter((item): item is Session => "session" in item);
  if (sessions.length === 0) return tasks(items as TaskMessage[]);
  const titled = sessions.map(async ({ session, context }) => {
    if (session === undefined) return [];
    const title = await manifestTitle(session.conversation.id, context);
    return [title === undefined ? session : { ...session, conversation: { ...session.conversation, title: titleFrom(title) } }];
  });
  return (await Promise.all(titled)).flat();
}

export const clineFiles: Converter<UploadConversation> = groupedPerFile(read, group);
