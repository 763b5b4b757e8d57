/* peers_proc.c: the peers that run as separate programs (clsort-cub-peer,
 * clsort-boost-peer): finding them, running them with this run's cases and
 * reading back their JSON lines. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const peer_names[PEER_COUNT_] = {"c-loop", "qsort", "serial-radix", "cub",
                                                    "boost-compute", "cpu-sorts", "numpy"};

/* The program (or script) of each subprocess peer, and the variable that
 * names its path instead. */
static const char *const peer_files[PEER_COUNT_] = {
    NULL, NULL, NULL, "clsort-cub-peer", "clsort-boost-peer", "clsort-cpu-peer",
    "clsort-numpy-peer.py"};
static const char *const peer_envs[PEER_COUNT_] = {
    NULL, NULL, NULL, "CLSORT_CUB_PEER", "CLSORT_BOOST_PEER", "CLSORT_CPU_PEER",
    "CLSORT_NUMPY_PEER"};

const char *peer_env(peer_kind p) {
  return (unsigned)p < PEER_COUNT_ && peer_envs[p] ? peer_envs[p] : "?";
}

const char *peer_name(peer_kind p) { return (unsigned)p < PEER_COUNT_ ? peer_names[p] : "?"; }

static char program_dir[4096];

void bench_set_argv0(const char *argv0) {
  /* /proc/self/exe survives being started through PATH or a symlink;
   * argv[0] is the fallback elsewhere. */
  char path[4096];
  ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
  if (len > 0) {
    path[len] = '\0';
  } else if (argv0 && strchr(argv0, '/')) {
    snprintf(path, sizeof path, "%s", argv0);
  } else {
    return;
  }
  char *slash = strrchr(path, '/');
  if (!slash) return;
  *slash = '\0';
  snprintf(program_dir, sizeof program_dir, "%s", path[0] ? path : "/");
}

static int executable(const char *path) { return access(path, X_OK) == 0; }
static int readable(const char *path) { return access(path, R_OK) == 0; }

int peer_executable(peer_kind p, char *path, size_t cap) {
  if ((unsigned)p >= PEER_COUNT_ || !peer_files[p]) return 0;
  const char *file = peer_files[p];
  const char *env = getenv(peer_envs[p]);
  /* The numpy peer is a script, run by numpy_python: it need only be
   * readable. */
  int (*usable)(const char *) = executable;
  if (p == PEER_NUMPY) usable = readable;
  if (env && *env) {
    snprintf(path, cap, "%s", env);
    return usable(path);
  }
  /* Installed, the peers live in libexec/clsort, found from clsort's own
   * folder first (so that a copied or DESTDIR tree finds its own), then at
   * the configured prefix; in a build tree clsort is cli/clsort and the
   * peers are built in bench/. */
  if (program_dir[0]) {
#ifdef CLSORT_PEER_DIR_FROM_BIN
    snprintf(path, cap, "%s/%s/%s", program_dir, CLSORT_PEER_DIR_FROM_BIN, file);
    if (usable(path)) return 1;
#endif
    snprintf(path, cap, "%s/../bench/%s", program_dir, file);
    if (usable(path)) return 1;
  }
#ifdef CLSORT_PEER_DIR
  snprintf(path, cap, "%s/%s", CLSORT_PEER_DIR, file);
  if (usable(path)) return 1;
#endif
  const char *search = getenv("PATH");
  while (search && *search) {
    const char *colon = strchr(search, ':');
    size_t len = colon ? (size_t)(colon - search) : strlen(search);
    if (len > 0 && len < cap) {
      snprintf(path, cap, "%.*s/%s", (int)len, search, file);
      if (usable(path)) return 1;
    }
    search += len + (colon ? 1 : 0);
  }
  return 0;
}

int numpy_python(char *path, size_t cap) {
  const char *env = getenv("CLSORT_NUMPY_PYTHON");
  if (env && *env) {
    snprintf(path, cap, "%s", env);
    return executable(path);
  }
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && *xdg)
    snprintf(path, cap, "%s/clsort/numpy-venv/bin/python", xdg);
  else
    snprintf(path, cap, "%s/.cache/clsort/numpy-venv/bin/python", home && *home ? home : "/tmp");
  return executable(path);
}

/* ------------------------------------------------------------- arguments */
typedef struct arg_list {
  char *argv[64];
  int argc;
  char storage[8192];
  size_t used;
} arg_list;

static void add_arg(arg_list *a, const char *text) {
  size_t len = strlen(text) + 1;
  if (a->argc >= 62 || a->used + len > sizeof a->storage) return; /* lists are short */
  memcpy(a->storage + a->used, text, len);
  a->argv[a->argc++] = a->storage + a->used;
  a->argv[a->argc] = NULL;
  a->used += len;
}

static void add_opt(arg_list *a, const char *name, const char *value) {
  add_arg(a, name);
  add_arg(a, value);
}

/* Sizes as "2^k" or plain counts; plain counts up to 40 would read as
 * exponents, so those few are left out. */
static void size_list(char *buf, size_t cap, const uint64_t *sizes, size_t count) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    int lg = log2_exact(sizes[i]);
    char item[32];
    if (lg >= 0) {
      snprintf(item, sizeof item, "2^%d", lg);
    } else if (sizes[i] > 40) {
      snprintf(item, sizeof item, "%llu", (unsigned long long)sizes[i]);
    } else {
      continue;
    }
    int w = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", item);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
}

static void common_args(const bench_state *s, arg_list *a) {
  const bench_config *cfg = s->cfg;
  char buf[1024];
  snprintf(buf, sizeof buf, "%u", cfg->runs);
  add_opt(a, "--runs", buf);
  snprintf(buf, sizeof buf, "%u", cfg->warmup);
  add_opt(a, "--warmup", buf);
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)cfg->seed);
  add_opt(a, "--seed", buf);
  snprintf(buf, sizeof buf, "%g", cfg->max_case_seconds);
  add_opt(a, "--max-case-seconds", buf);
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < DIST_COUNT_; d++) {
    if (!(cfg->distributions & (1u << d))) continue;
    int w = snprintf(buf + used, sizeof buf - used, "%s%s", used ? "," : "", gen_dist_name((gen_dist)d));
    if (w > 0 && (size_t)w < sizeof buf - used) used += (size_t)w;
  }
  add_opt(a, "--distributions", buf);
  size_list(buf, sizeof buf, cfg->sort_sizes, cfg->num_sort_sizes);
  add_opt(a, "--sort-sizes", buf);
  if (!cfg->verify) add_arg(a, "--no-verify");
}

/* Returns 0 when there is nothing for the CUB peer to do. */
static int cub_args(const bench_state *s, arg_list *a) {
  const bench_config *cfg = s->cfg;
  char buf[1024];
  char ops[64] = "";
  if (cfg->primitives & (1u << PRIM_SCAN_EXCLUSIVE)) strcat(ops, "scan,");
  if (cfg->primitives & (1u << PRIM_COMPACT)) strcat(ops, "select,");
  if (cfg->algorithms) strcat(ops, "radix,merge,");
  /* Beside the library's host-array sorts: CUB's radix sort of a pageable
   * array with cudaMemcpy each way (cub-radix@host), issue 17's peer. */
  if (cfg->algorithms && (cfg->apis & API_HOST)) strcat(ops, "radix-host,");
  /* DeviceSegmentedSort beside clsort bench --ops segmented (same ops). */
  if (cfg->ops & (1u << OPS_SEGMENTED)) strcat(ops, "segmented,");
  if (!ops[0]) return 0;
  ops[strlen(ops) - 1] = '\0';
  char types[32] = "";
  if (cfg->types & (1u << KT_U32)) strcat(types, "u32,");
  if (cfg->types & (1u << KT_U64)) strcat(types, "u64,");
  if (!types[0]) return 0;
  types[strlen(types) - 1] = '\0';
  common_args(s, a);
  add_opt(a, "--ops", ops);
  add_opt(a, "--types", types);
  unsigned data = cfg->data ? cfg->data : DATA_KEYS;
  if (cfg->value_size == 8 && (data & DATA_PAIRS)) add_opt(a, "--value-size", "8");
  add_opt(a, "--data",
          (data & DATA_KEYS) && (data & DATA_PAIRS) ? "keys,pairs"
          : (data & DATA_PAIRS)                     ? "pairs"
                                                    : "keys");
  /* No primitive sizes (an --experiment's sorts only): the peer's own
   * default stands, unused. */
  if (cfg->num_sizes) {
    size_list(buf, sizeof buf, cfg->sizes, cfg->num_sizes);
    add_opt(a, "--sizes", buf);
  }
  snprintf(buf, sizeof buf, "%g", cfg->keep);
  add_opt(a, "--keep", buf);
  if (cfg->descending) add_arg(a, "--descending");
  if (cfg->stable) add_arg(a, "--stable");
  return 1;
}

static int boost_args(const bench_state *s, arg_list *a) {
  const bench_config *cfg = s->cfg;
  char buf[32];
  if (!cfg->algorithms || !(cfg->types & (1u << KT_U32)) || !(cfg->data & DATA_KEYS)) return 0;
  if (cfg->descending) {
    fprintf(stderr, "note: boost-compute: skipped, it is run for ascending u32 keys only\n");
    return 0;
  }
  common_args(s, a);
  snprintf(buf, sizeof buf, "%u", s->platform_index);
  add_opt(a, "--platform", buf);
  snprintf(buf, sizeof buf, "%u", s->device_index);
  add_opt(a, "--device", buf);
  return 1;
}

/* The key types of the run, as a list ("u32,u64"). */
static void type_list(const bench_config *cfg, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int t = 0; t < KT_COUNT_; t++) {
    if (!(cfg->types & (1u << t))) continue;
    int w = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", kt_name((key_type)t));
    if (w > 0 && (size_t)w < cap - used) used += (size_t)w;
  }
}

/* Returns 0 when there is nothing for a host sort peer (cpu-sorts,
 * numpy) to do: they sort keys ascending. */
static int host_sorts_wanted(const bench_config *cfg, peer_kind p) {
  if (!cfg->algorithms || !(cfg->data & DATA_KEYS)) return 0;
  if (cfg->descending) {
    fprintf(stderr, "note: %s: skipped, it is run for ascending keys only\n", peer_name(p));
    return 0;
  }
  return 1;
}

static int cpu_args(const bench_state *s, arg_list *a) {
  char buf[256];
  if (!host_sorts_wanted(s->cfg, PEER_CPU)) return 0;
  common_args(s, a);
  /* The parallel sorts get as many threads as the device has compute
   * units: the same cores. */
  snprintf(buf, sizeof buf, "%u", s->compute_units);
  add_opt(a, "--threads", buf);
  type_list(s->cfg, buf, sizeof buf);
  add_opt(a, "--types", buf);
  add_opt(a, "--device", s->device_name);
  return 1;
}

/* -------------------------------------------------------------- running */
/* Folds one JSON line of a peer into this run. */
static void take_line(bench_state *s, const char *line) {
  bench_record rec;
  if (!record_parse_json(line, &rec)) {
    fprintf(stderr, "warning: ignoring a malformed line from a peer: %s", line);
    return;
  }
  snprintf(rec.run, sizeof rec.run, "%s", s->run_id);
  snprintf(rec.impl, sizeof rec.impl, "peer");
  if (strcmp(rec.status, "ok") != 0 && strcmp(rec.status, "failed") != 0) {
    if (rec.note[0]) fprintf(stderr, "note: %s: %s %s\n", rec.algorithm, rec.status, rec.note);
    report_json_only(s, &rec);
    return;
  }
  if (rec.verified == REC_VERIFY_FAILED) {
    s->failures++;
    fprintf(stderr, "VERIFY FAILED: %s %s %s n=%llu: %s\n", rec.algorithm, rec.op, rec.type,
            (unsigned long long)rec.n, rec.note);
  }
  report_set_ratio(s, &rec);
  report_record(s, &rec);
}

/* Runs one peer program, writing `bytes` of `input` (if any) to its
 * standard input; returns 1 when it ran and exited cleanly. */
static int run_peer(bench_state *s, const char *path, arg_list *a, const void *input,
                    size_t bytes) {
  int fds[2], in_fds[2] = {-1, -1};
  if (pipe(fds) != 0 || (input && pipe(in_fds) != 0)) {
    fprintf(stderr, "error: pipe: %s\n", strerror(errno));
    return 0;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "error: fork: %s\n", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return 0;
  }
  if (pid == 0) {
    /* The child's stdout is the pipe; its stderr (progress, notes) is ours. */
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (input) {
      dup2(in_fds[0], STDIN_FILENO);
      close(in_fds[0]);
      close(in_fds[1]);
    }
    execv(path, a->argv);
    fprintf(stderr, "error: cannot run %s: %s\n", path, strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  if (input) {
    /* The peer reads all of its input before it writes anything. */
    close(in_fds[0]);
    const unsigned char *p = input;
    while (bytes > 0) {
      ssize_t w = write(in_fds[1], p, bytes);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      p += w;
      bytes -= (size_t)w;
    }
    close(in_fds[1]);
  }
  FILE *in = fdopen(fds[0], "r");
  char *line = NULL;
  size_t cap = 0;
  while (in && getline(&line, &cap, in) > 0) {
    if (line[0] == '{') take_line(s, line);
  }
  free(line);
  if (in) {
    fclose(in);
  } else {
    close(fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "error: %s exited with status %d\n", path,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
  }
  return 1;
}

/* numpy.sort of every keys case of the run: one run of the script per
 * case, fed the case's keys (generated again, with the same seed). */
static int run_numpy(bench_state *s, const char *script) {
  const bench_config *cfg = s->cfg;
  char python[4096];
  if (!numpy_python(python, sizeof python)) {
    fprintf(stderr,
            "note: numpy: skipped, no python with numpy >= 2 at %s (scripts/install-deps "
            "--numpy makes one; CLSORT_NUMPY_PYTHON names another)\n",
            python);
    return 1;
  }
  if (!host_sorts_wanted(cfg, PEER_NUMPY)) return 1;
  int ok = 1;
  for (int t = 0; t < KT_COUNT_ && ok; t++) {
    if (!(cfg->types & (1u << t))) continue;
    /* numpy has no bfloat16, and sorts float16 by value (NaNs last, -0 ==
     * +0), not by libclsort's total order: no peer for the half floats. */
    if (kt_is_half((key_type)t)) continue;
    for (int d = 0; d < DIST_COUNT_ && ok; d++) {
      if (!(cfg->distributions & (1u << d))) continue;
      for (size_t i = 0; i < cfg->num_sort_sizes && ok; i++) {
        uint64_t n = cfg->sort_sizes[i];
        size_t bytes = (size_t)n * kt_size((key_type)t);
        void *keys = fits_host(3.0 * (double)bytes) ? malloc(bytes + 1) : NULL;
        if (!keys) {
          fprintf(stderr, "note: numpy: skipped for n >= %llu: out of host memory\n",
                  (unsigned long long)n);
          break;
        }
        gen_keys((key_type)t, (gen_dist)d, keys, n,
                 gen_case_seed(cfg->seed, "sort", (key_type)t, d, n));
        arg_list a;
        memset(&a, 0, sizeof a);
        char buf[64];
        add_arg(&a, python);
        add_arg(&a, script);
        add_opt(&a, "--type", kt_name((key_type)t));
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
        add_opt(&a, "--n", buf);
        add_opt(&a, "--distribution", gen_dist_name((gen_dist)d));
        snprintf(buf, sizeof buf, "%u", cfg->runs);
        add_opt(&a, "--runs", buf);
        snprintf(buf, sizeof buf, "%u", cfg->warmup);
        add_opt(&a, "--warmup", buf);
        snprintf(buf, sizeof buf, "%g", cfg->max_case_seconds);
        add_opt(&a, "--max-case-seconds", buf);
        add_opt(&a, "--device", s->device_name);
        if (!cfg->verify) add_arg(&a, "--no-verify");
        ok = run_peer(s, python, &a, keys, bytes);
        free(keys);
      }
    }
  }
  return ok;
}

int bench_subprocess_peers(bench_state *s) {
  const bench_config *cfg = s->cfg;
  int ok = 1;
  static const peer_kind kinds[] = {PEER_CUB, PEER_BOOST, PEER_CPU, PEER_NUMPY};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    peer_kind p = kinds[i];
    if (!(cfg->peers & (1u << p))) continue;
    char path[4096];
    if (!peer_executable(p, path, sizeof path)) {
      /* Named explicitly: the caller wanted this comparison. */
      if (cfg->peers_required & (1u << p)) {
        fprintf(stderr, "error: peer %s not found (build it, or set %s)\n", peer_name(p),
                peer_env(p));
        ok = 0;
      }
      continue;
    }
    if (p == PEER_NUMPY) {
      if (!run_numpy(s, path)) {
        s->errors++;
        ok = 0;
      }
      continue;
    }
    /* CUB measures a CUDA GPU: beside another device it compares nothing,
     * and without one it cannot start. Asked for by name, it still runs. */
    if (p == PEER_CUB && !(cfg->peers_required & (1u << p)) && !strstr(s->device_name, "NVIDIA")) {
      fprintf(stderr, "note: cub: skipped, the device is not an NVIDIA GPU\n");
      continue;
    }
    arg_list a;
    memset(&a, 0, sizeof a);
    add_arg(&a, path);
    int wanted = p == PEER_CUB ? cub_args(s, &a) : p == PEER_BOOST ? boost_args(s, &a)
                                                                      : cpu_args(s, &a);
    if (!wanted) continue;
    fprintf(stderr, "running peer: %s\n", path);
    if (!run_peer(s, path, &a, NULL, 0)) {
      s->errors++;
      ok = 0;
    }
  }
  return ok;
}
