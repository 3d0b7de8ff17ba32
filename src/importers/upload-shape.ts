// mnemo's own upload shape: records are passed through untouched. The core validates each one
// (UploadConversation) and reports field errors against it, so nothing is checked or fixed here.
import type { UploadConversation } from "../schemas/chat-history.js";
import { isObject } from "./json-values.js";

export function uploadConversation(record: unknown): UploadConversation {
  return record as UploadConversation;
}

/** The conversation with `platform` replaced; non-objects are left for the core to reject. */
export function withPlatform(conversation: UploadConversation, platform: string | undefined): UploadConversation {
  if (platform === undefined || !isObject(conversation)) return conversation;
  return { ...conversation, platform };
}
