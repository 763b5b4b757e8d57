/* fileio.c: whole-file reads and atomic writes for `clsort sort`. */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int file_read_all(const char *path, void **data, size_t *size, char *err, size_t err_size) {
  *data = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
    return 0;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, err_size, "%s is not a regular file", path);
    close(fd);
    return 0;
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
    ssize_t got = read(fd, buf + done, total - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      snprintf(err, err_size, "cannot read %s: %s", path, got < 0 ? strerror(errno) : "file shrank");
      free(buf);
      close(fd);
      return 0;
    }
    done += (size_t)got;
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

static void remove_pending(int sig) {
  for (int i = 0; i < PENDING_MAX; i++) {
    atomic_file *f = pending[i];
    if (f && f->tmp[0]) unlink(f->tmp);
  }
  /* SA_RESETHAND restored the default action: end the way the signal says. */
  raise(sig);
}

static void watch_signals(void) {
  static int installed;
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  if (installed) return;
  installed = 1;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa;
    /* A signal ignored by whoever started us (nohup) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_pending;
    sa.sa_flags = SA_RESETHAND;
    sigfillset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

static void set_pending(atomic_file *f, int on) {
  for (int i = 0; i < PENDING_MAX; i++) {
    if (on ? pending[i] == NULL : pending[i] == f) {
      pending[i] = on ? f : NULL;
      return;
    }
  }
}

int atomic_open(atomic_file *f, const char *path, char *err, size_t err_size) {
  f->fd = -1;
  f->tmp[0] = '\0';
  if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path) {
    snprintf(err, err_size, "path too long: %s", path);
    return 0;
  }
  /* rename() would refuse it only after all the work. */
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, err_size, "cannot write %s: it is a directory", path);
    return 0;
  }
  /* Same directory as the target, so that rename() never crosses file
   * systems and stays atomic. */
  const char *slash = strrchr(path, '/');
  int dir_len = slash ? (int)(slash - path + 1) : 0;
  if (snprintf(f->tmp, sizeof f->tmp, "%.*s.%s.tmp.XXXXXX", dir_len, path,
               slash ? slash + 1 : path) >= (int)sizeof f->tmp) {
    snprintf(err, err_size, "path too long: %s", path);
    f->tmp[0] = '\0';
    return 0;
  }
  watch_signals();
  f->fd = mkstemp(f->tmp);
  if (f->fd < 0) {
    snprintf(err, err_size, "cannot create a temporary file next to %s: %s", path, strerror(errno));
    f->tmp[0] = '\0';
    return 0;
  }
  set_pending(f, 1);
  return 1;
}

int atomic_write_all(atomic_file *f, const void *data, size_t size, char *err, size_t err_size) {
  const unsigned char *p = data;
  size_t done = 0;
  while (done < size) {
    ssize_t put = write(f->fd, p + done, size - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      snprintf(err, err_size, "cannot write %s: %s", f->path, put < 0 ? strerror(errno) : "no space");
      return 0;
    }
    done += (size_t)put;
  }
  if (fsync(f->fd) != 0) {
    snprintf(err, err_size, "cannot sync %s: %s", f->path, strerror(errno));
    return 0;
  }
  /* mkstemp makes the file 0600; an output file gets the usual mode. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(f->fd, 0666 & ~mask);
  return 1;
}

int atomic_commit(atomic_file *f, char *err, size_t err_size) {
  if (f->fd >= 0) {
    close(f->fd);
    f->fd = -1;
  }
  if (rename(f->tmp, f->path) != 0) {
    snprintf(err, err_size, "cannot rename %s to %s: %s", f->tmp, f->path, strerror(errno));
    return 0;
  }
  set_pending(f, 0);
  f->tmp[0] = '\0';
  return 1;
}

void atomic_abort(atomic_file *f) {
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  if (f->tmp[0]) unlink(f->tmp);
  set_pending(f, 0);
  f->tmp[0] = '\0';
}
