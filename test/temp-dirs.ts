import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const tempDirs = new Set<string>();

/** A fresh data dir under the OS temp dir; removed after the test file by `removeTempDirs`. */
export function tempDir(prefix = "mnemo-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * Removes every dir `tempDir` made (test/cleanup.ts runs it after each file): a whole run left
 * ~5 GB of stores behind. A detached maintenance process may still be writing in one, hence the
 * retries; whatever still fails is left for the OS.
 */
export function removeTempDirs(): void {
  for (const dir of tempDirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Left behind: a process outside the test still holds it.
    }
  }
  tempDirs.clear();
}
