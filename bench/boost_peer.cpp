// boost_peer.cpp: clsort-boost-peer, the Boost.Compute reference that
// `clsort bench --peers boost-compute` runs as a subprocess:
// boost::compute::sort of u32 keys on the same OpenCL device, with the same
// generated data and checks as libclsort, one JSON line per measurement.
//
// Boost.Compute builds its kernels on the first call in a context, so each
// record carries the first call's wall time (first_ms, program build
// included) besides the warm medians.
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/exception.hpp>
#include <boost/compute/system.hpp>

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

namespace compute = boost::compute;

namespace {

const char usage[] =
    "usage: clsort-boost-peer [options]\n"
    "\n"
    "boost::compute::sort of u32 keys in clsort bench's JSON-lines format\n"
    "(stdout); normally run by 'clsort bench --peers boost-compute'.\n"
    "\n"
    "  --platform P          OpenCL platform index (default 0)\n"
    "  --device D            device index within the platform (default 0)\n"
    "  --sort-sizes LIST     sizes (default 16-24)\n"
    "  --distributions LIST  as clsort bench (default uniform)\n"
    "  --runs N              timed runs per case (default 10)\n"
    "  --warmup N            untimed runs after the first call (default 2)\n"
    "  --max-case-seconds S  stop a case after S s of timed runs, once it has 3\n"
    "  --seed S              base seed (default 1), as clsort bench\n"
    "  --no-verify           skip the output checks\n";

struct Options {
  unsigned platform = 0, device = 0;
  std::vector<uint64_t> sizes;
  unsigned dists = 1u << DIST_UNIFORM;
  unsigned runs = 10, warmup = 2;
  double max_case_seconds = 30.0;
  uint64_t seed = 1;
  bool verify = true;
};

Options opt;

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The sort enqueues many kernels and returns no event, so the timed span is
// bracketed by two 4-byte fills: END(after) - END(before).
struct Bracket {
  compute::command_queue &queue;
  compute::buffer marker;
  Bracket(compute::context &ctx, compute::command_queue &q) : queue(q), marker(ctx, 4) {}
  cl_event fill() {
    static const cl_uint zero = 0;
    cl_event ev = nullptr;
    cl_int err = clEnqueueFillBuffer(queue.get(), marker.get(), &zero, sizeof zero, 0, sizeof zero,
                                     0, nullptr, &ev);
    if (err != CL_SUCCESS) throw compute::opencl_error(err);
    return ev;
  }
  static cl_ulong end_of(cl_event ev) {
    cl_ulong end = 0;
    cl_int err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    if (err != CL_SUCCESS) throw compute::opencl_error(err);
    return end;
  }
};

bench_record make_record(const compute::device &dev, gen_dist dist, uint64_t n) {
  bench_record r;
  record_init(&r);
  std::snprintf(r.device, sizeof r.device, "%.127s", dev.name().c_str());
  std::snprintf(r.op, sizeof r.op, "sort");
  std::snprintf(r.algorithm, sizeof r.algorithm, "boost-compute");
  std::snprintf(r.impl, sizeof r.impl, "peer");
  std::snprintf(r.type, sizeof r.type, "u32");
  std::snprintf(r.distribution, sizeof r.distribution, "%s", gen_dist_name(dist));
  std::snprintf(r.timing, sizeof r.timing, "fill-bracket");
  r.n = n;
  return r;
}

void emit(const bench_record &r) {
  record_write_json(stdout, &r);
  std::fflush(stdout);
}

// One case; returns false when it did not fit the device (ends the sweep).
bool bench_sort(compute::context &ctx, compute::command_queue &queue, gen_dist dist, uint64_t n) {
  bench_record r = make_record(queue.get_device(), dist, n);
  std::vector<uint32_t> keys(n), out(n);
  // "sort": the same seed clsort bench gives this case, so the same keys.
  gen_keys(KT_U32, dist, keys.data(), n, gen_case_seed(opt.seed, "sort", KT_U32, (int)dist, n));
  try {
    compute::vector<uint32_t> pristine(keys.begin(), keys.end(), queue);
    compute::vector<uint32_t> work(n, ctx);
    Bracket bracket(ctx, queue);
    queue.finish();
    std::vector<double> device, wall;
    unsigned warmup = opt.warmup + 1;  // the first call is extra: it builds the kernels
    double begin = 0.0;
    for (unsigned run = 0; device.size() < opt.runs; run++) {
      compute::copy(pristine.begin(), pristine.end(), work.begin(), queue);
      cl_event before = bracket.fill();
      double t0 = now_ms();
      compute::sort(work.begin(), work.end(), queue);
      cl_event after = bracket.fill();
      clWaitForEvents(1, &after);
      double t1 = now_ms();
      double ms = (double)(Bracket::end_of(after) - Bracket::end_of(before)) * 1e-6;
      clReleaseEvent(before);
      clReleaseEvent(after);
      if (run == 0) r.first_ms = t1 - t0;
      if (run < warmup) {
        begin = now_ms();
        continue;
      }
      device.push_back(ms);
      wall.push_back(t1 - t0);
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
    record_set_throughput(&r, 0.0);
    if (opt.verify) {
      char why[200] = "";
      compute::copy(work.begin(), work.end(), out.begin(), queue);
      bool ok = verify_sort_keys(KT_U32, out.data(), n, 0, verify_hash_keys(KT_U32, keys.data(), n),
                                 why, sizeof why);
      r.verified = ok ? REC_VERIFY_OK : REC_VERIFY_FAILED;
      if (!ok) {
        std::snprintf(r.status, sizeof r.status, "failed");
        std::snprintf(r.note, sizeof r.note, "%s", why);
      }
    }
  } catch (const compute::opencl_error &e) {
    cl_int code = e.error_code();
    if (code != CL_MEM_OBJECT_ALLOCATION_FAILURE && code != CL_OUT_OF_RESOURCES &&
        code != CL_INVALID_BUFFER_SIZE && code != CL_OUT_OF_HOST_MEMORY)
      throw;
    std::snprintf(r.status, sizeof r.status, "skipped");
    std::snprintf(r.note, sizeof r.note, "too large for the device: %s", e.what());
    r.runs = 0;
    std::fprintf(stderr, "note: boost-compute n=%llu: %s\n", (unsigned long long)n, r.note);
    emit(r);
    return false;
  }
  emit(r);
  return true;
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

bool set_sizes(const char *text) {
  uint64_t buf[PARSE_MAX_SIZES];
  size_t count = 0;
  char err[160];
  if (!parse_sizes(text, buf, PARSE_MAX_SIZES, &count, err, sizeof err)) {
    std::fprintf(stderr, "clsort-boost-peer: %s\n", err);
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
      std::fprintf(stderr, "clsort-boost-peer: unknown or incomplete argument '%s'\n", a);
      return 2;
    }
    i++;
    if (!std::strcmp(a, "--platform")) {
      ok = parse_u64(v, &u) && u < 64;
      opt.platform = (unsigned)u;
    } else if (!std::strcmp(a, "--device")) {
      ok = parse_u64(v, &u) && u < 64;
      opt.device = (unsigned)u;
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
    } else {
      std::fprintf(stderr, "clsort-boost-peer: unknown option '%s'\n", a);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "clsort-boost-peer: bad value '%s' for %s\n", v, a);
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  int rc = parse_args(argc, argv);
  if (rc) return rc;
  try {
    std::vector<compute::platform> platforms = compute::system::platforms();
    if (opt.platform >= platforms.size()) {
      std::fprintf(stderr, "clsort-boost-peer: no OpenCL platform %u\n", opt.platform);
      return 1;
    }
    std::vector<compute::device> devices = platforms[opt.platform].devices();
    if (opt.device >= devices.size()) {
      std::fprintf(stderr, "clsort-boost-peer: no device %u:%u\n", opt.platform, opt.device);
      return 1;
    }
    compute::device dev = devices[opt.device];
    compute::context ctx(dev);
    compute::command_queue queue(ctx, dev, compute::command_queue::enable_profiling);
    for (int d = 0; d < DIST_COUNT_; d++) {
      if (!(opt.dists & (1u << d))) continue;
      for (uint64_t n : opt.sizes) {
        if (!bench_sort(ctx, queue, (gen_dist)d, n)) break;
      }
    }
  } catch (const compute::opencl_error &e) {
    std::fprintf(stderr, "clsort-boost-peer: OpenCL error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "clsort-boost-peer: %s\n", e.what());
    return 1;
  }
  return 0;
}
