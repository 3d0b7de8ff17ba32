import type { Command } from "commander";
import { action, withService } from "../session.js";

export function registerBuckets(program: Command): void {
  const buckets = program
    .command("buckets")
    .description("list buckets with their memory counts")
    .action(
      action(async (session) => {
        await withService(session, async (service) => {
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
        });
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
}
