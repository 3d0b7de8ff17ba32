// db.sqlite's tables and the columns of each that mnemo reads (ollama/ollama app/store/database.go,
// `init` and its migrations): what the detector (index.ts) looks for is what the reader (database.ts)
// needs, and neither loads the other. Every schema still on disks (2, the first released, to 18) has them.
export const REQUIRED_COLUMNS = {
  chats: ["id", "title", "created_at"],
  messages: ["id", "chat_id", "role", "content", "thinking", "created_at", "updated_at"],
  tool_calls: ["message_id", "function_name"],
} as const;

/** The attachments table, added by schema 3 (its files' names are read when it is there). */
export const ATTACHMENT_COLUMNS = ["message_id", "filename"] as const;
