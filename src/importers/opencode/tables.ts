// opencode.db's tables and the columns of each that mnemo reads (anomalyco/opencode
// packages/opencode/src/session/session.sql.ts): what the detector (index.ts) looks for is what the
// reader (database.ts) selects, and neither loads the other.
export const DATABASE_COLUMNS = {
  session: ["id", "parent_id", "title", "time_created", "time_updated"],
  message: ["id", "session_id", "time_created", "data"],
  part: ["id", "message_id", "session_id", "data"],
} as const;
