/* fileio.c: whole-file reads and atomic writes for `clsort sort`. */
#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_is_std(const char *path) { return strcmp(path, "-") == 0; }

int file_is_stream(const char *path) {
  if (file_is_std(path)) return 1;
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

const char *file_display(const char *path, int writing) {
  if (!file_is_std(path)) return path;
  return writing ? "standard output" : "standard input";
}

static io_progress_fn progress;

void fileio_set_progress(io_progress_fn fn) { progress = fn; }

/* Reads and writes go in chunks of this size, so that progress moves. */
#define IO_CHUNK ((size_t)64 << 20)

int file_size(const char *path, size_t *size, char *err, size_t err_size) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, err_size, "%s is not a regular file", path);
    return 0;
  }
  *size = (size_t)st.st_size;
  return 1;
}

/* Reads a stream of unknown length (standard input, a pipe) to its end. */
static int read_stream(int fd, const char *name, void **data, size_t *size, char *err,
                       size_t err_size) {
  size_t cap = (size_t)1 << 16, done = 0;
  unsigned char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      snprintf(err, err_size, "out of host memory reading %s (%zu bytes so far)", name, done);
      return 0;
    }
    if (done == cap) {
      unsigned char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
      continue;
    }
    size_t want = cap - done < IO_CHUNK ? cap - done : IO_CHUNK;
    ssize_t got = read(fd, buf + done, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      snprintf(err, err_size, "cannot read %s: %s", name, strerror(errno));
      free(buf);
      return 0;
    }
    if (got == 0) break;
    done += (size_t)got;
    if (progress) progress("reading", name, done, 0);
  }
  *data = buf;
  *size = done;
  return 1;
}

int file_read_all(const char *path, void **data, size_t *size, char *err, size_t err_size) {
  *data = NULL;
  *size = 0;
  if (file_is_std(path)) return read_stream(0, "standard input", data, size, err, err_size);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
    return 0;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    snprintf(err, err_size, "%s is not a regular file", path);
    close(fd);
    return 0;
  }
  if (!S_ISREG(st.st_mode)) { /* a FIFO, process substitution, a device */
    int ok = read_stream(fd, path, data, size, err, err_size);
    close(fd);
    return ok;
  }
  size_t total = (size_t)st.st_size;
  unsigned char *buf = malloc(total ? total : 1);
  if (!buf) {
    snprintf(err, err_size, "out of host memory for %s (%zu bytes)", path, total);
    close(fd);
    return 0;
  }
  size_t done = 0;
  while (done < total) {
    size_t want = total - done < IO_CHUNK ? total - done : IO_CHUNK;
    ssize_t got = read(fd, buf + done, want);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      snprintf(err, err_size, "cannot read %s: %s", path, got < 0 ? strerror(errno) : "file shrank");
      free(buf);
      close(fd);
      return 0;
    }
    done += (size_t)got;
    if (progress) progress("reading", path, done, total);
  }
  close(fd);
  *data = buf;
  *size = total;
  return 1;
}

/* Temporary files not yet renamed into place. A signal that ends the
 * program removes them (unlink is async-signal-safe), so that an interrupted
 * sort leaves nothing behind; a commit or an abort takes its file off. */
#define PENDING_MAX 4
static atomic_file *volatile pending[PENDING_MAX];

/* 0: a signal removes the temporary files and ends the program. 1: a commit
 * is moving files, and a signal waits until it has finished or rolled back,
 * rather than leave one output new and the other old. 2: a signal is ending
 * the program. Atomic, because OpenCL's threads may take the signal while
 * the main thread commits. */
static atomic_int signal_state;
static atomic_int deferred_signal;

static void remove_pending(int sig) {
  int idle = 0;
  if (!atomic_compare_exchange_strong(&signal_state, &idle, 2)) {
    if (idle == 1) atomic_store(&deferred_signal, sig);
    return;
  }
  for (int i = 0; i < PENDING_MAX; i++) {
    atomic_file *f = pending[i];
    if (f && f->tmp[0]) unlink(f->tmp);
  }
  /* End the way the signal says. */
  signal(sig, SIG_DFL);
  raise(sig);
}

static void watch_signals(void) {
  static int installed;
  /* SIGPIPE: a FIFO written through whose reader went away. */
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
  if (installed) return;
  installed = 1;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa;
    /* A signal ignored by whoever started us (nohup) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_pending;
    sigfillset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

static void hold_signals(void) {
  int idle = 0;
  while (!atomic_compare_exchange_weak(&signal_state, &idle, 1)) {
    /* A signal is already ending the program: let it. */
    if (idle == 2) {
      for (;;) pause();
    }
    idle = 0;
  }
}

static void release_signals(void) {
  atomic_store(&signal_state, 0);
  int sig = atomic_exchange(&deferred_signal, 0);
  if (sig) raise(sig);
}

static void set_pending(atomic_file *f, int on) {
  for (int i = 0; i < PENDING_MAX; i++) {
    if (on ? pending[i] == NULL : pending[i] == f) {
      pending[i] = on ? f : NULL;
      return;
    }
  }
}

/* Fault injection for the tests (CLSORT_FAIL_COMMIT_STEP, see README.md):
 * "N" makes the Nth link, rename or unlink of the commits fail with EIO,
 * once; "N+" makes that one and every later one fail, the rollback's too. */
static int injected_failure(void) {
  static long at = -1, steps;
  static int sticky;
  if (at < 0) {
    const char *s = getenv("CLSORT_FAIL_COMMIT_STEP");
    char *end = NULL;
    at = s ? strtol(s, &end, 10) : 0;
    sticky = end && *end == '+';
  }
  steps++;
  if (at <= 0 || steps < at || (steps > at && !sticky)) return 0;
  errno = EIO;
  return 1;
}
#define STEP(call) (injected_failure() ? -1 : (call))

/* Follows the symbolic links of `path` into `out`: to the file they lead
 * to, or to where a dangling link would create one. Returns 1, or 0 with a
 * message. */
static int follow_links(const char *path, char *out, size_t out_size, char *err, size_t err_size) {
  if (snprintf(out, out_size, "%s", path) >= (int)out_size) goto too_long;
  for (int hops = 0; hops < 40; hops++) {
    char link[4096], next[8192];
    ssize_t len = readlink(out, link, sizeof link);
    /* Not a link, or not there: this is the name to write. */
    if (len < 0) return 1;
    if ((size_t)len >= sizeof link) goto too_long;
    link[len] = '\0';
    /* A relative link is relative to the directory that holds it. */
    const char *slash = strrchr(out, '/');
    int dir_len = link[0] == '/' || !slash ? 0 : (int)(slash - out + 1);
    snprintf(next, sizeof next, "%.*s%s", dir_len, out, link);
    if (snprintf(out, out_size, "%s", next) >= (int)out_size) goto too_long;
  }
  snprintf(err, err_size, "cannot write %s: %s", path, strerror(ELOOP));
  return 0;
too_long:
  snprintf(err, err_size, "path too long: %s", path);
  return 0;
}

/* Where a new file `path` would be created: the real path of its directory
 * and its name, so that two spellings of one place compare equal. */
static void place_of(const char *path, char *out, size_t size) {
  char target[4096], dir[4096], err[64];
  if (!follow_links(path, target, sizeof target, err, sizeof err)) {
    snprintf(out, size, "%s", path);
    return;
  }
  const char *slash = strrchr(target, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - target + 1) : 1, slash ? target : ".");
  char *real = realpath(dir, NULL);
  if (real)
    snprintf(out, size, "%s/%s", real, slash ? slash + 1 : target);
  else
    snprintf(out, size, "%s", target);
  free(real);
}

int same_output_file(const char *a, const char *b) {
  if (file_is_std(a) || file_is_std(b)) return file_is_std(a) && file_is_std(b);
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
  if (ea || eb) return 0;
  char pa[8400], pb[8400];
  place_of(a, pa, sizeof pa);
  place_of(b, pb, sizeof pb);
  return strcmp(pa, pb) == 0;
}

int atomic_open(atomic_file *f, const char *path, char *err, size_t err_size) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path) {
    snprintf(err, err_size, "path too long: %s", path);
    return 0;
  }
  /* Standard output: whatever it is (a terminal, a pipe, a file the shell
   * opened), it is written to, never replaced. */
  if (file_is_std(path)) {
    f->through = 1;
    f->to_stdout = 1;
    return 1;
  }
  struct stat st, tst;
  int found = stat(path, &st) == 0, stat_errno = errno;
  /* rename() would refuse it only after all the work. */
  if (found && S_ISDIR(st.st_mode)) {
    snprintf(err, err_size, "cannot write %s: it is a directory", path);
    return 0;
  }
  /* A device or FIFO is written to, never replaced by a regular file. */
  if (found && !S_ISREG(st.st_mode)) {
    f->through = 1;
    return 1;
  }
  if (!follow_links(path, f->target, sizeof f->target, err, err_size)) return 0;
  f->existed = lstat(f->target, &tst) == 0;
  if (found && (!f->existed || tst.st_dev != st.st_dev || tst.st_ino != st.st_ino)) {
    /* Following the links by name does not lead where opening the file
     * does (/proc's link to a deleted file): write to what opening finds. */
    f->existed = 0;
    f->through = 1;
    return 1;
  }
  if (!found && f->existed) {
    snprintf(err, err_size, "cannot write %s: %s", path, strerror(stat_errno));
    return 0;
  }
  /* The rename would replace a file the user may not write (as cp, sort -o
   * and a shell's > refuse to): refused before any work. */
  if (f->existed && access(f->target, W_OK) != 0 && (errno == EACCES || errno == EROFS)) {
    snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
    return 0;
  }
  if (f->existed) {
    f->mode = st.st_mode & 07777;
    f->uid = st.st_uid;
    f->gid = st.st_gid;
  } else {
    /* Read here, before OpenCL starts threads that could create files
     * while the mask is briefly 0. */
    mode_t mask = umask(0);
    umask(mask);
    f->mode = 0666 & ~mask;
  }
  /* Same directory as the target, so that rename() never crosses file
   * systems and stays atomic. */
  const char *slash = strrchr(f->target, '/');
  int dir_len = slash ? (int)(slash - f->target + 1) : 0;
  if (snprintf(f->tmp, sizeof f->tmp, "%.*s.%s.tmp.XXXXXX", dir_len, f->target,
               slash ? slash + 1 : f->target) >= (int)sizeof f->tmp) {
    snprintf(err, err_size, "path too long: %s", path);
    f->tmp[0] = '\0';
    return 0;
  }
  watch_signals();
  f->fd = mkstemp(f->tmp);
  if (f->fd < 0) {
    snprintf(err, err_size, "cannot create a temporary file next to %s: %s", f->target,
             strerror(errno));
    f->tmp[0] = '\0';
    return 0;
  }
  set_pending(f, 1);
  return 1;
}

static int write_fully(int fd, const void *data, size_t size, const char *name, char *err,
                       size_t err_size) {
  const unsigned char *p = data;
  size_t done = 0;
  while (done < size) {
    size_t want = size - done < IO_CHUNK ? size - done : IO_CHUNK;
    ssize_t put = write(fd, p + done, want);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      snprintf(err, err_size, "cannot write %s: %s", name, put < 0 ? strerror(errno) : "no space");
      return 0;
    }
    done += (size_t)put;
    if (progress) progress("writing", name, done, size);
  }
  return 1;
}

/* The new file takes the original's owner where allowed (root, or a group
 * we belong to). Where it cannot, set-id bits do not pass to the new owner,
 * and a group it could not keep gets no more than everyone else had. */
static int take_owner_and_mode(atomic_file *f, char *err, size_t err_size) {
  mode_t mode = f->mode;
  if (f->existed && fchown(f->fd, f->uid, f->gid) != 0) {
    struct stat st;
    mode &= ~(mode_t)(S_ISUID | S_ISGID);
    if (fchown(f->fd, (uid_t)-1, f->gid) != 0 && fstat(f->fd, &st) == 0 && st.st_gid != f->gid)
      mode = (mode & ~(mode_t)S_IRWXG) | ((mode & S_IRWXO) << 3);
  }
  /* After the data: a write by a non-root user clears set-id bits. */
  if (fchmod(f->fd, mode) != 0) {
    snprintf(err, err_size, "cannot set the mode of %s: %s", f->tmp, strerror(errno));
    return 0;
  }
  return 1;
}

int atomic_write_all(atomic_file *f, const void *data, size_t size, char *err, size_t err_size) {
  /* A device or FIFO gets its data at the commit, once all is ready. */
  if (f->through) {
    f->data = data;
    f->size = size;
    return 1;
  }
  if (!write_fully(f->fd, data, size, f->path, err, err_size)) return 0;
  if (!take_owner_and_mode(f, err, err_size)) return 0;
  if (fsync(f->fd) != 0) {
    snprintf(err, err_size, "cannot sync %s: %s", f->path, strerror(errno));
    return 0;
  }
  int closed = close(f->fd) == 0;
  f->fd = -1;
  if (!closed) {
    snprintf(err, err_size, "cannot write %s: %s", f->path, strerror(errno));
    return 0;
  }
  return 1;
}

static int write_through(atomic_file *f, char *err, size_t err_size) {
  if (f->to_stdout) {
    if (!write_fully(1, f->data, f->size, "standard output", err, err_size)) return 0;
    /* A file behind standard output (> file) is synced as any output. */
    struct stat st;
    if (fstat(1, &st) == 0 && S_ISREG(st.st_mode) && fsync(1) != 0) {
      snprintf(err, err_size, "cannot sync standard output: %s", strerror(errno));
      return 0;
    }
    return 1;
  }
  int fd = open(f->path, O_WRONLY | O_TRUNC | O_NOCTTY);
  if (fd < 0) {
    snprintf(err, err_size, "cannot write %s: %s", f->path, strerror(errno));
    return 0;
  }
  int ok = write_fully(fd, f->data, f->size, f->path, err, err_size);
  if (close(fd) != 0 && ok) {
    snprintf(err, err_size, "cannot write %s: %s", f->path, strerror(errno));
    ok = 0;
  }
  return ok;
}

/* Keeps the original of f's target under a second name until the commit
 * has put every output in place. A hard link leaves the original where it
 * is meanwhile; where hard links are not allowed (some file systems,
 * protected_hardlinks) it moves aside, and is missing until the new file
 * lands. */
static int keep_original(atomic_file *f, char *err, size_t err_size) {
  snprintf(f->old, sizeof f->old, "%s.old", f->tmp);
  if (STEP(link(f->target, f->old)) == 0) return 1;
  if ((errno == EPERM || errno == EMLINK || errno == EOPNOTSUPP) &&
      STEP(rename(f->target, f->old)) == 0) {
    f->moved = 1;
    return 1;
  }
  snprintf(err, err_size, "cannot keep the original of %s while replacing it: %s", f->target,
           strerror(errno));
  f->old[0] = '\0';
  return 0;
}

/* Puts every original back after a failed commit. An original that cannot
 * be put back stays under its second name, and the message says where. */
static void roll_back(atomic_file *const *files, size_t count, char *err, size_t err_size) {
  for (size_t i = 0; i < count; i++) {
    atomic_file *f = files[i];
    size_t len = strlen(err);
    if (f->old[0] && (f->committed || f->moved)) {
      if (STEP(rename(f->old, f->target)) != 0) {
        snprintf(err + len, err_size - len,
                 "; %s could not be put back (%s): the original is kept as %s", f->target,
                 strerror(errno), f->old);
      }
    } else if (f->old[0]) {
      /* A second name of an original that never left its place. */
      if (unlink(f->old) != 0)
        snprintf(err + len, err_size - len, "; a copy of %s is left as %s", f->target, f->old);
    } else if (f->committed && STEP(unlink(f->target)) != 0) {
      snprintf(err + len, err_size - len, "; the new %s could not be removed: %s", f->target,
               strerror(errno));
    }
    f->old[0] = '\0';
    f->committed = 0;
  }
}

int atomic_commit_all(atomic_file *const *files, size_t count, char *err, size_t err_size) {
  size_t replaced = 0;
  int ok = 1;
  /* What a device or FIFO was sent cannot be taken back: it goes first,
   * while the files can still be left as they were. */
  for (size_t i = 0; i < count && ok; i++) {
    if (files[i]->through)
      ok = write_through(files[i], err, err_size);
    else
      replaced++;
  }
  hold_signals();
  /* With two files to replace, the first could be in place when the second
   * fails: each original is kept until both are. */
  for (size_t i = 0; i < count && ok && replaced > 1; i++) {
    if (!files[i]->through && files[i]->existed) ok = keep_original(files[i], err, err_size);
  }
  for (size_t i = 0; i < count && ok; i++) {
    atomic_file *f = files[i];
    if (f->through) continue;
    if (STEP(rename(f->tmp, f->target)) != 0) {
      snprintf(err, err_size, "cannot rename %s to %s: %s", f->tmp, f->target, strerror(errno));
      ok = 0;
    } else {
      f->committed = 1;
      f->tmp[0] = '\0';
    }
  }
  if (!ok) roll_back(files, count, err, err_size);
  for (size_t i = 0; i < count; i++) {
    atomic_file *f = files[i];
    if (ok && f->old[0] && unlink(f->old) != 0)
      fprintf(stderr, "clsort sort: warning: cannot remove %s: %s\n", f->old, strerror(errno));
    f->old[0] = '\0';
    atomic_abort(f);
  }
  release_signals();
  return ok;
}

void atomic_abort(atomic_file *f) {
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  if (f->tmp[0]) unlink(f->tmp);
  set_pending(f, 0);
  f->tmp[0] = '\0';
}
