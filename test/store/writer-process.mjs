// A second process writing to the same store, for the concurrency test. Usage: writer-process.mjs <store> <name> <count>
import { createApp } from "../../dist/core/app.js";
import { loadConfig } from "../../dist/config/load-config.js";

const [store, name, count] = process.argv.slice(2);
const app = await createApp(loadConfig({ store, embedder: "bundled" }));
const service = await app.service();
for (let i = 0; i < Number(count); i++) {
  await service.memories.store({ text: `${name} memory ${i}` });
  if (i % 5 === 0) await service.buckets.create({ name: `${name} bucket ${i}` });
  if (i % 7 === 0)
    await service.memories
      .store({ text: `${name} moved ${i}` })
      .then(({ memoryId }) => service.memories.update({ memoryId, bucketName: "shared" }));
}
await app.close();
