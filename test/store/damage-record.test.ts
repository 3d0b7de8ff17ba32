import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DamageRecord, versionStamp } from "../../src/store/damage-record.js";
import { tempDir } from "../temp-dirs.js";

describe("the damage record", () => {
  it("a table's stamp changes with a commit, a repair, or a good copy put back, not by itself", () => {
    const db = tempDir();
    const versions = path.join(db, "chunks.lance", "_versions");
    fs.mkdirSync(versions, { recursive: true });
    fs.writeFileSync(path.join(versions, "18446744073709551614.manifest"), "damaged");
    const damaged = versionStamp(db, "chunks");
    expect(versionStamp(db, "chunks")).toBe(damaged);
    fs.writeFileSync(path.join(versions, "18446744073709551614.manifest"), "the good copy");
    expect(versionStamp(db, "chunks")).not.toBe(damaged);
    expect(versionStamp(db, "gone")).toBe("missing");
  });

  it("keeps what processes found, and forgets a table once it is told to", () => {
    const record = new DamageRecord(path.join(tempDir(), "damaged-tables.json"));
    record.set("chunks", { key: "chunks", what: "a file of it is cut short", stamp: "s1" });
    record.set("users", { key: "users", what: "a file of it is missing", stamp: "s2" });
    expect([...record.read().keys()]).toEqual(["chunks", "users"]);
    record.set("chunks", undefined);
    expect(record.read().get("users")).toEqual({ key: "users", what: "a file of it is missing", stamp: "s2" });
    expect(record.read().has("chunks")).toBe(false);
  });
});
