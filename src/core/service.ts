import { exportUser } from "./jobs/export.js";
import { createBucket, listBuckets } from "./memories/buckets.js";
import { storeImageMemory } from "./memories/images.js";
import { recall } from "./retrieval/recall.js";
import { searchChats } from "./retrieval/search.js";
import { uploadConversations, previewUploads } from "./chat-history/uploads.js";
import { uploadOne } from "./chat-history/upload-batcher.js";
import {
  countConversations,
  deleteConversations,
  getConversation,
  listConversations,
  queueStatus,
  setExcluded,
  setPinned,
} from "./chat-history/conversations.js";
import { chatHistoryOverview } from "./chat-history/overview.js";
import type { CoreContext } from "./context.js";
import { storeMemory } from "./memories/similar-memory.js";
import { listMemoriesLegacy, listMemoriesV2, memoryHistory, storeMemories } from "./memories/memories.js";
import { bulkDeleteMemories, deleteMemory, updateMemories } from "./memories/memory-edits.js";
import { deleteBucket, renameBucket } from "./memories/bucket-edits.js";
import { importJobs } from "./jobs/import-jobs.js";
import { storeInfo } from "./operations/store-info.js";
import { emptyTrash, listTrash, moveToTrash, restoreFromTrash } from "./trash/trash.js";
import type { MnemoService } from "./service-types.js";
import { rotateTokenOf, type UserInfo } from "./users.js";

export type { MnemoService } from "./service-types.js";

/** The service as one user sees it: every call is scoped to their rows. */
export function createService(ctx: CoreContext, user: Pick<UserInfo, "id" | "name">): MnemoService {
  const userId = user.id;
  const service: MnemoService = {
    memories: {
      store: (input) => storeMemory(ctx, userId, input),
      storeImage: (input) => storeImageMemory(ctx, userId, input),
      storeMany: async (inputs) => ({ memoryIds: await storeMemories(ctx, userId, inputs) }),
      list: (query) => listMemoriesLegacy(ctx, userId, query),
      listV2: (query) => listMemoriesV2(ctx, userId, query),
      update: (body) => updateMemories(ctx, userId, body),
      delete: (memoryId) => deleteMemory(ctx, userId, memoryId),
      bulkDelete: (body) => bulkDeleteMemories(ctx, userId, body),
      history: (memoryId, query) => memoryHistory(ctx, userId, memoryId, query),
    },
    buckets: {
      list: (query) => listBuckets(ctx, userId, query),
      create: (body) => createBucket(ctx, userId, body),
      rename: (bucketId, body) => renameBucket(ctx, userId, bucketId, body),
      delete: (bucketId) => deleteBucket(ctx, userId, bucketId),
    },
    conversations: {
      upload: (upload) => uploadOne(ctx, userId, upload),
      uploadMany: (uploads) => uploadConversations(ctx, userId, uploads),
      previewUploads: (uploads) => previewUploads(ctx, userId, uploads),
      list: (query) => listConversations(ctx, userId, query),
      get: (conversationId, page) => getConversation(ctx, userId, { ...page, conversationId }),
      delete: (body) => deleteConversations(ctx, userId, body),
      count: () => countConversations(ctx, userId),
      pin: (body) => setPinned(ctx, userId, body),
      exclude: (body) => setExcluded(ctx, userId, body),
      status: () => queueStatus(ctx, userId),
      overview: () => chatHistoryOverview(ctx, userId),
    },
    imports: {
      upload: (body, options) => importJobs(ctx).upload(userId, service, body, options),
      get: async (jobId) => importJobs(ctx).get(userId, jobId),
      list: async () => ({ jobs: importJobs(ctx).list(userId) }),
    },
    trash: {
      move: (body) => moveToTrash(ctx, userId, body),
      list: (query) => listTrash(ctx, userId, query),
      restore: (body) => restoreFromTrash(ctx, user, body),
      empty: (body) => emptyTrash(ctx, userId, body),
    },
    token: {
      rotate: async () => ({ user: user.name, token: await rotateTokenOf(ctx, user) }),
    },
    info: () => storeInfo(ctx, userId, user.name),
    search: async (body) => withoutTimings(await searchChats(ctx, userId, body)),
    recall: async (body) => withoutTimings(await recall(ctx, userId, body)),
    export: (query) => exportUser(ctx, userId, query),
  };
  return service;
}

/** Timings are for benchmarks, not part of the API's answer. */
function withoutTimings<T extends { timings: unknown }>(result: T): Omit<T, "timings"> {
  const { timings: _timings, ...rest } = result;
  return rest;
}
