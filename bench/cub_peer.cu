// cub_peer.cu: clsort-cub-peer, the CUB reference that `clsort bench --peers
// cub` runs as a subprocess: the same cases as libclsort (same generated
// data, same checks), timed with CUDA events, one JSON line per measurement.
//
// Measured: DeviceScan::ExclusiveSum (cub-scan), DeviceSelect::Flagged
// (cub-select), DeviceRadixSort::SortKeys/SortPairs (cub-radix),
// DeviceMergeSort::SortKeysCopy and SortPairsCopy (cub-merge) and SortKeys
// (cub-merge-inplace),
// DeviceSegmentedSort::SortKeys over segments of 64 and of 65536 keys
// and of power-law sizes (gen.h)
// (cub-segmented, op "segmented-LEN", as clsort bench --ops segmented), for
// u32 and u64. Temporary storage is allocated once per case, outside the
// timed region, as a real user of CUB would.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gen.h"
#include "parse.h"
#include "record.h"
#include "stats.h"
#include "verify.h"

namespace {

const char usage[] =
    "usage: clsort-cub-peer [options]\n"
    "\n"
    "CUB measurements in clsort bench's JSON-lines format (stdout); normally run\n"
    "by 'clsort bench --peers cub' with the cases of that run.\n"
    "\n"
    "  --sizes LIST          scan/select sizes (default 16-28)\n"
    "  --sort-sizes LIST     sort sizes (default 16-28)\n"
    "  --ops LIST            scan,select,radix,merge,segmented,radix-host (default\n"
    "                        all but segmented and radix-host; radix-host:\n"
    "                        cub-radix@host, the radix sort of a pageable host\n"
    "                        array with cudaMemcpy each way inside the timing)\n"
    "  --types LIST          u32,u64 (default both)\n"
    "  --data LIST           keys,pairs (default both; pairs: radix only)\n"
    "  --distributions LIST  as clsort bench (default uniform)\n"
    "  --runs N              timed runs per case (default 10)\n"
    "  --warmup N            untimed runs first (default 2)\n"
    "  --max-case-seconds S  stop a case after S s of timed runs, once it has 3\n"
    "  --keep F              fraction of flags set for select (default 0.5)\n"
    "  --seed S              base seed (default 1), as clsort bench\n"
    "  --descending          sort largest first\n"
    "  --stable              check that equal keys keep their order (radix pairs)\n"
    "  --value-size 4|8      bytes per value of radix pairs (default 4)\n"
    "  --no-verify           skip the output checks\n"
    "  --cuda-device N       CUDA device (default 0)\n";

enum Op {
  OP_SCAN = 1,
  OP_SELECT = 2,
  OP_RADIX = 4,
  OP_MERGE = 8,
  OP_SEGMENTED = 16,
  OP_RADIX_HOST = 32
};

struct Options {
  std::vector<uint64_t> sizes, sort_sizes;
  unsigned ops = OP_SCAN | OP_SELECT | OP_RADIX | OP_MERGE;
  bool u32 = true, u64 = true, keys = true, pairs = true;
  unsigned dists = 1u << DIST_UNIFORM;
  unsigned runs = 10, warmup = 2;
  double max_case_seconds = 30.0, keep = 0.5;
  uint64_t seed = 1;
  bool descending = false, stable = false, verify = true;
  unsigned value_size = 4;
  int cuda_device = 0;
};

Options opt;
char device_name[128] = "CUDA device";

// Exits on CUDA errors other than allocation failures, which end a size
// sweep instead: those only mean the case is too large for the GPU.
void check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "clsort-cub-peer: %s: %s\n", what, cudaGetErrorString(err));
  std::exit(1);
}

struct DeviceBuffer {
  void *ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  bool alloc(size_t bytes) {
    if (cudaMalloc(&ptr, bytes ? bytes : 1) != cudaSuccess) {
      ptr = nullptr;
      cudaGetLastError();  // clear the sticky allocation error
      return false;
    }
    return true;
  }
  template <class T>
  T *as() const {
    return static_cast<T *>(ptr);
  }
};

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

template <class T>
key_type type_of();
template <>
key_type type_of<uint32_t>() {
  return KT_U32;
}
template <>
key_type type_of<uint64_t>() {
  return KT_U64;
}

bench_record make_record(const char *op, const char *algorithm, key_type type, uint64_t n) {
  bench_record r;
  record_init(&r);
  std::snprintf(r.device, sizeof r.device, "%s", device_name);
  std::snprintf(r.op, sizeof r.op, "%s", op);
  std::snprintf(r.algorithm, sizeof r.algorithm, "%s", algorithm);
  std::snprintf(r.impl, sizeof r.impl, "peer");
  std::snprintf(r.type, sizeof r.type, "%s", kt_name(type));
  std::snprintf(r.timing, sizeof r.timing, "cuda-event");
  r.n = n;
  return r;
}

void emit(const bench_record &r) {
  record_write_json(stdout, &r);
  std::fflush(stdout);
}

void emit_skip(bench_record r, const char *why) {
  std::snprintf(r.status, sizeof r.status, "skipped");
  std::snprintf(r.note, sizeof r.note, "%s", why);
  r.runs = 0;
  std::fprintf(stderr, "note: %s %s n=%llu: %s\n", r.algorithm, r.type, (unsigned long long)r.n,
               why);
  emit(r);
}

// Warm-up, then timed runs between two events on the default stream.
// `restore` runs before each call, outside the events.
template <class Call, class Restore>
void time_runs(bench_record &r, Call call, Restore restore) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  unsigned warmup = opt.warmup ? opt.warmup : 1;
  for (unsigned w = 0; w < warmup; w++) {
    restore();
    check(cudaDeviceSynchronize(), "restore");
    double t0 = now_ms();
    check(call(), "warm-up call");
    check(cudaDeviceSynchronize(), "warm-up");
    if (w == 0) r.first_ms = now_ms() - t0;
  }
  std::vector<double> device, wall;
  double begin = now_ms();
  while (device.size() < opt.runs) {
    restore();
    double t0 = now_ms();
    check(cudaEventRecord(start), "cudaEventRecord");
    check(call(), "timed call");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    wall.push_back(now_ms() - t0);
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    device.push_back(ms);
    if (device.size() >= 3 && now_ms() - begin > opt.max_case_seconds * 1e3) break;
  }
  run_stats d = stats_summarize(device.data(), device.size());
  run_stats w = stats_summarize(wall.data(), wall.size());
  r.runs = (unsigned)device.size();
  r.warmup = warmup;
  r.median_ms = d.median;
  r.min_ms = d.min;
  r.max_ms = d.max;
  r.mean_ms = d.mean;
  r.wall_median_ms = w.median;
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void mark_verified(bench_record &r, bool ok, const char *why) {
  if (!opt.verify) return;
  r.verified = ok ? REC_VERIFY_OK : REC_VERIFY_FAILED;
  if (!ok) {
    std::snprintf(r.status, sizeof r.status, "failed");
    std::snprintf(r.note, sizeof r.note, "%s", why);
  }
}

const char *sort_op() { return opt.descending ? "sort-descending" : "sort"; }

// ------------------------------------------------------------------ scan
template <class T>
bool bench_scan(uint64_t n) {
  key_type type = type_of<T>();
  bench_record r = make_record("scan-exclusive", "cub-scan", type, n);
  std::vector<T> in(n), out(n);
  gen_scan_input(type, in.data(), n, gen_case_seed(opt.seed, "scan-exclusive", type, 0, n));
  DeviceBuffer d_in, d_out, temp;
  size_t temp_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (T *)nullptr, (T *)nullptr, (int)n),
        "ExclusiveSum size");
  if (!d_in.alloc(n * sizeof(T)) || !d_out.alloc(n * sizeof(T)) || !temp.alloc(temp_bytes)) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_in.ptr, in.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  time_runs(
      r,
      [&] {
        return cub::DeviceScan::ExclusiveSum(temp.ptr, temp_bytes, d_in.as<T>(), d_out.as<T>(),
                                             (int)n);
      },
      [] {});
  record_set_throughput(&r, 2.0 * (double)n * sizeof(T));
  if (opt.verify) {
    char why[200] = "";
    check(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    mark_verified(r, verify_scan(type, 0, in.data(), out.data(), n, why, sizeof why), why);
  }
  emit(r);
  return true;
}

// ---------------------------------------------------------------- select
template <class T>
bool bench_select(uint64_t n) {
  key_type type = type_of<T>();
  bench_record r = make_record("compact", "cub-select", type, n);
  std::vector<T> in(n), out(n);
  std::vector<unsigned char> flags(n);
  // The same seeds as clsort bench's compact case: the same data.
  uint64_t seed = gen_case_seed(opt.seed, "compact", type, 0, n);
  gen_keys(type, DIST_UNIFORM, in.data(), n, seed);
  gen_flags(flags.data(), n, opt.keep, seed ^ 0x5eedf1a95u);
  uint64_t kept = 0;
  for (unsigned char f : flags) kept += f != 0;
  DeviceBuffer d_in, d_flags, d_out, d_count, temp;
  size_t temp_bytes = 0;
  check(cub::DeviceSelect::Flagged(nullptr, temp_bytes, (T *)nullptr, (unsigned char *)nullptr,
                                   (T *)nullptr, (int *)nullptr, (int)n),
        "Flagged size");
  if (!d_in.alloc(n * sizeof(T)) || !d_flags.alloc(n) || !d_out.alloc(n * sizeof(T)) ||
      !d_count.alloc(sizeof(int)) || !temp.alloc(temp_bytes)) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_in.ptr, in.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(d_flags.ptr, flags.data(), n, cudaMemcpyHostToDevice), "upload");
  time_runs(
      r,
      [&] {
        return cub::DeviceSelect::Flagged(temp.ptr, temp_bytes, d_in.as<T>(),
                                          d_flags.as<unsigned char>(), d_out.as<T>(),
                                          d_count.as<int>(), (int)n);
      },
      [] {});
  record_set_throughput(&r, (double)n * (sizeof(T) + 1.0) + (double)kept * sizeof(T));
  if (opt.verify) {
    char why[200] = "";
    int count = 0;
    check(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    check(cudaMemcpy(&count, d_count.ptr, sizeof count, cudaMemcpyDeviceToHost), "download");
    mark_verified(r,
                  verify_select(sizeof(T), 0, in.data(), flags.data(), out.data(), n,
                                (uint64_t)count, why, sizeof why),
                  why);
  }
  emit(r);
  return true;
}

// ----------------------------------------------------------------- sorts
struct Less {
  template <class T>
  __host__ __device__ bool operator()(const T &a, const T &b) const {
    return a < b;
  }
};
struct Greater {
  template <class T>
  __host__ __device__ bool operator()(const T &a, const T &b) const {
    return a > b;
  }
};

template <class T>
void sort_keys_input(std::vector<T> &keys, gen_dist dist, uint64_t n) {
  key_type type = type_of<T>();
  // "sort" for every variant, exactly as clsort bench seeds its sort cases.
  gen_keys(type, dist, keys.data(), n, gen_case_seed(opt.seed, "sort", type, (int)dist, n));
}

template <class T>
bench_record sort_record(const char *algorithm, gen_dist dist, bool pairs, uint64_t n) {
  bench_record r = make_record(sort_op(), algorithm, type_of<T>(), n);
  r.pairs = pairs;
  r.value_size = pairs ? opt.value_size : 0;
  std::snprintf(r.distribution, sizeof r.distribution, "%s", gen_dist_name(dist));
  return r;
}

// host: the keys (and values) start and end in pageable host vectors, and
// each timed run includes the cudaMemcpy of both directions (synchronous
// on the default stream, so between the events): what clsort bench --api
// host times as radix@host.
template <class T, class V = uint32_t>
bool bench_radix(gen_dist dist, bool pairs, uint64_t n, bool host = false) {
  key_type type = type_of<T>();
  bench_record r = sort_record<T>(host ? "cub-radix@host" : "cub-radix", dist, pairs, n);
  std::vector<T> keys(n), out(n);
  std::vector<V> vals, vals_out;
  sort_keys_input(keys, dist, n);
  DeviceBuffer d_keys, d_out, d_vals, d_vals_out, temp;
  size_t temp_bytes = 0;
  int items = (int)n;
  if (pairs) {
    vals.resize(n);
    vals_out.resize(n);
    gen_index_values(vals.data(), sizeof(V), n);
    if (opt.descending) {
      check(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, (T *)nullptr,
                                                      (T *)nullptr, (V *)nullptr, (V *)nullptr,
                                                      items),
            "SortPairs size");
    } else {
      check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, (T *)nullptr, (T *)nullptr,
                                            (V *)nullptr, (V *)nullptr, items),
            "SortPairs size");
    }
  } else if (opt.descending) {
    check(cub::DeviceRadixSort::SortKeysDescending(nullptr, temp_bytes, (T *)nullptr,
                                                   (T *)nullptr, items),
          "SortKeys size");
  } else {
    check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, (T *)nullptr, (T *)nullptr, items),
          "SortKeys size");
  }
  if (!d_keys.alloc(n * sizeof(T)) || !d_out.alloc(n * sizeof(T)) || !temp.alloc(temp_bytes) ||
      (pairs && (!d_vals.alloc(n * sizeof(V)) || !d_vals_out.alloc(n * sizeof(V))))) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_keys.ptr, keys.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  if (pairs)
    check(cudaMemcpy(d_vals.ptr, vals.data(), n * sizeof(V), cudaMemcpyHostToDevice), "upload");
  // The input buffers are never written, so no restore is needed.
  auto sort = [&] {
        if (pairs) {
          return opt.descending
                     ? cub::DeviceRadixSort::SortPairsDescending(
                           temp.ptr, temp_bytes, d_keys.as<T>(), d_out.as<T>(), d_vals.as<V>(),
                           d_vals_out.as<V>(), items)
                     : cub::DeviceRadixSort::SortPairs(temp.ptr, temp_bytes, d_keys.as<T>(),
                                                       d_out.as<T>(), d_vals.as<V>(),
                                                       d_vals_out.as<V>(), items);
        }
        return opt.descending ? cub::DeviceRadixSort::SortKeysDescending(
                                    temp.ptr, temp_bytes, d_keys.as<T>(), d_out.as<T>(), items)
                              : cub::DeviceRadixSort::SortKeys(temp.ptr, temp_bytes,
                                                               d_keys.as<T>(), d_out.as<T>(), items);
  };
  if (!host) {
    time_runs(r, sort, [] {});
  } else {
    time_runs(
        r,
        [&] {
          cudaError_t e =
              cudaMemcpy(d_keys.ptr, keys.data(), n * sizeof(T), cudaMemcpyHostToDevice);
          if (e == cudaSuccess && pairs)
            e = cudaMemcpy(d_vals.ptr, vals.data(), n * sizeof(V), cudaMemcpyHostToDevice);
          if (e == cudaSuccess) e = sort();
          if (e == cudaSuccess)
            e = cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
          if (e == cudaSuccess && pairs)
            e = cudaMemcpy(vals_out.data(), d_vals_out.ptr, n * sizeof(V), cudaMemcpyDeviceToHost);
          return e;
        },
        [] {});
  }
  record_set_throughput(&r, 0.0);
  if (opt.verify) {
    char why[200] = "";
    check(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    bool ok;
    if (pairs) {
      check(cudaMemcpy(vals_out.data(), d_vals_out.ptr, n * sizeof(V), cudaMemcpyDeviceToHost),
            "download");
      ok = verify_sort_pairs(type, keys.data(), out.data(), vals_out.data(), sizeof(V), n,
                             opt.descending,
                             opt.stable, why, sizeof why);
    } else {
      ok = verify_sort_keys(type, out.data(), n, opt.descending,
                            verify_hash_keys(type, keys.data(), n), why, sizeof why);
    }
    mark_verified(r, ok, why);
  }
  emit(r);
  return true;
}

template <class T, class Compare>
bool bench_merge_with(gen_dist dist, uint64_t n, bool in_place, Compare compare) {
  key_type type = type_of<T>();
  bench_record r = sort_record<T>(in_place ? "cub-merge-inplace" : "cub-merge", dist, false, n);
  std::vector<T> keys(n), out(n);
  sort_keys_input(keys, dist, n);
  DeviceBuffer d_keys, d_out, temp;
  size_t temp_bytes = 0;
  if (in_place) {
    check(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, (T *)nullptr, (int)n, compare),
          "SortKeys size");
  } else {
    check(cub::DeviceMergeSort::SortKeysCopy(nullptr, temp_bytes, (T *)nullptr, (T *)nullptr,
                                             (int)n, compare),
          "SortKeysCopy size");
  }
  if (!d_keys.alloc(n * sizeof(T)) || !d_out.alloc(n * sizeof(T)) || !temp.alloc(temp_bytes)) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_keys.ptr, keys.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  if (in_place) {
    // In place: d_out holds the pristine input and is copied back before
    // each run, outside the timed events.
    check(cudaMemcpy(d_out.ptr, d_keys.ptr, n * sizeof(T), cudaMemcpyDeviceToDevice), "copy");
    time_runs(
        r,
        [&] {
          return cub::DeviceMergeSort::SortKeys(temp.ptr, temp_bytes, d_keys.as<T>(), (int)n,
                                                compare);
        },
        [&] { check(cudaMemcpyAsync(d_keys.ptr, d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToDevice),
                    "restore"); });
  } else {
    time_runs(
        r,
        [&] {
          return cub::DeviceMergeSort::SortKeysCopy(temp.ptr, temp_bytes, d_keys.as<T>(),
                                                    d_out.as<T>(), (int)n, compare);
        },
        [] {});
  }
  record_set_throughput(&r, 0.0);
  if (opt.verify) {
    char why[200] = "";
    check(cudaMemcpy(out.data(), in_place ? d_keys.ptr : d_out.ptr, n * sizeof(T),
                     cudaMemcpyDeviceToHost),
          "download");
    mark_verified(r,
                  verify_sort_keys(type, out.data(), n, opt.descending,
                                   verify_hash_keys(type, keys.data(), n), why, sizeof why),
                  why);
  }
  emit(r);
  return true;
}

template <class T>
bool bench_merge(gen_dist dist, uint64_t n, bool in_place) {
  return opt.descending ? bench_merge_with<T>(dist, n, in_place, Greater())
                        : bench_merge_with<T>(dist, n, in_place, Less());
}

// Pairs (cub-merge): SortPairsCopy, values of the bench's value size moving
// with their keys; CUB's merge sort is stable.
template <class T, class V, class Compare>
bool bench_merge_pairs_with(gen_dist dist, uint64_t n, Compare compare) {
  key_type type = type_of<T>();
  bench_record r = sort_record<T>("cub-merge", dist, true, n);
  std::vector<T> keys(n), out(n);
  std::vector<V> vals(n), vals_out(n);
  sort_keys_input(keys, dist, n);
  gen_index_values(vals.data(), sizeof(V), n);
  DeviceBuffer d_keys, d_out, d_vals, d_vals_out, temp;
  size_t temp_bytes = 0;
  check(cub::DeviceMergeSort::SortPairsCopy(nullptr, temp_bytes, (T *)nullptr, (V *)nullptr,
                                            (T *)nullptr, (V *)nullptr, (int)n, compare),
        "SortPairsCopy size");
  if (!d_keys.alloc(n * sizeof(T)) || !d_out.alloc(n * sizeof(T)) || !temp.alloc(temp_bytes) ||
      !d_vals.alloc(n * sizeof(V)) || !d_vals_out.alloc(n * sizeof(V))) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_keys.ptr, keys.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(d_vals.ptr, vals.data(), n * sizeof(V), cudaMemcpyHostToDevice), "upload");
  time_runs(
      r,
      [&] {
        return cub::DeviceMergeSort::SortPairsCopy(temp.ptr, temp_bytes, d_keys.as<T>(),
                                                   d_vals.as<V>(), d_out.as<T>(),
                                                   d_vals_out.as<V>(), (int)n, compare);
      },
      [] {});
  record_set_throughput(&r, 0.0);
  if (opt.verify) {
    char why[200] = "";
    check(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    check(cudaMemcpy(vals_out.data(), d_vals_out.ptr, n * sizeof(V), cudaMemcpyDeviceToHost),
          "download");
    mark_verified(r,
                  verify_sort_pairs(type, keys.data(), out.data(), vals_out.data(), sizeof(V), n,
                                    opt.descending, opt.stable, why, sizeof why),
                  why);
  }
  emit(r);
  return true;
}

template <class T, class V = uint32_t>
bool bench_merge_pairs(gen_dist dist, uint64_t n) {
  return opt.descending ? bench_merge_pairs_with<T, V>(dist, n, Greater())
                        : bench_merge_pairs_with<T, V>(dist, n, Less());
}

// ------------------------------------------------------------ segmented
// Segments of `len` keys (the last one shorter), or with len 0 the
// power-law sizes of gen.h's gen_power_law_offsets (op "segmented-power",
// the same seed), sorted each on its own, ascending: what clsort bench
// --ops segmented times on the same sizes.
template <class T>
bool bench_segmented(uint64_t n, uint64_t len) {
  key_type type = type_of<T>();
  char op[32];
  if (len)
    std::snprintf(op, sizeof op, "segmented-%llu", (unsigned long long)len);
  else
    std::snprintf(op, sizeof op, "segmented-power");
  bench_record r = make_record(op, "cub-segmented", type, n);
  std::vector<T> keys(n), out(n);
  gen_keys(type, DIST_UNIFORM, keys.data(), n, gen_case_seed(opt.seed, op, type, 0, n));
  uint64_t segments = len ? (n + len - 1) / len : gen_power_law_count(n);
  std::vector<uint64_t> bounds(segments + 1);
  if (len) {
    for (uint64_t i = 0; i <= segments; i++) bounds[i] = std::min(i * len, n);
  } else if (!gen_power_law_offsets(bounds.data(), segments, n,
                                    gen_case_seed(opt.seed, op, type, 0, n) ^ 0x5e9u)) {
    emit_skip(r, "no host memory for the power-law offsets");
    return false;
  }
  std::vector<int> offsets(segments + 1);
  for (uint64_t i = 0; i <= segments; i++) offsets[i] = (int)bounds[i];
  DeviceBuffer d_keys, d_out, d_offsets, temp;
  size_t temp_bytes = 0;
  check(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, (T *)nullptr, (T *)nullptr,
                                           (int)n, (int)segments, (int *)nullptr, (int *)nullptr),
        "SegmentedSort size");
  if (!d_keys.alloc(n * sizeof(T)) || !d_out.alloc(n * sizeof(T)) ||
      !d_offsets.alloc((segments + 1) * sizeof(int)) || !temp.alloc(temp_bytes)) {
    emit_skip(r, "cudaMalloc failed: too large for the GPU");
    return false;
  }
  check(cudaMemcpy(d_keys.ptr, keys.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(d_offsets.ptr, offsets.data(), (segments + 1) * sizeof(int),
                   cudaMemcpyHostToDevice),
        "upload");
  int *d_off = d_offsets.as<int>();
  time_runs(
      r,
      [&] {
        return cub::DeviceSegmentedSort::SortKeys(temp.ptr, temp_bytes, d_keys.as<T>(),
                                                  d_out.as<T>(), (int)n, (int)segments, d_off,
                                                  d_off + 1);
      },
      [] {});
  record_set_throughput(&r, 0.0);
  if (opt.verify) {
    char why[200] = "";
    bool ok = true;
    check(cudaMemcpy(out.data(), d_out.ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    for (uint64_t s = 0; s < segments && ok; s++) {
      uint64_t b = (uint64_t)offsets[s], e = (uint64_t)offsets[s + 1];
      ok = verify_sort_keys(type, out.data() + b, e - b, 0,
                            verify_hash_keys(type, keys.data() + b, e - b), why, sizeof why);
    }
    mark_verified(r, ok, why);
  }
  emit(r);
  return true;
}

// ------------------------------------------------------------ arguments
struct ListState {
  Options *o;
  int kind;
};

int take_item(const char *item, void *user) {
  ListState *s = static_cast<ListState *>(user);
  Options &o = *s->o;
  switch (s->kind) {
    case 0:
      if (!std::strcmp(item, "scan")) o.ops |= OP_SCAN;
      else if (!std::strcmp(item, "select")) o.ops |= OP_SELECT;
      else if (!std::strcmp(item, "radix")) o.ops |= OP_RADIX;
      else if (!std::strcmp(item, "merge")) o.ops |= OP_MERGE;
      else if (!std::strcmp(item, "segmented")) o.ops |= OP_SEGMENTED;
      else if (!std::strcmp(item, "radix-host")) o.ops |= OP_RADIX_HOST;
      else return 0;
      return 1;
    case 1:
      if (!std::strcmp(item, "u32")) o.u32 = true;
      else if (!std::strcmp(item, "u64")) o.u64 = true;
      else return 1;  // other types: CUB covers them, this peer does not measure them
      return 1;
    case 2:
      if (!std::strcmp(item, "keys")) o.keys = true;
      else if (!std::strcmp(item, "pairs")) o.pairs = true;
      else return 0;
      return 1;
    default: {
      gen_dist d;
      if (!std::strcmp(item, "all")) {
        o.dists = (1u << DIST_COUNT_) - 1;
        return 1;
      }
      if (!gen_dist_parse(item, &d)) return 0;
      o.dists |= 1u << d;
      return 1;
    }
  }
}

bool parse_sizes_into(const char *text, std::vector<uint64_t> &out) {
  uint64_t buf[PARSE_MAX_SIZES];
  size_t count = 0;
  char err[160];
  if (!parse_sizes(text, buf, PARSE_MAX_SIZES, &count, err, sizeof err)) {
    std::fprintf(stderr, "clsort-cub-peer: %s\n", err);
    return false;
  }
  out.assign(buf, buf + count);
  return true;
}

int parse_args(int argc, char **argv) {
  parse_sizes_into("16-28", opt.sizes);
  parse_sizes_into("16-28", opt.sort_sizes);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    uint64_t u = 0;
    auto need = [&](bool ok) {
      if (!ok) std::fprintf(stderr, "clsort-cub-peer: bad or missing value for %s\n", a);
      return ok;
    };
    if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (!std::strcmp(a, "--no-verify")) {
      opt.verify = false;
    } else if (!std::strcmp(a, "--descending")) {
      opt.descending = true;
    } else if (!std::strcmp(a, "--stable")) {
      opt.stable = true;
    } else if (!std::strcmp(a, "--value-size") && i + 1 < argc) {
      opt.value_size = std::strcmp(argv[++i], "8") == 0 ? 8 : 4;
    } else if (!v) {
      std::fprintf(stderr, "clsort-cub-peer: unknown or incomplete argument '%s'\n", a);
      return 2;
    } else {
      i++;
      ListState ls{&opt, 0};
      if (!std::strcmp(a, "--sizes")) {
        if (!parse_sizes_into(v, opt.sizes)) return 2;
      } else if (!std::strcmp(a, "--sort-sizes")) {
        if (!parse_sizes_into(v, opt.sort_sizes)) return 2;
      } else if (!std::strcmp(a, "--ops")) {
        opt.ops = 0;
        ls.kind = 0;
        if (!need(parse_list(v, take_item, &ls) != 0)) return 2;
      } else if (!std::strcmp(a, "--types")) {
        opt.u32 = opt.u64 = false;
        ls.kind = 1;
        if (!need(parse_list(v, take_item, &ls) != 0)) return 2;
      } else if (!std::strcmp(a, "--data")) {
        opt.keys = opt.pairs = false;
        ls.kind = 2;
        if (!need(parse_list(v, take_item, &ls) != 0)) return 2;
      } else if (!std::strcmp(a, "--distributions")) {
        opt.dists = 0;
        ls.kind = 3;
        if (!need(parse_list(v, take_item, &ls) != 0)) return 2;
      } else if (!std::strcmp(a, "--runs")) {
        if (!need(parse_u64(v, &u) && u >= 1 && u <= 1000)) return 2;
        opt.runs = (unsigned)u;
      } else if (!std::strcmp(a, "--warmup")) {
        if (!need(parse_u64(v, &u) && u <= 100)) return 2;
        opt.warmup = (unsigned)u;
      } else if (!std::strcmp(a, "--max-case-seconds")) {
        if (!need(parse_double(v, &opt.max_case_seconds) && opt.max_case_seconds > 0)) return 2;
      } else if (!std::strcmp(a, "--keep")) {
        if (!need(parse_double(v, &opt.keep) && opt.keep >= 0 && opt.keep <= 1)) return 2;
      } else if (!std::strcmp(a, "--seed")) {
        if (!need(parse_u64(v, &opt.seed) != 0)) return 2;
      } else if (!std::strcmp(a, "--cuda-device")) {
        if (!need(parse_u64(v, &u) && u < 64)) return 2;
        opt.cuda_device = (int)u;
      } else {
        std::fprintf(stderr, "clsort-cub-peer: unknown option '%s'\n", a);
        return 2;
      }
    }
  }
  return 0;
}

// A sweep over sizes that stops at the first size the GPU cannot hold.
template <class F>
void sweep(const std::vector<uint64_t> &sizes, F run_one) {
  for (uint64_t n : sizes) {
    if (n > (uint64_t)INT32_MAX) {
      std::fprintf(stderr, "note: CUB sizes above 2^31 - 1 are not measured\n");
      break;
    }
    if (!run_one(n)) break;
  }
}

}  // namespace

int main(int argc, char **argv) {
  int rc = parse_args(argc, argv);
  if (rc) return rc;
  check(cudaSetDevice(opt.cuda_device), "cudaSetDevice");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, opt.cuda_device), "cudaGetDeviceProperties");
  std::snprintf(device_name, sizeof device_name, "%.127s", prop.name);

  if (opt.ops & OP_SCAN) {
    if (opt.u32) sweep(opt.sizes, [](uint64_t n) { return bench_scan<uint32_t>(n); });
    if (opt.u64) sweep(opt.sizes, [](uint64_t n) { return bench_scan<uint64_t>(n); });
  }
  if (opt.ops & OP_SELECT) {
    if (opt.u32) sweep(opt.sizes, [](uint64_t n) { return bench_select<uint32_t>(n); });
    if (opt.u64) sweep(opt.sizes, [](uint64_t n) { return bench_select<uint64_t>(n); });
  }
  if (opt.ops & OP_SEGMENTED) {
    for (uint64_t len : {64ull, 65536ull, 0ull}) {  // 0: the power-law sizes
      if (opt.u32) sweep(opt.sort_sizes, [&](uint64_t n) { return bench_segmented<uint32_t>(n, len); });
      if (opt.u64) sweep(opt.sort_sizes, [&](uint64_t n) { return bench_segmented<uint64_t>(n, len); });
    }
  }
  for (int d = 0; d < DIST_COUNT_; d++) {
    if (!(opt.dists & (1u << d))) continue;
    gen_dist dist = (gen_dist)d;
    for (int pairs = 0; pairs <= 1; pairs++) {
      if (!(pairs ? opt.pairs : opt.keys)) continue;
      if (opt.ops & OP_RADIX_HOST) {
        if (opt.u32)
          sweep(opt.sort_sizes,
                [&](uint64_t n) { return bench_radix<uint32_t>(dist, pairs, n, true); });
        if (opt.u64)
          sweep(opt.sort_sizes,
                [&](uint64_t n) { return bench_radix<uint64_t>(dist, pairs, n, true); });
      }
      if (opt.ops & OP_RADIX) {
        bool wide = pairs && opt.value_size == 8;
        if (opt.u32)
          sweep(opt.sort_sizes, [&](uint64_t n) {
            return wide ? bench_radix<uint32_t, uint64_t>(dist, pairs, n)
                        : bench_radix<uint32_t>(dist, pairs, n);
          });
        if (opt.u64)
          sweep(opt.sort_sizes, [&](uint64_t n) {
            return wide ? bench_radix<uint64_t, uint64_t>(dist, pairs, n)
                        : bench_radix<uint64_t>(dist, pairs, n);
          });
      }
      if ((opt.ops & OP_MERGE) && pairs) {
        bool wide = opt.value_size == 8;
        if (opt.u32)
          sweep(opt.sort_sizes, [&](uint64_t n) {
            return wide ? bench_merge_pairs<uint32_t, uint64_t>(dist, n)
                        : bench_merge_pairs<uint32_t>(dist, n);
          });
        if (opt.u64)
          sweep(opt.sort_sizes, [&](uint64_t n) {
            return wide ? bench_merge_pairs<uint64_t, uint64_t>(dist, n)
                        : bench_merge_pairs<uint64_t>(dist, n);
          });
      }
      if ((opt.ops & OP_MERGE) && !pairs) {
        for (int in_place = 0; in_place <= 1; in_place++) {
          if (opt.u32)
            sweep(opt.sort_sizes,
                  [&](uint64_t n) { return bench_merge<uint32_t>(dist, n, in_place != 0); });
          if (opt.u64)
            sweep(opt.sort_sizes,
                  [&](uint64_t n) { return bench_merge<uint64_t>(dist, n, in_place != 0); });
        }
      }
    }
  }
  return 0;
}
