/** Why a file or folder could not be read, in words, for the errno codes a user can act on. */
const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: "there is no such file or folder",
  ENOTDIR: "a part of its path is not a folder",
  EACCES: "you may not read it",
  EPERM: "you may not read it",
  EISDIR: "it is a folder",
};

/** The words for why reading a path failed: the known errno's words, else its code, else the error's message. */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return (code === undefined ? undefined : READ_FAILURES[code]) ?? code ?? (error as Error).message ?? String(error);
}
