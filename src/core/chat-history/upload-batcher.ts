import { parseInput } from "../../schemas/parse.js";
import { UploadConversation, type IngestResponse } from "../../schemas/chat-history.js";
import { storeUploads, type Upload } from "./uploads.js";
import type { CoreContext } from "../context.js";

/** Uploads stored together at most: a write's rows stay a few MB for ordinary conversations. */
const MAX_BATCH = 64;

interface Waiting {
  userId: string;
  upload: Upload;
  resolve(result: IngestResponse): void;
  reject(error: unknown): void;
}

interface Queue {
  waiting: Waiting[];
  draining: boolean;
}

const queues = new WeakMap<CoreContext, Queue>();

/**
 * One uploaded conversation (POST /api/chat-history/ingest/custom-online), with group commit:
 * when nothing is being stored it is stored at once; uploads that arrive while a write is under
 * way wait for it and are then stored together, in one write. The endpoint takes one conversation
 * per request, so a client sending thousands (`mnemo import --remote`) would otherwise make two
 * commits per conversation, and LanceDB's memory and maintenance grow with every commit.
 * Validation happens first, so a bad upload fails alone.
 */
export async function uploadOne(ctx: CoreContext, userId: string, input: unknown): Promise<IngestResponse> {
  const upload = parseInput(UploadConversation, input);
  const queue = queueOf(ctx);
  return new Promise((resolve, reject) => {
    queue.waiting.push({ userId, upload, resolve, reject });
    if (!queue.draining) void drain(ctx, queue);
  });
}

function queueOf(ctx: CoreContext): Queue {
  let queue = queues.get(ctx);
  if (!queue) queues.set(ctx, (queue = { waiting: [], draining: false }));
  return queue;
}

async function drain(ctx: CoreContext, queue: Queue): Promise<void> {
  queue.draining = true;
  while (queue.waiting.length > 0) {
    const batch = queue.waiting.splice(0, MAX_BATCH);
    for (const [userId, items] of byUser(batch)) {
      try {
        const results = await storeUploads(
          ctx,
          userId,
          items.map((item) => item.upload),
        );
        items.forEach((item, i) => item.resolve(results[i]!));
      } catch (error) {
        for (const item of items) item.reject(error);
      }
    }
  }
  queue.draining = false;
}

function byUser(batch: Waiting[]): Map<string, Waiting[]> {
  const groups = new Map<string, Waiting[]>();
  for (const item of batch) {
    const group = groups.get(item.userId);
    if (group) group.push(item);
    else groups.set(item.userId, [item]);
  }
  return groups;
}
