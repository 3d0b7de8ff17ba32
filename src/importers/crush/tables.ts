// crush.db's tables and the columns of each that mnemo reads (charmbracelet/crush
// internal/db/migrations, every version): what the detector (index.ts) looks for is what the reader
// (database.ts) needs, and neither loads the other.
export const REQUIRED_COLUMNS = {
  sessions: ["id", "parent_session_id", "title", "created_at"],
  // `provider` (20250627_add_provider_to_messages) is in every Crush release (0.1.0 on, July 2025) and
  // not in the opencode.db of OpenCode's Go version it grew from, whose tables are otherwise the same.
  messages: ["id", "session_id", "role", "parts", "created_at", "updated_at", "finished_at", "provider"],
} as const;

/** Columns later versions added (sessions' summary_message_id, May 2025; messages' is_summary_message, August 2025), read when there. */
export const LATER_COLUMNS = {
  sessions: ["summary_message_id"],
  messages: ["is_summary_message"],
} as const;
