import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { bucketReferenceNotFound, findBucket } from "../bucket-reference.js";
import { AppError } from "../../shared/errors.js";
import { unreadableReason } from "../../shared/file-errors.js";
import type { MnemoService } from "../../core/index.js";
import type { StoreMemoryRequest } from "../../schemas/memories.js";
import type { InStream } from "../io.js";
import { withDate } from "../../text/memory-date.js";
import { datedWithinLimit } from "../../schemas/dated-text.js";
import { argumentText, asksForStdin } from "../stdin.js";
import { action, withService, type Session } from "../session.js";

interface RememberOptions {
  date: boolean;
  bucket?: string;
  source?: string;
  lines?: boolean;
  image?: string;
  description?: string;
}

export function registerRemember(program: Command): void {
  program
    .command("remember")
    .description("store a memory (use - to read it from stdin), or an image with --image")
    .argument("[text...]", "the memory, or - to read stdin; with --image, what the image shows")
    .option("--no-date", "do not prepend today's date (YYYY-MM-DD)")
    .option("-b, --bucket <name|id>", "bucket to store it in (default: General)")
    .option("--source <client>", "client identifier recorded with the memory")
    .option(
      "--lines",
      "with -, store each non-empty line of stdin as its own memory (every line is checked first; nothing is stored if one is bad)",
    )
    .option("--image <file>", "store an image (PNG, JPEG, WebP or GIF, at most 10 MB)")
    .option("--description <text>", "with --image: what the image shows (or give it as the text)")
    .action(
      action(async (session, words: string[], options: RememberOptions) => {
        const { out } = session;
        if (options.image) return rememberImage(session, options.image, await imageDescription(words, options, session.io.stdin), options);
        if (options.description !== undefined) throw AppError.invalid("--description", "describes an image: use it with --image <file>");
        const texts = await memoryTexts(words, options, session.io.stdin);
        await withService(session, async (service) => {
          const bucketId = options.bucket === undefined ? undefined : await resolveBucketId(service, options.bucket);
          const requests = texts.map(({ text, line }) => ({
            text: options.date
              ? datedWithinLimit(text, withDate(text, new Date(), out.timeZone), "--no-date", line ? `line ${line}` : "text")
              : text,
            ...(bucketId === undefined ? {} : { bucketId }),
            ...(options.source ? { source: options.source } : {}),
          }));
          if (options.lines) await checkLines(requests, texts);
          if (requests.length === 1) {
            const result = await service.memories.store(requests[0]!);
            if (out.json) out.data(result);
            else out.created([result.memoryId], `Remembered ${out.style.dim(result.memoryId)}`);
          } else {
            const result = await service.memories.storeMany(requests);
            if (out.json) out.data(result);
            else out.created(result.memoryIds, `Remembered ${result.memoryIds.length} memories`);
          }
        });
      }, REMEMBER_FLAGS),
    );
}

/** The flags behind the request's fields, named in a refusal as the user typed them. */
const REMEMBER_FLAGS = { source: "--source" };

/** A memory's text, and with --lines the line of stdin it came from (1-based, blank lines counted). */
interface MemoryText {
  text: string;
  line?: number;
}

async function memoryTexts(words: string[], options: RememberOptions, stdin: InStream): Promise<MemoryText[]> {
  const fromStdin = asksForStdin(words);
  const text = await argumentText(words, stdin);
  if (options.lines) {
    if (!fromStdin) throw AppError.invalid("--lines", "reads stdin: pass - as the text");
    const lines = text
      .split(/\r?\n/)
      .map((line, index) => ({ text: line.trim(), line: index + 1 }))
      .filter((line) => line.text !== "");
    if (lines.length === 0) throw AppError.invalid("text", "stdin held no lines to remember");
    return lines;
  }
  if (text.trim() === "") {
    throw AppError.invalid("text", "must not be empty", 'Pass the memory as an argument (mnemo remember "…") or pipe it in with -.');
  }
  return [{ text: text.trim() }];
}

/**
 * Every line checked before any is stored, and a bad one named by its line of the input: the
 * store would name it by its place in the batch (`[3].text`), and through --remote, which
 * stores line by line, only after the lines before it were stored.
 */
async function checkLines(requests: StoreMemoryRequest[], texts: MemoryText[]): Promise<void> {
  const { parseInput } = await import("../../schemas/parse.js");
  const { StoreMemoryRequest: schema } = await import("../../schemas/memories.js");
  requests.forEach((request, index) => {
    try {
      parseInput(schema, request);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "invalid_input") throw error;
      const { field, problem } = error.details as { field: string; problem: string };
      throw AppError.invalid(`line ${texts[index]!.line}`, field === "text" ? problem : `${field}: ${problem}`, error.suggestion);
    }
  });
}

/** An image's description: the text, or --description; both at once would leave one of them unused. */
async function imageDescription(words: string[], options: RememberOptions, stdin: InStream): Promise<string | undefined> {
  if (options.lines) throw AppError.invalid("--lines", "reads text memories from stdin: it cannot be used with --image");
  const text = await argumentText(words, stdin);
  if (text.trim() === "") return options.description;
  if (options.description !== undefined) {
    throw AppError.invalid(
      "--description",
      `the image is described twice, by the text "${text.trim()}" and by --description "${options.description}"`,
      "Give the description once: as the text or with --description.",
    );
  }
  return text.trim();
}

async function rememberImage(session: Session, file: string, description: string | undefined, options: RememberOptions): Promise<void> {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (error) {
    throw AppError.invalid("--image", `cannot read ${file}: ${unreadableReason(error)}`, "Pass the path of a PNG, JPEG, GIF or WebP file.");
  }
  const { checkImage } = await import("../../core/index.js");
  const { problem } = await checkImage(data);
  if (problem !== undefined) throw AppError.invalid("--image", `${file} ${problem}`);
  await withService(session, async (service) => {
    const bucketId = options.bucket === undefined ? undefined : await resolveBucketId(service, options.bucket);
    const result = await service.memories.storeImage({
      data: data.toString("base64"),
      filename: path.basename(file),
      ...(description ? { description } : {}),
      ...(bucketId === undefined ? {} : { bucketId }),
      ...(options.source ? { source: options.source } : {}),
    });
    if (session.out.json) session.out.data(result);
    else session.out.created([result.memoryId], `Remembered image ${session.out.style.dim(result.memoryId)}`);
  });
}

/** A bucket given by name or by id (core/bucket-reference.ts says which wins) → its id. */
export async function resolveBucketId(service: MnemoService, reference: string): Promise<number> {
  const bucket = findBucket(await service.buckets.list(), reference);
  if (!bucket) throw bucketReferenceNotFound(reference);
  return Number(bucket.id);
}
