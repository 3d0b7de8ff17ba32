// threads.db's table and the columns mnemo reads (zed-industries/zed crates/agent/src/db.rs,
// `ThreadsDatabase::new`; the older agent's thread_store.rs made the same table): what the detector
// (index.ts) looks for is what the reader (database.ts) selects, and neither loads the other.
export const THREAD_COLUMNS = ["id", "summary", "updated_at", "data_type", "data"] as const;

/** Added by later versions (parent_id for a subagent's thread, created_at): read when the table has them. */
export const LATER_COLUMNS = ["parent_id", "created_at"] as const;
