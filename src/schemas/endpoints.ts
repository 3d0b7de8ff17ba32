/**
 * Every endpoint of the REST API by name, its method and path written once: the server's route
 * table (http/routes.ts) registers each, the HTTP client (client/remote.ts) calls each, and each
 * MCP tool names the one it mirrors (mcp/tools.ts). Paths are OpenAPI templates: `{param}`.
 */
export interface Endpoint {
  method: "get" | "post" | "delete" | "patch";
  path: string;
}

export const ENDPOINTS = {
  storeMemory: { method: "post", path: "/api/memory" },
  listMemories: { method: "get", path: "/api/memory" },
  listMemoriesV2: { method: "get", path: "/api/v2/memory" },
  updateMemories: { method: "post", path: "/api/v2/memory/update" },
  storeImageMemory: { method: "post", path: "/api/v2/memory/image" },
  memoryHistory: { method: "get", path: "/api/v2/memory/{memoryId}/history" },
  deleteMemoryWithoutId: { method: "delete", path: "/api/memories" },
  deleteMemory: { method: "delete", path: "/api/memories/{memoryId}" },
  bulkDeleteMemories: { method: "post", path: "/api/memories/bulk-delete" },
  listBuckets: { method: "get", path: "/api/buckets" },
  createBucket: { method: "post", path: "/api/buckets" },
  renameBucket: { method: "patch", path: "/api/buckets/{bucketId}" },
  deleteBucket: { method: "delete", path: "/api/buckets/{bucketId}" },
  uploadConversation: { method: "post", path: "/api/chat-history/ingest/custom-online" },
  recall: { method: "post", path: "/api/chat-history/inject" },
  search: { method: "post", path: "/api/chat-history/search" },
  listConversations: { method: "get", path: "/api/chat-history/chats" },
  deleteConversations: { method: "delete", path: "/api/chat-history/chats" },
  getConversation: { method: "get", path: "/api/chat-history/conversation" },
  countConversations: { method: "get", path: "/api/chat-history/count" },
  pinConversations: { method: "post", path: "/api/chat-history/chats/pin" },
  excludeConversations: { method: "post", path: "/api/chat-history/chats/exclude" },
  uploadImport: { method: "post", path: "/api/chat-history/imports" },
  listImports: { method: "get", path: "/api/chat-history/imports" },
  getImport: { method: "get", path: "/api/chat-history/imports/{jobId}" },
  rotateToken: { method: "post", path: "/api/token/rotate" },
  info: { method: "get", path: "/api/info" },
  queueStatus: { method: "get", path: "/api/chat-history/status" },
  overview: { method: "get", path: "/api/chat-history/overview" },
  export: { method: "get", path: "/api/export" },
  moveToTrash: { method: "post", path: "/api/trash" },
  listTrash: { method: "get", path: "/api/trash" },
  restoreTrash: { method: "post", path: "/api/trash/restore" },
  emptyTrash: { method: "post", path: "/api/trash/empty" },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** The names of an endpoint's path parameters, in order (`memoryId` of `/api/v2/memory/{memoryId}/history`). */
export function pathParams(endpoint: Endpoint): string[] {
  return [...endpoint.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
}

/** The endpoint's path with its parameters filled in, each URL-encoded. */
export function endpointPath(endpoint: Endpoint, params: Record<string, string | number> = {}): string {
  return endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${endpoint.path}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
}
