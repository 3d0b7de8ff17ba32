import type { ExportFormat, ExportMemory, RepairedRecord, SkippedCount } from "../../importers/index.js";
import type { UploadConversation } from "../../schemas/chat-history.js";
import type { PlainError } from "../../shared/errors.js";

/** The export the reading process is to read (export-reading-process.ts), as openExport takes it. */
export interface ExportToOpen {
  path: string;
  platform?: string | undefined;
  name?: string | undefined;
}

/**
 * Opens an export (forgetting the one before), asks for its next records (the conversations, then,
 * after they ended, the memories), or forgets it. `file` numbers the exports: a reply is of one.
 */
export type ExportRequest =
  | { type: "open"; file: number; export: ExportToOpen }
  | { type: "conversations" | "memories" | "close"; file: number };

/** A record read, or one that could not be, in the order met. */
export type ExportItem = { conversation: UploadConversation; bytesRead: number } | { memory: ExportMemory } | { unreadable: PlainError };

export type ExportReply = { file: number } & (
  | {
      type: "opened";
      format: ExportFormat;
      formats: ExportFormat[];
      unreadable: PlainError[];
      totalBytes: number;
      memoryFiles: number;
    }
  | {
      type: "items";
      items: ExportItem[];
      /** No more of these records: what the reading left out and repaired so far is final for them. */
      done: boolean;
      skipped: SkippedCount[];
      repaired: RepairedRecord[];
      /** The reading ended with this error after `items`. */
      error?: PlainError;
    }
  | { type: "failed"; error: PlainError }
);
