import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findingsOf } from "../../../src/core/operations/doctor.js";
import type { StoreHealth, TableHealth } from "../../../src/store/health.js";

const table = (key: TableHealth["key"], name: string, extra: Partial<TableHealth> = {}): TableHealth => ({
  key,
  table: name,
  rows: 10,
  read: 10,
  fragments: 1,
  indexes: [],
  badVectors: [],
  duplicates: [],
  ...extra,
});

const healthy: StoreHealth = {
  meta: { dims: 512, embedderId: "bundled", chunkTokens: 192, generation: 0 },
  tables: [table("meta", "meta"), table("conversations", "conversations"), table("chunks", "chunks")],
  relations: {
    orphanChunks: [],
    orphanMessages: [],
    lostConversations: [],
    withoutMessages: { fromChunks: [], fromEarlier: [], lost: [] },
    readyWithoutChunks: [],
    missingBuckets: [],
    orphanHistory: [],
    withoutUser: [],
    missingPlatforms: [],
    images: [],
  },
};

describe("findingsOf", () => {
  it("finds nothing in a healthy store", () => {
    expect(findingsOf(healthy)).toEqual([]);
  });

  it("a damaged table of data is restored from an export; the chunks are rebuilt from messages", () => {
    const findings = findingsOf({
      ...healthy,
      tables: [
        table("conversations", "conversations", { read: 4, problem: { what: "a file of it is cut short" } }),
        table("chunks", "chunks", { read: 0, problem: { what: "a file of it is missing" } }),
      ],
    });
    expect(findings).toEqual([
      expect.objectContaining({ table: "conversations", severity: "damaged", what: "a file of it is cut short (4 of 10 rows read)" }),
      expect.objectContaining({ table: "chunks", severity: "repairable", what: "a file of it is missing (0 of 10 rows read)" }),
    ]);
    expect(findings[0]!.fix).toMatch(
      /keeps the rows that can still be read, rebuilds .* keeps a copy of the damaged files; then `mnemo import <your latest export>`/,
    );
    expect(findings[1]!.fix).toMatch(/rebuilds the rest from the conversations' messages/);
  });

  it("a damaged meta record is told once, with the embedder to name when the data dir recorded none", () => {
    const findings = findingsOf({
      ...healthy,
      meta: {
        dims: 384,
        embedderId: undefined,
        chunkTokens: undefined,
        generation: 0,
        problem: { what: "it holds no record of the store" },
      },
      tables: [table("meta", "meta", { problem: { what: "its version file (manifest) does not describe its columns" } })],
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.fix).toMatch(/recorded in the data dir, or the one named with --embedder <spec>.*its vectors have 384 dimensions/);
  });

  it("rows of a conversation or memory that is gone are rebuilt from when its table lost them, else moved aside as a write cut short left them", () => {
    const leftovers = { ...healthy.relations, lostConversations: ["conv_a"], orphanHistory: ["mem_a", "mem_b"] };
    const whole = findingsOf({ ...healthy, relations: leftovers });
    expect(whole.map((finding) => finding.what)).toEqual([
      "1 messages rows belong to no conversation (an upload or a delete cut short between its commits)",
      "2 memories are gone but have versions (a delete, or a remember, stopped between its two commits)",
    ]);
    expect(whole.every((finding) => /moves (them|the versions) to a file in <data dir>\/recovered\//.test(finding.fix))).toBe(true);
    // A repair cut short after it salvaged both tables: the mark it left says the rows were lost.
    const salvaged = findingsOf({ ...healthy, meta: { ...healthy.meta, lostRows: ["conversations", "memories"] }, relations: leftovers });
    expect(salvaged.map((finding) => finding.what)).toEqual([
      "1 conversations cannot be read but their messages are still stored",
      "2 memories cannot be read but have versions",
    ]);
    expect(salvaged.map((finding) => finding.fix).join("\n")).toMatch(/rebuilds them from their messages[\s\S]*rebuilds each memory/);
  });
});

describe("repairStore on an object store other than S3", () => {
  it("refuses to replace a damaged table's files it cannot copy aside, unless told to, naming the folders to copy", async () => {
    const { loadConfig } = await import("../../../src/config/load-config.js");
    const { repairStore } = await import("../../../src/core/operations/doctor-repair.js");
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-gs-"));
    const config = loadConfig({ store: "gs://photos-bucket/mnemo" }, { HOME: home });
    const health = {
      ...healthy,
      tables: [table("meta", "meta"), table("conversations", "conversations", { problem: { what: "a file of it is cut short" } })],
    };
    const diagnosis = { health, images: [], journal: 0, findings: findingsOf(health), notes: [] };
    await expect(repairStore(config, diagnosis)).rejects.toMatchObject({
      message:
        "The repair would replace damaged files that mnemo cannot copy aside on this object store: gs://photos-bucket/mnemo/conversations.lance/",
      suggestion: expect.stringContaining("`mnemo --yes doctor --repair`"),
    });
    fs.rmSync(home, { recursive: true, force: true });
  });
});
