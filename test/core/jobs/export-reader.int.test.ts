import { describe, expect, it } from "vitest";
import { ExportReadingProcess } from "../../../src/core/jobs/export-reader.js";
import { expandingExport } from "../../expanding-zip.js";
import { isolatedEnv } from "../../helpers.js";

describe("a folder `mnemo import` reads past its heap limit", () => {
  // A 12 MB record read under 32 MB: ~4 s.
  it("says to import its files one at a time, as a file too big then fails alone", async () => {
    const folder = expandingExport(60);
    const reading = new ExportReadingProcess(32, isolatedEnv(), "imports");
    try {
      const read = async () => {
        for await (const _ of (await reading.open(folder, {})).conversations());
      };
      await expect(read()).rejects.toMatchObject({
        code: "payload_too_large",
        suggestion: expect.stringMatching(/MNEMO_IMPORT_HEAP_MB=64 mnemo import …\), or import the folder's files one at a time/),
      });
    } finally {
      reading.stop();
    }
  }, 60_000);
});
