// cpu_peer.cpp: clsort-cpu-peer, the CPU sorts that `clsort bench --peers
// cpu-sorts` runs as a subprocess beside libclsort on a CPU device, on the
// same generated keys with the same checks, one JSON line per measurement:
//   std-sort             std::sort, one thread
//   spreadsort           boost::sort::spreadsort (integers), one thread
//   block-indirect-sort  boost::sort::block_indirect_sort, --threads threads
//   sample-sort          boost::sort::sample_sort, --threads threads
// Floats are compared by libclsort's total order of their bits (spreadsort
// is left out for them). Keys only; wall time of the sort call alone.
// Beside them, the physical reference of each case: memcpy of the keys on
// one thread and on --threads threads (op "copy", gb_per_s counting the
// bytes read and written). Without Boost's headers (the GPU host has none)
// only std::sort and the copies are offered.
#if __has_include(<boost/sort/sort.hpp>)
#include <boost/sort/sort.hpp>
#define HAVE_BOOST_SORT 1
#else
#define HAVE_BOOST_SORT 0
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gen.h"
#include "keys.h"
#include "parse.h"
#include "record.h"
#include "stats.h"
#include "verify.h"

namespace {

const char usage[] =
    "usage: clsort-cpu-peer [options]\n"
    "\n"
    "std::sort and Boost.Sort's sorts of keys in clsort bench's JSON-lines\n"
    "format (stdout); normally run by 'clsort bench --peers cpu-sorts'.\n"
    "\n"
    "  --threads N           threads of the parallel sorts (default 2)\n"
    "  --algorithms LIST     std-sort,spreadsort,block-indirect-sort,sample-sort\n"
    "                        (default all)\n"
    "  --types LIST          u32,i32,f32,u64,i64,f64 (default u32,u64)\n"
    "  --sort-sizes LIST     sizes (default 16-24)\n"
    "  --distributions LIST  as clsort bench (default uniform)\n"
    "  --runs N              timed runs per case (default 10)\n"
    "  --warmup N            untimed runs first (default 2)\n"
    "  --max-case-seconds S  stop a case after S s of timed runs, once it has 3\n"
    "  --seed S              base seed (default 1), as clsort bench\n"
    "  --device NAME         the device name to put in the records\n"
    "  --no-verify           skip the output checks\n"
    "Ascending order only.\n";

enum Algo { STD_SORT, SPREADSORT, BLOCK_INDIRECT, SAMPLE_SORT, ALGO_COUNT };
const char *const algo_names[ALGO_COUNT] = {"std-sort", "spreadsort", "block-indirect-sort",
                                            "sample-sort"};

struct Options {
  unsigned threads = 2;
  unsigned algos = (1u << ALGO_COUNT) - 1;
  unsigned types = (1u << KT_U32) | (1u << KT_U64);
  std::vector<uint64_t> sizes;
  unsigned dists = 1u << DIST_UNIFORM;
  unsigned runs = 10, warmup = 2;
  double max_case_seconds = 30.0;
  uint64_t seed = 1;
  std::string device = "host CPU";
  bool verify = true;
};

Options opt;

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The order libclsort sorts floats in: kt_order of the raw bits.
template <typename K>
struct TotalOrder {
  key_type type;
  bool operator()(K a, K b) const { return kt_order(type, (uint64_t)a) < kt_order(type, (uint64_t)b); }
};

// Sorts n keys of `type`, stored as K (their bits), with algorithm a.
// Integers use the native comparison of their C type S (as a C++
// programmer would write it); floats libclsort's total order.
template <typename K, typename S>
bool run_sort(Algo a, key_type type, K *keys, size_t n) {
  if (kt_is_float(type)) {
    TotalOrder<K> cmp{type};
    switch (a) {
      case STD_SORT: std::sort(keys, keys + n, cmp); return true;
#if HAVE_BOOST_SORT
      case BLOCK_INDIRECT: boost::sort::block_indirect_sort(keys, keys + n, cmp, opt.threads); return true;
      case SAMPLE_SORT: boost::sort::sample_sort(keys, keys + n, cmp, opt.threads); return true;
#endif
      default: return false;
    }
  }
  S *k = reinterpret_cast<S *>(keys);
  switch (a) {
    case STD_SORT: std::sort(k, k + n); return true;
#if HAVE_BOOST_SORT
    case SPREADSORT: boost::sort::spreadsort::spreadsort(k, k + n); return true;
    case BLOCK_INDIRECT: boost::sort::block_indirect_sort(k, k + n, opt.threads); return true;
    case SAMPLE_SORT: boost::sort::sample_sort(k, k + n, opt.threads); return true;
#endif
    default: return false;
  }
}

bool sort_keys(Algo a, key_type type, void *keys, size_t n) {
  switch (type) {
    case KT_U32: return run_sort<uint32_t, uint32_t>(a, type, (uint32_t *)keys, n);
    case KT_I32: return run_sort<uint32_t, int32_t>(a, type, (uint32_t *)keys, n);
    case KT_F32: return run_sort<uint32_t, uint32_t>(a, type, (uint32_t *)keys, n);
    case KT_U64: return run_sort<uint64_t, uint64_t>(a, type, (uint64_t *)keys, n);
    case KT_I64: return run_sort<uint64_t, int64_t>(a, type, (uint64_t *)keys, n);
    default: return run_sort<uint64_t, uint64_t>(a, type, (uint64_t *)keys, n);
  }
}

void emit(const bench_record &r) {
  record_write_json(stdout, &r);
  std::fflush(stdout);
}

// One algorithm on one case: restore, sort, time; the median of the runs.
void bench_case(Algo a, key_type type, gen_dist dist, uint64_t n, const std::vector<unsigned char> &input,
                key_hash hash) {
  bench_record r;
  record_init(&r);
  std::snprintf(r.device, sizeof r.device, "%s", opt.device.c_str());
  std::snprintf(r.op, sizeof r.op, "sort");
  std::snprintf(r.algorithm, sizeof r.algorithm, "%s", algo_names[a]);
  if (a == BLOCK_INDIRECT || a == SAMPLE_SORT)
    std::snprintf(r.algorithm, sizeof r.algorithm, "%s-%ut", algo_names[a], opt.threads);
  std::snprintf(r.impl, sizeof r.impl, "peer");
  std::snprintf(r.type, sizeof r.type, "%s", kt_name(type));
  std::snprintf(r.distribution, sizeof r.distribution, "%s", gen_dist_name(dist));
  std::snprintf(r.api, sizeof r.api, "host");
  std::snprintf(r.timing, sizeof r.timing, "wall");
  r.n = n;
  std::vector<unsigned char> work(input.size());
  std::vector<double> times;
  double begin = now_ms();
  for (unsigned run = 0; times.size() < opt.runs; run++) {
    std::memcpy(work.data(), input.data(), input.size());
    double t0 = now_ms();
    if (!sort_keys(a, type, work.data(), n)) return; /* not offered for this type */
    double ms = now_ms() - t0;
    if (run == 0) r.first_ms = ms;
    if (run < opt.warmup) {
      begin = now_ms();
      continue;
    }
    times.push_back(ms);
    if (times.size() >= 3 && now_ms() - begin > opt.max_case_seconds * 1e3) break;
  }
  run_stats st = stats_summarize(times.data(), times.size());
  r.runs = (unsigned)times.size();
  r.warmup = opt.warmup;
  r.median_ms = st.median;
  r.min_ms = st.min;
  r.max_ms = st.max;
  r.mean_ms = st.mean;
  r.wall_median_ms = st.median;
  record_set_throughput(&r, 0.0);
  if (opt.verify) {
    char why[200] = "";
    bool ok = verify_sort_keys(type, work.data(), n, 0, hash, why, sizeof why);
    r.verified = ok ? REC_VERIFY_OK : REC_VERIFY_FAILED;
    if (!ok) {
      std::snprintf(r.status, sizeof r.status, "failed");
      std::snprintf(r.note, sizeof r.note, "%s", why);
    }
  }
  emit(r);
}

// Copies `bytes` from src to dst on `threads` threads, each a contiguous
// part of whole 64-byte lines.
void parallel_copy(unsigned char *dst, const unsigned char *src, size_t bytes, unsigned threads) {
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  size_t part = (bytes / threads + 63) / 64 * 64;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; t++) {
    size_t begin = std::min(bytes, t * part), end = std::min(bytes, begin + part);
    pool.emplace_back([=] { std::memcpy(dst + begin, src + begin, end - begin); });
  }
  for (std::thread &th : pool) th.join();
}

// The memory reference of a case: copying its keys, median of the runs.
void bench_copy(key_type type, uint64_t n, unsigned threads) {
  size_t bytes = n * kt_size(type);
  std::vector<unsigned char> src(bytes, 1), dst(bytes, 2);
  bench_record r;
  record_init(&r);
  std::snprintf(r.device, sizeof r.device, "%s", opt.device.c_str());
  std::snprintf(r.op, sizeof r.op, "copy");
  std::snprintf(r.algorithm, sizeof r.algorithm, "memcpy-%ut", threads);
  std::snprintf(r.impl, sizeof r.impl, "peer");
  std::snprintf(r.type, sizeof r.type, "%s", kt_name(type));
  std::snprintf(r.distribution, sizeof r.distribution, "-");
  std::snprintf(r.api, sizeof r.api, "host");
  std::snprintf(r.timing, sizeof r.timing, "wall");
  r.n = n;
  std::vector<double> times;
  for (unsigned run = 0; run < opt.warmup + opt.runs; run++) {
    double t0 = now_ms();
    parallel_copy(dst.data(), src.data(), bytes, threads);
    double ms = now_ms() - t0;
    if (run >= opt.warmup) times.push_back(ms);
  }
  run_stats st = stats_summarize(times.data(), times.size());
  r.runs = (unsigned)times.size();
  r.warmup = opt.warmup;
  r.median_ms = st.median;
  r.min_ms = st.min;
  r.max_ms = st.max;
  r.mean_ms = st.mean;
  r.wall_median_ms = st.median;
  record_set_throughput(&r, 2.0 * (double)bytes);
  r.verified = std::memcmp(src.data(), dst.data(), bytes) == 0 ? REC_VERIFY_OK : REC_VERIFY_FAILED;
  emit(r);
}

int take_dist(const char *item, void *) {
  gen_dist d;
  if (!std::strcmp(item, "all")) {
    opt.dists = (1u << DIST_COUNT_) - 1;
    return 1;
  }
  if (!gen_dist_parse(item, &d)) return 0;
  opt.dists |= 1u << d;
  return 1;
}

int take_type(const char *item, void *) {
  key_type t;
  if (!kt_parse(item, &t)) return 0;
  opt.types |= 1u << t;
  return 1;
}

int take_algo(const char *item, void *) {
  for (int a = 0; a < ALGO_COUNT; a++) {
    if (!std::strcmp(item, algo_names[a])) {
      opt.algos |= 1u << a;
      return 1;
    }
  }
  return 0;
}

bool set_sizes(const char *text) {
  uint64_t buf[PARSE_MAX_SIZES];
  size_t count = 0;
  char err[160];
  if (!parse_sizes(text, buf, PARSE_MAX_SIZES, &count, err, sizeof err)) {
    std::fprintf(stderr, "clsort-cpu-peer: %s\n", err);
    return false;
  }
  opt.sizes.assign(buf, buf + count);
  return true;
}

int parse_args(int argc, char **argv) {
  set_sizes("16-24");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    uint64_t u = 0;
    bool ok = true;
    if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (!std::strcmp(a, "--no-verify")) {
      opt.verify = false;
      continue;
    } else if (!v) {
      std::fprintf(stderr, "clsort-cpu-peer: unknown or incomplete argument '%s'\n", a);
      return 2;
    }
    i++;
    if (!std::strcmp(a, "--threads")) {
      ok = parse_u64(v, &u) && u >= 1 && u <= 4096;
      opt.threads = (unsigned)u;
    } else if (!std::strcmp(a, "--algorithms")) {
      opt.algos = 0;
      ok = parse_list(v, take_algo, nullptr) != 0;
    } else if (!std::strcmp(a, "--types")) {
      opt.types = 0;
      ok = parse_list(v, take_type, nullptr) != 0;
    } else if (!std::strcmp(a, "--sort-sizes")) {
      ok = set_sizes(v);
    } else if (!std::strcmp(a, "--distributions")) {
      opt.dists = 0;
      ok = parse_list(v, take_dist, nullptr) != 0;
    } else if (!std::strcmp(a, "--runs")) {
      ok = parse_u64(v, &u) && u >= 1 && u <= 1000;
      opt.runs = (unsigned)u;
    } else if (!std::strcmp(a, "--warmup")) {
      ok = parse_u64(v, &u) && u <= 100;
      opt.warmup = (unsigned)u;
    } else if (!std::strcmp(a, "--max-case-seconds")) {
      ok = parse_double(v, &opt.max_case_seconds) && opt.max_case_seconds > 0;
    } else if (!std::strcmp(a, "--seed")) {
      ok = parse_u64(v, &opt.seed) != 0;
    } else if (!std::strcmp(a, "--device")) {
      opt.device = v;
    } else {
      std::fprintf(stderr, "clsort-cpu-peer: unknown option '%s'\n", a);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "clsort-cpu-peer: bad value '%s' for %s\n", v, a);
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  int rc = parse_args(argc, argv);
  if (rc) return rc;
  for (int t = 0; t < KT_COUNT_; t++) {
    if (!(opt.types & (1u << t))) continue;
    key_type type = (key_type)t;
    for (int d = 0; d < DIST_COUNT_; d++) {
      if (!(opt.dists & (1u << d))) continue;
      for (uint64_t n : opt.sizes) {
        // "sort": the seed clsort bench gives this case, so the same keys.
        std::vector<unsigned char> input(n * kt_size(type));
        gen_keys(type, (gen_dist)d, input.data(), n, gen_case_seed(opt.seed, "sort", type, d, n));
        key_hash hash = verify_hash_keys(type, input.data(), n);
        /* Thread start-up would dominate small copies. */
        if (n >= (1u << 16) && (d == DIST_UNIFORM || !(opt.dists & (1u << DIST_UNIFORM)))) {
          bench_copy(type, n, 1);
          if (opt.threads > 1) bench_copy(type, n, opt.threads);
        }
        for (int a = 0; a < ALGO_COUNT; a++)
          if (opt.algos & (1u << a)) bench_case((Algo)a, type, (gen_dist)d, n, input, hash);
      }
    }
  }
  return 0;
}
