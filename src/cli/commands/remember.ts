import type { Command } from "commander";
import { AppError } from "../../core/errors.js";
import type { MnemoService } from "../../core/service.js";
import { readStdin } from "../stdin.js";
import { action, withService } from "../session.js";

interface RememberOptions {
  date: boolean;
  bucket?: string;
  source?: string;
  lines?: boolean;
}

export function registerRemember(program: Command): void {
  program
    .command("remember")
    .description("store a memory (use - to read it from stdin)")
    .argument("<text...>", "the memory, or - to read stdin")
    .option("--no-date", "do not prepend today's date (YYYY-MM-DD)")
    .option("-b, --bucket <id|name>", "bucket to store it in (default: General)")
    .option("--source <client>", "client identifier recorded with the memory")
    .option("--lines", "with -, store each non-empty line of stdin as its own memory")
    .action(
      action(async (session, words: string[], options: RememberOptions) => {
        const { out } = session;
        const texts = await memoryTexts(words, options);
        await withService(session, async (service) => {
            const bucketId = options.bucket === undefined ? undefined : await resolveBucketId(service, options.bucket);
            const requests = texts.map((text) => ({
              text: options.date ? withDate(text) : text,
              ...(bucketId === undefined ? {} : { bucketId }),
              ...(options.source ? { source: options.source } : {}),
            }));
            if (requests.length === 1) {
              const result = await service.memories.store(requests[0]!);
              if (out.json) out.data(result);
              else out.success(`Remembered ${out.style.dim(result.memoryId)}`);
            } else {
              const result = await service.memories.storeMany(requests);
              if (out.json) out.data(result);
              else out.success(`Remembered ${result.memoryIds.length} memories`);
            }
        });
      }),
    );
}

async function memoryTexts(words: string[], options: RememberOptions): Promise<string[]> {
  const fromStdin = words.length === 1 && words[0] === "-";
  const text = fromStdin ? await readStdin() : words.join(" ");
  if (options.lines) {
    if (!fromStdin) throw AppError.invalid("--lines", "reads stdin: pass - as the text");
    const lines = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    if (lines.length === 0) throw AppError.invalid("text", "stdin held no lines to remember");
    return lines;
  }
  if (text.trim() === "") {
    throw AppError.invalid("text", "must not be empty", 'Pass the memory as an argument (mnemo remember "…") or pipe it in with -.');
  }
  return [text.trim()];
}

/** Today's date in the local time zone, as the spec asks memories to start with. */
export function withDate(text: string, now = new Date()): string {
  if (/^\d{4}-\d{2}-\d{2}\b/.test(text)) return text;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${text}`;
}

/** A bucket given by id or by name → its id. */
export async function resolveBucketId(service: MnemoService, bucket: string): Promise<number> {
  const buckets = await service.buckets.list();
  const match = /^\d+$/.test(bucket)
    ? buckets.find((b) => b.id === bucket)
    : buckets.find((b) => b.name.toLowerCase() === bucket.trim().toLowerCase());
  if (!match) {
    throw new AppError("not_found", `bucket "${bucket}" does not exist`, {
      details: { field: "bucket" },
      suggestion: `Create it with \`mnemo buckets create "${bucket}"\`, or list buckets with \`mnemo buckets\`.`,
    });
  }
  return Number(match.id);
}
