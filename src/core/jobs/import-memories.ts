// The memories an export holds (Claude's memory of the user, its projects' instructions and
// knowledge: importers/claude/memories.ts) stored as mnemo memories, through the service as
// `mnemo remember` stores them (the same validation, embedding and history), so it works on the
// embedded store and through a server alike. Each is `<day> <label> (<aside>): <text>`, the day first
// as every memory's (text/memory-date.ts), in the bucket named for its source, created when missing.
//
// Importing again adds nothing: a memory is found again by its label, in any bucket (it may have been
// moved). One whose text the export now words otherwise (Claude rewrites its memory as chats go on),
// or that now has an aside it lacked (a project's name), gets that text as a new version, its history
// keeping the old one; one whose text any of its versions already held is left as it is (a memory
// the user edited since is not overwritten by the export that was imported before the edit). A
// memory the user deleted comes back, as a deleted conversation does when its export is imported again.
import type { ExportMemory } from "../../importers/index.js";
import type { MemoryObject } from "../../schemas/memories.js";
import { sameBucketName } from "../../text/bucket-names.js";
import { localDay } from "../../text/memory-date.js";
import type { MnemoService } from "../service-types.js";

/** What became of an import's memories. */
export interface MemoryCounts {
  new: number;
  updated: number;
  unchanged: number;
  /** Records of the memory files that could not be read (damaged JSON), each named in the summary's problems. */
  failed: number;
  /** The buckets they go to, by name, in the order first met (one the user moved stays where it is). */
  buckets: string[];
}

/** Memories stored in one call, at most: one embedding batch and one commit each. */
const BATCH = 100;
const LEADING_DAY = /^\d{4}-\d{2}-\d{2} /;

export function noMemories(): MemoryCounts {
  return { new: 0, updated: 0, unchanged: 0, failed: 0, buckets: [] };
}

/** Stores the memories, or (`dryRun`) counts what storing them would do; with no service (no store yet), all are new. */
export async function storeExportMemories(
  service: MnemoService | undefined,
  memories: ExportMemory[],
  dryRun: boolean,
): Promise<MemoryCounts> {
  const counts = noMemories();
  const incoming = latestByLabel(memories);
  if (incoming.length === 0) return counts;
  counts.buckets = [...new Set(incoming.map((memory) => memory.bucket.name))];
  if (service === undefined) return { ...counts, new: incoming.length };
  const stored = await storedTexts(service);
  const fresh: ExportMemory[] = [];
  for (const memory of incoming) {
    const found = stored.find((entry) => partsOf(entry.text, memory.label) !== undefined);
    if (found === undefined) fresh.push(memory);
    else if (await alreadySaid(service, found, memory)) counts.unchanged++;
    else {
      if (!dryRun) await service.memories.update({ memoryId: found.id, text: textOf(memory) });
      counts.updated++;
    }
  }
  counts.new = fresh.length;
  if (!dryRun && fresh.length > 0) await storeNew(service, fresh);
  return counts;
}

/** One memory per label, the newest (a folder may hold two exports of one account). */
function latestByLabel(memories: ExportMemory[]): ExportMemory[] {
  const byLabel = new Map<string, ExportMemory>();
  for (const memory of memories) {
    const known = byLabel.get(memory.label);
    if (known === undefined || memory.date >= known.date) byLabel.set(memory.label, memory);
  }
  return [...byLabel.values()];
}

/** The memory's text as stored: its day, its label and aside, its text. */
function textOf(memory: ExportMemory): string {
  const aside = memory.aside === undefined ? "" : ` (${memory.aside})`;
  return `${localDay(new Date(memory.date))} ${memory.label}${aside}: ${memory.text}`;
}

/** A stored text (its day left off) of the memory labelled so: its aside and its text; undefined when it is another's. */
function partsOf(stored: string, label: string): { aside: string | undefined; text: string } | undefined {
  if (stored.startsWith(`${label}: `)) return { aside: undefined, text: stored.slice(label.length + 2) };
  if (!stored.startsWith(`${label} (`)) return undefined;
  const end = stored.indexOf("): ", label.length + 2);
  return end === -1 ? undefined : { aside: stored.slice(label.length + 2, end), text: stored.slice(end + 3) };
}

/** Whether a stored text (its day left off) says what the export says: its text, and its aside unless the export has none. */
function says(stored: string, memory: ExportMemory): boolean {
  const found = partsOf(stored, memory.label);
  return found !== undefined && found.text === memory.text && (memory.aside === undefined || found.aside === memory.aside);
}

interface Stored {
  id: string;
  /** Its text without the day it starts with. */
  text: string;
}

/** Every text memory of the user, newest first, its day left off. */
async function storedTexts(service: MnemoService): Promise<Stored[]> {
  const { memories } = await service.memories.listV2({ all: true, includeIds: true, contentType: "text" });
  return memories
    .filter((memory): memory is MemoryObject & { id: string } => typeof memory === "object" && memory.id !== undefined)
    .map((memory) => ({ id: memory.id, text: memory.text.replace(LEADING_DAY, "") }));
}

/** Whether the stored memory, now or in a version before, says what the export says. */
async function alreadySaid(service: MnemoService, stored: Stored, memory: ExportMemory): Promise<boolean> {
  if (says(stored.text, memory)) return true;
  const { versions } = await service.memories.history(stored.id);
  return versions.some((version) => says(version.text.replace(LEADING_DAY, ""), memory));
}

/** New memories into their buckets, each bucket created when the user has none of its name. */
async function storeNew(service: MnemoService, memories: ExportMemory[]): Promise<void> {
  const buckets = await bucketIds(service, memories);
  const requests = memories.map((memory) => ({ text: textOf(memory), bucketId: buckets.get(memory.bucket.name)! }));
  for (let start = 0; start < requests.length; start += BATCH) await service.memories.storeMany(requests.slice(start, start + BATCH));
}

async function bucketIds(service: MnemoService, memories: ExportMemory[]): Promise<Map<string, number>> {
  const existing = await service.buckets.list();
  const ids = new Map<string, number>();
  for (const { bucket } of memories) {
    if (ids.has(bucket.name)) continue;
    const known = existing.find((candidate) => sameBucketName(candidate.name, bucket.name));
    ids.set(bucket.name, Number(known?.id ?? (await service.buckets.create(bucket)).bucket.id));
  }
  return ids;
}
