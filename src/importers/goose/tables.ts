// sessions.db's tables and the columns of each that mnemo reads (block/goose
// crates/goose/src/session/session_manager.rs, SessionStorage::create and its migrations): what the
// detector (index.ts) looks for is what the reader (database.ts) needs, and neither loads the other.
export const REQUIRED_COLUMNS = {
  sessions: ["id", "description", "created_at", "updated_at"],
  messages: ["session_id", "role", "content_json", "created_timestamp"],
} as const;

/** Columns later versions added (schema 3: messages' metadata_json; 4: name; 5: session_type), read when there. */
export const LATER_COLUMNS = {
  sessions: ["name", "session_type"],
  messages: ["metadata_json"],
} as const;
