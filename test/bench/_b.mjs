import { createBundledEmbedder } from "../../dist/providers/bundled-embedder.js";
import { textSource } from "./lib.mjs";
const e = await createBundledEmbedder();
const text = textSource(3);
const qs = Array.from({ length: 400 }, () => text.query());
console.log(qs.slice(0,3));
for (const q of qs.slice(0, 20)) await e.embedQuery(q);
for (const b of [1, 2, 4, 8]) {
  const t = performance.now(); let n = 0;
  for (let i = 0; i + b <= 200; i += b) { await e.embedDocuments(qs.slice(i, i + b)); n += b; }
  console.log("batch", b, ((performance.now() - t) / n).toFixed(2), "ms/query");
}
