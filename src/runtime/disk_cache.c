/* disk_cache.c: compiled program binaries on disk, keyed by a hash of
 * everything that affects them. Files carry a checksum, are written to a
 * temporary name and renamed into place, and are never trusted: a file that
 * fails any check is reported as corrupt and rebuilt by the caller. */
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = {'C', 'L', 'S', 'O', 'R', 'T', 'B', '1'};

typedef struct file_header {
  char magic[8];
  uint64_t size;
  uint64_t check_a, check_b;
} file_header;

clsort_status clsort__cache_dir_from_env(clsort_context *ctx, char **out) {
  *out = NULL;
  const char *off = getenv("CLSORT_CACHE");
  if (off && strcmp(off, "0") == 0) return CLSORT_SUCCESS;
  const char *dir = getenv("CLSORT_CACHE_DIR");
  char buf[4096];
  if (dir && *dir) {
    snprintf(buf, sizeof buf, "%s", dir);
  } else {
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
      snprintf(buf, sizeof buf, "%s/clsort", xdg);
    else if (home && *home)
      snprintf(buf, sizeof buf, "%s/.cache/clsort", home);
    else
      return CLSORT_SUCCESS;
  }
  size_t len = strlen(buf);
  *out = clsort__malloc(ctx, len + 1);
  RETURN_IF(!*out, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the cache directory name");
  memcpy(*out, buf, len + 1);
  return CLSORT_SUCCESS;
}

static void path_for(const clsort_context *ctx, const char *key_hex, char *out, size_t size) {
  snprintf(out, size, "%s/%s.bin", ctx->cache_dir, key_hex);
}

unsigned char *clsort__disk_cache_load(clsort_context *ctx, const char *key_hex,
                                       size_t *size, bool *corrupt) {
  *corrupt = false;
  if (!ctx->cache_dir) return NULL;
  char path[4200];
  path_for(ctx, key_hex, path, sizeof path);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  file_header h;
  unsigned char *data = NULL;
  *corrupt = true;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, magic, sizeof magic) != 0 ||
      h.size == 0 || h.size > ((uint64_t)1 << 30))
    goto done;
  data = clsort__malloc(ctx, h.size);
  if (!data || fread(data, 1, h.size, f) != h.size || fgetc(f) != EOF) goto fail;
  clsort__hash hash;
  clsort__hash_init(&hash);
  clsort__hash_bytes(&hash, data, h.size);
  if (hash.a != h.check_a || hash.b != h.check_b) goto fail;
  *corrupt = false;
  *size = h.size;
  goto done;
fail:
  free(data);
  data = NULL;
done:
  fclose(f);
  return data;
}

/* mkdir -p; errors show up when the file is opened. */
static void make_dirs(const char *dir) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    mkdir(buf, 0755);
    *p = '/';
  }
  mkdir(buf, 0755);
}

void clsort__disk_cache_store(const clsort_context *ctx, const char *key_hex,
                              const unsigned char *binary, size_t size) {
  if (!ctx->cache_dir || !binary || size == 0) return;
  make_dirs(ctx->cache_dir);
  char path[4200], tmp[4300];
  path_for(ctx, key_hex, path, sizeof path);
  /* A unique temporary name per process and context: concurrent writers
   * each rename a complete file, and the last one wins. */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%p", path, (long)getpid(), (const void *)ctx);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    clsort__debug("disk cache: cannot write %s: %s", tmp, strerror(errno));
    return;
  }
  file_header h;
  memcpy(h.magic, magic, sizeof magic);
  h.size = size;
  clsort__hash hash;
  clsort__hash_init(&hash);
  clsort__hash_bytes(&hash, binary, size);
  h.check_a = hash.a;
  h.check_b = hash.b;
  bool ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h &&
            write(fd, binary, size) == (ssize_t)size && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    clsort__debug("disk cache: cannot store %s: %s", path, strerror(errno));
    unlink(tmp);
  }
}
