// The ceiling of any query endpoint on this machine (used by http.mjs): an HTTP server on the same
// framework as `mnemo serve` whose one route embeds its `query` with the store's configured
// embedder and answers, searching nothing. Prints `{ "url": … }` once it listens, as `serve --json`.
//
//   node test/bench/embed-endpoint.mjs <store>
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { loadConfig } from "../../dist/config/load-config.js";
import { createEmbedder } from "../../dist/providers/create-providers.js";
import { benchEnv } from "./lib.mjs";

const config = loadConfig({ store: process.argv[2], embedder: "bundled" }, benchEnv());
const embedder = await createEmbedder("bundled", config);
const app = new Hono();
app.get("/api/memory", async (c) => {
  const vector = await embedder.embedQuery(c.req.query("query") ?? "");
  return c.json([{ text: "", score: vector[0] }]);
});
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
  console.log(JSON.stringify({ url: `http://127.0.0.1:${info.port}` })),
);
process.on("SIGTERM", () => process.exit(0));
