import type { MnemoService } from "../core/index.js";
import type { IngestResponse } from "../schemas/chat-history.js";
import { AppError } from "../shared/errors.js";
import { HttpClient, type QueryValue } from "./http-client.js";

/**
 * Conversations uploaded at once by uploadMany: the server stores those that arrive together in
 * one commit, where one at a time made two commits per conversation.
 */
const UPLOADS_IN_FLIGHT = 8;

/**
 * Every upload's answer, or the error: the server refuses an upload on its own (one over the token
 * limit) while the others are stored, so a refusal carries the answers (`results`, undefined where
 * refused) and the refusals (`refused`, by index) for the caller to count (jobs/import-file.ts).
 */
function allStored(settled: PromiseSettledResult<IngestResponse>[]): IngestResponse[] {
  const refused = settled.flatMap((outcome, index) => (outcome.status === "rejected" ? [{ index, error: outcome.reason as unknown }] : []));
  if (refused.length === 0) return settled.map((outcome) => (outcome as PromiseFulfilledResult<IngestResponse>).value);
  const other = refused.find(({ error }) => !(error instanceof AppError) || error.code !== "invalid_input");
  if (other) throw other.error;
  const first = refused[0]!.error as AppError;
  throw new AppError("invalid_input", first.message, {
    ...(first.suggestion ? { suggestion: first.suggestion } : {}),
    details: {
      ...first.details,
      results: settled.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : undefined)),
      refused: refused.map(({ index, error }) => ({
        index,
        message: (error as AppError).message,
        field: (error as AppError).details["field"],
      })),
    },
  });
}

/** The MnemoService of a running `mnemo serve`, over its REST API: the CLI's `--remote` mode. */
export function createRemoteService(baseUrl: string, token: string | undefined): MnemoService {
  const http = new HttpClient(baseUrl, token);
  const query = (value: object) => value as Record<string, QueryValue>;
  return {
    memories: {
      store: (input) => http.post("/api/memory", input),
      storeImage: (input) => http.post("/api/v2/memory/image", input),
      storeMany: async (inputs) => {
        const memoryIds: string[] = [];
        for (const input of inputs) memoryIds.push((await http.post<{ memoryId: string }>("/api/memory", input)).memoryId);
        return { memoryIds };
      },
      list: (params) => http.get("/api/memory", query(params)),
      listV2: (params) => http.get("/api/v2/memory", query(params)),
      update: (body) => http.post("/api/v2/memory/update", body),
      delete: (memoryId) => http.delete(`/api/memories/${encodeURIComponent(memoryId)}`),
      bulkDelete: (body) => http.post("/api/memories/bulk-delete", body),
      history: (memoryId) => http.get(`/api/v2/memory/${encodeURIComponent(memoryId)}/history`),
    },
    buckets: {
      list: (params = {}) => http.get("/api/buckets", query(params)),
      create: (body) => http.post("/api/buckets", body),
      rename: (bucketId, body) => http.patch(`/api/buckets/${bucketId}`, body),
      delete: (bucketId) => http.delete(`/api/buckets/${bucketId}`),
    },
    conversations: {
      upload: (upload) => http.post("/api/chat-history/ingest/custom-online", upload),
      // The endpoint takes one conversation per request; several in flight are stored in one commit.
      uploadMany: async (uploads) => {
        const settled: PromiseSettledResult<IngestResponse>[] = [];
        for (let i = 0; i < uploads.length; i += UPLOADS_IN_FLIGHT) {
          const slice = uploads.slice(i, i + UPLOADS_IN_FLIGHT);
          settled.push(
            ...(await Promise.allSettled(
              slice.map((upload) => http.post<IngestResponse>("/api/chat-history/ingest/custom-online", upload)),
            )),
          );
        }
        return allStored(settled);
      },
      list: (params) => http.get("/api/chat-history/chats", query(params)),
      get: (conversationId, page) => http.get("/api/chat-history/conversation", { ...query(page ?? {}), conversationId }),
      delete: (body) => http.delete("/api/chat-history/chats", body),
      count: () => http.get("/api/chat-history/count"),
      pin: (body) => http.post("/api/chat-history/chats/pin", body),
      exclude: (body) => http.post("/api/chat-history/chats/exclude", body),
      status: () => http.get("/api/chat-history/status"),
      overview: () => http.get("/api/chat-history/overview"),
    },
    imports: {
      upload: (body, { size, ...options }) => http.upload("/api/chat-history/imports", query(options), body, size),
      get: (jobId) => http.get(`/api/chat-history/imports/${encodeURIComponent(jobId)}`),
      list: () => http.get("/api/chat-history/imports"),
    },
    token: {
      rotate: () => http.post("/api/token/rotate", {}),
    },
    info: () => http.get("/api/info"),
    search: (body) => http.post("/api/chat-history/search", body),
    recall: (body) => http.post("/api/chat-history/inject", body),
    export: (params = {}) => http.lines("/api/export", query(params)),
  };
}
