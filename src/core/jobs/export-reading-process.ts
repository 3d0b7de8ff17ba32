import { openExport, type ExportReader } from "../../importers/index.js";
import { plainError, type AppError } from "../../shared/errors.js";
import type { ExportItem, ExportReply, ExportRequest, ExportToOpen } from "./export-reading-protocol.js";
import { BATCH_CHARS, BATCH_CONVERSATIONS, messageChars } from "./upload-batches.js";

/** The export being read: its reader, the records it met that it could not read, the batch read ahead. */
interface Reading {
  file: number;
  reader: ExportReader;
  queued: ExportItem[];
  sources: Record<"conversations" | "memories", AsyncGenerator<ExportItem>>;
  ahead?: Promise<ExportReply> | undefined;
}

type Send = (reply: ExportReply) => void;

/**
 * The process a server's uploaded exports are read in (export-reader.ts starts it): opens one, then
 * answers each request with its next records, reading the following ones while the server stores
 * these. It ends when its channel closes: let go, or the server gone.
 */
function serve(send: Send): void {
  let reading: Reading | undefined;
  process.on("disconnect", () => process.exit(0));
  process.on("message", (request: ExportRequest) => {
    if (request.type === "open" || request.type === "close") {
      reading = undefined; // what a reading abandoned holds goes with it
      if (request.type === "open") void open(request.file, request.export).then((opened) => (reading = opened));
      return;
    }
    const current = reading;
    const kind = request.type;
    if (current?.file !== request.file) return;
    const next = current.ahead ?? nextItems(current, kind);
    current.ahead = undefined;
    void next.then((reply) => {
      send(reply);
      if (reply.type === "items" && !reply.done && !reply.error) current.ahead = nextItems(current, kind);
    });
  });

  async function open(file: number, toOpen: ExportToOpen): Promise<Reading | undefined> {
    const queued: ExportItem[] = [];
    const unreadable = (problem: AppError) => queued.push({ unreadable: plainError(problem) });
    let reader: ExportReader;
    try {
      reader = await openExport(toOpen.path, { platform: toOpen.platform, name: toOpen.name, onUnreadable: unreadable });
    } catch (error) {
      send({ file, type: "failed", error: plainError(error) } satisfies ExportReply);
      return undefined;
    }
    const { format, formats, totalBytes, memoryFiles } = reader;
    const unreadableFiles = reader.unreadable.map(plainError);
    send({ file, type: "opened", format, formats, totalBytes, memoryFiles, unreadable: unreadableFiles } satisfies ExportReply);
    const conversations = async function* () {
      for await (const conversation of reader.conversations()) yield { conversation, bytesRead: reader.bytesRead() };
    };
    const memories = async function* () {
      for await (const memory of reader.memories(unreadable)) yield { memory };
    };
    return { file, reader, queued, sources: { conversations: conversations(), memories: memories() } };
  }
}

/** The next records, up to a batch, with the unreadable ones met meanwhile in their place. */
async function nextItems({ file, reader, queued, sources }: Reading, kind: "conversations" | "memories"): Promise<ExportReply> {
  const items: ExportItem[] = [];
  let chars = 0;
  const end = (done: boolean, error?: unknown): ExportReply => ({
    file,
    type: "items",
    items,
    done,
    skipped: reader.skipped(),
    repaired: reader.repaired(),
    ...(error === undefined ? {} : { error: plainError(error) }),
  });
  try {
    // A batch as import-file.ts stores them: fewer messages, one batch held at a time.
    while (items.length < BATCH_CONVERSATIONS && chars < BATCH_CHARS) {
      const next = await sources[kind].next();
      items.push(...queued.splice(0));
      if (next.done) return end(true);
      items.push(next.value);
      chars += charsOf(next.value);
    }
    return end(false);
  } catch (error) {
    items.push(...queued.splice(0));
    return end(true, error);
  }
}

function charsOf(item: ExportItem): number {
  if ("conversation" in item) return messageChars(item.conversation);
  return "memory" in item ? item.memory.text.length : 0;
}

if (process.send && process.argv.includes("--serve")) serve((reply) => process.send!(reply));
