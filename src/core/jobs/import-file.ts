import { checkPlatform, openExport, type ExportFormat } from "../../importers/index.js";
import { UploadConversation, type QueueStatus } from "../../schemas/chat-history.js";
import { formatPath } from "../../schemas/parse.js";
import { AppError, isAppError } from "../../shared/errors.js";
import type { MnemoService } from "../service-types.js";

/**
 * Conversations sent per upload call, at most: each call costs ~20 ms of store work whatever its
 * size (200 instead of 50 stored 2,000 conversations in 1.1 s instead of 1.7).
 */
const BATCH = 200;
/** Message characters per upload call, at most: a batch of long conversations stays a few MB. */
const BATCH_CHARS = 2_000_000;

export interface ImportProgress {
  file: string;
  format: ExportFormat;
  conversations: number;
  bytesRead: number;
  totalBytes: number;
  /** Conversations per second so far. */
  rate: number;
  /** Seconds left, estimated from the share of bytes read. */
  etaSeconds: number | undefined;
}

export interface ImportProblem {
  file: string;
  conversation?: string | undefined;
  reason: string;
  suggestion?: string | undefined;
}

export interface ImportSummary {
  files: { path: string; format: ExportFormat | null; conversations: number; error?: string }[];
  new: number;
  updated: number;
  unchanged: number;
  rejected: number;
  failed: number;
  problems: ImportProblem[];
  /** Internal ids of every conversation this import stored. */
  conversationIds: string[];
  /** The import records its conversations belong to, one per platform (`mnemo chats list --import-id`). */
  importIds: string[];
  dryRun: boolean;
  /**
   * Whether new / updated / unchanged were told apart by the store. Not for a dry run through a
   * server, which has no way to ask it: they stay 0.
   */
  comparedWithStore: boolean;
}

export interface ImportOptions {
  platform?: string | undefined;
  dryRun?: boolean;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Reads chat exports and stores their conversations through a service (embedded or remote).
 * A conversation that fails validation, or an NDJSON line that is not JSON, is reported and
 * skipped; a file that turns out to be malformed keeps everything read before the fault, and the
 * next file is still imported.
 */
export async function importExports(service: MnemoService, paths: string[], options: ImportOptions = {}): Promise<ImportSummary> {
  checkPlatform(options.platform); // a bad option fails the import, not each file
  const summary: ImportSummary = {
    files: [],
    new: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    failed: 0,
    problems: [],
    conversationIds: [],
    importIds: [],
    dryRun: Boolean(options.dryRun),
    comparedWithStore: !options.dryRun || service.conversations.previewUploads !== undefined,
  };
  for (const path of paths) await importFile(service, path, options, summary);
  return summary;
}

async function importFile(service: MnemoService, path: string, options: ImportOptions, summary: ImportSummary): Promise<void> {
  const file: ImportSummary["files"][number] = { path, format: null, conversations: 0 };
  summary.files.push(file);
  const started = Date.now();
  let batch: UploadConversation[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    batchChars = 0;
    if (options.dryRun) {
      for (const change of (await service.conversations.previewUploads?.(sent)) ?? []) summary[change]++;
      return;
    }
    for (const result of await service.conversations.uploadMany(sent)) {
      summary[result.change]++;
      summary.conversationIds.push(result.conversationId);
      if (!summary.importIds.includes(result.importId)) summary.importIds.push(result.importId);
    }
  };
  try {
    const reader = await openExport(path, {
      platform: options.platform,
      // A bad record alone (an NDJSON line) is one failed conversation, not the end of the file.
      onSkipped: (problem) => {
        file.conversations++;
        summary.failed++;
        summary.problems.push({ file: path, reason: problem.message, suggestion: problem.suggestion });
      },
    });
    file.format = reader.format;
    for await (const conversation of reader.conversations()) {
      file.conversations++;
      const checked = UploadConversation.safeParse(conversation);
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        summary.failed++;
        summary.problems.push({
          file: path,
          conversation: conversation.conversation?.title,
          reason: `${formatPath(issue.path)}: ${issue.message}`,
        });
        continue;
      }
      batch.push(checked.data);
      batchChars += checked.data.conversation.messages.reduce((sum, message) => sum + message.content.length, 0);
      if (batch.length >= BATCH || batchChars >= BATCH_CHARS) await flush();
      options.onProgress?.(progress(path, reader.format, file.conversations, reader.bytesRead(), reader.totalBytes, started));
    }
    await flush();
  } catch (error) {
    await flush();
    if (!isAppError(error) || error.code !== "invalid_input") throw error;
    file.error = error.message;
    summary.problems.push({ file: path, reason: error.message, suggestion: error.suggestion });
  }
}

function progress(
  file: string,
  format: ExportFormat,
  conversations: number,
  bytesRead: number,
  totalBytes: number,
  started: number,
): ImportProgress {
  const seconds = Math.max(0.001, (Date.now() - started) / 1000);
  const share = totalBytes > 0 ? bytesRead / totalBytes : 0;
  return {
    file,
    format,
    conversations,
    bytesRead,
    totalBytes,
    rate: conversations / seconds,
    etaSeconds: share > 0.02 ? (seconds / share) * (1 - share) : undefined,
  };
}

export interface ProcessingProgress {
  ready: number;
  pending: number;
}

export interface QueueWait {
  onProgress?: (progress: ProcessingProgress) => void;
  pollMs?: number;
}

/**
 * Waits until none of the user's conversations is queued or processing; the queue's final status.
 * A queue that cannot move (its worker stalled on a full disk) ends the wait with the reason.
 */
export async function waitForQueue(service: MnemoService, { onProgress, pollMs = 250 }: QueueWait = {}): Promise<QueueStatus> {
  for (;;) {
    const status = await service.conversations.status();
    const pending = status.counts.queued + status.counts.processing;
    onProgress?.({ ready: status.counts.ready, pending });
    if (pending === 0) return status;
    if (status.stalled)
      throw new AppError("unavailable", status.stalled.reason, status.stalled.suggestion ? { suggestion: status.stalled.suggestion } : {});
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Waits for the queue, then counts how this import's conversations ended (rejected or failed, with reasons). */
export async function waitForProcessing(service: MnemoService, summary: ImportSummary, wait: QueueWait = {}): Promise<void> {
  const status = await waitForQueue(service, wait);
  const ours = new Set(summary.conversationIds);
  for (const problem of status.problems.filter((p) => ours.has(p.id))) {
    summary[problem.status === "rejected" ? "rejected" : "failed"]++;
    summary.problems.push({ file: "", conversation: problem.title, reason: `${problem.status}: ${problem.reason}` });
  }
}
