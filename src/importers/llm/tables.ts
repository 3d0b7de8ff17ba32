// logs.db's tables and the columns of each that mnemo reads (simonw/llm llm/migrations.py): what the
// detector (index.ts) looks for is what the reader (database.ts) selects, and neither loads the other.

/** The table of llm's migrations, in every logs.db since 0.4: what tells its database from another's. */
export const MIGRATIONS_TABLE = { _llm_migrations: ["name", "applied_at"] } as const;

/** 0.5 to 0.31 (m010): a conversation per row, its prompts and responses a row each. */
export const LEGACY_COLUMNS = {
  conversations: ["id", "name"],
  responses: ["id", "prompt", "system", "response", "conversation_id", "datetime_utc"],
} as const;

/** 0.32 on (m023, August 2026): threads of turns, each pointing into a chain of messages made of parts. */
export const STORE_COLUMNS = {
  threads: ["id", "name"],
  turns: ["id", "thread_id", "parent_message_hash", "tip_message_hash", "datetime_utc"],
  messages: ["hash", "parent_hash", "role"],
  parts: ["id", "message_hash", "position", "type", "tool_name", "text", "payload"],
} as const;

/** 0.4 (July 2023): a prompt and its response a row, a chat's rows naming its first row's id in `chat_id`. */
export const FIRST_COLUMNS = {
  log: ["id", "prompt", "system", "response", "chat_id", "timestamp"],
} as const;

/** 0.4's table as 0.5 on keep it when it held rows (m006 to m009): renamed `logs`, its time `datetime_utc`. */
export const KEPT_COLUMNS = {
  logs: ["id", "prompt", "system", "response", "chat_id", "datetime_utc"],
} as const;
