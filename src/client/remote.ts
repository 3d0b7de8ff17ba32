import type { MnemoService } from "../core/index.js";
import type { IngestResponse } from "../schemas/chat-history.js";
import { ENDPOINTS } from "../schemas/endpoints.js";
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
  const E = ENDPOINTS;
  return {
    memories: {
      store: (body) => http.call(E.storeMemory, { body }),
      storeImage: (body) => http.call(E.storeImageMemory, { body }),
      storeMany: async (inputs) => {
        const memoryIds: string[] = [];
        for (const body of inputs) memoryIds.push((await http.call<{ memoryId: string }>(E.storeMemory, { body })).memoryId);
        return { memoryIds };
      },
      list: (params) => http.call(E.listMemories, { query: query(params) }),
      listV2: (params) => http.call(E.listMemoriesV2, { query: query(params) }),
      update: (body) => http.call(E.updateMemories, { body }),
      delete: (memoryId) => http.call(E.deleteMemory, { params: { memoryId } }),
      bulkDelete: (body) => http.call(E.bulkDeleteMemories, { body }),
      history: (memoryId, params = {}) => http.call(E.memoryHistory, { params: { memoryId }, query: query(params) }),
    },
    buckets: {
      list: (params = {}) => http.call(E.listBuckets, { query: query(params) }),
      create: (body) => http.call(E.createBucket, { body }),
      rename: (bucketId, body) => http.call(E.renameBucket, { params: { bucketId }, body }),
      delete: (bucketId) => http.call(E.deleteBucket, { params: { bucketId } }),
    },
    conversations: {
      upload: (body) => http.call(E.uploadConversation, { body }),
      // The endpoint takes one conversation per request; several in flight are stored in one commit.
      uploadMany: async (uploads) => {
        const settled: PromiseSettledResult<IngestResponse>[] = [];
        for (let i = 0; i < uploads.length; i += UPLOADS_IN_FLIGHT) {
          const slice = uploads.slice(i, i + UPLOADS_IN_FLIGHT);
          settled.push(...(await Promise.allSettled(slice.map((body) => http.call<IngestResponse>(E.uploadConversation, { body })))));
        }
        return allStored(settled);
      },
      list: (params) => http.call(E.listConversations, { query: query(params) }),
      get: (conversationId, page) => http.call(E.getConversation, { query: { ...query(page ?? {}), conversationId } }),
      delete: (body) => http.call(E.deleteConversations, { body }),
      count: () => http.call(E.countConversations),
      pin: (body) => http.call(E.pinConversations, { body }),
      exclude: (body) => http.call(E.excludeConversations, { body }),
      status: () => http.call(E.queueStatus),
      overview: () => http.call(E.overview),
    },
    imports: {
      upload: (body, options) => http.upload(E.uploadImport, query(options), body, options.size),
      get: (jobId) => http.call(E.getImport, { params: { jobId } }),
      list: () => http.call(E.listImports),
    },
    trash: {
      move: (body) => http.call(E.moveToTrash, { body }),
      list: (params = {}) => http.call(E.listTrash, { query: query(params) }),
      restore: (body) => http.call(E.restoreTrash, { body }),
      empty: (body = {}) => http.call(E.emptyTrash, { body }),
    },
    token: {
      rotate: () => http.call(E.rotateToken, { body: {} }),
    },
    info: () => http.call(E.info),
    search: (body) => http.call(E.search, { body }),
    recall: (body) => http.call(E.recall, { body }),
    export: (params = {}) => http.lines(E.export, query(params)),
  };
}
