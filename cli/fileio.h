/* fileio.h: whole-file reads and all-or-nothing writes (temporary file,
 * fsync, rename) for `clsort sort`. */
#ifndef CLI_FILEIO_H
#define CLI_FILEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* "-" names standard input (for reading) or standard output (for
 * writing), as in coreutils. */
int file_is_std(const char *path);
/* How messages name `path`: "standard input"/"standard output" for "-". */
/* Whether an input is read as a stream of unknown length: standard input
 * ("-"), or a FIFO, a character device or a socket (what `<(...)` gives),
 * whose size is known only once read. */
int file_is_stream(const char *path);
const char *file_display(const char *path, int writing);

/* Reads the file at `path` ("-": standard input, to its end) into a
 * malloc'ed buffer (at least one byte is allocated, so *data is never NULL
 * on success). Returns 1, or 0 with a message in err. */
int file_read_all(const char *path, void **data, size_t *size, char *err, size_t err_size);

/* The size of the regular file at `path`. Returns 1, or 0 with a message. */
int file_size(const char *path, size_t *size, char *err, size_t err_size);

/* Progress of long reads and writes: called after each chunk with the
 * bytes done so far and the total (0 when unknown, as for a pipe), and
 * once more with done == total at the end. NULL (the default): none. */
typedef void (*io_progress_fn)(const char *verb, const char *path, size_t done, size_t total);
void fileio_set_progress(io_progress_fn fn);

/* Whether outputs `a` and `b` would write the same regular file: the same
 * device and inode when it exists, else the same directory and name once
 * symbolic links are followed ("o5.bin" and "./o5.bin"). A device or FIFO
 * named twice is not a clash: it takes both in turn; "-" twice (standard
 * output) is. */
int same_output_file(const char *a, const char *b);

/* An output file, written so that readers see either the old file or the
 * complete new one. "-" is standard output, written straight through. A regular file (or a new one) is written under a
 * temporary name next to it and renamed into place; a symbolic link stays a
 * link and the file it points to is the one replaced. A device or FIFO
 * (/dev/null, a pipe behind /dev/stdout) is never replaced: it is written
 * straight through at the commit. */
typedef struct atomic_file {
  char path[4096];   /* as the user named it */
  char target[4096]; /* the file to replace: `path` with its links followed */
  char tmp[4096];    /* the new contents until the commit; "" when none */
  char old[4104];    /* the original, under a second name, during a commit */
  int fd;            /* of tmp, until it is written */
  int through;       /* not a regular file: written straight through */
  int to_stdout;     /* "-": written through to file descriptor 1 */
  int existed;       /* target existed: the new file takes its owner and mode */
  int moved;         /* the original was moved to `old`, not linked */
  int committed;     /* tmp was renamed to target */
  mode_t mode;       /* for the new file */
  uid_t uid;
  gid_t gid;
  const void *data; /* what a file written through gets at the commit */
  size_t size;
} atomic_file;

/* Prepares the output `path` (refusing a directory): creates its temporary
 * file, or notes that it is written through. Until it is committed or
 * aborted, SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove the
 * temporary file before ending the program. Returns 1, or 0 with a
 * message. */
int atomic_open(atomic_file *f, const char *path, char *err, size_t err_size);
/* Writes all bytes to the temporary file, gives it the original's owner
 * (where allowed) and mode (a new file: 0666 & ~umask), and syncs it to
 * disk. An output written through only keeps `data`, which must stay valid
 * until the commit. Returns 1, or 0 with a message. */
int atomic_write_all(atomic_file *f, const void *data, size_t size, char *err, size_t err_size);
/* Puts all `count` outputs in place, or none: on a failure every original
 * file is as it was and every temporary file is gone. (The one exception:
 * what a device or FIFO was sent cannot be taken back, so those are written
 * first.) Returns 1, or 0 with a message. */
int atomic_commit_all(atomic_file *const *files, size_t count, char *err, size_t err_size);
/* Removes the temporary file (safe to call after a commit: no-op). */
void atomic_abort(atomic_file *f);

#endif
