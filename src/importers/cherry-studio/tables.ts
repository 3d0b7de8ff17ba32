// Cherry Studio 2's cherrystudio.sqlite: the tables and columns mnemo reads (CherryHQ/cherry-studio
// migrations/sqlite-drizzle, src/main/data/db/schemas/topic.ts and message.ts, 2.0 of August 2026 on).
// What the detector (index.ts) looks for is what the reader (database.ts) needs, and neither loads the other.
export const V2_COLUMNS = {
  topic: ["id", "name", "active_node_id", "created_at", "updated_at"],
  message: ["id", "parent_id", "topic_id", "role", "data", "status", "siblings_group_id", "created_at"],
} as const;

/** Columns some versions have and others not: read when there. */
export const V2_LATER_COLUMNS = {
  // `prompt` (a topic's own prompt) was dropped from the topic during 2.0's development; `deleted_at` marks a row deleted.
  topic: ["deleted_at", "prompt", "assistant_id"],
  message: ["deleted_at"],
} as const;
