// DeepChat's two databases and the columns of each that mnemo reads: what the detector (index.ts)
// looks for is what the reader (database.ts) needs, and neither loads the other.
// - agent.db (1.0.0-beta.1, March 2026, on: src/main/session/data/tables/, earlier
//   src/main/presenter/sqlitePresenter/tables/): `new_sessions` and `deepchat_messages` in every version.
// - chat.db (0.0.1 to 0.5.8: src/main/presenter/sqlitePresenter/tables/conversations.ts, messages.ts):
//   `conversations` and `messages`, unchanged in these columns from the first release. agent.db keeps
//   tables of these names too (for DeepChat's own import), so a database with `new_sessions` is agent.db.
export const AGENT_COLUMNS = {
  new_sessions: ["id", "title", "created_at", "updated_at"],
  deepchat_messages: ["id", "session_id", "order_seq", "role", "content", "status", "metadata", "created_at", "updated_at"],
} as const;

export const LEGACY_COLUMNS = {
  conversations: ["conv_id", "title", "created_at", "updated_at", "context_chain"],
  messages: ["msg_id", "conversation_id", "parent_id", "role", "content", "created_at", "order_seq", "is_variant"],
} as const;
