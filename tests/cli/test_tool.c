/* test_tool.c: the clsort tool as a user runs it. Each case runs the built
 * executable (CLSORT_TOOL) and checks its exit status, that stderr says why
 * in words, that stdout stays empty on an error, and that no output and no
 * temporary file is left behind; the cases that succeed check the sorted
 * files themselves (in order, and a permutation of the input). */
#define _XOPEN_SOURCE 700 /* setrlimit, nanosleep */
#include "common.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ running it */
typedef struct run_result {
  int status;      /* exit status; -1 when a signal ended it */
  int signal;      /* the signal that ended it, or 0 */
  char *out, *err; /* all it wrote, NUL-terminated; err without build notices */
  unsigned notices; /* "clsort: compiling kernels ..." lines taken out of err */
  char *tty;        /* what it wrote to a terminal (run_opts.tty_*), or "" */
} run_result;

/* Limits for the child: a file size limit (RLIMIT_FSIZE) makes writes fail
 * as on a full disk. */
typedef struct run_opts {
  const char *dir; /* working directory (default: the test's work dir) */
  long fsize_limit; /* bytes; 0: none */
  const char *stdin_path; /* standard input (default /dev/null), in the work dir */
  int tty_out, tty_err;   /* standard output / error to a pseudo-terminal */
} run_opts;

static const char *work_; /* the test's working directory */
static int tty_master_ = -1; /* of the pseudo-terminal of the run in progress */
static char tty_slave_[256];
static const char *io_;   /* where the child's stdout and stderr go */
static unsigned runs_;
static char cmdline_[2048];

/* CLSORT_TOOL (meson sets it), else cli/clsort of the build this test
 * program belongs to. */
static const char *tool(void) {
  static char path[4200];
  const char *t = getenv("CLSORT_TOOL");
  if (t && t[0]) return t;
  if (!path[0]) {
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) ck_abort_msg("CLSORT_TOOL is not set and /proc/self/exe unreadable");
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof path, "%s/../cli/clsort", self);
  }
  return path;
}

static char *path_in(const char *dir, const char *name) {
  size_t len = strlen(dir) + strlen(name) + 2;
  char *p = t_alloc(len);
  snprintf(p, len, "%s/%s", dir, name);
  return p;
}

static char *read_whole(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) ck_abort_msg("%s: cannot read %s: %s", t_where(), path, strerror(errno));
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      char *grown = realloc(buf, 2 * cap + 1);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) ck_abort_msg("%s: out of memory reading %s", t_where(), path);
  buf[len] = '\0';
  t_defer(free, buf);
  if (size) *size = len;
  return buf;
}

static void write_whole(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f) ck_abort_msg("%s: cannot create %s: %s", t_where(), path, strerror(errno));
  if (bytes && fwrite(data, 1, bytes, f) != bytes) ck_abort_msg("%s: cannot write %s", t_where(), path);
  if (fclose(f) != 0) ck_abort_msg("%s: cannot close %s", t_where(), path);
}

/* Starts the tool with args (NULL-terminated, without the program name).
 * fork and exec rather than posix_spawn, to set the working directory and
 * the limits in between; the child calls only async-signal-safe functions,
 * so OpenCL's threads in this process do not matter to it. */
static pid_t start_tool(const run_opts *o, const char *const *args, char *out_path,
                        char *err_path) {
  const char *argv[64];
  size_t argc = 0, len = 0;
  argv[argc++] = tool();
  cmdline_[0] = '\0';
  len = (size_t)snprintf(cmdline_, sizeof cmdline_, "clsort");
  for (; args[argc - 1] && argc < 63; argc++) {
    argv[argc] = args[argc - 1];
    if (len < sizeof cmdline_)
      len += (size_t)snprintf(cmdline_ + len, sizeof cmdline_ - len, " %s", args[argc - 1]);
  }
  argv[argc] = NULL;
  t_label("%s", cmdline_);
  runs_++;
  snprintf(out_path, 4200, "%s/out.%u", io_, runs_);
  snprintf(err_path, 4200, "%s/err.%u", io_, runs_);
  const char *dir = o && o->dir ? o->dir : work_;
  long limit = o ? o->fsize_limit : 0;
  char in_path[4200] = "/dev/null";
  if (o && o->stdin_path) snprintf(in_path, sizeof in_path, "%s/%s", dir, o->stdin_path);
  int tty_out = o && o->tty_out, tty_err = o && o->tty_err;
  tty_master_ = -1;
  if (tty_out || tty_err) {
    /* A pseudo-terminal that the child's output goes to. */
    tty_master_ = posix_openpt(O_RDWR | O_NOCTTY);
    const char *name = tty_master_ >= 0 && grantpt(tty_master_) == 0 && unlockpt(tty_master_) == 0
                           ? ptsname(tty_master_)
                           : NULL;
    if (!name) ck_abort_msg("%s: no pseudo-terminal: %s", t_where(), strerror(errno));
    snprintf(tty_slave_, sizeof tty_slave_, "%s", name);
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) ck_abort_msg("%s: fork: %s", t_where(), strerror(errno));
  if (pid == 0) {
    int in = open(in_path, O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int tty = tty_out || tty_err ? open(tty_slave_, O_RDWR | O_NOCTTY) : -1;
    if ((tty_out || tty_err) && tty < 0) _exit(126);
    if (tty_out) out = tty;
    if (tty_err) err = tty;
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        chdir(dir) != 0)
      _exit(126);
    if (limit > 0) {
      struct rlimit rl;
      getrlimit(RLIMIT_FSIZE, &rl);
      rl.rlim_cur = (rlim_t)limit;
      signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
      if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    }
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  return pid;
}

static run_result finish_tool(pid_t pid, const char *out_path, const char *err_path) {
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0) {
    if (errno != EINTR) ck_abort_msg("%s: waitpid: %s", t_where(), strerror(errno));
  }
  run_result r;
  r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  r.signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
  r.out = read_whole(out_path, NULL);
  r.err = read_whole(err_path, NULL);
  r.tty = "";
  if (tty_master_ >= 0) {
    /* The child is gone: what it wrote waits in the terminal's buffer. */
    char *text = t_alloc(65536);
    size_t len = 0;
    ssize_t got;
    fcntl(tty_master_, F_SETFL, O_NONBLOCK);
    while (len < 65535 && (got = read(tty_master_, text + len, 65535 - len)) > 0) len += (size_t)got;
    text[len] = '\0';
    r.tty = text;
    close(tty_master_);
    tty_master_ = -1;
  }
  /* The build notice may come with any run whose kernels are not cached
   * yet: counted, then taken out, so that the other checks see the rest. */
  static const char notice[] = "clsort: compiling kernels for ";
  r.notices = 0;
  char *at;
  while ((at = strstr(r.err, notice)) != NULL) {
    char *eol = strchr(at, '\n');
    r.notices++;
    memmove(at, eol ? eol + 1 : at + strlen(at), strlen(eol ? eol + 1 : at + strlen(at)) + 1);
  }
  if (r.status == 126 || r.status == 127)
    ck_abort_msg("%s: could not start %s (status %d)", t_where(), tool(), r.status);
  return r;
}

static run_result run_tool(const run_opts *o, const char *const *args) {
  char out_path[4200], err_path[4200];
  pid_t pid = start_tool(o, args, out_path, err_path);
  return finish_tool(pid, out_path, err_path);
}

#define RUN(...) run_tool(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_WITH(opts, ...) run_tool((opts), (const char *const[]){__VA_ARGS__, NULL})

/* --------------------------------------------------------------- checks */
static void expect_status(const run_result *r, int status) {
  if (r->signal)
    ck_abort_msg("%s: ended by signal %d; stderr: \"%s\"", t_where(), r->signal, r->err);
  if (r->status != status)
    ck_abort_msg("%s: exit status %d, expected %d; stderr: \"%s\"", t_where(), r->status, status,
                 r->err);
}

/* An error: its status, a message on stderr holding `says`, nothing on
 * stdout. */
static void expect_error(const run_result *r, int status, const char *says) {
  expect_status(r, status);
  if (!strstr(r->err, says))
    ck_abort_msg("%s: stderr does not say \"%s\": \"%s\"", t_where(), says, r->err);
  if (r->out[0])
    ck_abort_msg("%s: stdout holds \"%.300s\"; an error must print nothing there", t_where(),
                 r->out);
}

/* A sort that worked: status 0, nothing on either stream. */
static void expect_quiet_success(const run_result *r) {
  expect_status(r, 0);
  if (r->out[0] || r->err[0])
    ck_abort_msg("%s: a successful sort printed stdout \"%.300s\", stderr \"%.300s\"", t_where(),
                 r->out, r->err);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, one a line. */
static char *listing(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) ck_abort_msg("%s: opendir(%s): %s", t_where(), dir, strerror(errno));
  char *names[256];
  size_t count = 0, bytes = 1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && count < 256) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    names[count] = strdup(e->d_name);
    bytes += strlen(e->d_name) + 1;
    count++;
  }
  closedir(d);
  qsort(names, count, sizeof names[0], compare_names);
  char *text = t_alloc(bytes);
  text[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    strcat(text, names[i]);
    strcat(text, "\n");
    free(names[i]);
  }
  return text;
}

#define ASSERT_DIR_UNCHANGED(dir, before)                                                     \
  do {                                                                                        \
    const char *now_ = listing(dir);                                                          \
    if (strcmp(now_, (before)) != 0)                                                          \
      ck_abort_msg("%s: %s changed: it held\n%s\nand now holds\n%s", t_where(), (dir), (before), \
                   now_);                                                                     \
  } while (0)

/* No temporary file of the tool for dir/name (".name.tmp.*", the backup
 * of a commit included) exists. */
static void assert_no_temporary(const char *dir, const char *name) {
  char prefix[300];
  snprintf(prefix, sizeof prefix, ".%s.tmp.", name);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
      closedir(d);
      ck_abort_msg("%s: temporary file %s/%s left behind", t_where(), dir, e->d_name);
    }
  }
  closedir(d);
}

/* Neither dir/name nor a temporary file of the tool for it exists. For
 * directories this test may not list completely (/sys). */
static void assert_no_output(const char *dir, const char *name) {
  struct stat st;
  char *p = path_in(dir, name);
  if (stat(p, &st) == 0) ck_abort_msg("%s: %s exists after a failed sort", t_where(), p);
  assert_no_temporary(dir, name);
}

/* The file at `path` holds exactly `bytes` bytes of `want`. */
static void assert_file_is(const char *path, const void *want, size_t bytes) {
  size_t got_bytes;
  const char *got = read_whole(path, &got_bytes);
  if (got_bytes != bytes)
    ck_abort_msg("%s: %s holds %zu bytes, expected %zu", t_where(), path, got_bytes, bytes);
  ASSERT_EQ_MEM(got, want, bytes);
}

/* ---------------------------------------------------------------- data */
/* Keys as unsigned integers in the tool's order: floats in total order by
 * bits (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). */
static uint64_t order_key(clsort_type t, const void *keys, size_t i) {
  uint64_t b = t_get_bits(t, keys, i);
  unsigned bits = (unsigned)clsort_type_size(t) * 8;
  uint64_t sign = (uint64_t)1 << (bits - 1);
  uint64_t mask = bits == 64 ? ~(uint64_t)0 : (sign << 1) - 1;
  if (t_type_is_float(t)) return (b & sign) ? ~b & mask : b | sign;
  if (t_type_is_signed(t)) return b ^ sign;
  return b;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Keys only: `got` is in order and holds the same keys as `in`. */
static void check_sorted_keys(clsort_type t, const void *in, const void *got, size_t n, bool desc) {
  uint64_t *a = t_alloc(n * 8 + 8), *b = t_alloc(n * 8 + 8);
  for (size_t i = 0; i < n; i++) {
    a[i] = order_key(t, in, i);
    b[i] = order_key(t, got, i);
    if (i > 0 && (desc ? b[i - 1] < b[i] : b[i - 1] > b[i]))
      ck_abort_msg("%s: output out of order at %zu: 0x%" PRIx64 " then 0x%" PRIx64, t_where(), i,
                   t_get_bits(t, got, i - 1), t_get_bits(t, got, i));
  }
  qsort(a, n, 8, compare_u64);
  qsort(b, n, 8, compare_u64);
  for (size_t i = 0; i < n; i++) {
    if (a[i] != b[i]) ck_abort_msg("%s: the output is not a permutation of the input", t_where());
  }
}

/* Pairs whose input values were 0..n-1: the values out are a permutation,
 * each key came from the position its value names, and the keys are in
 * order. */
static void check_sorted_pairs(clsort_type t, const void *in, const void *got, const void *vals,
                               size_t vs, size_t n, bool desc) {
  unsigned char *seen = t_alloc(n + 1);
  memset(seen, 0, n + 1);
  size_t ks = clsort_type_size(t);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 0;
    if (vs == 4) {
      uint32_t v32;
      memcpy(&v32, (const char *)vals + i * 4, 4);
      v = v32;
    } else {
      memcpy(&v, (const char *)vals + i * 8, 8);
    }
    if (v >= n || seen[v])
      ck_abort_msg("%s: value %" PRIu64 " at %zu is out of range or repeated", t_where(), v, i);
    seen[v] = 1;
    if (memcmp((const char *)got + i * ks, (const char *)in + v * ks, ks) != 0)
      ck_abort_msg("%s: key at %zu is not the key of its value %" PRIu64, t_where(), i, v);
    if (i > 0) {
      uint64_t p = order_key(t, got, i - 1), c = order_key(t, got, i);
      if (desc ? p < c : p > c) ck_abort_msg("%s: output out of order at %zu", t_where(), i);
    }
  }
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void *index_values(size_t vs, size_t n) {
  unsigned char *v = t_alloc(n * vs + 1);
  for (size_t i = 0; i < n; i++) {
    if (vs == 4) {
      uint32_t x = (uint32_t)i;
      memcpy(v + i * 4, &x, 4);
    } else {
      uint64_t x = i;
      memcpy(v + i * 8, &x, 8);
    }
  }
  return v;
}

/* n u32 keys, half of them from a small range so that there are ties. */
static uint32_t *u32_keys(size_t n, const char *stream) {
  t_rng r;
  t_rng_init(&r, stream);
  uint32_t *k = t_alloc(n * 4 + 4);
  for (size_t i = 0; i < n; i++)
    k[i] = (uint32_t)(i % 2 ? t_rng_next(&r) : t_rng_below(&r, 16));
  return k;
}

/* The exact bytes a sort must write: the keys in order (descending when
 * desc) and, for a stable sort whose values were 0..n-1, those values. */
static uint32_t *sorted_u32(const uint32_t *keys, size_t n, bool desc) {
  uint32_t *s = t_alloc(n * 4 + 4);
  memcpy(s, keys, n * 4);
  qsort(s, n, 4, compare_u32);
  for (size_t i = 0; desc && i < n / 2; i++) {
    uint32_t t = s[i];
    s[i] = s[n - 1 - i];
    s[n - 1 - i] = t;
  }
  return s;
}

static uint32_t *stable_values_u32(const uint32_t *keys, size_t n) {
  uint64_t *pairs = t_alloc(n * 8 + 8);
  uint32_t *v = t_alloc(n * 4 + 4);
  for (size_t i = 0; i < n; i++) pairs[i] = (uint64_t)keys[i] << 32 | i;
  qsort(pairs, n, 8, compare_u64);
  for (size_t i = 0; i < n; i++) v[i] = (uint32_t)pairs[i];
  return v;
}

/* The test's files: work/in.u32 holds 1000 keys. */
enum { N_KEYS = 1000 };

static void tool_setup(void) {
  t_setup_no_ctx();
  runs_ = 0;
  work_ = t_temp_dir("tool-work");
  io_ = t_temp_dir("tool-io");
  /* The tool takes the test's device, and is never slowed by an inherited
   * fault injection or kernel override. */
  if (t_device_spec()) t_setenv("CLSORT_DEVICE", t_device_spec());
  t_unsetenv("CLSORT_FAIL_ALLOC_AFTER");
  t_unsetenv("CLSORT_FAIL_BUILD");
  t_unsetenv("CLSORT_KERNEL_DIR");
  t_unsetenv("CLSORT_PROFILE");
  t_unsetenv("CLSORT_LOG");
  /* Saved once here, so that the tests may set it with setenv. */
  t_unsetenv("CLSORT_FAIL_COMMIT_STEP");
  write_whole(path_in(work_, "in.u32"), u32_keys(N_KEYS, "tool keys"), N_KEYS * 4);
}

/* ------------------------------------------------------- help, usage */
T_TEST(help_for_every_command_goes_to_stdout) {
  static const char *const cases[][3] = {
      {"--help"},           {"-h"},          {"sort", "--help"}, {"sort", "-h"},
      {"bench", "--help"},  {"bench", "-h"}, {"devices", "--help"}, {"report", "--help"},
      {"prepare", "--help"},
      /* Help wins over a bad command line. */
      {"sort", "--type", "u33"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *args[5] = {cases[i][0], cases[i][1], cases[i][2], NULL, NULL};
    if (i == sizeof cases / sizeof cases[0] - 1) args[3] = "--help";
    run_result r = run_tool(NULL, args);
    expect_status(&r, 0);
    if (strncmp(r.out, "usage: clsort", 13) != 0)
      ck_abort_msg("%s: stdout does not start with the usage: \"%.200s\"", t_where(), r.out);
    ASSERT_STR_EMPTY(r.err);
  }
  run_result r = RUN("--version");
  expect_status(&r, 0);
  if (strncmp(r.out, "clsort ", 7) != 0) ck_abort_msg("%s: --version printed \"%s\"", t_where(), r.out);
}

/* Each a wrong command line: status 2, a message naming the problem, and
 * a pointer to --help; nothing runs and no file appears. */
T_TEST(bad_command_lines_exit_2) {
  static const struct {
    const char *args[10];
    const char *says;
  } cases[] = {
      {{NULL}, "usage: clsort COMMAND"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"sort", "--type", "u33", "in.u32", "out"}, "unknown key type 'u33'"},
      {{"sort", "--type", "int", "in.u32", "out"}, "unknown key type 'int'"},
      {{"sort", "in.u32", "out"}, "--type is required"},
      {{"sort", "--type", "u32", "in.u32", "out", "extra"}, "unexpected argument 'extra'"},
      {{"sort", "in.u32", "out", "--type"}, "option --type needs a value"},
      {{"sort", "--type", "u32", "--frobnicate", "in.u32", "out"}, "unknown option '--frobnicate'"},
      {{"sort", "--type", "u32", "--algorithm", "heap", "in.u32", "out"},
       "unknown algorithm 'heap'"},
      {{"sort", "--type", "u32", "--in-place"}, "--in-place needs a file to sort, not standard input"},
      {{"sort", "--type", "u32", "--in-place", "-"}, "--in-place needs a file to sort"},
      {{"sort", "--type", "u32", "--in-place", "in.u32", "out"}, "--in-place writes back to in.u32"},
      {{"sort", "--type", "u32", "--in-place", "--argsort", "in.u32"}, "cannot be --in-place"},
      {{"sort", "--type", "u32", "--argsort", "--values", "in.u32", "in.u32", "out"},
       "--argsort and --values exclude each other"},
      {{"sort", "--type", "u32", "--index-size", "4", "in.u32", "out"}, "--index-size needs --argsort"},
      {{"sort", "--type", "u32", "--argsort", "--index-size", "2", "in.u32", "out"},
       "--index-size wants 4 or 8, not '2'"},
      {{"sort", "--type", "u32", "--text", "--values", "in.u32", "in.u32", "out"},
       "--text takes keys alone"},
      {{"sort", "--type", "u32", "--values", "-", "-", "out"},
       "the keys and the values cannot both come from standard input"},
      {{"sort", "--type", "u32", "--values", "in.u32", "in.u32"},
       "with the keys on standard output, name the values' output with --values-out"},
      {{"sort", "--type", "u32", "--values", "in.u32", "--values-out", "-", "in.u32", "-"},
       "the keys and the values cannot both go to standard output"},
      {{"sort", "--type", "u32", "--in-place", "--values", "-", "in.u32"},
       "--in-place cannot write values back to standard input"},
      {{"sort", "--type", "u32", "--bits", "0:33", "in.u32", "out"},
       "--bits wants B:E with 0 <= B < E <= 32 for u32 keys, not '0:33'"},
      {{"sort", "--type", "u64", "--bits", "8:8", "in.u32", "out"}, "<= 64 for u64 keys, not '8:8'"},
      {{"sort", "--type", "u32", "--bits", "4", "in.u32", "out"}, "--bits wants B:E"},
      {{"sort", "--type", "u32", "--bits", "a:b", "in.u32", "out"}, "--bits wants B:E"},
      {{"sort", "--type", "u32", "in.u32", ""}, "a file name is empty"},
      {{"sort", "--type", "u32", "--values", "in.u32", "--values-out", "", "in.u32", "out"},
       "a file name is empty"},
      {{"prepare", "--types", "u33"}, "bad --types list 'u33'"},
      {{"prepare", "--algorithms", "heap"}, "bad --algorithms list 'heap'"},
      {{"prepare", "--data", "triples"}, "bad --data list 'triples'"},
      {{"prepare", "--value-size", "2"}, "bad --value-size list '2'"},
      {{"prepare", "--primitives", "sum"}, "bad --primitives list 'sum'"},
      {{"prepare", "--types"}, "option --types needs a value"},
      {{"prepare", "extra"}, "unknown argument 'extra'"},
      {{"sort", "--type", "u32", "--values", "in.u32", "--value-size", "3", "in.u32", "out"},
       "--value-size wants 4 or 8, not '3'"},
      {{"sort", "--type", "u32", "--value-size", "4", "in.u32", "out"},
       "--value-size and --values-out need --values"},
      {{"bench", "--types", "u32,u33"}, "bad type list 'u32,u33'"},
      {{"bench", "--runs", "0"}, "--runs wants 1..1000, not '0'"},
      {{"bench", "--sizes", "foo"}, "--sizes: bad size 'foo'"},
      {{"bench", "--frobnicate"}, "unknown argument '--frobnicate'"},
      {{"bench", "--experiment", "seed999"}, "unknown experiment 'seed999'"},
      {{"bench", "--experiment"}, "option --experiment needs a value"},
      {{"bench", "--quick", "--experiment=seed000"}, "--quick and --experiment exclude each other"},
      {{"devices", "extra"}, "unexpected argument 'extra'"},
      {{"report"}, "needs at least one JSON-lines file"},
  };
  const char *before = listing(work_);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_result r = run_tool(NULL, cases[i].args);
    expect_error(&r, 2, cases[i].says);
    if (i > 1 && !strstr(r.err, "--help"))
      ck_abort_msg("%s: no pointer to --help in \"%s\"", t_where(), r.err);
    ASSERT_DIR_UNCHANGED(work_, before);
  }
}

/* ------------------------------------------------------------- inputs */
T_TEST(missing_input_file_fails) {
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "no-such-file.u32", "out");
  expect_error(&r, 1, "cannot open no-such-file.u32: ");
  ASSERT_DIR_UNCHANGED(work_, before);
  /* The values file too. */
  r = RUN("sort", "--type", "u32", "--values", "no-such-values", "--value-size", "4", "in.u32",
          "out");
  expect_error(&r, 1, "cannot open no-such-values: ");
  ASSERT_DIR_UNCHANGED(work_, before);
  /* A directory is no input either. */
  mkdir(path_in(work_, "a-dir"), 0755);
  before = listing(work_);
  r = RUN("sort", "--type", "u32", "a-dir", "out");
  expect_error(&r, 1, "a-dir is not a regular file");
  ASSERT_DIR_UNCHANGED(work_, before);
}

T_TEST(size_not_a_multiple_of_the_key_size_fails) {
  static const struct {
    const char *type;
    size_t bytes;
    const char *says;
  } cases[] = {
      {"u32", 4001, "odd: 4001 bytes is not a whole number of u32 keys (4 bytes each)"},
      {"f64", 12, "odd: 12 bytes is not a whole number of f64 keys (8 bytes each)"},
      {"i64", 4, "odd: 4 bytes is not a whole number of i64 keys (8 bytes each)"},
      {"f32", 3, "odd: 3 bytes is not a whole number of f32 keys (4 bytes each)"},
  };
  unsigned char data[4096 + 8];
  memset(data, 0x5a, sizeof data);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    write_whole(path_in(work_, "odd"), data, cases[i].bytes);
    const char *before = listing(work_);
    run_result r = RUN("sort", "--type", cases[i].type, "odd", "out");
    expect_error(&r, 1, cases[i].says);
    ASSERT_DIR_UNCHANGED(work_, before);
  }
}

T_TEST(values_that_do_not_match_the_keys_fail) {
  write_whole(path_in(work_, "vals"), index_values(8, N_KEYS), N_KEYS * 8);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4", "in.u32",
                     "out");
  expect_error(&r, 1, "vals: 8000 bytes, but 1000 keys need 1000 values of 4 bytes (4000 bytes)");
  ASSERT_DIR_UNCHANGED(work_, before);
  r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "8", "--values-out", "out",
          "in.u32", "out");
  expect_error(&r, 2, "the keys and the values cannot both go to out");
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* Larger than the machine: a sparse file, refused from its size before a
 * byte is read. */
T_TEST(input_larger_than_host_memory_fails_clearly) {
  char *big = path_in(work_, "huge.u64");
  int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_TRUE(fd >= 0);
  int ok = ftruncate(fd, (off_t)1 << 40) == 0;
  int e = errno;
  close(fd);
  if (!ok) ck_abort_msg("%s: cannot make a sparse 1 TiB file: %s", t_where(), strerror(e));
  const char *before = listing(work_);
  double t0 = t_now();
  run_result r = RUN("sort", "--type", "u64", "huge.u64", "out");
  expect_error(&r, 1, "input too large for ");
  if (!strstr(r.err, "1048576.0 MiB of keys") || !strstr(r.err, "MiB of host memory"))
    ck_abort_msg("%s: the message does not give the sizes: \"%s\"", t_where(), r.err);
  ASSERT_DIR_UNCHANGED(work_, before);
  /* Pairs: the values count too. */
  r = RUN("sort", "--type", "u64", "--values", "huge.u64", "--value-size", "8", "huge.u64", "out");
  expect_error(&r, 1, "MiB of keys and values need about");
  ASSERT_DIR_UNCHANGED(work_, before);
  if (t_now() - t0 > 20.0) ck_abort_msg("%s: refusing took %.1f s: was the file read?", t_where(), t_now() - t0);
}

/* Larger than the device's memory (here its limit, CLSORT_DEVICE_MEMORY_LIMIT):
 * sorted out of core, keys and pairs, with the sort's progress (share, and
 * rate and time left once a second has passed) on a terminal. */
T_TEST(input_larger_than_the_memory_limit_sorts_out_of_core) {
  enum { N = 1 << 20 };
  uint32_t *keys = u32_keys(N, "out of core keys"), *vals = t_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) vals[i] = i;
  write_whole(path_in(work_, "big.u32"), keys, N * 4);
  write_whole(path_in(work_, "big.vals"), vals, N * 4);
  t_setenv("CLSORT_DEVICE_MEMORY_LIMIT", "1M");
  t_setenv("CLSORT_PROGRESS_BYTES", "1000");
  run_opts o = {NULL, 0, NULL, 0, 1};
  run_result r = RUN_WITH(&o, "sort", "--type", "u32", "big.u32", "big.out");
  expect_status(&r, 0);
  if (!strstr(r.tty, "clsort sort: sorting big.u32:") ||
      !strstr(r.tty, "100% of 0.01 GiB moved to the device and back"))
    ck_abort_msg("%s: no progress of the sort out of core: \"%s\"", t_where(), r.tty);
  size_t bytes;
  char *got = read_whole(path_in(work_, "big.out"), &bytes);
  ASSERT_EQ_U64(bytes, (uint64_t)N * 4);
  check_sorted_keys(CLSORT_U32, keys, got, N, false);
  r = RUN("sort", "--type", "u32", "--values", "big.vals", "--values-out", "big.vout", "big.u32",
          "big.out");
  expect_quiet_success(&r);
  got = read_whole(path_in(work_, "big.out"), &bytes);
  char *vout = read_whole(path_in(work_, "big.vout"), NULL);
  check_sorted_pairs(CLSORT_U32, keys, got, vout, 4, N, false);
}

T_TEST(unknown_device_fails) {
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--device", "no-such-device-xyz", "in.u32", "out");
  expect_error(&r, 1, "cannot open device 'no-such-device-xyz'");
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* ------------------------------------------------------------ outputs */
/* Whether this process can create a file in dir (it then removes it). */
static bool can_create_in(const char *dir) {
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.clsort-probe-%ld", dir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  close(fd);
  unlink(probe);
  return true;
}

/* Read-only for root too: chmod does not stop root, so besides a 0555
 * directory (which stops everyone else) the test uses /sys and /proc, where
 * nobody can create a file (EACCES, EROFS or ENOENT depending on how they
 * are mounted). A directory this test can create files in proves nothing
 * and is skipped; at least one must remain. */
/* An existing output the user may not write (mode 0444) is refused
 * before any work, as cp and a shell's > refuse it, and stays as it was;
 * --in-place on such a file likewise. Root may write any file, so the
 * case runs for other users only. */
T_TEST(write_protected_output_is_refused) {
  if (geteuid() == 0) return; /* root writes whatever the mode */
  static const char old[] = "old output\n";
  char *out = path_in(work_, "prot");
  write_whole(out, old, sizeof old);
  ASSERT_EQ_I64(chmod(out, 0444), 0);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "prot");
  expect_error(&r, 1, "cannot write prot: Permission denied");
  assert_file_is(out, old, sizeof old);
  ASSERT_DIR_UNCHANGED(work_, before);
  ASSERT_EQ_I64(chmod(path_in(work_, "in.u32"), 0444), 0);
  r = RUN("sort", "--type", "u32", "--in-place", "in.u32");
  expect_error(&r, 1, "cannot write in.u32: Permission denied");
  assert_file_is(path_in(work_, "in.u32"), u32_keys(N_KEYS, "tool keys"), N_KEYS * 4);
  ASSERT_EQ_I64(chmod(path_in(work_, "in.u32"), 0644), 0);
}

T_TEST(read_only_output_directory_fails) {
  char *ro = path_in(work_, "ro");
  ASSERT_EQ_I64(mkdir(ro, 0755), 0);
  ASSERT_EQ_I64(chmod(ro, 0555), 0);
  const char *candidates[] = {ro, "/sys", "/proc", "/proc/self"};
  unsigned tried = 0;
  for (size_t c = 0; c < sizeof candidates / sizeof candidates[0]; c++) {
    const char *dir = candidates[c];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || can_create_in(dir)) continue;
    tried++;
    char *out = path_in(dir, "clsort-out");
    char *vout = path_in(dir, "clsort-out.values");
    run_result r = RUN("sort", "--type", "u32", "in.u32", out);
    expect_error(&r, 1, "cannot create a temporary file next to ");
    assert_no_output(dir, "clsort-out");
    write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
    r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4", "in.u32", out);
    expect_error(&r, 1, "cannot create a temporary file next to ");
    assert_no_output(dir, "clsort-out");
    assert_no_output(dir, "clsort-out.values");
    /* Keys to a writable place, values to the read-only one: neither is
     * written. */
    const char *before = listing(work_);
    r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4", "--values-out", vout,
            "in.u32", "out");
    expect_error(&r, 1, "cannot create a temporary file next to ");
    assert_no_output(dir, "clsort-out.values");
    ASSERT_DIR_UNCHANGED(work_, before);
    /* bench --json and report fail there, and say why, too. */
    char *json = path_in(dir, "clsort.jsonl");
    r = RUN("bench", "--json", json, "--sizes", "10", "--primitives", "none", "--algorithms",
            "none", "--peers", "none");
    expect_error(&r, 1, "cannot write ");
    assert_no_output(dir, "clsort.jsonl");
  }
  chmod(ro, 0755);
  if (tried == 0)
    ck_abort_msg("%s: found no directory this process cannot write (tried %s, /sys, /proc)",
                 t_where(), ro);
}

T_TEST(missing_output_directory_fails) {
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "no/such/dir/out");
  expect_error(&r, 1, "cannot create a temporary file next to no/such/dir/out");
  ASSERT_DIR_UNCHANGED(work_, before);
}

T_TEST(output_that_is_a_directory_fails_before_sorting) {
  mkdir(path_in(work_, "outdir"), 0755);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "outdir");
  expect_error(&r, 1, "cannot write outdir: it is a directory");
  ASSERT_DIR_UNCHANGED(work_, before);
  ASSERT_STR_EMPTY(listing(path_in(work_, "outdir")));
}

T_TEST(report_of_a_missing_file_prints_nothing) {
  run_result r = RUN("report", "no-such.jsonl");
  expect_error(&r, 1, "cannot read no-such.jsonl: ");
  /* fopen() opens a directory; its read error is no empty file either. */
  ASSERT_EQ_I64(mkdir(path_in(work_, "a-dir.jsonl"), 0755), 0);
  r = RUN("report", "a-dir.jsonl");
  expect_error(&r, 1, "cannot read a-dir.jsonl: ");
  /* Lines that open a record and do not parse are said (other lines, a
   * table beside the records, are passed over quietly). */
  static const char mixed[] = "{\"broken\": \n{garbage\nop  algorithm  n\n";
  write_whole(path_in(work_, "mixed.jsonl"), mixed, sizeof mixed - 1);
  r = RUN("report", "mixed.jsonl");
  expect_status(&r, 0);
  if (!strstr(r.err, "mixed.jsonl: 2 lines that open a record could not be read"))
    ck_abort_msg("%s: the unreadable records are not said: \"%s\"", t_where(), r.err);
}

/* A sort that fails (here every kernel build, by fault injection) leaves
 * the existing outputs exactly as they were. */
T_TEST(failed_sort_keeps_existing_outputs) {
  static const char old_keys[] = "old keys, not to be touched\n";
  static const char old_vals[] = "old values\n";
  write_whole(path_in(work_, "out"), old_keys, sizeof old_keys);
  write_whole(path_in(work_, "out.values"), old_vals, sizeof old_vals);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  const char *before = listing(work_);
  t_setenv("CLSORT_FAIL_BUILD", "1");
  run_result r = RUN("sort", "--type", "u32", "in.u32", "out");
  expect_error(&r, 1, "sorting failed: ");
  r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4", "in.u32", "out");
  expect_error(&r, 1, "sorting failed: ");
  ASSERT_DIR_UNCHANGED(work_, before);
  size_t bytes;
  ASSERT_EQ_STR(read_whole(path_in(work_, "out"), &bytes), old_keys);
  ASSERT_EQ_STR(read_whole(path_in(work_, "out.values"), &bytes), old_vals);
}

/* A write that fails half-way (a file size limit, as on a full disk): the
 * keys were written in full, the values were not, and neither appears. */
T_TEST(failed_write_leaves_no_partial_output) {
  enum { N = 4096 };
  write_whole(path_in(work_, "k"), u32_keys(N, "write keys"), N * 4);
  write_whole(path_in(work_, "v"), index_values(8, N), N * 8);
  /* Warm the kernel caches first, so that the limited run writes only its
   * outputs. The library's own cache: loading from it writes nothing,
   * while PoCL's writes files on every build, which the limit would fail. */
  t_setenv("CLSORT_CACHE", "1");
  run_result r = RUN("sort", "--type", "u32", "--values", "v", "--value-size", "8", "k", "warm");
  expect_quiet_success(&r);
  r = RUN("sort", "--type", "u32", "k", "warm");
  expect_quiet_success(&r);
  remove(path_in(work_, "warm"));
  remove(path_in(work_, "warm.values"));
  const char *before = listing(work_);
  run_opts o = {NULL, N * 4 + N * 2, NULL, 0, 0}; /* room for the keys, half the values */
  r = RUN_WITH(&o, "sort", "--type", "u32", "--values", "v", "--value-size", "8", "k", "out");
  expect_error(&r, 1, "cannot write out.values: ");
  ASSERT_DIR_UNCHANGED(work_, before);
  /* And the keys alone. */
  o.fsize_limit = N * 2;
  r = RUN_WITH(&o, "sort", "--type", "u32", "k", "out");
  expect_error(&r, 1, "cannot write out: ");
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* SIGTERM or SIGINT while a sort runs: the temporary files go too. The
 * signal is sent once a temporary file is seen; if the sort finished first
 * the attempt is repeated with a larger input. */
T_TEST(interrupted_sort_leaves_no_temporary_file) {
  static const int sigs[] = {SIGTERM, SIGINT};
  for (size_t s = 0; s < 2; s++) {
    bool caught = false;
    for (size_t log2n = 22; log2n <= 24 && !caught; log2n++) {
      size_t n = (size_t)1 << log2n;
      write_whole(path_in(work_, "big"), u32_keys(n, "big keys"), n * 4);
      write_whole(path_in(work_, "bigv"), index_values(4, n), n * 4);
      const char *before = listing(work_);
      char out_path[4200], err_path[4200];
      pid_t pid = start_tool(NULL,
                             (const char *const[]){"sort", "--type", "u32", "--values", "bigv",
                                                   "--value-size", "4", "big", "out", NULL},
                             out_path, err_path);
      double t0 = t_now();
      bool seen = false;
      while (!seen && t_now() - t0 < 60.0) {
        DIR *d = opendir(work_);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
          if (strncmp(e->d_name, ".out.tmp.", 9) == 0) seen = true;
        }
        if (d) closedir(d);
        int ws;
        if (!seen && waitpid(pid, &ws, WNOHANG) == pid) {
          pid = -1; /* finished before a temporary file was seen */
          break;
        }
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
      }
      if (pid < 0) {
        remove(path_in(work_, "out"));
        remove(path_in(work_, "out.values"));
        continue;
      }
      kill(pid, sigs[s]);
      run_result r = finish_tool(pid, out_path, err_path);
      if (r.signal == 0 && r.status == 0) {
        /* It finished in between; the outputs must then be whole. */
        remove(path_in(work_, "out"));
        remove(path_in(work_, "out.values"));
        continue;
      }
      caught = true;
      if (r.signal != sigs[s])
        ck_abort_msg("%s: after signal %d: status %d, signal %d; stderr \"%s\"", t_where(),
                     sigs[s], r.status, r.signal, r.err);
      ASSERT_STR_EMPTY(r.out);
      ASSERT_DIR_UNCHANGED(work_, before);
    }
    if (!caught)
      ck_abort_msg("%s: every sort finished before it could be interrupted", t_where());
  }
}

/* --------------------------------------------------- replacing files */
/* A file's bytes and its name, to check that a failed sort left it. */
typedef struct kept_file {
  const char *name;
  const char *bytes;
  size_t size;
} kept_file;

static kept_file keep(const char *name) {
  kept_file k = {name, NULL, 0};
  k.bytes = read_whole(path_in(work_, name), &k.size);
  return k;
}

static void assert_kept(const kept_file *k) {
  assert_file_is(path_in(work_, k->name), k->bytes, k->size);
}

/* The keys and the values are put in place together: CLSORT_FAIL_COMMIT_STEP
 * makes each link and rename of that in turn fail (EIO, as a failing disk
 * would), and after every one of them both originals are still there, byte
 * for byte, with nothing left beside them. Then the first run that gets
 * through writes both. */
T_TEST(values_out_rename_failure_keeps_both_originals) {
  static const char old_keys[] = "old keys, not to be lost\n";
  static const char old_vals[] = "old values, not to be lost\n";
  static const struct {
    const char *out, *values_out;
    unsigned min_steps; /* links and renames that can fail */
  } cases[] = {
      {"out", "vals", 4},       /* values in place; the keys replace a file */
      {"out", "old.values", 4}, /* both replace files of their own */
      {"new", "new.values", 2}, /* both new: a failure removes the first */
  };
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
    write_whole(path_in(work_, "out"), old_keys, sizeof old_keys);
    write_whole(path_in(work_, "old.values"), old_vals, sizeof old_vals);
    remove(path_in(work_, "new"));
    remove(path_in(work_, "new.values"));
    const char *before = listing(work_);
    kept_file kept[] = {keep("in.u32"), keep("vals"), keep("out"), keep("old.values")};
    unsigned step = 1;
    run_result r;
    for (;; step++) {
      char value[16];
      snprintf(value, sizeof value, "%u", step);
      setenv("CLSORT_FAIL_COMMIT_STEP", value, 1);
      r = RUN("sort", "--type", "u32", "--stable", "--values", "vals", "--value-size", "4",
              "--values-out", cases[c].values_out, "in.u32", cases[c].out);
      if (r.status == 0 || step > 20) break;
      t_label("%s, with CLSORT_FAIL_COMMIT_STEP=%u", cmdline_, step);
      expect_error(&r, 1, "Input/output error");
      ASSERT_DIR_UNCHANGED(work_, before);
      for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) assert_kept(&kept[k]);
    }
    unsetenv("CLSORT_FAIL_COMMIT_STEP");
    expect_quiet_success(&r);
    if (step - 1 < cases[c].min_steps)
      ck_abort_msg("%s: only %u steps could fail; expected %u", t_where(), step - 1,
                   cases[c].min_steps);
    assert_file_is(path_in(work_, cases[c].out), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
    assert_file_is(path_in(work_, cases[c].values_out), stable_values_u32(keys, N_KEYS),
                   N_KEYS * 4);
    assert_no_temporary(work_, cases[c].out);
    assert_no_temporary(work_, cases[c].values_out);
    remove(path_in(work_, "new"));
    remove(path_in(work_, "new.values"));
  }
}

/* A failure that the rollback cannot undo either ("4+": the values' rename
 * and every step after it fail): the keys' original is not deleted but kept
 * under the name the message gives, and the values' original stays put. */
T_TEST(failed_rollback_keeps_the_original_under_the_name_it_gives) {
  static const char old_keys[] = "old keys, not to be lost\n";
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  write_whole(path_in(work_, "out"), old_keys, sizeof old_keys);
  kept_file vals = keep("vals");
  setenv("CLSORT_FAIL_COMMIT_STEP", "4+", 1);
  run_result r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4",
                     "--values-out", "vals", "in.u32", "out");
  unsetenv("CLSORT_FAIL_COMMIT_STEP");
  expect_error(&r, 1, "cannot rename ");
  const char *kept_as = strstr(r.err, "the original is kept as ");
  if (!kept_as)
    ck_abort_msg("%s: stderr does not say where the original is: \"%s\"", t_where(), r.err);
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(kept_as + 24, "\n"), kept_as + 24);
  assert_file_is(path_in(work_, name), old_keys, sizeof old_keys);
  assert_kept(&vals);
  /* The backup is the one file left beside the outputs. */
  char want[512];
  snprintf(want, sizeof want, "%s\nin.u32\nout\nvals\n", name);
  ASSERT_EQ_STR(listing(work_), want);
}

/* A sorted file keeps its mode (a 0600 file must not become 0644) and, as
 * root, its owner; a new output gets 0666 less the umask. */
T_TEST(in_place_sort_keeps_mode_and_owner) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  char *in = path_in(work_, "in.u32");
  ASSERT_EQ_I64(chmod(in, 0600), 0);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "in.u32");
  expect_quiet_success(&r);
  assert_file_is(in, sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  struct stat st;
  ASSERT_EQ_I64(stat(in, &st), 0);
  ASSERT_EQ_U64(st.st_mode & 07777, 0600);
  ASSERT_TRUE(S_ISREG(st.st_mode));
  /* Another owner and group, where this process may give them. */
  bool root = geteuid() == 0;
  if (root) ASSERT_EQ_I64(chown(in, 4321, 8765), 0);
  ASSERT_EQ_I64(chmod(in, 0640), 0);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  ASSERT_EQ_I64(chmod(path_in(work_, "vals"), 0604), 0);
  r = RUN("sort", "--type", "u32", "--desc", "--values", "vals", "--value-size", "4",
          "--values-out", "vals", "in.u32", "in.u32");
  expect_quiet_success(&r);
  assert_file_is(in, sorted_u32(keys, N_KEYS, true), N_KEYS * 4);
  ASSERT_EQ_I64(stat(in, &st), 0);
  ASSERT_EQ_U64(st.st_mode & 07777, 0640);
  if (root) {
    ASSERT_EQ_U64(st.st_uid, 4321);
    ASSERT_EQ_U64(st.st_gid, 8765);
  }
  ASSERT_EQ_I64(stat(path_in(work_, "vals"), &st), 0);
  ASSERT_EQ_U64(st.st_mode & 07777, 0604);
  mode_t mask = umask(0);
  umask(mask);
  r = RUN("sort", "--type", "u32", "in.u32", "fresh");
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "fresh"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  ASSERT_EQ_I64(stat(path_in(work_, "fresh"), &st), 0);
  ASSERT_EQ_U64(st.st_mode & 07777, 0666 & ~mask);
  ASSERT_EQ_STR(listing(work_), "fresh\nin.u32\nvals\n");
}

static void assert_link(const char *name, const char *to) {
  char got[4096];
  ssize_t len = readlink(path_in(work_, name), got, sizeof got - 1);
  if (len < 0)
    ck_abort_msg("%s: %s is no longer a symbolic link: %s", t_where(), name, strerror(errno));
  got[len] = '\0';
  ASSERT_EQ_STR(got, to);
}

/* A symbolic link stays a link: the file it leads to (through a chain, or
 * relative to the link's own directory) gets the data and keeps its mode;
 * a dangling link has its file created. */
T_TEST(symlink_output_stays_a_symlink_and_its_target_gets_the_data) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  write_whole(path_in(work_, "data"), "junk", 4);
  ASSERT_EQ_I64(chmod(path_in(work_, "data"), 0600), 0);
  ASSERT_EQ_I64(symlink("data", path_in(work_, "link")), 0);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "link");
  expect_quiet_success(&r);
  assert_link("link", "data");
  assert_file_is(path_in(work_, "data"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  struct stat st;
  ASSERT_EQ_I64(stat(path_in(work_, "data"), &st), 0);
  ASSERT_EQ_U64(st.st_mode & 07777, 0600);
  /* In place through a chain of two links, with values beside; stable and
   * descending, so that the values for equal keys keep their order. */
  ASSERT_EQ_I64(symlink("link", path_in(work_, "chain")), 0);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  uint32_t *inverted = sorted_u32(keys, N_KEYS, false);
  for (size_t i = 0; i < N_KEYS; i++) inverted[i] = ~inverted[i];
  r = RUN("sort", "--type", "u32", "--desc", "--stable", "--values", "vals", "--value-size", "4",
          "chain", "chain");
  expect_quiet_success(&r);
  assert_link("chain", "link");
  assert_link("link", "data");
  assert_file_is(path_in(work_, "data"), sorted_u32(keys, N_KEYS, true), N_KEYS * 4);
  assert_file_is(path_in(work_, "chain.values"), stable_values_u32(inverted, N_KEYS), N_KEYS * 4);
  /* A dangling link in a subdirectory, relative to that directory. */
  ASSERT_EQ_I64(mkdir(path_in(work_, "sub"), 0755), 0);
  ASSERT_EQ_I64(symlink("../made", path_in(work_, "sub/dangling")), 0);
  r = RUN("sort", "--type", "u32", "in.u32", "sub/dangling");
  expect_quiet_success(&r);
  assert_link("sub/dangling", "../made");
  assert_file_is(path_in(work_, "made"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  ASSERT_EQ_STR(listing(work_), "chain\nchain.values\ndata\nin.u32\nlink\nmade\nsub\nvals\n");
  ASSERT_EQ_STR(listing(path_in(work_, "sub")), "dangling\n");
}

static void close_fd(void *fd) { close((int)(intptr_t)fd); }

/* A FIFO is written through, not replaced. The test holds it open for
 * reading and writing, so that the tool's open does not wait for a reader
 * and the sorted keys (less than a pipe's buffer) wait in it. */
T_TEST(fifo_output_is_written_through_not_replaced) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  char *fifo = path_in(work_, "fifo");
  ASSERT_EQ_I64(mkfifo(fifo, 0600), 0);
  struct stat before_st, st;
  ASSERT_EQ_I64(stat(fifo, &before_st), 0);
  int fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) ck_abort_msg("%s: open(%s): %s", t_where(), fifo, strerror(errno));
  t_defer(close_fd, (void *)(intptr_t)fd);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--stable", "--values", "vals", "--value-size", "4",
                     "--values-out", "vals.out", "in.u32", "fifo");
  expect_quiet_success(&r);
  unsigned char got[N_KEYS * 4 + 1];
  ssize_t n = read(fd, got, sizeof got);
  ASSERT_EQ_I64(n, N_KEYS * 4);
  ASSERT_EQ_MEM(got, sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  ASSERT_EQ_I64(read(fd, got, sizeof got), -1); /* nothing more */
  assert_file_is(path_in(work_, "vals.out"), stable_values_u32(keys, N_KEYS), N_KEYS * 4);
  ASSERT_EQ_I64(lstat(fifo, &st), 0);
  ASSERT_TRUE(S_ISFIFO(st.st_mode));
  ASSERT_EQ_U64(st.st_ino, before_st.st_ino);
  assert_no_temporary(work_, "fifo");
  remove(path_in(work_, "vals.out"));
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* Writes `bytes` of `data` into the FIFO at `path` from a child process
 * (the open blocks until the tool opens it to read); returns the child. */
static pid_t fifo_writer(const char *path, const void *data, size_t bytes) {
  pid_t pid = fork();
  ASSERT_TRUE(pid >= 0);
  if (pid == 0) {
    int fd = open(path, O_WRONLY);
    const unsigned char *p = data;
    while (fd >= 0 && bytes > 0) {
      ssize_t w = write(fd, p, bytes);
      if (w <= 0) _exit(1);
      p += w;
      bytes -= (size_t)w;
    }
    _exit(fd >= 0 ? 0 : 1);
  }
  return pid;
}

/* Inputs that are FIFOs (as `<(...)` gives) are read to their end, as
 * standard input is: keys, and keys with values from another FIFO. */
T_TEST(fifo_inputs_are_read_as_streams) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  const void *vals = index_values(4, N_KEYS);
  char *kf = path_in(work_, "kfifo"), *vf = path_in(work_, "vfifo");
  ASSERT_EQ_I64(mkfifo(kf, 0600), 0);
  ASSERT_EQ_I64(mkfifo(vf, 0600), 0);
  pid_t w = fifo_writer(kf, keys, N_KEYS * 4);
  run_result r = RUN("sort", "--type", "u32", "kfifo", "out");
  /* A writer still blocked (the tool never opened its FIFO) goes too. */
  int status;
  kill(w, SIGKILL);
  ASSERT_EQ_I64(waitpid(w, &status, 0), w);
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "out"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  pid_t w1 = fifo_writer(kf, keys, N_KEYS * 4), w2 = fifo_writer(vf, vals, N_KEYS * 4);
  r = RUN("sort", "--type", "u32", "--stable", "--values", "vfifo", "--values-out", "vals.out",
          "kfifo", "out");
  kill(w1, SIGKILL);
  kill(w2, SIGKILL);
  ASSERT_EQ_I64(waitpid(w1, &status, 0), w1);
  ASSERT_EQ_I64(waitpid(w2, &status, 0), w2);
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "out"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  assert_file_is(path_in(work_, "vals.out"), stable_values_u32(keys, N_KEYS), N_KEYS * 4);
}

/* A FIFO whose reader goes away while the keys are being written through:
 * the sort ends (SIGPIPE, or EPIPE where SIGPIPE is ignored), its values'
 * temporary file goes too, and the values' original stays. The keys exceed
 * any pipe buffer, so the tool is still writing when the reader leaves. */
T_TEST(fifo_reader_that_leaves_keeps_the_other_original) {
  enum { N = 1 << 20 };
  static const char old_vals[] = "old values\n";
  write_whole(path_in(work_, "big"), u32_keys(N, "fifo keys"), N * 4);
  write_whole(path_in(work_, "bigv"), index_values(4, N), N * 4);
  write_whole(path_in(work_, "vals.out"), old_vals, sizeof old_vals);
  char *fifo = path_in(work_, "fifo");
  ASSERT_EQ_I64(mkfifo(fifo, 0600), 0);
  const char *before = listing(work_);
  /* Non-blocking, so that opening does not wait for the tool; not
   * inherited, or the tool would be a reader of its own FIFO. */
  int fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) ck_abort_msg("%s: open(%s): %s", t_where(), fifo, strerror(errno));
  char out_path[4200], err_path[4200];
  pid_t pid = start_tool(NULL,
                         (const char *const[]){"sort", "--type", "u32", "--values", "bigv",
                                               "--value-size", "4", "--values-out", "vals.out",
                                               "big", "fifo", NULL},
                         out_path, err_path);
  struct pollfd p = {fd, POLLIN, 0};
  int ready = poll(&p, 1, 120000);
  char buf[4096];
  ssize_t got = ready == 1 ? read(fd, buf, sizeof buf) : -1;
  close(fd);
  run_result r = finish_tool(pid, out_path, err_path);
  if (got <= 0) ck_abort_msg("%s: no keys came through the FIFO; stderr \"%s\"", t_where(), r.err);
  if (r.signal != SIGPIPE) expect_error(&r, 1, "cannot write fifo: ");
  ASSERT_STR_EMPTY(r.out);
  assert_file_is(path_in(work_, "vals.out"), old_vals, sizeof old_vals);
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* A character device to write to, such as /dev/null or /dev/full. As
 * root, a copy of it (the same device number) in the work directory: root
 * could rename a file over the system's own, and a tool that wrongly did
 * so would break the machine it is tested on. Others cannot replace the
 * system's, so they get it. */
static const char *char_device(const char *system_path, const char **dir) {
  struct stat st;
  if (stat(system_path, &st) != 0 || !S_ISCHR(st.st_mode))
    ck_abort_msg("%s: this test needs %s", t_where(), system_path);
  *dir = "/dev";
  if (geteuid() != 0) return system_path;
  char *copy = path_in(work_, strrchr(system_path, '/') + 1);
  int fd = -1;
  if (mknod(copy, S_IFCHR | 0666, st.st_rdev) != 0 || (fd = open(copy, O_WRONLY)) < 0)
    ck_abort_msg("%s: cannot make a working copy of %s as %s (%s; a file system mounted nodev? "
                 "set CLSORT_TEST_TMPDIR elsewhere); the system's own is not risked",
                 t_where(), system_path, copy, strerror(errno));
  close(fd);
  *dir = work_;
  return copy;
}

/* The output is a device (/dev/null): written through, never replaced,
 * also for keys and values both. */
T_TEST(dev_null_output_is_written_through_not_replaced) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  const char *dir, *null = char_device("/dev/null", &dir);
  struct stat before_st, st;
  ASSERT_EQ_I64(lstat(null, &before_st), 0);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--stable", "--values", "vals", "--value-size", "4",
                     "--values-out", "vals.out", "in.u32", null);
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "vals.out"), stable_values_u32(keys, N_KEYS), N_KEYS * 4);
  r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4", "--values-out", null,
          "in.u32", null);
  expect_quiet_success(&r);
  ASSERT_EQ_I64(lstat(null, &st), 0);
  ASSERT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ_U64(st.st_ino, before_st.st_ino);
  ASSERT_EQ_U64(st.st_rdev, before_st.st_rdev);
  ASSERT_EQ_U64(st.st_mode, before_st.st_mode);
  assert_no_temporary(dir, strrchr(null, '/') + 1);
  assert_file_is(null, "", 0);
  remove(path_in(work_, "vals.out"));
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* A device that fails the write (/dev/full: ENOSPC) fails the sort, and
 * the values' original, which would have been replaced after it, stays. */
T_TEST(failing_device_output_keeps_the_other_original) {
  const char *dir, *full = char_device("/dev/full", &dir);
  static const char old_vals[] = "old values\n";
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  write_whole(path_in(work_, "vals.out"), old_vals, sizeof old_vals);
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4",
                     "--values-out", "vals.out", "in.u32", full);
  expect_error(&r, 1, "No space left on device");
  assert_file_is(path_in(work_, "vals.out"), old_vals, sizeof old_vals);
  ASSERT_DIR_UNCHANGED(work_, before);
  assert_no_temporary(dir, strrchr(full, '/') + 1);
  struct stat st;
  ASSERT_EQ_I64(lstat(full, &st), 0);
  ASSERT_TRUE(S_ISCHR(st.st_mode));
}

/* The keys and the values to one file under two names (spellings, a link,
 * a hard link; existing or not yet): refused as a bad command line before
 * anything is read or written. */
T_TEST(keys_and_values_to_one_file_under_two_spellings_are_refused) {
  static const char old[] = "old contents\n";
  write_whole(path_in(work_, "o5.bin"), old, sizeof old);
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  ASSERT_EQ_I64(symlink("o5.bin", path_in(work_, "o5.link")), 0);
  ASSERT_EQ_I64(link(path_in(work_, "o5.bin"), path_in(work_, "o5.hard")), 0);
  ASSERT_EQ_I64(symlink("o6.bin", path_in(work_, "o6.link")), 0);
  ASSERT_EQ_I64(mkdir(path_in(work_, "sub"), 0755), 0);
  char *abs_o5 = path_in(work_, "o5.bin");
  const char *const pairs[][2] = {
      {"o5.bin", "./o5.bin"}, {"./o5.bin", abs_o5},      {"o5.link", "o5.bin"},
      {"o5.bin", "o5.hard"},  {"o6.bin", "./o6.bin"},    {"sub/../o6.bin", "o6.bin"},
      {"o6.link", "o6.bin"},  {"o5.bin", "sub/../o5.bin"},
  };
  const char *before = listing(work_);
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    run_result r = RUN("sort", "--type", "u32", "--values", "vals", "--value-size", "4",
                       "--values-out", pairs[i][1], "in.u32", pairs[i][0]);
    expect_error(&r, 2, "the keys and the values cannot both go to ");
    if (!strstr(r.err, "is the same file") || !strstr(r.err, "--help"))
      ck_abort_msg("%s: the message does not explain: \"%s\"", t_where(), r.err);
    ASSERT_DIR_UNCHANGED(work_, before);
    assert_file_is(path_in(work_, "o5.bin"), old, sizeof old);
    ASSERT_EQ_STR(listing(path_in(work_, "sub")), "");
  }
}

/* An output like /dev/stdout: a link to /proc/self/fd/1, the tool's
 * standard output, here a regular file, which gets the keys. The link is a
 * copy in the work directory: as root, a tool that wrongly replaced links
 * would replace the system's /dev/stdout. */
T_TEST(stdout_through_a_proc_link_gets_the_keys) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  ASSERT_EQ_I64(symlink("/proc/self/fd/1", path_in(work_, "stdout")), 0);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "stdout");
  expect_status(&r, 0);
  ASSERT_STR_EMPTY(r.err);
  char out[4200];
  snprintf(out, sizeof out, "%s/out.%u", io_, runs_);
  assert_file_is(out, sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  assert_link("stdout", "/proc/self/fd/1");
  ASSERT_EQ_STR(listing(work_), "in.u32\nstdout\n");
}

/* ------------------------------------------------------------ success */
T_TEST(sorts_u32_descending_with_values) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  run_result r = RUN("sort", "--type", "u32", "--desc", "--values", "vals", "--value-size", "4",
                     "in.u32", "out");
  expect_quiet_success(&r);
  ASSERT_EQ_STR(listing(work_), "in.u32\nout\nout.values\nvals\n");
  size_t kb, vb;
  const char *got = read_whole(path_in(work_, "out"), &kb);
  const char *vals = read_whole(path_in(work_, "out.values"), &vb);
  ASSERT_EQ_U64(kb, N_KEYS * 4);
  ASSERT_EQ_U64(vb, N_KEYS * 4);
  check_sorted_pairs(CLSORT_U32, keys, got, vals, 4, N_KEYS, true);
  /* Keys only, ascending, in place. */
  r = RUN("sort", "--type", "u32", "in.u32", "in.u32");
  expect_quiet_success(&r);
  got = read_whole(path_in(work_, "in.u32"), &kb);
  ASSERT_EQ_U64(kb, N_KEYS * 4);
  check_sorted_keys(CLSORT_U32, keys, got, N_KEYS, false);
}

/* f64 with the special values, descending, 8-byte values to a path of
 * their own (--values-out). */
T_TEST(sorts_f64_descending_with_values) {
  enum { N = 777 };
  t_rng rng;
  t_rng_init(&rng, "tool f64");
  double *keys = t_alloc(N * 8);
  t_fill_float(&rng, CLSORT_F64, keys, N, -1000.0, 1000.0, 1.0);
  const uint64_t specials[] = {0x0000000000000000u, 0x8000000000000000u, 0x7ff0000000000000u,
                               0xfff0000000000000u, 0x7ff8000000000000u, 0xfff8000000000000u,
                               0x0000000000000001u, 0x8000000000000001u, 0x7fefffffffffffffu};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
    memcpy(&keys[i * 37], &specials[i], 8);
    memcpy(&keys[i * 37 + 1], &specials[i], 8); /* and a tie */
  }
  write_whole(path_in(work_, "in.f64"), keys, N * 8);
  write_whole(path_in(work_, "vals"), index_values(8, N), N * 8);
  run_result r = RUN("sort", "--type", "f64", "--desc", "--values", "vals", "--value-size", "8",
                     "--values-out", "sorted-vals", "in.f64", "sorted.f64");
  expect_quiet_success(&r);
  ASSERT_EQ_STR(listing(work_), "in.f64\nin.u32\nsorted-vals\nsorted.f64\nvals\n");
  size_t kb, vb;
  const char *got = read_whole(path_in(work_, "sorted.f64"), &kb);
  const char *vals = read_whole(path_in(work_, "sorted-vals"), &vb);
  ASSERT_EQ_U64(kb, N * 8);
  ASSERT_EQ_U64(vb, N * 8);
  check_sorted_pairs(CLSORT_F64, keys, got, vals, 8, N, true);
  /* -NaN last, +NaN first. */
  ASSERT_EQ_U64(t_get_bits(CLSORT_F64, got, 0), 0x7ff8000000000000u);
  ASSERT_EQ_U64(t_get_bits(CLSORT_F64, got, N - 1), 0xfff8000000000000u);
  /* Keys only, ascending and stable. */
  r = RUN("sort", "--type", "f64", "--stable", "in.f64", "asc.f64");
  expect_quiet_success(&r);
  got = read_whole(path_in(work_, "asc.f64"), &kb);
  ASSERT_EQ_U64(kb, N * 8);
  check_sorted_keys(CLSORT_F64, keys, got, N, false);
}

T_TEST(replaces_an_existing_output_and_sorts_empty_input) {
  char junk[10000];
  memset(junk, 'x', sizeof junk);
  write_whole(path_in(work_, "out"), junk, sizeof junk);
  run_result r = RUN("sort", "--type", "u32", "in.u32", "out");
  expect_quiet_success(&r);
  size_t bytes;
  const char *got = read_whole(path_in(work_, "out"), &bytes);
  ASSERT_EQ_U64(bytes, N_KEYS * 4);
  check_sorted_keys(CLSORT_U32, u32_keys(N_KEYS, "tool keys"), got, N_KEYS, false);
  write_whole(path_in(work_, "empty"), NULL, 0);
  r = RUN("sort", "--type", "i64", "--desc", "empty", "empty.out");
  expect_quiet_success(&r);
  read_whole(path_in(work_, "empty.out"), &bytes);
  ASSERT_EQ_U64(bytes, 0);
  ASSERT_EQ_STR(listing(work_), "empty\nempty.out\nin.u32\nout\n");
}

/* Every algorithm the tool accepts either sorts correctly or, when this
 * build lacks it, fails cleanly: status 1, a reason, no output. */
T_TEST(every_algorithm_sorts_or_refuses_cleanly) {
  static const char *const algos[] = {"auto", "radix", "bitonic", "sample", "merge", "quick"};
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
    const char *before = listing(work_);
    run_result r = RUN("sort", "--type", "u32", "--algorithm", algos[a], "in.u32", "out");
    if (r.status == 1 && r.signal == 0) {
      expect_error(&r, 1, "sorting failed: ");
      ASSERT_DIR_UNCHANGED(work_, before);
      continue;
    }
    expect_quiet_success(&r);
    size_t bytes;
    const char *got = read_whole(path_in(work_, "out"), &bytes);
    ASSERT_EQ_U64(bytes, N_KEYS * 4);
    check_sorted_keys(CLSORT_U32, keys, got, N_KEYS, false);
    remove(path_in(work_, "out"));
  }
}


/* ------------------------------------------------- standard streams */
/* The output file of the last run's standard output. */
static const char *last_stdout_path(void) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/out.%u", io_, runs_);
  return path;
}

/* "-" and absent arguments are standard input and output, for the keys
 * and the values; a file named "-" is neither read nor written. */
/* clsort bench --ops: every operation at a small size, each checked
 * against its C reference by the tool (exit 0 only when all verify). */
T_TEST(bench_ops_verify_against_c_references) {
  run_result r = RUN("bench", "--ops", "all", "--sort-sizes", "12", "--types", "u32,f64",
                     "--algorithms", "none", "--primitives", "none", "--peers", "none", "--runs",
                     "1", "--warmup", "1", "--quiet");
  if (r.status != 0)
    ck_abort_msg("%s: clsort bench --ops exited %d: %s", t_where(), r.status, r.err);
  const char *ops[] = {"merge", "top-k-100", "select", "segmented-64", "c-reference"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strstr(r.out, ops[i]))
      ck_abort_msg("%s: no %s row in the bench output:\n%s", t_where(), ops[i], r.out);
}

/* clsort bench --api both,pinned: the sorts of host arrays, pageable and
 * from clsort_host_alloc, each verified by the tool (exit 0 only when all
 * verify) and reported with its own suffix. */
T_TEST(bench_host_and_pinned_arrays_verify) {
  run_result r = RUN("bench", "--api", "both,pinned", "--sort-sizes", "12", "--types", "u32,f64",
                     "--data", "keys,pairs", "--algorithms", "radix,merge", "--primitives", "none",
                     "--peers", "none", "--runs", "1", "--warmup", "1", "--quiet");
  if (r.status != 0)
    ck_abort_msg("%s: clsort bench --api both,pinned exited %d: %s", t_where(), r.status, r.err);
  const char *rows[] = {"radix@host", "radix@pinned", "merge@host", "merge@pinned"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (!strstr(r.out, rows[i]))
      ck_abort_msg("%s: no %s row in the bench output:\n%s", t_where(), rows[i], r.out);
}

T_TEST(dash_means_standard_input_and_output) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  const uint32_t *want = sorted_u32(keys, N_KEYS, false);
  static const char *const forms[][4] = {
      {"-", "-"}, {"-"}, {NULL}, {"--", "-", "-"},
  };
  run_opts o = {NULL, 0, "in.u32", 0, 0};
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    const char *args[8] = {"sort", "--type", "u32", forms[f][0], forms[f][1], forms[f][2], NULL};
    run_result r = run_tool(&o, args);
    expect_status(&r, 0);
    ASSERT_STR_EMPTY(r.err);
    assert_file_is(last_stdout_path(), want, N_KEYS * 4);
    ASSERT_EQ_STR(listing(work_), "in.u32\n");
  }
  /* Standard input to a file; a file to standard output. */
  run_result r = RUN_WITH(&o, "sort", "--type", "u32", "--desc", "-", "x");
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "x"), sorted_u32(keys, N_KEYS, true), N_KEYS * 4);
  r = RUN("sort", "--type", "u32", "in.u32");
  expect_status(&r, 0);
  assert_file_is(last_stdout_path(), want, N_KEYS * 4);
  /* Values from standard input, the keys' file beside; values to
   * standard output. */
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  run_opts ov = {NULL, 0, "vals", 0, 0};
  r = RUN_WITH(&ov, "sort", "--type", "u32", "--stable", "--values", "-", "--values-out", "-",
               "in.u32", "k.out");
  expect_status(&r, 0);
  ASSERT_STR_EMPTY(r.err);
  assert_file_is(path_in(work_, "k.out"), want, N_KEYS * 4);
  assert_file_is(last_stdout_path(), stable_values_u32(keys, N_KEYS), N_KEYS * 4);
  ASSERT_EQ_STR(listing(work_), "in.u32\nk.out\nvals\nx\n");
  /* A malformed stream fails as a file does, and writes nothing. */
  write_whole(path_in(work_, "odd"), "12345", 5);
  run_opts oo = {NULL, 0, "odd", 0, 0};
  r = RUN_WITH(&oo, "sort", "--type", "u32", "-", "y");
  expect_error(&r, 1, "standard input: 5 bytes is not a whole number of u32 keys");
  assert_no_output(work_, "y");
}

/* Binary keys never go to a terminal; text does. */
T_TEST(binary_output_to_a_terminal_is_refused) {
  run_opts o = {NULL, 0, NULL, 1, 0};
  run_result r = RUN_WITH(&o, "sort", "--type", "u32", "in.u32");
  expect_status(&r, 2);
  if (!strstr(r.err, "standard output is a terminal")) ck_abort_msg("%s: stderr \"%s\"", t_where(), r.err);
  ASSERT_STR_EMPTY(r.tty);
  write_whole(path_in(work_, "t.txt"), "3\n1\n2\n", 6);
  r = RUN_WITH(&o, "sort", "--type", "u32", "--text", "t.txt");
  expect_status(&r, 0);
  ASSERT_EQ_STR(r.tty, "1\r\n2\r\n3\r\n"); /* the terminal turns \n into \r\n */
}

/* ------------------------------------------------------------ in place */
/* --in-place writes back to the input (and the values to theirs); a
 * failure leaves both as they were. */
T_TEST(in_place_sorts_back_and_keeps_the_input_on_failure) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4);
  kept_file in = keep("in.u32"), vals = keep("vals");
  t_setenv("CLSORT_FAIL_BUILD", "1");
  run_result r = RUN("sort", "--type", "u32", "--in-place", "--algorithm", "radix", "--values",
                     "vals", "in.u32");
  expect_error(&r, 1, "sorting failed: ");
  t_unsetenv("CLSORT_FAIL_BUILD");
  assert_kept(&in);
  assert_kept(&vals);
  /* A malformed text file sorted in place stays as it was too. */
  static const char bad[] = "5\n4\nfour\n";
  write_whole(path_in(work_, "t.txt"), bad, sizeof bad - 1);
  r = RUN("sort", "--type", "i64", "--text", "--in-place", "t.txt");
  expect_error(&r, 1, "t.txt:3: 'four': not a decimal integer (i64 keys)");
  assert_file_is(path_in(work_, "t.txt"), bad, sizeof bad - 1);
  ASSERT_EQ_STR(listing(work_), "in.u32\nt.txt\nvals\n");
  r = RUN("sort", "--type", "u32", "--in-place", "--stable", "--values", "vals", "in.u32");
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "in.u32"), sorted_u32(keys, N_KEYS, false), N_KEYS * 4);
  assert_file_is(path_in(work_, "vals"), stable_values_u32(keys, N_KEYS), N_KEYS * 4);
  ASSERT_EQ_STR(listing(work_), "in.u32\nt.txt\nvals\n");
}

/* ------------------------------------------------ argsort, bits, values */
/* The permutation, in 8-byte (default) or 4-byte indices, binary or text. */
T_TEST(argsort_writes_the_permutation) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  const uint32_t *want = stable_values_u32(keys, N_KEYS);
  run_result r = RUN("sort", "--type", "u32", "--argsort", "--stable", "in.u32", "p8");
  expect_quiet_success(&r);
  size_t bytes;
  const uint64_t *p8 = (const uint64_t *)(const void *)read_whole(path_in(work_, "p8"), &bytes);
  ASSERT_EQ_U64(bytes, N_KEYS * 8);
  for (size_t i = 0; i < N_KEYS; i++) ASSERT_EQ_U64(p8[i], want[i]);
  r = RUN("sort", "--type", "u32", "--argsort", "--index-size", "4", "--stable", "in.u32", "p4");
  expect_quiet_success(&r);
  assert_file_is(path_in(work_, "p4"), want, N_KEYS * 4);
  /* The keys are left alone. */
  assert_file_is(path_in(work_, "in.u32"), keys, N_KEYS * 4);
  write_whole(path_in(work_, "t.txt"), "30\n-1\n20\n-1\n", 12);
  r = RUN("sort", "--type", "i32", "--text", "--argsort", "--stable", "t.txt");
  expect_status(&r, 0);
  ASSERT_EQ_STR(r.out, "1\n3\n2\n0\n");
  r = RUN("sort", "--type", "i32", "--text", "--argsort", "--stable", "--desc", "t.txt");
  expect_status(&r, 0);
  ASSERT_EQ_STR(r.out, "0\n2\n1\n3\n");
}

/* --bits B:E compares only those bits (stable: ties keep their order). */
T_TEST(bits_compare_only_a_range) {
  static const char in[] = "291\n17\n4660\n1\n273\n";
  write_whole(path_in(work_, "t.txt"), in, sizeof in - 1);
  /* By the low 4 bits: 291 (3), 17 (1), 4660 (4), 1 (1), 273 (1). */
  run_result r = RUN("sort", "--type", "u32", "--text", "--bits", "0:4", "--stable", "t.txt");
  expect_status(&r, 0);
  ASSERT_EQ_STR(r.out, "17\n1\n273\n291\n4660\n");
  /* By bits 4..8: 291 (2), 17 (1), 4660 (3), 1 (0), 273 (1). */
  r = RUN("sort", "--type", "u32", "--text", "--bits=4:8", "--algorithm", "radix", "t.txt");
  expect_status(&r, 0);
  ASSERT_EQ_STR(r.out, "1\n17\n273\n291\n4660\n");
  /* An algorithm that compares whole keys refuses. */
  r = RUN("sort", "--type", "u32", "--text", "--bits", "0:4", "--algorithm", "bitonic", "t.txt");
  expect_error(&r, 1, "sorting failed: ");
}

/* The value size comes from the files' sizes when --value-size is not
 * given; a size that fits neither 4 nor 8 bytes a key is refused. */
T_TEST(value_size_is_inferred_from_the_file_sizes) {
  const uint32_t *keys = u32_keys(N_KEYS, "tool keys");
  for (size_t vs = 4; vs <= 8; vs += 4) {
    write_whole(path_in(work_, "vals"), index_values(vs, N_KEYS), N_KEYS * vs);
    run_result r = RUN("sort", "--type", "u32", "--values", "vals", "in.u32", "out");
    expect_quiet_success(&r);
    size_t kb, vb;
    const char *got = read_whole(path_in(work_, "out"), &kb);
    const char *v = read_whole(path_in(work_, "out.values"), &vb);
    ASSERT_EQ_U64(vb, N_KEYS * vs);
    check_sorted_pairs(CLSORT_U32, keys, got, v, vs, N_KEYS, false);
  }
  write_whole(path_in(work_, "vals"), index_values(4, N_KEYS), N_KEYS * 4 + 2);
  remove(path_in(work_, "out"));
  remove(path_in(work_, "out.values"));
  const char *before = listing(work_);
  run_result r = RUN("sort", "--type", "u32", "--values", "vals", "in.u32", "out");
  expect_error(&r, 1, "vals: 4002 bytes are neither 4 nor 8 bytes for each of the 1000 keys");
  ASSERT_DIR_UNCHANGED(work_, before);
}

/* ----------------------------------------------------------------- text */
/* The expected text of one key, as the tool spells it. */
static void spell(clsort_type t, const void *keys, size_t i, char *buf, size_t cap) {
  uint64_t b = t_get_bits(t, keys, i);
  double v = t_type_is_float(t) ? t_get_f(t, keys, i) : 0.0;
  if (t_type_is_float(t) && isnan(v))
    snprintf(buf, cap, "%s", signbit(v) ? "-nan" : "nan");
  else if (t_type_is_float(t) && isinf(v))
    snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
  else if (t_type_is_float(t))
    snprintf(buf, cap, "%.*g", t == CLSORT_F32 ? 9 : 17, v);
  else if (t == CLSORT_I32)
    snprintf(buf, cap, "%" PRId32, (int32_t)(uint32_t)b);
  else if (t == CLSORT_I64)
    snprintf(buf, cap, "%" PRId64, (int64_t)b);
  else
    snprintf(buf, cap, "%" PRIu64, b);
}

/* Every type, with its extremes and the float spellings (nan, -nan, inf,
 * -inf, -0, subnormals): text in, sorted text out, and every number reads
 * back to the bits that went in. The input uses other spellings where the
 * type allows them (blanks, +, exponents, INF, a missing final newline). */
T_TEST(text_round_trips_every_type) {
  static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32,
                                      CLSORT_U64, CLSORT_I64, CLSORT_F64};
  static const char *const extra[] = {
      "  4294967295\n0\n+7\t\n",
      "-2147483648\n2147483647\n -0 \n+12\r\n",
      "-nan\nnan\nINF\n-inf\n-0\n0\n1e-45\n-3.4028235e38\n0x1p-149\n1.17549435e-38\n",
      "18446744073709551615\n0\n",
      "-9223372036854775808\n9223372036854775807\n",
      /* one literal: clang warns of adjacent ones in an array */
      "-nan\nnan\ninfinity\n-inf\n-0.0\n4.9406564584124654e-324\n-1.7976931348623157e308\n2.2250738585072014e-308\n0.1\n",
  };
  enum { N = 300 };
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    clsort_type t = types[ti];
    size_t es = clsort_type_size(t);
    t_rng rng;
    t_rng_init(&rng, "tool text");
    unsigned char *keys = t_alloc(N * es + 64 * 8);
    if (t_type_is_float(t))
      t_fill_float(&rng, t, keys, N, -1e6, 1e6, 0.0);
    else
      t_fill_int(&rng, t, keys, N);
    /* Random keys in the tool's own spelling, then the extra lines. */
    char *text = t_alloc(N * 40 + 1024);
    size_t len = 0;
    for (size_t i = 0; i < N; i++) {
      spell(t, keys, i, text + len, 40);
      len += strlen(text + len);
      text[len++] = '\n';
    }
    len += (size_t)sprintf(text + len, "%s", extra[ti]);
    text[--len] = '\0'; /* no final newline */
    write_whole(path_in(work_, "in.txt"), text, len);
    const char *name = clsort_type_name(t);
    run_result r = RUN("sort", "--type", name, "--text", "in.txt");
    expect_status(&r, 0);
    ASSERT_STR_EMPTY(r.err);
    /* Parse what came out with the C library, and compare. */
    unsigned char *got = t_alloc(N * es + 64 * 8);
    size_t n = 0;
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      uint64_t bits;
      if (t == CLSORT_F32) {
        float f = strtof(line, NULL);
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
      } else if (t == CLSORT_F64) {
        double d = strtod(line, NULL);
        memcpy(&bits, &d, 8);
      } else if (t == CLSORT_I32 || t == CLSORT_I64) {
        bits = (uint64_t)strtoll(line, NULL, 10);
      } else {
        bits = strtoull(line, NULL, 10);
      }
      char again[64];
      if (es == 4) {
        uint32_t b32 = (uint32_t)bits;
        memcpy(got + n * 4, &b32, 4);
      } else {
        memcpy(got + n * 8, &bits, 8);
      }
      /* Each line is spelled exactly as the tool's rule says. */
      spell(t, got, n, again, sizeof again);
      ASSERT_EQ_STR(line, again);
      n++;
    }
    /* The same multiset as the input (parsed the same way). */
    size_t want_n = 0;
    unsigned char *want = t_alloc(N * es + 64 * 8);
    save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
      uint64_t bits;
      if (t == CLSORT_F32) {
        float f = strtof(line, NULL);
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
      } else if (t == CLSORT_F64) {
        double d = strtod(line, NULL);
        memcpy(&bits, &d, 8);
      } else if (t == CLSORT_I32 || t == CLSORT_I64) {
        bits = (uint64_t)strtoll(line, NULL, 10);
      } else {
        bits = strtoull(line, NULL, 10);
      }
      if (es == 4) {
        uint32_t b32 = (uint32_t)bits;
        memcpy(want + want_n * 4, &b32, 4);
      } else {
        memcpy(want + want_n * 8, &bits, 8);
      }
      want_n++;
    }
    ASSERT_EQ_U64(n, want_n);
    check_sorted_keys(t, want, got, n, false);
  }
}

/* The tool's spelling of a half float: 5 (f16) or 4 (bf16) significant
 * digits, and nan, -nan, inf, -inf, -0. */
static void spell_half(clsort_type t, uint16_t h, char *buf, size_t cap) {
  double v = t_half_to_double(t, h);
  if (isnan(v))
    snprintf(buf, cap, "%s", (h & 0x8000u) ? "-nan" : "nan");
  else if (isinf(v))
    snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
  else
    snprintf(buf, cap, "%.*g", t == CLSORT_F16 ? 5 : 4, v);
}

/* Every bit pattern of f16 and bf16 as text (in the tool's spelling), and
 * every value of i8 and u16: sorted by the tool, each line reads back to
 * the bits that went in (NaNs to the quiet NaN of their sign), spelled as
 * the rule says, in total order. Values out of range are refused. */
T_TEST(text_narrow_types_round_trip_every_value) {
  static const clsort_type types[] = {CLSORT_F16, CLSORT_BF16, CLSORT_I8, CLSORT_U16};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    clsort_type t = types[ti];
    size_t count = (size_t)1 << (8 * clsort_type_size(t)), len = 0;
    char *text = t_alloc(count * 16 + 1);
    unsigned char *want = t_alloc(count * 2), *got = t_alloc(count * 2 + 16);
    for (size_t i = 0; i < count; i++) {
      char line[32];
      if (t_type_is_half(t)) {
        uint16_t h = (uint16_t)i;
        spell_half(t, h, line, sizeof line);
        /* NaNs read back as the quiet NaN of their sign. */
        t_put_bits(t, want, i, t_half_from_double(t, t_half_to_double(t, h)) | (h & 0x8000u));
        if (!isnan(t_half_to_double(t, h))) t_put_bits(t, want, i, h);
      } else {
        t_put_bits(t, want, i, i);
        snprintf(line, sizeof line, "%" PRId64,
                 t == CLSORT_I8 ? (int64_t)(int8_t)(uint8_t)i : (int64_t)i);
      }
      len += (size_t)sprintf(text + len, "%s\n", line);
    }
    write_whole(path_in(work_, "in.txt"), text, len);
    const char *name = clsort_type_name(t);
    t_label("%s: every value through --text", name);
    run_result r = RUN("sort", "--type", name, "--text", "in.txt");
    expect_status(&r, 0);
    size_t n = 0;
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line && n < count;
         line = strtok_r(NULL, "\n", &save)) {
      char again[32];
      if (t_type_is_half(t)) {
        uint16_t h = t_half_from_double(t, strtod(line, NULL));
        if (isnan(t_half_to_double(t, h)) && line[0] == '-') h |= 0x8000u;
        t_put_bits(t, got, n, h);
        spell_half(t, h, again, sizeof again);
      } else {
        long long v = strtoll(line, NULL, 10);
        t_put_bits(t, got, n, (uint64_t)v);
        snprintf(again, sizeof again, "%lld", v);
      }
      ASSERT_EQ_STR(line, again);
      n++;
    }
    ASSERT_EQ_U64(n, count);
    check_sorted_keys(t, want, got, n, false);
  }
  static const char *const bad[][3] = {
      {"i8", "128", "out of range"},   {"i8", "-129", "out of range"},
      {"u8", "-1", "negative"},        {"u16", "65536", "out of range"},
      {"i16", "32768", "out of range"}, {"f16", "65520", "out of range"},
      {"bf16", "1e39", "out of range"}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    write_whole(path_in(work_, "in.txt"), bad[k][1], strlen(bad[k][1]));
    t_label("%s %s refused", bad[k][0], bad[k][1]);
    run_result r = RUN("sort", "--type", bad[k][0], "--text", "in.txt");
    ASSERT_TRUE(r.status != 0);
    ASSERT_TRUE(strstr(r.err, bad[k][2]) != NULL);
  }
}

/* A malformed line stops the sort with its name and line number; nothing
 * is written. */
T_TEST(text_errors_name_the_line) {
  static const struct {
    const char *type, *text, *says;
  } cases[] = {
      {"u32", "1\n2\n\n3\n", "in.txt:3: empty line; --text reads one number a line"},
      {"u32", "1\n4294967296\n", "in.txt:2: '4294967296': out of range (u32 keys)"},
      {"u32", "-1\n", "in.txt:1: '-1': negative, for an unsigned type (u32 keys)"},
      {"u64", "18446744073709551616\n", "in.txt:1: '18446744073709551616': out of range (u64 keys)"},
      {"i32", "1\n2\n2147483648\n", "in.txt:3: '2147483648': out of range (i32 keys)"},
      {"i64", "1.5\n", "in.txt:1: '1.5': not a decimal integer (i64 keys)"},
      {"i32", "0x10\n", "in.txt:1: '0x10': not a decimal integer (i32 keys)"},
      {"f32", "1\n3.5e38\n", "in.txt:2: '3.5e38': out of range (f32 keys)"},
      {"f64", "1e999\n", "in.txt:1: '1e999': out of range (f64 keys)"},
      {"f64", "1.0.0\n", "in.txt:1: '1.0.0': not a number (f64 keys)"},
      {"f32", "abc\n", "in.txt:1: 'abc': not a number (f32 keys)"},
      {"u32", "1 2\n", "in.txt:1: '1 2': not a decimal integer (u32 keys)"},
      {"u32", "1\n2\0\n", "in.txt:2: a NUL byte: is the input binary? (then drop --text)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len = strlen(cases[i].text);
    if (i == sizeof cases / sizeof cases[0] - 1) len = 5;
    write_whole(path_in(work_, "in.txt"), cases[i].text, len);
    const char *before = listing(work_);
    run_result r = RUN("sort", "--type", cases[i].type, "--text", "in.txt", "out.txt");
    expect_error(&r, 1, cases[i].says);
    ASSERT_DIR_UNCHANGED(work_, before);
  }
  /* From standard input the name says so. */
  write_whole(path_in(work_, "in.txt"), "1\nx\n", 4);
  run_opts o = {NULL, 0, "in.txt", 0, 0};
  run_result r = RUN_WITH(&o, "sort", "--type", "f64", "--text");
  expect_error(&r, 1, "standard input:2: 'x': not a number (f64 keys)");
  /* Empty input: empty output. */
  write_whole(path_in(work_, "in.txt"), "", 0);
  r = RUN_WITH(&o, "sort", "--type", "f64", "--text");
  expect_status(&r, 0);
  ASSERT_STR_EMPTY(r.out);
}

/* ------------------------------------------------------------- progress */
/* Progress goes to stderr when it is a terminal and the input is large
 * enough (CLSORT_PROGRESS_BYTES lowers the 1 GiB threshold for the test);
 * never to a stderr that is not a terminal. */
T_TEST(progress_only_on_a_terminal) {
  t_setenv("CLSORT_PROGRESS_BYTES", "1000");
  run_result r = RUN("sort", "--type", "u32", "in.u32", "out");
  expect_quiet_success(&r);
  run_opts o = {NULL, 0, NULL, 0, 1};
  r = RUN_WITH(&o, "sort", "--type", "u32", "in.u32", "out");
  expect_status(&r, 0);
  if (!strstr(r.tty, "clsort sort: reading in.u32: 100% of") || !strstr(r.tty, "sorting") ||
      !strstr(r.tty, "writing out: 100%"))
    ck_abort_msg("%s: no progress on the terminal: \"%s\"", t_where(), r.tty);
  /* Below the threshold: nothing, even on a terminal. */
  t_setenv("CLSORT_PROGRESS_BYTES", "4001");
  r = RUN_WITH(&o, "sort", "--type", "u32", "in.u32", "out");
  expect_status(&r, 0);
  if (strstr(r.tty, "clsort sort:")) ck_abort_msg("%s: progress below the threshold: \"%s\"", t_where(), r.tty);
}

/* ------------------------------------------------- builds and the cache */
/* Fresh, empty kernel caches for the tool (both libclsort's and PoCL's). */
static void fresh_caches(const char *tag) {
  char name[64];
  snprintf(name, sizeof name, "%s-clsort", tag);
  t_setenv("CLSORT_CACHE_DIR", t_temp_dir(name));
  snprintf(name, sizeof name, "%s-pocl", tag);
  t_setenv("POCL_CACHE_DIR", t_temp_dir(name));
}

/* Whether the tool's device is a CPU (PoCL): there a build from empty
 * caches takes seconds, long enough for the notice on any machine; a GPU
 * driver may build in less than the notice's half second. */
static bool tool_device_is_cpu(void) {
  clsort_context *c = NULL;
  ASSERT_OK(t_context_create(&c));
  cl_device_type type = 0;
  ASSERT_CL(clGetDeviceInfo(clsort_context_device(c), CL_DEVICE_TYPE, sizeof type, &type, NULL));
  clsort_context_release(c);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* With empty caches the first sort says once that it compiles, and where
 * the kernels go; the next process finds them and says nothing. */
T_TEST(build_notice_once_then_never_with_a_warm_cache) {
  fresh_caches("notice");
  run_result r = RUN("sort", "--type", "i32", "--text", "--desc", "in.u32", "out");
  /* Binary read as text fails before any build: at a NUL byte, or at
   * whatever else the random keys hold first (an empty line, a letter). */
  expect_error(&r, 1, "in.u32:");
  ASSERT_EQ_U64(r.notices, 0);
  char out[4200], err[4200];
  pid_t pid = start_tool(
      NULL, (const char *const[]){"sort", "--type", "i32", "--desc", "in.u32", "out", NULL}, out,
      err);
  r = finish_tool(pid, out, err);
  expect_status(&r, 0);
  bool cpu = tool_device_is_cpu();
  ASSERT_TRUE(r.notices <= 1);
  if (cpu) ASSERT_EQ_U64(r.notices, 1);
  ASSERT_STR_EMPTY(r.err);
  /* It names the device and the cache folder: the library's, or on PoCL
   * PoCL's own, which the library leaves the caching to. */
  const char *text = read_whole(err, NULL);
  if (r.notices && (!strstr(text, ", once; cached in ") ||
                    (!strstr(text, "notice-clsort") && !strstr(text, "notice-pocl"))))
    ck_abort_msg("%s: the notice does not name the cache: \"%s\"", t_where(), text);
  r = RUN("sort", "--type", "i32", "--desc", "in.u32", "out");
  expect_quiet_success(&r);
  ASSERT_EQ_U64(r.notices, 0);
  /* Without the disk cache it says so, when the build is slow: from
   * empty driver caches too. */
  fresh_caches("notice-off");
  t_setenv("CLSORT_CACHE", "0");
  pid = start_tool(NULL, (const char *const[]){"sort", "--type", "i32", "in.u32", "out", NULL}, out,
                   err);
  r = finish_tool(pid, out, err);
  expect_status(&r, 0);
  ASSERT_TRUE(r.notices <= 1);
  if (cpu) ASSERT_EQ_U64(r.notices, 1);
  text = read_whole(err, NULL);
  if (r.notices && !strstr(text, "; not cached: CLSORT_CACHE=0\n"))
    ck_abort_msg("%s: the notice does not say the cache is off: \"%s\"", t_where(), text);
}

/* Regular files under `dir`, at any depth, but for the empty probe file
 * (tempfile_*) that PoCL leaves in its cache folder when it starts. */
static size_t files_under(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t count = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      count += files_under(path);
    else if (S_ISREG(st.st_mode) && strncmp(e->d_name, "tempfile_", 9) != 0)
      count++;
  }
  closedir(d);
  return count;
}

/* The tool builds the kernels of its own call and no others: a sort of no
 * keys compiles nothing (it used to build every size class of every
 * algorithm AUTO may pick), and a sort that follows one of the same
 * size and options in a new process compiles nothing either. */
T_TEST(sort_builds_only_what_its_call_uses) {
  fresh_caches("own-call");
  write_whole(path_in(work_, "none.u32"), "", 0);
  run_result r = RUN("sort", "--type", "u32", "none.u32", "out");
  expect_quiet_success(&r);
  ASSERT_EQ_U64(r.notices, 0);
  size_t out_bytes = 1;
  read_whole(path_in(work_, "out"), &out_bytes);
  ASSERT_EQ_U64(out_bytes, 0);
  ASSERT_EQ_U64(files_under(getenv("CLSORT_CACHE_DIR")), 0);
  ASSERT_EQ_U64(files_under(getenv("POCL_CACHE_DIR")), 0);
  r = RUN("sort", "--type", "u32", "--algorithm", "merge", "--stable", "in.u32", "out");
  expect_status(&r, 0);
  check_sorted_keys(CLSORT_U32, u32_keys(N_KEYS, "tool keys"),
                    read_whole(path_in(work_, "out"), NULL), N_KEYS, false);
  ASSERT_TRUE(files_under(getenv("CLSORT_CACHE_DIR")) + files_under(getenv("POCL_CACHE_DIR")) > 0);
  r = RUN("sort", "--type", "u32", "--algorithm", "merge", "--stable", "in.u32", "out");
  expect_quiet_success(&r);
  ASSERT_EQ_U64(r.notices, 0);
}

/* clsort prepare fills the cache for what it is told, after which a new
 * process sorts without compiling. */
T_TEST(prepare_fills_the_cache_for_later_processes) {
  fresh_caches("prepare");
  run_result r = RUN("prepare", "--types", "u32", "--algorithms", "radix", "--data", "keys",
                     "--primitives", "none");
  expect_status(&r, 0);
  if (!strstr(r.err, "[1] sort u32 keys, radix ... "))
    ck_abort_msg("%s: no progress line for the item: \"%s\"", t_where(), r.err);
  if (!strstr(r.out, "clsort prepare: 1 item in ") || !strstr(r.out, "1 prepared, 0 skipped, 0 failed") ||
      (!strstr(r.out, "prepare-clsort") && !strstr(r.out, "prepare-pocl")))
    ck_abort_msg("%s: no summary naming the items and the cache: \"%s\"", t_where(), r.out);
  r = RUN("sort", "--type", "u32", "--algorithm", "radix", "in.u32", "out");
  expect_quiet_success(&r);
  ASSERT_EQ_U64(r.notices, 0);
  check_sorted_keys(CLSORT_U32, u32_keys(N_KEYS, "tool keys"),
                    read_whole(path_in(work_, "out"), NULL), N_KEYS, false);
  /* An unknown device: status 1, a reason, nothing on stdout. */
  r = RUN("prepare", "--device", "no-such-device-xyz", "--primitives", "none");
  expect_error(&r, 1, "cannot open device 'no-such-device-xyz'");
}

/* --verbose reports the build and the sort apart: the sort's rate leaves
 * the build out. */
T_TEST(verbose_names_build_and_sort_times_apart) {
  run_result r = RUN("sort", "--type", "u32", "--verbose", "in.u32", "out");
  expect_status(&r, 0);
  if (!strstr(r.err, "clsort sort: build: ") || !strstr(r.err, "clsort sort: sort: ") ||
      !strstr(r.err, "build excluded") || !strstr(r.err, "clsort sort: device: "))
    ck_abort_msg("%s: --verbose does not give both times: \"%s\"", t_where(), r.err);
  ASSERT_STR_EMPTY(r.out);
}

static void add(Suite *s, unsigned tiers) {
  if (!(tiers & T_QUICK)) return;
  TCase *tc = tcase_create("tool");
  tcase_add_checked_fixture(tc, tool_setup, t_teardown);
  suite_add_tcase(s, tc);
  tcase_add_test(tc, help_for_every_command_goes_to_stdout);
  tcase_add_test(tc, sort_builds_only_what_its_call_uses);
  tcase_add_test(tc, bad_command_lines_exit_2);
  tcase_add_test(tc, missing_input_file_fails);
  tcase_add_test(tc, size_not_a_multiple_of_the_key_size_fails);
  tcase_add_test(tc, values_that_do_not_match_the_keys_fail);
  tcase_add_test(tc, input_larger_than_host_memory_fails_clearly);
  tcase_add_test(tc, input_larger_than_the_memory_limit_sorts_out_of_core);
  tcase_add_test(tc, unknown_device_fails);
  tcase_add_test(tc, read_only_output_directory_fails);
  tcase_add_test(tc, write_protected_output_is_refused);
  tcase_add_test(tc, missing_output_directory_fails);
  tcase_add_test(tc, output_that_is_a_directory_fails_before_sorting);
  tcase_add_test(tc, report_of_a_missing_file_prints_nothing);
  tcase_add_test(tc, failed_sort_keeps_existing_outputs);
  tcase_add_test(tc, failed_write_leaves_no_partial_output);
  tcase_add_test(tc, interrupted_sort_leaves_no_temporary_file);
  tcase_add_test(tc, values_out_rename_failure_keeps_both_originals);
  tcase_add_test(tc, failed_rollback_keeps_the_original_under_the_name_it_gives);
  tcase_add_test(tc, in_place_sort_keeps_mode_and_owner);
  tcase_add_test(tc, symlink_output_stays_a_symlink_and_its_target_gets_the_data);
  tcase_add_test(tc, fifo_output_is_written_through_not_replaced);
  tcase_add_test(tc, fifo_inputs_are_read_as_streams);
  tcase_add_test(tc, fifo_reader_that_leaves_keeps_the_other_original);
  tcase_add_test(tc, dev_null_output_is_written_through_not_replaced);
  tcase_add_test(tc, failing_device_output_keeps_the_other_original);
  tcase_add_test(tc, keys_and_values_to_one_file_under_two_spellings_are_refused);
  tcase_add_test(tc, stdout_through_a_proc_link_gets_the_keys);
  tcase_add_test(tc, sorts_u32_descending_with_values);
  tcase_add_test(tc, sorts_f64_descending_with_values);
  tcase_add_test(tc, replaces_an_existing_output_and_sorts_empty_input);
  tcase_add_test(tc, every_algorithm_sorts_or_refuses_cleanly);
  tcase_add_test(tc, bench_ops_verify_against_c_references);
  tcase_add_test(tc, bench_host_and_pinned_arrays_verify);
  tcase_add_test(tc, dash_means_standard_input_and_output);
  tcase_add_test(tc, binary_output_to_a_terminal_is_refused);
  tcase_add_test(tc, in_place_sorts_back_and_keeps_the_input_on_failure);
  tcase_add_test(tc, argsort_writes_the_permutation);
  tcase_add_test(tc, bits_compare_only_a_range);
  tcase_add_test(tc, value_size_is_inferred_from_the_file_sizes);
  tcase_add_test(tc, text_round_trips_every_type);
  tcase_add_test(tc, text_narrow_types_round_trip_every_value);
  tcase_add_test(tc, text_errors_name_the_line);
  tcase_add_test(tc, progress_only_on_a_terminal);
  tcase_add_test(tc, build_notice_once_then_never_with_a_warm_cache);
  tcase_add_test(tc, prepare_fills_the_cache_for_later_processes);
  tcase_add_test(tc, verbose_names_build_and_sort_times_apart);
}

int main(int argc, char **argv) { return t_main(argc, argv, "tool", add); }
