/* fileio.h: whole-file reads and all-or-nothing writes (temporary file,
 * fsync, rename) for `clsort sort`. */
#ifndef CLI_FILEIO_H
#define CLI_FILEIO_H

#include <stddef.h>
#include <stdio.h>

/* Reads the file at `path` into a malloc'ed buffer (at least one byte is
 * allocated, so *data is never NULL on success). Returns 1, or 0 with a
 * message in err. */
int file_read_all(const char *path, void **data, size_t *size, char *err, size_t err_size);

/* The size of the regular file at `path`. Returns 1, or 0 with a message. */
int file_size(const char *path, size_t *size, char *err, size_t err_size);

/* A file being written under a temporary name next to its final path, so
 * that readers see either the old file or the complete new one. */
typedef struct atomic_file {
  char path[4096];
  char tmp[4096];
  int fd;
} atomic_file;

/* Creates the temporary file next to `path` (refusing a `path` that is a
 * directory). Until it is committed or aborted, SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT remove it before ending the program. Returns 1, or 0 with a
 * message. */
int atomic_open(atomic_file *f, const char *path, char *err, size_t err_size);
/* Writes all bytes and syncs them to disk. Returns 1, or 0 with a message. */
int atomic_write_all(atomic_file *f, const void *data, size_t size, char *err, size_t err_size);
/* Renames the temporary file over the final path. Returns 1, or 0. */
int atomic_commit(atomic_file *f, char *err, size_t err_size);
/* Removes the temporary file (safe to call after a commit: no-op). */
void atomic_abort(atomic_file *f);

#endif
