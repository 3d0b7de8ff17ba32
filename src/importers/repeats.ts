// A conversation met twice in one read (two exports of one account zipped together, a shard and
// the whole file side by side, a file that lists it twice): the store would take both and the
// summary count it twice.
import type { UploadConversation } from "../schemas/chat-history.js";

export const REPEATED = "conversations met again in the export, no newer (read once)";

/** Lets a conversation through the first time, and again only when it is newer (it then replaces the first). */
export class RepeatFilter {
  private readonly seen = new Map<string, string>();

  /** Whether to yield this conversation. */
  keep(upload: UploadConversation): boolean {
    const key = `${upload.platform ?? ""}\u0000${upload.conversation.id}`;
    const time = upload.conversation.updatedAt ?? upload.conversation.createdAt;
    const before = this.seen.get(key);
    if (before !== undefined && time <= before) return false;
    this.seen.set(key, time);
    return true;
  }
}
