/*
 * A file system that fails on cue, for the fault tests (test/fault-fs.ts compiles it with the
 * system's C compiler and preloads it into a mnemo process): libc's write, rename, link and fsync
 * calls on matching paths fail with an errno, as a failing disk or a full one fails them. LanceDB's
 * local object store writes a file through libc's write() and commits a version by link(), so those
 * fail; it renames by raw system calls (rustix), which no preload sees, and calls no fsync. Node's
 * file calls go through libc too.
 *
 *   FAULT_FS_PATH   a substring of the paths whose calls may fail (required; e.g. "/db/")
 *   FAULT_FS_OPS    the calls that fail, comma-separated: write, rename, link, fsync (default: write)
 *   FAULT_FS_AFTER  matching calls that succeed first (default 0)
 *   FAULT_FS_TIMES  how many fail after those (default: every one, as a disk gone bad)
 *   FAULT_FS_ERRNO  EIO (default), ENOSPC or EROFS
 *   FAULT_FS_ARM    a file: calls fail only while it exists, so a test picks the moment
 *   FAULT_FS_LOG    a file that gets one line per call failed
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_long matched;
static atomic_long failed;

static int op_enabled(const char *op) {
  const char *ops = getenv("FAULT_FS_OPS");
  if (!ops) ops = "write";
  size_t n = strlen(op);
  for (const char *p = ops; (p = strstr(p, op)); p += n) {
    if ((p == ops || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  }
  return 0;
}

static int chosen_errno(void) {
  const char *name = getenv("FAULT_FS_ERRNO");
  if (name && strcmp(name, "ENOSPC") == 0) return ENOSPC;
  if (name && strcmp(name, "EROFS") == 0) return EROFS;
  return EIO;
}

static void note(const char *op, const char *path) {
  const char *log = getenv("FAULT_FS_LOG");
  if (!log) return;
  char line[4200];
  int n = snprintf(line, sizeof line, "%s %s\n", op, path);
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  /* Straight to the kernel: this file's own write() would look at the call again. */
  syscall(SYS_write, fd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
  close(fd);
}

/* Whether this call on `path` fails: it matches, the trap is armed, and its turn has come. */
static int should_fail(const char *op, const char *path) {
  const char *match = getenv("FAULT_FS_PATH");
  if (!match || !path || !strstr(path, match) || !op_enabled(op)) return 0;
  const char *arm = getenv("FAULT_FS_ARM");
  if (arm && access(arm, F_OK) != 0) return 0;
  long turn = atomic_fetch_add(&matched, 1);
  const char *after = getenv("FAULT_FS_AFTER");
  if (turn < (after ? atol(after) : 0)) return 0;
  const char *times = getenv("FAULT_FS_TIMES");
  if (times && atomic_fetch_add(&failed, 1) >= atol(times)) return 0;
  note(op, path);
  return 1;
}

static int fd_fails(const char *op, int fd) {
  if (!getenv("FAULT_FS_PATH")) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return should_fail(op, path);
}

#define REAL(name) \
  static __typeof__(name) *real_##name; \
  if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)
#define FAIL(value) do { errno = chosen_errno(); return value; } while (0)

ssize_t write(int fd, const void *buf, size_t count) {
  REAL(write);
  if (fd > 2 && fd_fails("write", fd)) FAIL(-1);
  return real_write(fd, buf, count);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  REAL(pwrite64);
  if (fd_fails("write", fd)) FAIL(-1);
  return real_pwrite64(fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  REAL(pwrite);
  if (fd_fails("write", fd)) FAIL(-1);
  return real_pwrite(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  REAL(writev);
  if (fd > 2 && fd_fails("write", fd)) FAIL(-1);
  return real_writev(fd, iov, iovcnt);
}

int fsync(int fd) {
  REAL(fsync);
  if (fd_fails("fsync", fd)) FAIL(-1);
  return real_fsync(fd);
}

int fdatasync(int fd) {
  REAL(fdatasync);
  if (fd_fails("fsync", fd)) FAIL(-1);
  return real_fdatasync(fd);
}

int rename(const char *from, const char *to) {
  REAL(rename);
  if (should_fail("rename", to)) FAIL(-1);
  return real_rename(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to) {
  REAL(renameat);
  if (should_fail("rename", to)) FAIL(-1);
  return real_renameat(fromdir, from, todir, to);
}

int link(const char *from, const char *to) {
  REAL(link);
  if (should_fail("link", to)) FAIL(-1);
  return real_link(from, to);
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags) {
  REAL(linkat);
  if (should_fail("link", to)) FAIL(-1);
  return real_linkat(fromdir, from, todir, to, flags);
}
