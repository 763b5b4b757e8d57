/* test_cache.c: the program caches. In memory, a repeated call builds
 * nothing; on disk (CLSORT_CACHE_DIR), a second context loads what the
 * first built, keys follow the source and options, corrupt files are
 * rebuilt, and CLSORT_CACHE=0 turns the disk cache off. Each test uses a
 * fresh empty directory. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "common.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *cache_dir_;

static void cache_setup(void) {
  t_setup_no_ctx();
  cache_dir_ = t_temp_dir("cache");
  t_setenv("CLSORT_CACHE_DIR", cache_dir_);
  /* The library's own disk cache, also on PoCL, where it would otherwise
   * leave caching to PoCL (see pocl_default_leaves_caching_to_pocl). */
  t_setenv("CLSORT_CACHE", "1");
  t_unsetenv("CLSORT_KERNEL_DIR");
  t_unsetenv("CLSORT_EXTRA_BUILD_OPTIONS");
}

static clsort_context *new_context(void) {
  clsort_context *c = NULL;
  clsort_status st = t_context_create(&c);
  ASSERT_OK(st);
  return t_own_context(c);
}

/* A scan whose result is checked, so that a program loaded from a bad
 * cache file could not pass unnoticed. */
static void run_checked_scan(clsort_context *c, clsort_type t, size_t n) {
  t_rng r;
  t_rng_init(&r, "cache scan");
  size_t es = clsort_type_size(t);
  unsigned char *in = t_alloc(n * es), *out = t_alloc(n * es), *want = t_alloc(n * es);
  t_fill_int(&r, t, in, n);
  t_ref_scan_int(t, CLSORT_SCAN_INCLUSIVE, in, want, n);
  t_poison(out, n * es);
  clsort_status st = clsort_scan(c, t, CLSORT_SCAN_INCLUSIVE, in, out, n);
  if (st != CLSORT_SUCCESS)
    ck_abort_msg("%s: scan returned %s: %s; build log: %.2000s", t_where(), t_status_name(st),
                 t_last_error(), clsort_context_build_log(c));
  ASSERT_EQ_ELEMS(out, want, n, es);
  t_release_now(want);
  t_release_now(out);
  t_release_now(in);
}

typedef struct file_list {
  char paths[64][4096];
  size_t count;
} file_list;
static file_list *files_;

static int collect(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)ftw;
  if (flag == FTW_F && S_ISREG(sb->st_mode) && files_->count < 64)
    snprintf(files_->paths[files_->count++], sizeof files_->paths[0], "%s", path);
  return 0;
}

static file_list *list_files(const char *dir) {
  files_ = t_alloc(sizeof *files_);
  files_->count = 0;
  nftw(dir, collect, 16, FTW_PHYS);
  return files_;
}

static void print_stats(const char *what, clsort__build_stats s) {
  printf("  %s: from_source %lu, from_disk %lu, disk_rejected %lu\n", what, s.from_source,
         s.from_disk, s.disk_rejected);
}

/* ------------------------------------------------------------------ tests */

T_TEST(cache_dir_is_the_configured_one) {
  clsort_context *c = new_context();
  const char *dir = clsort__cache_dir(c);
  ASSERT_NOT_NULL(dir);
  ASSERT_TRUE(strncmp(dir, cache_dir_, strlen(cache_dir_)) == 0);
}

T_TEST(cache_disabled_by_environment) {
  t_setenv("CLSORT_CACHE", "0");
  clsort_context *c = new_context();
  ASSERT_NULL(clsort__cache_dir(c));
  run_checked_scan(c, CLSORT_U32, 1000);
  clsort__build_stats s = clsort__context_build_stats(c);
  ASSERT_GT_U64(s.from_source, 0);
  ASSERT_EQ_U64(s.from_disk, 0);
  ASSERT_EQ_U64(list_files(cache_dir_)->count, 0); /* nothing written */
  t_release_now(c);
  /* Still off for a second context: it builds from source again. */
  c = new_context();
  run_checked_scan(c, CLSORT_U32, 1000);
  s = clsort__context_build_stats(c);
  ASSERT_GT_U64(s.from_source, 0);
  ASSERT_EQ_U64(s.from_disk, 0);
}

/* The same call again on the same context is served from memory. */
T_TEST(memory_cache_second_call_builds_nothing) {
  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_U64, 5000);
  clsort__build_stats a = clsort__context_build_stats(c);
  print_stats("first call", a);
  ASSERT_GT_U64(a.from_source + a.from_disk, 0);
  run_checked_scan(c, CLSORT_U64, 5000);
  clsort__build_stats b = clsort__context_build_stats(c);
  ASSERT_EQ_U64(b.from_source, a.from_source);
  ASSERT_EQ_U64(b.from_disk, a.from_disk);
  ASSERT_EQ_U64(b.disk_rejected, a.disk_rejected);
  /* Also for other primitives (compact variants are left to
   * test_compact, the slowest to compile; these use the same cache). */
  uint32_t in[100], out[200];
  unsigned buckets[100];
  for (int i = 0; i < 100; i++) {
    in[i] = (uint32_t)i * 7u;
    buckets[i] = (unsigned)i % 5;
  }
  ASSERT_OK(clsort_reduce(c, CLSORT_U32, CLSORT_REDUCE_MAX, in, 100, out));
  ASSERT_OK(clsort_bucket_offsets(c, buckets, 100, 5, 32, CLSORT_U32, out));
  a = clsort__context_build_stats(c);
  ASSERT_OK(clsort_reduce(c, CLSORT_U32, CLSORT_REDUCE_MAX, in, 100, out));
  ASSERT_EQ_U64(out[0], 99 * 7);
  ASSERT_OK(clsort_bucket_offsets(c, buckets, 100, 5, 32, CLSORT_U32, out));
  ASSERT_EQ_U64(out[1], 7); /* bucket 0 has 7 elements in tile 0 (i = 0, 5, ..., 30) */
  b = clsort__context_build_stats(c);
  ASSERT_EQ_U64(b.from_source, a.from_source);
  ASSERT_EQ_U64(b.from_disk, a.from_disk);
}

/* A second context loads from disk what the first built. */
T_TEST(disk_cache_second_context) {
  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_I32, 3000);
  clsort__build_stats a = clsort__context_build_stats(c);
  print_stats("first context", a);
  ASSERT_GT_U64(a.from_source, 0);
  ASSERT_EQ_U64(a.from_disk, 0);
  t_release_now(c);
  ASSERT_GT_U64(list_files(cache_dir_)->count, 0);

  c = new_context();
  run_checked_scan(c, CLSORT_I32, 3000);
  clsort__build_stats b = clsort__context_build_stats(c);
  print_stats("second context", b);
  ASSERT_EQ_U64(b.from_source, 0);
  ASSERT_EQ_U64(b.from_disk, a.from_source);
  ASSERT_EQ_U64(b.disk_rejected, 0);
  /* The build log describes source builds only. */
  ASSERT_STR_EMPTY(clsort_context_build_log(c));
}

/* The key follows the source and the options, and only them. */
T_TEST(cache_key_follows_source_and_options) {
  clsort_context *c = new_context(), *d = new_context();
  const char *src = "kernel void k(global int *a) { a[get_global_id(0)] = 1; }\n";
  const char *src2 = "kernel void k(global int *a) { a[get_global_id(0)] = 2; }\n";
  char k1[33], k2[33], k3[33], k4[33], k5[33], k6[33];
  memset(k1, 'x', sizeof k1);
  clsort__cache_key(c, src, "-DX=1", k1);
  ASSERT_EQ_U64(strlen(k1), 32);
  for (int i = 0; i < 32; i++) ASSERT_TRUE(strchr("0123456789abcdefABCDEF", k1[i]) != NULL);
  clsort__cache_key(c, src, "-DX=1", k2);
  ASSERT_EQ_STR(k1, k2); /* deterministic */
  clsort__cache_key(d, src, "-DX=1", k3);
  ASSERT_EQ_STR(k1, k3); /* same device, another context: shareable */
  clsort__cache_key(c, src2, "-DX=1", k4);
  ASSERT_NE_STR(k1, k4); /* edited source */
  clsort__cache_key(c, src, "-DX=2", k5);
  ASSERT_NE_STR(k1, k5); /* changed option */
  clsort__cache_key(c, "", "", k6);
  ASSERT_NE_STR(k1, k6); /* empty input is not a wildcard */
  clsort__cache_key(c, src, "", k6);
  ASSERT_NE_STR(k1, k6);
  /* Moving text between source and options must not collide. */
  clsort__cache_key(c, "ab", "c", k5);
  clsort__cache_key(c, "a", "bc", k6);
  ASSERT_NE_STR(k5, k6);
}

/* Register caps on NVIDIA (ptx_registers.c) patch the PTX text: checked
 * here on text, since only NVIDIA's driver builds PTX (the H100 runs say
 * what the caps did there). */
T_TEST(register_caps_go_into_the_named_ptx_entries) {
  const char *ptx = ".version 9.0\n.target sm_90\n"
                    ".entry split(\n\t.param .u64 split_param_0\n)\n{\n\tret;\n}\n"
                    ".entry plan(\n\t.param .u32 plan_param_0\n)\n.reqntid 256\n{\n\tret;\n}\n";
  char *out = clsort__ptx_with_caps(NULL, ptx, "-DX=1 -DCLSORT_MAXNREG_split=64");
  ASSERT_TRUE(out != NULL);
  ASSERT_TRUE(strstr(out, "split_param_0\n)\n.maxnreg 64\n{") != NULL);
  ASSERT_TRUE(strstr(out, "plan_param_0\n)\n.reqntid 256") != NULL); /* plan untouched */
  ASSERT_EQ_U64(strlen(out), strlen(ptx) + strlen("\n.maxnreg 64"));
  free(out);
  /* Two entries; the first token for a kernel decides, 0 means no cap. */
  out = clsort__ptx_with_caps(
      NULL, ptx, "-DCLSORT_MAXNREG_plan=40 -DCLSORT_MAXNREG_split=0 -DCLSORT_MAXNREG_split=64");
  ASSERT_TRUE(out != NULL);
  ASSERT_TRUE(strstr(out, "plan_param_0\n)\n.maxnreg 40\n.reqntid 256") != NULL);
  ASSERT_TRUE(strstr(out, ".maxnreg 64") == NULL);
  char *again = clsort__ptx_with_caps(NULL, out, "-DCLSORT_MAXNREG_plan=32");
  ASSERT_NULL(again); /* an entry with a cap keeps it */
  free(out);
  /* Nothing applies: no token, an unknown kernel, a prefix of a name, a
   * cap out of range, a malformed token. */
  const char *none[] = {"-DX=1",
                        "-DCLSORT_MAXNREG_merge=32",
                        "-DCLSORT_MAXNREG_spl=32",
                        "-DCLSORT_MAXNREG_split=8",
                        "-DCLSORT_MAXNREG_split=",
                        "-DCLSORT_MAXNREG_=32",
                        "-DCLSORT_MAXNREG_split =32"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
    ASSERT_NULL(clsort__ptx_with_caps(NULL, ptx, none[i]));
}

/* CLOGS's lesson, end to end: editing a kernel file (CLSORT_KERNEL_DIR)
 * must change the key, so the stale cached binary is not used. */
T_TEST(edited_kernel_source_is_rebuilt) {
  const char *src_dir = getenv("CLSORT_TEST_CL_DIR");
  if (!src_dir || !src_dir[0]) {
    printf("  SKIP: CLSORT_TEST_CL_DIR (the cl/ folder) is not set\n");
    return;
  }
  const char *kdir = t_temp_dir("kernels");
  /* The cl/ tree with its folders (common/, primitives/, sorts/). */
  file_list *sources = list_files(src_dir);
  char path[4200];
  for (size_t i = 0; i < sources->count; i++) {
    const char *from = sources->paths[i];
    size_t len = strlen(from);
    if (len < 4 || strcmp(from + len - 3, ".cl") != 0) continue;
    snprintf(path, sizeof path, "%s%s", kdir, from + strlen(src_dir));
    *strrchr(path, '/') = '\0';
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s%s", kdir, from + strlen(src_dir));
    FILE *in = fopen(from, "rb");
    FILE *out = fopen(path, "wb");
    ASSERT_TRUE(in && out);
    char buf[8192];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, out);
    fclose(in);
    fclose(out);
  }
  t_setenv("CLSORT_KERNEL_DIR", kdir);

  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_U32, 2000);
  unsigned long built = clsort__context_build_stats(c).from_source;
  ASSERT_GT_U64(built, 0);
  t_release_now(c);
  c = new_context();
  run_checked_scan(c, CLSORT_U32, 2000);
  ASSERT_EQ_U64(clsort__context_build_stats(c).from_source, 0);
  t_release_now(c);

  /* A real code change in every file: one more kernel each. */
  file_list *copies = list_files(kdir);
  int edited = 0;
  for (size_t i = 0; i < copies->count; i++) {
    FILE *f = fopen(copies->paths[i], "ab");
    ASSERT_NOT_NULL(f);
    fprintf(f, "\nkernel void clsort_test_edit_%d(global int *p) { p[0] = %d; }\n", edited,
            edited);
    fclose(f);
    edited++;
  }
  ASSERT_GT_U64(edited, 0);
  c = new_context();
  run_checked_scan(c, CLSORT_U32, 2000);
  clsort__build_stats s = clsort__context_build_stats(c);
  print_stats("after the edit", s);
  ASSERT_GT_U64(s.from_source, 0);
}

/* Every cache file damaged one way (_i): bytes overwritten in the middle,
 * the header overwritten, truncated to half, emptied. The next context
 * rejects and rebuilds, gets correct results, and rewrites good files. */
T_TEST(corrupt_cache_files_are_rebuilt) {
  static const char *modes[4] = {"overwritten middle", "overwritten header", "truncated",
                                 "emptied"};
  t_label("corruption: %s", modes[_i]);
  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_U64, 4000);
  run_checked_scan(c, CLSORT_I32, 4000);
  unsigned long built = clsort__context_build_stats(c).from_source;
  t_release_now(c);
  file_list *fl = list_files(cache_dir_);
  ASSERT_GT_U64(fl->count, 0);
  for (size_t i = 0; i < fl->count; i++) {
    struct stat st;
    ASSERT_EQ_I64(stat(fl->paths[i], &st), 0);
    ASSERT_GT_U64(st.st_size, 0);
    if (_i <= 1) {
      FILE *f = fopen(fl->paths[i], "r+b");
      ASSERT_NOT_NULL(f);
      long at = _i == 0 ? (long)st.st_size / 2 : 0;
      fseek(f, at, SEEK_SET);
      static const char junk[] = "CORRUPTED BY test_cache.c CORRUPTED BY test_cache.c";
      size_t len = sizeof junk - 1 < (size_t)st.st_size - (size_t)at ? sizeof junk - 1
                                                                       : (size_t)st.st_size - (size_t)at;
      fwrite(junk, 1, len, f);
      fclose(f);
    } else {
      ASSERT_EQ_I64(truncate(fl->paths[i], _i == 2 ? st.st_size / 2 : 0), 0);
    }
  }
  t_release_now(fl);

  c = new_context();
  run_checked_scan(c, CLSORT_U64, 4000);
  run_checked_scan(c, CLSORT_I32, 4000);
  clsort__build_stats s = clsort__context_build_stats(c);
  print_stats("after corruption", s);
  ASSERT_EQ_U64(s.from_disk, 0);
  ASSERT_EQ_U64(s.from_source, built);
  ASSERT_EQ_U64(s.disk_rejected, built);
  t_release_now(c);

  c = new_context();
  run_checked_scan(c, CLSORT_U64, 4000);
  run_checked_scan(c, CLSORT_I32, 4000);
  s = clsort__context_build_stats(c);
  print_stats("after the rebuild", s);
  ASSERT_EQ_U64(s.from_disk, built);
  ASSERT_EQ_U64(s.from_source, 0);
  ASSERT_EQ_U64(s.disk_rejected, 0);
}

/* No temporary or partial files are left behind. */
T_TEST(cache_files_are_complete) {
  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_U32, 100);
  run_checked_scan(c, CLSORT_I64, 100);
  t_release_now(c);
  file_list *fl = list_files(cache_dir_);
  ASSERT_GT_U64(fl->count, 0);
  for (size_t i = 0; i < fl->count; i++) {
    t_label("%s", fl->paths[i]);
    struct stat st;
    ASSERT_EQ_I64(stat(fl->paths[i], &st), 0);
    ASSERT_GT_U64(st.st_size, 0);
    ASSERT_NULL(strstr(fl->paths[i], ".tmp"));
  }
}

/* A cache directory that cannot be used (it is a file) costs the cache,
 * never a call. */
T_TEST(unusable_cache_dir_still_works) {
  char path[4200];
  snprintf(path, sizeof path, "%s/not-a-dir", cache_dir_);
  FILE *f = fopen(path, "wb");
  ASSERT_NOT_NULL(f);
  fputs("a file where the cache directory should be\n", f);
  fclose(f);
  t_setenv("CLSORT_CACHE_DIR", path);
  clsort_context *c = new_context();
  run_checked_scan(c, CLSORT_U32, 777);
  t_release_now(c);
  c = new_context();
  run_checked_scan(c, CLSORT_U32, 777);
  ASSERT_EQ_U64(clsort__context_build_stats(c).from_disk, 0);
}

/* On PoCL, left to itself (CLSORT_CACHE unset), the library writes no
 * cache file of its own and names PoCL's kernel cache folder instead;
 * elsewhere it keeps its own. */
T_TEST(pocl_default_leaves_caching_to_pocl) {
  t_unsetenv("CLSORT_CACHE");
  const char *pocl_dir = t_temp_dir("pocl-kcache");
  t_setenv("POCL_CACHE_DIR", pocl_dir);
  clsort_context *c = new_context();
  char platform[256] = "";
  cl_platform_id p;
  ASSERT_CL(clGetDeviceInfo(clsort_context_device(c), CL_DEVICE_PLATFORM, sizeof p, &p, NULL));
  ASSERT_CL(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL));
  run_checked_scan(c, CLSORT_U32, 1000);
  if (strstr(platform, "Portable Computing Language")) {
    ASSERT_NULL(clsort__cache_dir(c));
    ASSERT_EQ_STR(clsort_context_cache_dir(c), pocl_dir);
    ASSERT_EQ_U64(list_files(cache_dir_)->count, 0);
    t_release_now(c);
    t_setenv("POCL_KERNEL_CACHE", "0"); /* PoCL keeps nothing: no folder to name */
    c = new_context();
    ASSERT_NULL(clsort_context_cache_dir(c));
  } else {
    ASSERT_EQ_STR(clsort_context_cache_dir(c), cache_dir_);
    ASSERT_GT_U64(list_files(cache_dir_)->count, 0);
  }
}

/* A build on PoCL holds an exclusive lock beside PoCL's cache folder
 * (PoCL 5.0 fails builds that processes sharing the cache run at once):
 * while this process holds it, another process cannot take it; once
 * released, it can. Other drivers take no lock. */
static bool child_takes_lock(const char *path) {
  pid_t pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    int fd = open(path, O_RDWR);
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    _exit(fd >= 0 && fcntl(fd, F_SETLK, &whole) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ_I64(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

T_TEST(pocl_builds_hold_a_lock_beside_its_cache) {
  t_unsetenv("CLSORT_CACHE");
  const char *pocl_dir = t_temp_dir("pocl-kcache");
  t_setenv("POCL_CACHE_DIR", pocl_dir);
  clsort_context *c = new_context();
  char platform[256] = "", path[4200];
  cl_platform_id p;
  ASSERT_CL(clGetDeviceInfo(clsort_context_device(c), CL_DEVICE_PLATFORM, sizeof p, &p, NULL));
  ASSERT_CL(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL));
  int fd = clsort__driver_build_lock(c);
  if (!strstr(platform, "Portable Computing Language")) {
    ASSERT_EQ_I64(fd, -1);
    return;
  }
  ASSERT_TRUE(fd >= 0);
  snprintf(path, sizeof path, "%s.clsort-lock", pocl_dir);
  ASSERT_FALSE(child_takes_lock(path));
  clsort__driver_build_unlock(fd);
  ASSERT_TRUE(child_takes_lock(path));
  /* A build takes and releases it: the next process is not kept waiting. */
  run_checked_scan(c, CLSORT_U64, 1000);
  ASSERT_TRUE(child_takes_lock(path));
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = tcase_create("cache");
  tcase_add_checked_fixture(tc, cache_setup, t_teardown);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, cache_dir_is_the_configured_one);
  tcase_add_test(tc, cache_disabled_by_environment);
  tcase_add_test(tc, memory_cache_second_call_builds_nothing);
  tcase_add_test(tc, disk_cache_second_context);
  tcase_add_test(tc, cache_key_follows_source_and_options);
  tcase_add_test(tc, register_caps_go_into_the_named_ptx_entries);
  tcase_add_test(tc, edited_kernel_source_is_rebuilt);
  tcase_add_loop_test(tc, corrupt_cache_files_are_rebuilt, 0, 4);
  tcase_add_test(tc, cache_files_are_complete);
  tcase_add_test(tc, unusable_cache_dir_still_works);
  tcase_add_test(tc, pocl_default_leaves_caching_to_pocl);
  tcase_add_test(tc, pocl_builds_hold_a_lock_beside_its_cache);
}

int main(int argc, char **argv) { return t_main(argc, argv, "cache", add); }
