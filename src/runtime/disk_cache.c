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

/* Copies a folder name into memory from clsort__malloc. */
static clsort_status keep_name(clsort_context *ctx, const char *name, char **out) {
  size_t len = strlen(name);
  *out = clsort__malloc(ctx, len + 1);
  RETURN_IF(!*out, CLSORT_ERROR_OUT_OF_MEMORY, "no host memory for the cache directory name");
  memcpy(*out, name, len + 1);
  return CLSORT_SUCCESS;
}

/* `base`/`leaf` under the first of the variable `var`, XDG_CACHE_HOME
 * and ~/.cache that is set: buf empty when none is. */
static void cache_folder(const char *var, const char *leaf, char *buf, size_t size) {
  const char *dir = var ? getenv(var) : NULL, *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  buf[0] = '\0';
  if (dir && *dir)
    snprintf(buf, size, "%s", dir);
  else if (xdg && *xdg)
    snprintf(buf, size, "%s/%s", xdg, leaf);
  else if (home && *home)
    snprintf(buf, size, "%s/.cache/%s", home, leaf);
}

/* Whether the driver keeps compiled kernels between processes itself and
 * compiles only the kernels that calls use: PoCL does both (its kernel
 * cache). Fetching a program's binary for our own cache makes PoCL compile
 * every kernel of the program, which more than doubled a cold first call
 * there (2 cores: radix 5.2 s against 2.9 s, quicksort 6.0 against 2.6). */
static bool driver_caches_itself(const clsort_context *ctx) {
  return strstr(ctx->platform_name, "Portable Computing Language") != NULL;
}

clsort_status clsort__cache_dirs_from_env(clsort_context *ctx) {
  ctx->cache_dir = ctx->driver_cache_dir = NULL;
  const char *mode = getenv("CLSORT_CACHE");
  char buf[4096];
  if (mode && strcmp(mode, "0") == 0) return CLSORT_SUCCESS;
  if (driver_caches_itself(ctx) && !(mode && strcmp(mode, "1") == 0)) {
    /* PoCL's folder, as PoCL picks it, for clsort_context_cache_dir. */
    const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
    if (pocl_cache && strcmp(pocl_cache, "0") == 0) return CLSORT_SUCCESS;
    cache_folder("POCL_CACHE_DIR", "pocl/kcache", buf, sizeof buf);
    return buf[0] ? keep_name(ctx, buf, &ctx->driver_cache_dir) : CLSORT_SUCCESS;
  }
  cache_folder("CLSORT_CACHE_DIR", "clsort", buf, sizeof buf);
  return buf[0] ? keep_name(ctx, buf, &ctx->cache_dir) : CLSORT_SUCCESS;
}

/* Here rather than in context.c: program.c reports it to the build
 * callback, and context.c already calls program.c. */
const char *clsort_context_cache_dir(const clsort_context *ctx) {
  return !ctx ? NULL : ctx->cache_dir ? ctx->cache_dir : ctx->driver_cache_dir;
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

int clsort__driver_build_lock(const clsort_context *ctx) {
  if (!driver_caches_itself(ctx)) return -1;
  const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
  if (pocl_cache && strcmp(pocl_cache, "0") == 0) return -1;
  char dir[4096], path[4200];
  cache_folder("POCL_CACHE_DIR", "pocl/kcache", dir, sizeof dir);
  if (!dir[0]) return -1;
  /* Beside PoCL's folder rather than in it, so that PoCL never meets a
   * file of ours among its entries. */
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/') dir[--len] = '\0';
  snprintf(path, sizeof path, "%s.clsort-lock", dir);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = '\0';
    make_dirs(dir);
  }
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1; /* no lock: the build goes on as before */
  struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  while (fcntl(fd, F_SETLKW, &whole) != 0) {
    if (errno != EINTR) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

void clsort__driver_build_unlock(int fd) {
  if (fd >= 0) close(fd); /* closing releases the lock */
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
