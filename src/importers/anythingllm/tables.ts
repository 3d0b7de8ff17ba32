// anythingllm.db's tables and the columns of each that mnemo reads (Mintplex-Labs/anything-llm
// server/prisma/schema.prisma and its migrations): what the detector (index.ts) requires is in every
// database since the first migration (September 2023); `thread_id` and `workspace_threads` came in
// February 2024 and `api_session_id` in August 2024, so the reader (database.ts) selects them when there.
export const REQUIRED_COLUMNS = {
  workspaces: ["id", "name", "slug"],
  workspace_chats: ["id", "workspaceId", "prompt", "response", "include"],
} as const;

export const READ_COLUMNS = {
  workspaces: ["id", "name", "slug", "createdAt"],
  workspace_threads: ["id", "name", "slug", "workspace_id", "createdAt"],
  workspace_chats: ["id", "workspaceId", "prompt", "response", "include", "user_id", "thread_id", "api_session_id", "createdAt"],
} as const;

/**
 * The keys every chat of the JSON export has (server/utils/helpers/chat/convertTo.js): `username` is
 * a workspace chat's; the embedded widget's export (its website visitors' chats) has none.
 */
export const EXPORT_KEYS = ["id", "prompt", "response", "sent_at", "workspace", "username"] as const;
