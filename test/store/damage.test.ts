import { describe, expect, it } from "vitest";
import { DamagedTableError, damageOf, lanceText } from "../../src/store/damage.js";

/** LanceDB's texts as damaged stores gave them (test/store/damage.int.test.ts makes them). */
const SEEN = {
  truncated:
    "lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer, /rustc/2d8144b7880597b6e6d3dfd63a9a9efae3f533d3/library/core/src/ops/function.rs:250:5  Caused by: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer",
  range:
    "Failed to get next batch from stream: lance error: LanceError(IO): Generic memory error: Invalid range 0..700 for object of size 100 bytes, /rustc/x/function.rs:250:5",
  zeroed: "Invalid input, file does not appear to be a Lance file (invalid magic: [76, 65, 78, 67])",
  decoded:
    "lance error: LanceError(IO): failed to decode Protobuf message: invalid tag value: 0, /usr/local/cargo/registry/src/lance-file-10.0.0/src/reader.rs:2056:39",
  asyncPanic: "Panic in async function",
  parentId: "Field 'revision' (id=3) references parent id -2049, which must appear earlier in the protobuf field list",
  projection: "Failed to get next batch from stream: Invalid input, The projection specified the column index 0 more than once",
  missingWrapped:
    "Failed to get next batch from stream: lance error: LanceError(IO): Generic N/A error: Wrapped error: Not found: Wrapped error: Not found: /tmp/s/db/memory_history.lance/data/0101.lance, /usr/local/cargo/registry/src/x.rs:1:2",
  panic: 'Failed to get next batch from stream: task 151 panicked with message "range end index 64 out of range for slice of length 0"',
  index:
    "Failed to get next batch from stream: lance error: Not found: /tmp/s/db/chunks.lance/_indices/66d8/tokens.lance, /usr/local/cargo/registry/src/object_store.rs:972:12",
  missing:
    "Failed to get next batch from stream: lance error: Not found: tmp/s/db/conversations.lance/data/1011.lance, /usr/local/cargo/registry/src/local.rs:133:40",
};

describe("damageOf", () => {
  it("says in words what each of LanceDB's damage errors means", () => {
    const what = Object.fromEntries(Object.entries(SEEN).map(([name, message]) => [name, damageOf(new Error(message))]));
    expect(what).toEqual({
      truncated: "a file of it is cut short",
      range: "a file of it is cut short",
      zeroed: "a file of it does not hold what LanceDB wrote (zeroed or overwritten)",
      decoded: "a file of it holds bytes that cannot be decoded (zeroed or overwritten)",
      asyncPanic: "a file of it holds bytes that cannot be decoded (zeroed or overwritten)",
      parentId: "its version file (manifest) holds bytes that cannot be decoded (overwritten)",
      projection: "its version file (manifest) holds bytes that cannot be decoded (overwritten)",
      missingWrapped: "a file of it is missing",
      panic: "a file of it holds bytes that cannot be decoded (zeroed or overwritten)",
      index: "an index of it is damaged or missing (`mnemo doctor --repair` rebuilds it from the rows)",
      missing: "a file of it is missing",
    });
  });

  it("leaves other errors alone: a commit conflict, a full disk, our own errors", () => {
    expect(damageOf(new Error("Commit conflict for version 12"))).toBeUndefined();
    expect(damageOf(new Error("No space left on device (os error 28)"))).toBeUndefined();
    expect(damageOf(new DamagedTableError("chunks", "a file of it is cut short"))).toBeUndefined();
  });

  it("an error names the table as on disk, what it holds, and mnemo doctor", () => {
    const error = new DamagedTableError("messages", "a file of it is cut short");
    expect(error.code).toBe("unavailable");
    expect(error.details).toEqual({ table: "conversation_messages" });
    expect(error.message).toBe(
      `The store's "conversation_messages" table is damaged: a file of it is cut short. It holds conversations' messages, which cannot be read until it is repaired`,
    );
    expect(error.suggestion).toMatch(/^Run `mnemo doctor`/);
  });
});

describe("lanceText", () => {
  it("keeps LanceDB's words without source locations or repeated causes", () => {
    expect(lanceText(new Error(SEEN.truncated))).toBe("failed to fill whole buffer");
    expect(lanceText(new Error(SEEN.range))).toBe("Invalid range 0..700 for object of size 100 bytes");
    expect(lanceText(new Error(SEEN.missingWrapped))).toBe("Not found: /tmp/s/db/memory_history.lance/data/0101.lance");
    expect(lanceText(new Error(SEEN.decoded))).toBe("failed to decode Protobuf message: invalid tag value: 0");
  });
});
