// An upload the server cannot keep leaves nothing in its uploads folder, however early it fails.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../../src/core/app.js";
import type { MnemoService } from "../../../src/core/service.js";
import { openTestApp, tempDir } from "../../helpers.js";

let app: App;
let service: MnemoService;
let uploads: string;

beforeAll(async () => {
  const store = path.join(tempDir(), "store");
  app = await openTestApp({ store });
  service = await app.service();
  uploads = path.join(store, "uploads");
});
afterAll(async () => {
  await app.close();
});

/** A request body whose first chunk arrives and whose connection then fails. */
async function* cutAtOnce(): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode("[{");
  throw new Error("aborted");
}

async function* longerThanItsSize(): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode('[{"title": "twelve bytes and more"}]');
}

describe("an upload that fails as it arrives", () => {
  it("leaves no file behind: a client gone at once, a body over its size", async () => {
    await expect(service.imports.upload(cutAtOnce(), { filename: "cut.json" })).rejects.toThrow();
    await expect(service.imports.upload(longerThanItsSize(), { filename: "a.json", size: 5 })).rejects.toThrow(/longer than the 5 bytes/);
    // The write stream's close comes after the rejection; a file it created late would be here by then.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.readdirSync(uploads)).toEqual([]);
    expect((await service.imports.list()).jobs).toEqual([]);
  });
});
