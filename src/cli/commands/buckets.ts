import type { Command } from "commander";
import type { MnemoService } from "../../core/index.js";
import { bucketReferenceNotFound, findBucket } from "../bucket-reference.js";
import { AppError } from "../../shared/errors.js";
import { confirmOrAbort } from "../prompts.js";
import { action, withService } from "../session.js";

export function registerBuckets(program: Command): void {
  const buckets = program
    .command("buckets")
    .description("list buckets with their memory counts")
    .action(
      action(async (session) => {
        await withService(
          session,
          async (service) => {
            const result = await service.buckets.list();
            if (session.out.json) return session.out.data(result);
            session.out.table(
              [
                { key: "id", title: "ID", align: "right" },
                { key: "name", title: "NAME" },
                { key: "memoryCount", title: "MEMORIES", align: "right" },
                { key: "description", title: "DESCRIPTION", flexible: true },
              ],
              result.map((bucket) => ({ ...bucket, memoryCount: String(bucket.memoryCount), description: bucket.description ?? "" })),
            );
          },
          { existing: true },
        );
      }),
    );

  buckets
    .command("create")
    .description("create a bucket")
    .argument("<name>", "bucket name")
    .option("-d, --description <text>", "what the bucket is for")
    .action(
      action(async (session, name: string, options: { description?: string }) => {
        await withService(session, async (service) => {
          const result = await service.buckets.create({ name, ...(options.description ? { description: options.description } : {}) });
          if (session.out.json) return session.out.data(result);
          session.out.created([result.bucket.id], `Created bucket ${result.bucket.id} "${result.bucket.name}"`);
        });
      }),
    );

  buckets
    .command("rename")
    .description("rename a bucket (General, bucket 1, too)")
    .argument("<bucket>", "the bucket's name or id")
    .argument("<name>", "its new name")
    .option("-d, --description <text>", 'a new description ("" clears it)')
    .action(
      action(async (session, reference: string, name: string, options: { description?: string }) => {
        await withService(session, async (service) => {
          const bucket = await existingBucket(service, reference);
          const result = await service.buckets.rename(Number(bucket.id), {
            name,
            ...(options.description !== undefined ? { description: options.description } : {}),
          });
          if (session.out.json) return session.out.data(result);
          session.out.success(`Renamed bucket ${bucket.id} "${bucket.name}" to "${result.bucket.name}"`);
        });
      }),
    );

  buckets
    .command("delete")
    .description("delete a bucket; its memories move to General (asks first unless --yes; never bucket 1)")
    .argument("<bucket>", "the bucket's name or id")
    .action(
      action(async (session, reference: string) => {
        await withService(session, async (service) => {
          const bucket = await existingBucket(service, reference);
          const question =
            bucket.memoryCount === 0
              ? `Delete the empty bucket "${bucket.name}"?`
              : `Delete bucket "${bucket.name}" and move its ${bucket.memoryCount === 1 ? "memory" : `${bucket.memoryCount} memories`} to General?`;
          if (bucket.id === "1") throw defaultBucketKept(bucket.name);
          await confirmOrAbort(question, session);
          const result = await service.buckets.delete(Number(bucket.id));
          if (session.out.json) return session.out.data(result);
          session.out.success(
            `Deleted bucket ${bucket.id} "${bucket.name}"${result.movedMemories > 0 ? `; ${result.movedMemories} moved to General` : ""}`,
          );
        });
      }),
    );
}

/** Said in the words the command was given (the bucket's name), not the API's field (bucketId: bucket 1). */
function defaultBucketKept(name: string): AppError {
  return new AppError(
    "invalid_input",
    `"${name}" is the default bucket, where memories without a bucket go: it can be renamed but not deleted`,
    {
      suggestion: `Rename it with \`mnemo buckets rename ${JSON.stringify(name)} <new name>\`, or move its memories with \`mnemo memories move <id> --to <bucket>\`.`,
    },
  );
}

/** The bucket a name or id refers to, which must exist. */
async function existingBucket(service: MnemoService, reference: string) {
  const bucket = findBucket(await service.buckets.list(), reference);
  if (!bucket) throw bucketReferenceNotFound(reference);
  return bucket;
}
