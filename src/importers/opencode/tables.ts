// opencode.db's tables and the columns of each that mnemo reads: what the detector (index.ts) looks
// for is what the reader (database.ts) selects, and neither loads the other.

/** 1.2 to 1.x (anomalyco/opencode packages/opencode/src/session/session.sql.ts); left beside 2.x's. */
export const DATABASE_COLUMNS = {
  session: ["id", "parent_id", "title", "time_created", "time_updated"],
  message: ["id", "session_id", "time_created", "data"],
  part: ["id", "message_id", "session_id", "data"],
} as const;

/**
 * 2.x (packages/core/src/session/sql.ts; created by packages/core/src/database/migration/
 * 20260804233008_loose_psylocke.ts): a session's messages in order (`seq`), each whole in `data`.
 */
export const V2_COLUMNS = {
  session_v2: ["id", "parent_id", "title", "time_created", "time_updated"],
  session_message: ["id", "session_id", "type", "seq", "time_created", "data"],
} as const;
