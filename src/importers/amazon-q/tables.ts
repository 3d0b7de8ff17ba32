// data.sqlite3's chat tables and the columns mnemo reads (aws/amazon-q-developer-cli
// crates/chat-cli/src/database/sqlite_migrations): what the detector (index.ts) looks for is what the
// reader (database.ts) selects, and neither loads the other.

/** 007_conversations_table (Amazon Q from 1.10, May 2025; Kiro CLI to 1.21): a row per working folder. */
export const CONVERSATIONS_COLUMNS = ["key", "value"] as const;

/** 005_auth_table: the login's secrets, a table no other app's database has under this name (only its keys are shown to detection). */
export const AUTH_COLUMNS = ["key", "value"] as const;

/** 008_multiple_conversations_per_path (Kiro CLI from 1.22, December 2025): a row per conversation. */
export const CONVERSATIONS_V2_COLUMNS = ["key", "conversation_id", "value", "created_at", "updated_at"] as const;
