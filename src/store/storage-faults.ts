import { AppError } from "../shared/errors.js";

/**
 * The store could not be read or written for a reason outside it: the disk, its file system, the
 * object store. LanceDB commits a table's version whole or not at all, so what was stored before
 * stays stored and a command run again finishes what this one began; the index worker puts its
 * batch back and waits (chat-history/index-worker.ts).
 */
export class StorageFaultError extends AppError {
  constructor(message: string, suggestion: string, cause?: unknown) {
    super("unavailable", message, { suggestion, cause });
  }
}

const KEPT = "What was stored before stays stored.";
const DISK = `${KEPT} Check the disk: that it is mounted and writable, that you own the folder, and that the system log (\`dmesg\`) shows no I/O errors; then run the command again (\`mnemo doctor\` checks the store).`;
const PERMISSION = `${KEPT} Your user may not use the folder: check its owner and permissions (\`ls -ld\` it), or pass another --store.`;

/**
 * The operating system's words for the faults a disk or file system gives, by errno name and Rust's
 * `(os error N)`, and what to do: a folder you may not write in needs no disk check.
 */
const FAULTS: { code: string; os: number; words: string; suggestion: string }[] = [
  { code: "EIO", os: 5, words: "Input/output error", suggestion: DISK },
  {
    code: "EROFS",
    os: 30,
    words: "Read-only file system",
    suggestion: `${KEPT} Its file system is mounted read-only: mount it read-write, or pass another --store.`,
  },
  { code: "EACCES", os: 13, words: "Permission denied", suggestion: PERMISSION },
  { code: "EPERM", os: 1, words: "Operation not permitted", suggestion: PERMISSION },
  {
    code: "EDQUOT",
    os: 122,
    words: "Disk quota exceeded",
    suggestion: `${KEPT} Free some space within your quota and run the command again.`,
  },
];

/**
 * A local store's file system refusing a read or write (Node's errno, or LanceDB's "(os error N)"),
 * as one error naming the folder; undefined for any other error.
 */
export function fileSystemFault(error: unknown, dir: string, doing: "read" | "written" = "written"): StorageFaultError | undefined {
  if (!(error instanceof Error) || error instanceof AppError) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const fault = FAULTS.find((f) => f.code === code || new RegExp(`\\(os error ${f.os}\\)`).test(error.message));
  if (!fault) return undefined;
  return new StorageFaultError(
    `The store at ${dir} could not be ${doing}: its file system answered "${fault.words}"`,
    fault.suggestion,
    error,
  );
}
