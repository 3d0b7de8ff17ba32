import {
  bytesToRead,
  checkPlatform,
  openExport,
  type ExportFormat,
  type OpenExportOptions,
  type ExportMemory,
  type ExportReader,
  type RepairedRecord,
  type SkippedCount,
} from "../../importers/index.js";
import { UploadConversation, type IngestResponse, type QueueStatus } from "../../schemas/chat-history.js";
import { formatPath } from "../../schemas/parse.js";
import { FORMER_PLATFORMS } from "../../schemas/platform.js";
import { AppError, isAppError } from "../../shared/errors.js";
import type { MnemoService } from "../service-types.js";
import { noMemories, storeExportMemories, type MemoryCounts } from "./import-memories.js";
import type { RestoreSummary } from "./restore.js";
import { conversationParts } from "./conversation-parts.js";
import { ExportReadingProcess } from "./export-reader.js";
import { BATCH_CHARS, BATCH_CONVERSATIONS, messageChars } from "./upload-batches.js";
import { countLanguage, languageHint, noLanguages, type LanguageCount } from "./language-hint.js";
import { loadTokenizer } from "../../text/tokens.js";

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
  /** Each path: its format, the conversations read from it, and the memories when it holds some. */
  files: {
    path: string;
    /** The first of `formats`, or null when the file could not be read. */
    format: ExportFormat | null;
    /** Every format the file holds (a folder may hold several apps' exports side by side), in the order read; none when unreadable. */
    formats: ExportFormat[];
    conversations: number;
    memories?: number;
    error?: string;
  }[];
  new: number;
  updated: number;
  unchanged: number;
  rejected: number;
  failed: number;
  /** Files and folders inside the folders read that could not be read (each named in problems): not conversations, so not failed. */
  unreadableFiles: number;
  problems: ImportProblem[];
  /**
   * What the exports hold that was not imported, and why, per file: empty conversations, other
   * products' activity, a draft left out, a shard the manifest lists that is missing. Not failures.
   */
  skipped: SkippedCount[];
  /**
   * Records whose text was not valid Unicode (a title cut in the middle of an emoji, bytes that are
   * not UTF-8): imported with U+FFFD in its place, since the text is the user's own and cannot be
   * exported again. Not failures.
   */
  repaired: RepairedRecord[];
  /**
   * When many of the conversations are in languages the store's embedder does not read: what that
   * means and how to re-embed with a model that does (language-hint.ts).
   */
  languageHint?: string;
  /** Conversations over the 100,000-token limit, stored in parts (conversation-parts.ts). Not failures. */
  inParts: { file: string; conversation: string; parts: number }[];
  /** Internal ids of the conversations this import stored, in the files' order: one met twice is listed twice. */
  conversationIds: string[];
  /** The import records its conversations belong to, one per platform (`mnemo chats list --import-id`). */
  importIds: string[];
  dryRun: boolean;
  /**
   * Whether new / updated / unchanged were told apart by the store. Not for a dry run through a
   * server, which has no way to ask it: they stay 0.
   */
  comparedWithStore: boolean;
  /** mnemo's own exports among the paths, restored rather than imported (core/jobs/restore.ts). */
  restored: RestoreSummary[];
  /**
   * Conversations an earlier import stored and left to index (it was stopped, or ran with --no-wait),
   * indexed by this one while it waited: set only when it waited and there were some.
   */
  indexedFromBefore?: number;
  /**
   * The memories the exports hold (Claude's memories, its projects' instructions and knowledge):
   * new, updated (the export words one otherwise now) and unchanged, and the buckets they are in.
   */
  memories: MemoryCounts;
}

export interface ImportOptions {
  platform?: string | undefined;
  /** The name the one file passed had before it was stored under another (an upload's): openExport's `name`. */
  name?: string | undefined;
  dryRun?: boolean;
  /** A dry run with no store: the embedder a new store would take (the config's spec, `auto` when mnemo picks), for the language hint. */
  newStoreEmbedder?: string | undefined;
  onProgress?: (progress: ImportProgress) => void;
  /** How a file is opened: openExport in this thread unless told (a server reads an upload in a process of its own: export-reader.ts). */
  open?: (path: string, options: OpenExportOptions) => Promise<ExportReader>;
  /**
   * Each file that could need it (needsReadingApart) read in a process of its own under this heap
   * limit (`mnemo import`'s): a file that needs more is one that could not be read, named with the way
   * to raise the limit, and the next is read.
   */
  readApart?: { heapMb: number; env: NodeJS.ProcessEnv } | undefined;
}

/**
 * Reads chat exports and stores their conversations through a service (embedded or remote).
 * Damage costs the record it is in: a record that cannot be read, or a conversation that fails
 * validation, is reported (naming it) and skipped, and the rest of the file is imported; text that is
 * not valid Unicode is repaired and said so. A file that cannot be read at all is reported, and the
 * next file still imported. A dry run where there is no store yet passes no service: all it reads is new.
 */
export async function importExports(
  service: MnemoService | undefined,
  paths: string[],
  options: ImportOptions = {},
): Promise<ImportSummary> {
  checkPlatform(options.platform); // a bad option fails the import, not each file
  if (service === undefined && !options.dryRun)
    throw new AppError("internal", "An import stores into a store: only a dry run goes without");
  const compared = !options.dryRun || service === undefined || service.conversations.previewUploads !== undefined;
  const summary = emptySummary(Boolean(options.dryRun), compared);
  const languages = noLanguages();
  const { readApart } = options;
  let reading: ExportReadingProcess | undefined;
  try {
    for (const path of paths) {
      if (!readApart || !(await needsReadingApart(path, readApart.heapMb))) {
        await importFile(service, path, options, summary, languages);
        continue;
      }
      const apart = (reading ??= new ExportReadingProcess(readApart.heapMb, readApart.env, "imports"));
      await importFile(service, path, { ...options, open: (file, how) => apart.open(file, how) }, summary, languages).finally(() =>
        apart.done(),
      );
    }
  } finally {
    reading?.stop();
  }
  const hint = await languageHint(service, languages, options.newStoreEmbedder);
  if (hint !== undefined) summary.languageHint = hint;
  return summary;
}

/**
 * Whether a path is read in a process of its own (`readApart`): a file (an archive unpacked) or a
 * folder of more than a 32nd of the heap limit, or a folder too large to add up. JSON parsed takes up
 * to ~18 times its bytes (`{},` is a 56-byte object), so less cannot pass the limit; starting the
 * process costs ~0.9 s of CPU, which every small import paid.
 */
async function needsReadingApart(path: string, heapMb: number): Promise<boolean> {
  const limit = (heapMb * 1024 ** 2) / READ_APART_SHARE;
  const bytes = await bytesToRead(path, limit);
  return bytes === undefined || bytes > limit;
}

const READ_APART_SHARE = 32;

/**
 * How each conversation was counted (new, updated or unchanged; a dry run's by its id in the export), for waitForProcessing: one
 * that the index worker then rejects or fails is counted there instead, not in both. Kept beside
 * the summary, not in it, since the summary's shape is the API's.
 */
const countedAs = new WeakMap<ImportSummary, Map<string, IngestResponse["change"]>>();

/** What a conversation met more than once in one import (read from two files, say) did over all of them. */
const STRONGER: readonly IngestResponse["change"][] = ["unchanged", "updated", "new"];

/**
 * Counts a stored conversation once per import: met again (Amazon Q's database and Kiro CLI's copy
 * of it), it stays one conversation, counted by what it did over the whole import (new, then found
 * again unchanged, is new), as the store holds it once. Its id is listed at each meeting: the ids
 * follow the files' conversations in order, which is how a caller tells each file's apart.
 */
function countOnce(summary: ImportSummary, conversationId: string, change: IngestResponse["change"]): void {
  countedOnce(summary, conversationId, change);
  summary.conversationIds.push(conversationId);
}

/** The same for a dry run, which stores nothing: the conversation known by its platform and its id in the export. */
function countPreviewOnce(summary: ImportSummary, upload: UploadConversation, change: IngestResponse["change"]): void {
  countedOnce(summary, `upload\u0000${upload.platform ?? ""}\u0000${upload.conversation.id}`, change);
}

/** Counts the change under `key`, folded into what was counted there before; true the first time. */
function countedOnce(summary: ImportSummary, key: string, change: IngestResponse["change"]): boolean {
  const counted = countedAs.get(summary) ?? new Map<string, IngestResponse["change"]>();
  countedAs.set(summary, counted);
  const before = counted.get(key);
  if (before !== undefined) summary[before]--;
  const now = before !== undefined && STRONGER.indexOf(before) > STRONGER.indexOf(change) ? before : change;
  summary[now]++;
  counted.set(key, now);
  return before === undefined;
}

/** A summary of nothing imported yet. */
export function emptySummary(dryRun: boolean, comparedWithStore: boolean): ImportSummary {
  return {
    files: [],
    new: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    failed: 0,
    unreadableFiles: 0,
    problems: [],
    skipped: [],
    repaired: [],
    inParts: [],
    restored: [],
    memories: noMemories(),
    conversationIds: [],
    importIds: [],
    dryRun,
    comparedWithStore,
  };
}

async function importFile(
  service: MnemoService | undefined,
  path: string,
  options: ImportOptions,
  summary: ImportSummary,
  languages: LanguageCount,
): Promise<void> {
  const file: ImportSummary["files"][number] = { path, format: null, formats: [], conversations: 0 };
  let reader: ExportReader | undefined;
  summary.files.push(file);
  const started = Date.now();
  const tokenizer = await loadTokenizer();
  let batch: UploadConversation[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    batchChars = 0;
    if (options.dryRun || service === undefined) {
      const changes = service
        ? ((await service.conversations.previewUploads?.(sent)) ?? [])
        : sent.map((): IngestResponse["change"] => "new");
      changes.forEach((change, index) => countPreviewOnce(summary, sent[index]!, change));
      return;
    }
    const results = await uploadSettled(service, sent);
    results.forEach((result, index) => {
      if (result instanceof RefusedUpload) {
        summary[result.overLimit ? "rejected" : "failed"]++;
        summary.problems.push({ file: path, conversation: sent[index]!.conversation.title, reason: result.message });
        return;
      }
      countOnce(summary, result.conversationId, result.change);
      if (!summary.importIds.includes(result.importId)) summary.importIds.push(result.importId);
    });
  };
  try {
    reader = await (options.open ?? openExport)(path, {
      platform: options.platform,
      name: options.name,
      // A record that cannot be read is one failed conversation, not the end of the file.
      onUnreadable: (problem) => {
        file.conversations++;
        summary.failed++;
        summary.problems.push({ file: path, reason: problem.message, suggestion: problem.suggestion });
      },
    });
    file.format = reader.format;
    file.formats = reader.formats;
    // Each file or folder inside it may not read is one problem: what it holds is not imported, and the import says so.
    for (const problem of reader.unreadable) {
      summary.unreadableFiles++;
      summary.problems.push({ file: path, reason: problem.message, suggestion: problem.suggestion });
    }
    const { format } = reader;
    const platforms = new Set<string>();
    for await (const conversation of reader.conversations()) {
      file.conversations++;
      if (!platforms.has(conversation.platform ?? "")) storedFormats(file, reader.formats, platforms.add(conversation.platform ?? ""));
      const upload = checkedUpload(conversation, path, summary);
      if (upload === undefined) continue;
      countLanguage(languages, upload);
      const parts = conversationParts(upload, tokenizer);
      if (parts.length > 1) summary.inParts.push({ file: path, conversation: upload.conversation.title, parts: parts.length });
      for (const part of parts) {
        // Made after the check, each part is checked too: one the store refused would fail its whole batch.
        if (parts.length > 1 && checkedUpload(part, path, summary) === undefined) continue;
        batch.push(part);
        batchChars += messageChars(part);
        if (batch.length >= BATCH_CONVERSATIONS || batchChars >= BATCH_CHARS) await flush();
      }
      options.onProgress?.(progress(path, format, file.conversations, reader.bytesRead(), reader.totalBytes, started));
    }
    await flush();
    if (reader.memoryFiles > 0) await importMemories(service, reader, file, summary);
  } catch (error) {
    await flush();
    const ofTheFile = isAppError(error) && (error.code === "invalid_input" || (options.readApart && error.details["readingOutOfMemory"]));
    if (!ofTheFile) throw error;
    file.error = error.message;
    summary.problems.push({ file: path, reason: error.message, suggestion: error.suggestion });
  } finally {
    summary.skipped.push(...(reader?.skipped() ?? []));
    summary.repaired.push(...(reader?.repaired() ?? []));
  }
}

/**
 * The file's formats as its conversations are stored: a format read for a newer platform too (Qwen
 * Code's sessions of 2025 are Gemini CLI's files, Roo Code's tasks Cline's: FORMER_PLATFORMS) is
 * named as that platform, and as itself only when some of its conversations are its own.
 */
function storedFormats(file: ImportSummary["files"][number], read: readonly ExportFormat[], platforms: ReadonlySet<string>): void {
  file.formats = read.flatMap((format) => {
    const newer = [...platforms].filter((platform) => FORMER_PLATFORMS[platform] === format);
    return newer.length === 0 || platforms.has(format) ? [format, ...newer] : newer;
  });
  file.format = file.formats[0] ?? null;
}

/** The conversation as the store takes it; undefined when it is not, counted as failed with the reason. */
function checkedUpload(conversation: UploadConversation, path: string, summary: ImportSummary): UploadConversation | undefined {
  const checked = UploadConversation.safeParse(conversation);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  summary.failed++;
  summary.problems.push({
    file: path,
    conversation: conversation.conversation?.title,
    reason: `${formatPath(issue.path)}: ${issue.message}`,
  });
  return undefined;
}

/** The export's memories, stored (or, in a dry run, compared) and counted in the summary. */
async function importMemories(
  service: MnemoService | undefined,
  reader: ExportReader,
  file: ImportSummary["files"][number],
  summary: ImportSummary,
): Promise<void> {
  const memories: ExportMemory[] = [];
  let failed = 0;
  const unreadable = (problem: AppError) => {
    failed++;
    summary.problems.push({ file: file.path, reason: problem.message, suggestion: problem.suggestion });
  };
  for await (const memory of reader.memories(unreadable)) memories.push(memory);
  if (memories.length + failed > 0) file.memories = memories.length;
  addMemoryCounts(summary.memories, { ...(await storeExportMemories(service, memories, summary.dryRun)), failed });
}

/** Adds one import's memory counts to a total. */
export function addMemoryCounts(total: MemoryCounts, counts: MemoryCounts): void {
  total.new += counts.new;
  total.updated += counts.updated;
  total.unchanged += counts.unchanged;
  total.failed += counts.failed;
  for (const bucket of counts.buckets) if (!total.buckets.includes(bucket)) total.buckets.push(bucket);
}

/** An upload the server refused while it stored the others (client/remote.ts). */
class RefusedUpload {
  constructor(
    readonly message: string,
    /** Over the 100,000-token limit, which a server refuses as the upload arrives: counted as rejected. */
    readonly overLimit: boolean,
  ) {}
}

/** Each upload's answer, or why the server refused it (a store in this process refuses none of them: they were validated). */
async function uploadSettled(service: MnemoService, uploads: UploadConversation[]): Promise<(IngestResponse | RefusedUpload)[]> {
  try {
    return await service.conversations.uploadMany(uploads);
  } catch (error) {
    const results = isAppError(error) ? error.details["results"] : undefined;
    const refused = isAppError(error) ? error.details["refused"] : undefined;
    if (!Array.isArray(results) || !Array.isArray(refused)) throw error;
    const why = new Map((refused as { index: number; message: string; field?: string }[]).map((r) => [r.index, r]));
    return (results as (IngestResponse | undefined)[]).map((result, index) => {
      const refusal = why.get(index);
      // The upload passed the same validation here: a refusal that names its messages is the token limit.
      return result ?? new RefusedUpload(refusal?.message ?? "refused", refusal?.field === "conversation.messages");
    });
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
    const counted = countedAs.get(summary)?.get(problem.id);
    if (counted && summary[counted] > 0) summary[counted]--;
    summary[problem.status === "rejected" ? "rejected" : "failed"]++;
    summary.problems.push({ file: "", conversation: problem.title, reason: `${problem.status}: ${problem.reason}` });
  }
}
