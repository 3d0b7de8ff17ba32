import { parseInput } from "../../schemas/parse.js";
import { UploadConversation, type IngestResponse } from "../../schemas/chat-history.js";
import { onePer } from "../../shared/one-per.js";
import { GroupCommit } from "../../shared/group-commit.js";
import { storeUploads, type Upload } from "./uploads.js";
import type { CoreContext } from "../context.js";

/** Uploads stored together at most: a write's rows stay a few MB for ordinary conversations. */
const MAX_BATCH = 64;

interface Pending {
  userId: string;
  upload: Upload;
}

const batcherOf = onePer(
  (ctx: CoreContext) =>
    new GroupCommit<Pending, IngestResponse>(
      (userId, items) => storeBatch(ctx, userId, items),
      (item) => item.userId,
      MAX_BATCH,
    ),
);

/**
 * One uploaded conversation (POST /api/chat-history/ingest/custom-online), with group commit
 * (shared/group-commit.ts): uploads that arrive while a write is under way are stored together, in
 * one write. The endpoint takes one conversation per request, so a client sending thousands
 * (`mnemo import --remote`) would otherwise make two commits per conversation, and LanceDB's
 * memory and maintenance grow with every commit. Validation happens first, so a bad upload fails alone.
 */
export async function uploadOne(ctx: CoreContext, userId: string, input: unknown): Promise<IngestResponse> {
  const upload = parseInput(UploadConversation, input);
  return batcherOf(ctx).add({ userId, upload });
}

async function storeBatch(ctx: CoreContext, userId: string, items: Pending[]) {
  const results = await storeUploads(
    ctx,
    userId,
    items.map((item) => item.upload),
  );
  return results.map((value) => ({ ok: true as const, value }));
}
