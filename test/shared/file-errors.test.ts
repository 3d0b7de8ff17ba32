import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unreadableReason } from "../../src/shared/file-errors.js";

function readError(path: string): unknown {
  try {
    readFileSync(path);
  } catch (error) {
    return error;
  }
  throw new Error(`${path} was read`);
}

describe("unreadableReason", () => {
  const dir = mkdtempSync(join(tmpdir(), "mnemo-file-errors-"));
  writeFileSync(join(dir, "a-file"), "x");

  it("words the errors a user can act on, from the file system's own failures", () => {
    expect(unreadableReason(readError(join(dir, "missing")))).toBe("there is no such file or folder");
    expect(unreadableReason(readError(dir))).toBe("it is a folder");
    expect(unreadableReason(readError(join(dir, "a-file", "inside")))).toBe("a part of its path is not a folder");
    expect(unreadableReason(Object.assign(new Error("denied"), { code: "EACCES" }))).toBe("you may not read it");
  });

  it("gives an unknown code, or the message of an error without one", () => {
    expect(unreadableReason(Object.assign(new Error("odd"), { code: "EIO" }))).toBe("EIO");
    expect(unreadableReason(new Error("no code"))).toBe("no code");
  });
});
