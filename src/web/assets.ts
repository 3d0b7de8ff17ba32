import { createHash } from "node:crypto";
import fs from "node:fs";
import { gzipSync } from "node:zlib";
import type { Context } from "hono";

/** The app's own script and stylesheet, shipped in the package beside this module (no CDN, works offline). */
const FILES = { "app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8" } as const;
export type AssetName = keyof typeof FILES;

interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  /** The content's hash: pages link `/assets/<name>?v=<hash>`, cached for a year. */
  version: string;
}

let loaded: Map<string, Asset> | undefined;

function assets(): Map<string, Asset> {
  loaded ??= new Map(
    Object.entries(FILES).map(([name, type]) => {
      const body = fs.readFileSync(new URL(`./assets/${name}`, import.meta.url));
      const version = createHash("sha256").update(body).digest("base64url").slice(0, 12);
      return [name, { body, gzipped: gzipSync(body, { level: 9 }), type, version }];
    }),
  );
  return loaded;
}

/** The URL a page links an asset by. */
export function assetUrl(name: AssetName): string {
  return `/assets/${name}?v=${assets().get(name)!.version}`;
}

/** GET /assets/:name — gzipped when the browser takes it. */
export function serveAsset(c: Context): Response {
  const asset = assets().get(c.req.param("name") ?? "");
  if (!asset) return c.text("Not found", 404);
  const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
  c.header("Content-Type", asset.type);
  c.header("Cache-Control", c.req.query("v") === asset.version ? "public, max-age=31536000, immutable" : "no-cache");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Vary", "Accept-Encoding");
  if (gzip) c.header("Content-Encoding", "gzip");
  return c.body(new Uint8Array(gzip ? asset.gzipped : asset.body));
}

/** Bytes of each asset as sent gzipped (the bench's budget: script and style ≤ 100 KB). */
export function assetSizes(): Record<string, { bytes: number; gzipped: number }> {
  return Object.fromEntries([...assets()].map(([name, asset]) => [name, { bytes: asset.body.length, gzipped: asset.gzipped.length }]));
}
