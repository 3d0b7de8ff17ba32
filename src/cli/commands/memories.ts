import { Option, type Command } from "commander";
import { findBucket, moveTarget } from "../bucket-reference.js";
import { AppError } from "../../shared/errors.js";
import type { MemoryObject } from "../../schemas/memories.js";
import { shortDate } from "../../text/local-time.js";
import { keepingDate, startsWithItsDate } from "../../text/memory-date.js";
import { datedWithinLimit } from "../../schemas/dated-text.js";
import type { MnemoService } from "../../core/index.js";
import type { Output } from "../output.js";
import { moveToTrash } from "../move-to-trash.js";
import { confirmOrAbort } from "../prompts.js";
import { action, withService } from "../session.js";
import { DATE_HELP, dateOptions } from "../date-bound.js";
import { argumentText } from "../stdin.js";
import { resolveBucketId } from "./remember.js";

interface ListOptions {
  all?: boolean;
  query?: string;
  bucket?: string;
  count: string;
  skip: string;
  type?: "text" | "image";
  from?: string;
  to?: string;
}

export function registerMemories(program: Command): void {
  const memories = program
    .command("memories")
    .description("list memories: the latest by default, --all, or the most relevant with --query")
    .addOption(new Option("-a, --all", "every memory").conflicts("query"))
    .option("-q, --query <text>", "the memories most relevant to <text>")
    .option("-b, --bucket <name|id>", "only this bucket")
    .option("-n, --count <n>", "how many (1–1000)", "10")
    .option("--skip <n>", "skip the first n (for paging)", "0")
    .option("--type <text|image>", "only text or only image memories")
    .option("--from <date>", `only memories stored on or after ${DATE_HELP}`)
    .option("--to <date>", "only memories stored on or before")
    .action(
      action(
        async (session, options: ListOptions) => {
          await withService(
            session,
            async (service) => {
              const bucketId = options.bucket === undefined ? undefined : await resolveBucketId(service, options.bucket);
              const result = await service.memories.listV2({
                includeIds: true,
                count: parseCount("--count", options.count),
                skip: parseCount("--skip", options.skip, 0),
                ...(options.all ? { all: true } : {}),
                ...(options.query !== undefined ? { query: options.query } : {}),
                ...(bucketId !== undefined ? { bucketId } : {}),
                ...(options.type ? { contentType: options.type } : {}),
                ...dateOptions(options, session.out.timeZone),
              });
              if (session.out.json) return session.out.data(result);
              const bucketName = result.buckets.find((bucket) => bucket.id === String(bucketId))?.name;
              printMemories(session.out, result.memories as MemoryObject[], options, bucketName);
            },
            { existing: true },
          );
        },
        {
          count: "--count",
          skip: "--skip",
          contentType: "--type",
          bucketId: "--bucket",
          query: "--query",
          dateFrom: "--from",
          dateTo: "--to",
        },
      ),
    );

  memories
    .command("edit")
    .description("replace a memory's text (use - to read it from stdin)")
    .argument("<id>", "memory id")
    .argument("<text...>", "the new text, or -")
    .option("--no-date", "do not keep the date the old text started with")
    .action(
      action(async (session, id: string, words: string[], options: { date: boolean }) => {
        const given = await argumentText(words, session.io.stdin);
        await withService(session, async (service) => {
          const text = options.date ? datedWithinLimit(given, keepingDate(await currentText(service, id), given), "--no-date") : given;
          const result = await service.memories.update({ memoryId: id, text });
          if (session.out.json) return session.out.data(result);
          if ("memory" in result) session.out.success(`Updated ${result.memory.id} (version ${result.memory.version})`);
        });
      }),
    );

  memories
    .command("move")
    .description("move memories to a bucket (a bucket name that does not exist is created)")
    .argument("<ids...>", "memory ids (up to 100)")
    .option("-t, --to <name|id>", "target bucket (a new name that is not a number is created)")
    .action(
      action(async (session, ids: string[], options: { to?: string }) => {
        // `memories move … --to X` reaches the listing's own --to <date> first: the bucket is whichever was given.
        const to = options.to ?? (memories.opts() as ListOptions).to;
        if (to === undefined)
          throw AppError.invalid("--to", "name the bucket to move them to", "mnemo memories move <ids...> --to <bucket>");
        await withService(session, async (service) => {
          const buckets = await service.buckets.list();
          const target = moveTarget(buckets, to);
          const result = await service.memories.update(ids.length === 1 ? { memoryId: ids[0]!, ...target } : { memoryIds: ids, ...target });
          if (session.out.json) return session.out.data(result);
          const where = "bucketName" in target ? `a new bucket, "${target.bucketName}"` : `"${findBucket(buckets, to)!.name}"`;
          if ("memory" in result) session.out.success(`Moved ${result.memory.id} to ${where}`);
          else session.out.success(`Moved ${result.updated} of ${ids.length} to ${where}`);
        });
      }),
    );

  memories
    .command("delete")
    .description("delete memories (asks first unless --yes), or move them to the trash with --trash")
    .argument("<ids...>", "memory ids")
    .option("--trash", "move them to the trash instead, where they are kept 30 days (`mnemo trash restore` puts them back)")
    .action(
      action(async (session, ids: string[], options: { trash?: boolean }) => {
        if (options.trash) return moveToTrash(session, { memoryIds: ids });
        await confirmOrAbort(`Delete ${ids.length === 1 ? "this memory" : `${ids.length} memories`}?`, session);
        await withService(session, async (service) => {
          if (ids.length === 1) {
            const result = await service.memories.delete(ids[0]!);
            return session.out.json ? session.out.data(result) : session.out.success(`Deleted ${ids[0]}`);
          }
          const result = await service.memories.bulkDelete({ memoryIds: ids });
          if (result.deletedCount < ids.length) session.io.exitCode = 1;
          if (session.out.json) return session.out.data(result);
          const report = `Deleted ${result.deletedCount} of ${ids.length}`;
          if (result.deletedCount === ids.length) session.out.success(report);
          else session.out.warn(report);
          for (const failure of result.errors) session.out.warn(`${failure.memoryId}: ${failure.error}`);
          const unexplained = ids.length - result.deletedCount - result.errors.length;
          if (unexplained > 0) session.out.warn(`${unexplained === 1 ? "One was" : `${unexplained} were`} not found.`);
        });
      }),
    );

  memories
    .command("history")
    .description("every version of a memory")
    .argument("<id>", "memory id")
    .action(
      action(async (session, id: string) => {
        await withService(
          session,
          async (service) => {
            const result = await service.memories.history(id);
            if (session.out.json) return session.out.data(result);
            session.out.table(
              [
                { key: "version", title: "VERSION", align: "right" },
                { key: "changedAt", title: "CHANGED" },
                { key: "bucket", title: "BUCKET" },
                { key: "text", title: "TEXT", flexible: true },
              ],
              result.versions.map((v) => ({
                text: v.text,
                version: String(v.version),
                bucket: v.bucketName ?? `bucket ${v.bucketId} (deleted)`,
                changedAt: shortDate(v.changedAt, session.out.timeZone),
              })),
            );
          },
          { existing: true },
        );
      }),
    );
}

function printMemories(out: Output, memories: MemoryObject[], options: ListOptions, bucketName: string | undefined): void {
  const withScore = options.query !== undefined;
  if (memories.length === 0) return out.notice(noMemories(options, bucketName));
  out.table(
    [
      { key: "id", title: "ID" },
      { key: "date", title: "CREATED" },
      { key: "bucket", title: "BUCKET" },
      ...(withScore ? [{ key: "score", title: "SCORE", align: "right" as const }] : []),
      { key: "text", title: "TEXT", flexible: true },
    ],
    memories.map((memory) => ({
      id: memory.id ?? "",
      // The date once (text/memory-date.ts): a text that starts with its day needs no second one.
      date: startsWithItsDate(memory.text, memory.metadata.createdAt, out.timeZone)
        ? ""
        : shortDate(memory.metadata.createdAt, out.timeZone),
      bucket: memory.metadata.bucketName,
      score: memory.score === undefined ? "" : memory.score.toFixed(2),
      text: memory.content_type === "image" ? `[image] ${memory.text}` : memory.text,
    })),
  );
}

/** Why a listing is empty, in the terms of what was asked: the store may hold memories elsewhere. */
function noMemories(options: ListOptions, bucketName: string | undefined): string {
  if (options.query !== undefined) return "No memories match.";
  const kind = options.type ? `${options.type} memories` : "memories";
  if (options.skip !== "0") return `No ${kind} past the first ${options.skip}.`;
  const stored = storedWhen(options);
  if (stored !== undefined) return `No ${kind}${bucketName === undefined ? "" : ` in bucket "${bucketName}"`} stored ${stored}.`;
  if (bucketName !== undefined) return options.type ? `No ${kind} in bucket "${bucketName}".` : `Bucket "${bucketName}" is empty.`;
  return options.type ? `No ${kind}.` : 'No memories yet. Add one with `mnemo remember "…"`.';
}

function storedWhen({ from, to }: ListOptions): string | undefined {
  if (from !== undefined && to !== undefined) return `from ${from} to ${to}`;
  if (from !== undefined) return `on or after ${from}`;
  return to === undefined ? undefined : `on or before ${to}`;
}

export function parseCount(flag: string, value: string, min = 1, max = Number.POSITIVE_INFINITY): number {
  // Digits only: Number() also takes "1e2", "0x5" and " 5 ".
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min) {
    throw AppError.invalid(flag, `must be a whole number of at least ${min}, not "${value}"`);
  }
  if (number > max) throw AppError.invalid(flag, `must be at most ${max}, not ${number}`);
  return number;
}

/** A memory's text now: its latest version. */
async function currentText(service: MnemoService, memoryId: string): Promise<string> {
  const { versions } = await service.memories.history(memoryId);
  return versions.at(-1)?.text ?? "";
}
