import { AppError } from "../shared/errors.js";

/**
 * The old generation an import's reading may take, in MB (`MNEMO_IMPORT_HEAP_MB` overrides it):
 * `mnemo import`'s thread, and the process `mnemo serve` reads each uploaded export in. V8 lets a
 * heap grow to up to 4× what survived its last full collection under the default limit (4 GB here),
 * and to ~1.6× under a 1 GB limit. An import's thread keeps ~75 MB alive while it allocates the
 * whole export several times over (parsed, validated, serialised): on the 600 MB export its heap
 * reached ~400 MB between collections by default, ~200 MB under this limit. The limit is a ceiling
 * too, 13× what the import keeps; one number for both, so an export that imports here imports
 * through a server (a server reads one upload at a time: core/jobs/import-jobs.ts).
 */
export const IMPORT_HEAP_MB = 1024;

export function importHeapMb(env: NodeJS.ProcessEnv): number {
  const value = env["MNEMO_IMPORT_HEAP_MB"];
  if (value === undefined || value === "") return IMPORT_HEAP_MB;
  if (!/^\d+$/.test(value) || Number(value) < 16) {
    throw new AppError("invalid_input", `MNEMO_IMPORT_HEAP_MB must be a whole number of MB, at least 16 (got "${value}")`, {
      suggestion: `Unset it to use the default, ${IMPORT_HEAP_MB} MB.`,
    });
  }
  return Number(value);
}
