// ChatGPT's library of the account's files (library_files.json, in exports since 2026) holds the
// deep-research reports, which the conversation that asked for one does not: an entry with
// `library_artifact_type: "deep_research_report"` names its conversation (`origination_thread_id`) and
// its body, `<file_id>.dat` beside it (`mime_type: "application/json"`), a JSON object
// `{ version: 1, title, backing_conversation_id, widget_state: { status, report_message }, activity_messages }`
// whose report is `report_message`'s text parts; the research's activity (searches, thoughts) is left
// out, as the chat folds it away. Shapes as read by public parsers of real 2026 exports: the GitHub
// repository DevenirTwilight/ChatGPT-Nova (docs/deep-research-restoration.md: checked against the 19
// reports of a real export; ArchiveResearch.java, ArchiveResearchFixtures.java); library_files.json's
// entries (a list; `id` an object, `{ id: "libfile_…" }`; the times) as Superkikim/nexus-ai-chat-importer's
// docs/CHATGPT-2026-FORMAT.md describes them, the bodies at the zip's root beside conversations.json.
import type { UploadConversation, UploadMessage } from "../../schemas/chat-history.js";
import { isolated, type Converter } from "../importer.js";
import { isObject, isoFromTime, type JsonObject, nonEmptyString, stringOf, titleFrom } from "../json-values.js";
import { smallText } from "../source.js";
import type { RecordContext } from "../types.js";
import { conversationIdOf, reportText } from "./conversation.js";

/** Larger than a library of thousands of files' entries: a larger one is not read (counted). */
const MAX_LIBRARY_BYTES = 32 * 1024 * 1024;
/** A report's body, its research's activity included; reports read are 20,000 to 30,000 characters of text. */
const MAX_REPORT_BYTES = 8 * 1024 * 1024;
/** A file id as the export names its files (`file_<32 hex>`, `file-<id>`): nothing that reaches out of the folder. */
const FILE_ID = /^file[-_][A-Za-z0-9_-]+$/;

/** A deep-research report the library lists, its body not yet read. */
interface ReportEntry {
  fileId: string;
  /** The library's name of it, should its body have no title. */
  name: string | undefined;
  /** When the library got it, should its message have no time. */
  createdAt: string | undefined;
}

/** A read report: the message the chat shows, and the report's title. */
interface Report {
  message: UploadMessage;
  title: string;
}

/**
 * ChatGPT's converter: `convert` for each conversation, given its reports from the library beside its
 * file (read one at a time, when the conversation is met); then each report whose conversation is not
 * in the export as a conversation of its own, under that conversation's id (src/README.md).
 */
export function withLibraryReports(
  convert: (record: unknown, context: RecordContext, reports: UploadMessage[]) => UploadConversation | undefined,
): Converter<UploadConversation> {
  return async function* (records) {
    const libraries = new Map<string, Map<string, ReportEntry[]>>();
    const met = new Set<string>();
    let last: RecordContext | undefined;
    for await (const { value, context } of records) {
      last = context;
      const folder = context.path.includes("/") ? context.path.slice(0, context.path.lastIndexOf("/")) : "";
      let library = libraries.get(folder);
      if (library === undefined) libraries.set(folder, (library = await reportEntries(context)));
      const id = conversationIdOf(value);
      // A conversation met again (a newer copy in another file) is given its reports again: it may be the one kept.
      const messages = (await readReports((id !== undefined && library.get(id)) || [], context)).map((report) => report.message);
      const conversation = isolated((record, at) => convert(record, at, messages), value, context);
      if (conversation === undefined) continue; // a record that cannot be read: its reports are kept on their own
      if (id !== undefined) met.add(id);
      yield conversation;
    }
    if (last === undefined) return;
    for (const library of libraries.values()) {
      for (const [thread, entries] of library) {
        if (met.has(thread)) continue;
        const conversation = ownConversation(thread, await readReports(entries, last), last);
        if (conversation !== undefined) yield conversation;
      }
    }
  };
}

/**
 * Reports whose conversation the export lacks (deleted, or in a shard it lacks): their conversation's
 * id, so that it and the conversation join whichever is imported first; not `complete`, so that it
 * adds to a conversation stored before rather than replace it.
 */
function ownConversation(thread: string, reports: Report[], context: RecordContext): UploadConversation | undefined {
  const first = reports[0];
  if (first === undefined) return undefined;
  return {
    conversation: {
      id: thread,
      title: first.title,
      createdAt: first.message.createdAt ?? context.fallbackDate.toISOString(),
      messages: reports.map((report) => report.message),
    },
  };
}

/** The deep-research reports library_files.json beside the record's file lists, by conversation; none without one. */
async function reportEntries(context: RecordContext): Promise<Map<string, ReportEntry[]>> {
  const byThread = new Map<string, ReportEntry[]>();
  const source = await context.sibling?.("library_files.json");
  if (source === undefined) return byThread;
  if (source.size > MAX_LIBRARY_BYTES) {
    context.skip("library_files.json over 32 MB, not read (its deep-research reports left out)");
    return byThread;
  }
  let entries: unknown;
  try {
    entries = JSON.parse((await smallText(source, MAX_LIBRARY_BYTES)) ?? "");
  } catch {
    context.skip("library_files.json that could not be read (its deep-research reports left out)");
    return byThread;
  }
  const seen = new Set<string>();
  for (const entry of Array.isArray(entries) ? entries : []) {
    if (!isObject(entry) || entry.library_artifact_type !== "deep_research_report") continue;
    const fileId = stringOf(entry.file_id);
    const thread = nonEmptyString(entry.origination_thread_id);
    if (fileId === undefined || !FILE_ID.test(fileId) || thread === undefined || seen.has(fileId)) continue;
    seen.add(fileId);
    const list = byThread.get(thread) ?? [];
    list.push({ fileId, name: nonEmptyString(entry.file_name), createdAt: entryTime(entry) });
    byThread.set(thread, list);
  }
  return byThread;
}

/** When the library got the file: `created_at`, or the times parsers of real exports fall back on. */
function entryTime(entry: JsonObject): string | undefined {
  const times = [entry.created_at, entry.record_creation_time, entry.version_created_at, entry.file_processed_time];
  return times.map(isoFromTime).find((time) => time !== undefined);
}

/** The reports' bodies, read one at a time; each that cannot be is counted, with why. */
async function readReports(entries: ReportEntry[], context: RecordContext): Promise<Report[]> {
  const reports: Report[] = [];
  for (const entry of entries) {
    const report = await readReport(entry, context);
    if (report !== undefined) reports.push(report);
  }
  return reports;
}

async function readReport(entry: ReportEntry, context: RecordContext): Promise<Report | undefined> {
  const source = await context.sibling?.(`${entry.fileId}.dat`);
  if (source === undefined) return skipped(context, "deep-research reports whose file the export lacks (file_….dat)");
  if (source.size > MAX_REPORT_BYTES) return skipped(context, "deep-research reports over 8 MB, not read");
  let body: unknown;
  try {
    body = JSON.parse((await smallText(source, MAX_REPORT_BYTES)) ?? "");
  } catch {
    return skipped(context, "deep-research reports that could not be read"); // damaged JSON, or a damaged entry of the zip
  }
  const state = isObject(body) && isObject(body.widget_state) ? body.widget_state : undefined;
  if (state !== undefined && state.status !== "completed") return skipped(context, "deep-research reports not finished when exported");
  const content = reportText(state);
  if (!isObject(body) || content === undefined) return skipped(context, "deep-research reports that could not be read");
  const sent = isObject(state?.report_message) ? state.report_message : {};
  const createdAt = isoFromTime(sent.create_time) ?? entry.createdAt;
  return {
    message: { id: entry.fileId, role: "assistant", content, ...(createdAt === undefined ? {} : { createdAt }) },
    title: titleFrom(nonEmptyString(body.title) ?? entry.name ?? "Deep research report"),
  };
}

function skipped(context: RecordContext, reason: string): undefined {
  context.skip(reason);
  return undefined;
}
