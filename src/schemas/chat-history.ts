import { z } from "zod";
import { DateTime } from "./common.js";

export const PLATFORM_PATTERN = /^[a-zA-Z0-9\-_.]{1,100}$/;
export const MAX_CONVERSATION_TOKENS = 100_000;

export const UploadMessage = z.object({
  id: z.string().min(1).max(500),
  role: z.enum(["human", "assistant"]),
  content: z.string(),
  createdAt: DateTime.optional(),
});
export type UploadMessage = z.infer<typeof UploadMessage>;

/** The upload shape of spec §2: the body of POST /api/chat-history/ingest/custom-online. */
export const UploadConversation = z.object({
  platform: z
    .string()
    .regex(PLATFORM_PATTERN, "must be 1 to 100 letters, digits, hyphens, underscores or dots")
    .optional(),
  platformDisplayName: z.string().max(200).optional(),
  conversation: z.object({
    id: z.string().min(1).max(500),
    title: z.string(),
    createdAt: DateTime,
    updatedAt: DateTime.optional(),
    messages: z.array(UploadMessage).min(1),
  }),
});
export type UploadConversation = z.infer<typeof UploadConversation>;
