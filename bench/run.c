/* run.c: one run of `clsort bench` once its options are parsed: the
 * device set-up, the order of the parts (primitives, sorts, subprocess
 * peers, summary) and the run's closing lines. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- device */
/* Finds the platform and device indices of `device` for the subprocess
 * peers, which open the device on their own. */
static void device_indices(bench_state *s) {
  cl_uint np = 0;
  cl_platform_id platforms[32];
  if (clGetPlatformIDs(32, platforms, &np) != CL_SUCCESS) return;
  for (cl_uint p = 0; p < np && p < 32; p++) {
    cl_uint nd = 0;
    cl_device_id devices[64];
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) != CL_SUCCESS) continue;
    for (cl_uint d = 0; d < nd && d < 64; d++) {
      if (devices[d] == s->device) {
        s->platform_index = p;
        s->device_index = d;
        return;
      }
    }
  }
}

static int open_device(bench_state *s) {
  const bench_config *cfg = s->cfg;
  clsort_status st = clsort_context_create(&s->ctx, cfg->device_spec);
  if (st != CLSORT_SUCCESS) {
    fprintf(stderr, "clsort bench: cannot open device '%s': %s: %s\n",
            cfg->device_spec ? cfg->device_spec : "(default)", clsort_status_string(st),
            clsort_last_error_message());
    return 0;
  }
  if (cfg->on_context) cfg->on_context(s->ctx);
  s->queue = clsort_context_queue(s->ctx);
  s->cl_ctx = clsort_context_cl_context(s->ctx);
  s->device = clsort_context_device(s->ctx);
  snprintf(s->device_name, sizeof s->device_name, "%s", clsort_context_device_name(s->ctx));
  clGetDeviceInfo(s->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof s->global_mem, &s->global_mem, NULL);
  clGetDeviceInfo(s->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof s->max_alloc, &s->max_alloc, NULL);
  cl_command_queue_properties props = 0;
  clGetCommandQueueInfo(s->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
  if (!(props & CL_QUEUE_PROFILING_ENABLE)) {
    fprintf(stderr, "clsort bench: the library's queue has no profiling; device times need it\n");
    return 0;
  }
  if (timer_init(&s->timer, s->cl_ctx, s->queue) != CL_SUCCESS) {
    fprintf(stderr, "clsort bench: cannot allocate the timer's marker buffer\n");
    return 0;
  }
  device_indices(s);
  cl_uint cus = 1;
  clGetDeviceInfo(s->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  s->compute_units = cus ? cus : 1;
  return 1;
}

static void close_device(bench_state *s) {
  timer_release(&s->timer);
  clsort_context_release(s->ctx);
  s->ctx = NULL;
}

int bench_run(const bench_config *cfg) {
  bench_state s;
  memset(&s, 0, sizeof s);
  s.cfg = cfg;
  s.started_ms = wall_ms();
  snprintf(s.run_id, sizeof s.run_id, "%lld-%ld", (long long)time(NULL), (long)getpid());
  if (cfg->json_path) {
    s.json = fopen(cfg->json_path, "w");
    if (!s.json) {
      fprintf(stderr, "clsort bench: cannot write %s: %s\n", cfg->json_path, strerror(errno));
      return 0;
    }
  }
  /* A peer named explicitly must be there before anything runs. */
  for (int p = PEER_CUB; p <= PEER_CPU; p++) {
    char path[4096];
    if ((cfg->peers_required & (1u << p)) && !peer_executable((peer_kind)p, path, sizeof path)) {
      fprintf(stderr, "clsort bench: peer %s is not built or not found (set %s to its path)\n",
              peer_name((peer_kind)p), peer_env((peer_kind)p));
      if (s.json) fclose(s.json);
      return 0;
    }
  }
  if (!open_device(&s)) {
    if (s.json) fclose(s.json);
    return 0;
  }
  /* The driver's version, so that every recorded figure names it. */
  char driver[128] = "unknown";
  clGetDeviceInfo(s.device, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
  printf("# clsort bench: libclsort %s on %s (%u:%u), driver %s, %.0f MiB, max allocation %.0f "
         "MiB\n",
         clsort_version_string(), s.device_name, s.platform_index, s.device_index, driver,
         (double)s.global_mem / 1048576.0, (double)s.max_alloc / 1048576.0);
  printf("# %u runs after %u warm-up; device times from profiling events; seed %llu%s\n",
         cfg->runs, cfg->warmup, (unsigned long long)cfg->seed,
         cfg->verify ? "" : "; outputs NOT verified");
  if (cfg->experiment)
    printf("# experiment %s: 'bench/seed_tables.py %s LABEL=FILE.jsonl' puts it beside the "
           "published figures\n",
           cfg->experiment, cfg->experiment);
  report_header();

  bench_primitives(&s);
  bench_sorts(&s);
  bench_ops(&s);
  /* The GPU peers get the device to themselves. */
  close_device(&s);
  int peers_ok = bench_subprocess_peers(&s);

  /* The host baselines' ratios are in the table already. */
  report_summary(stdout, s.records, s.num_records, NULL, 1, NULL);
  report_progress_done(&s);
  fprintf(stderr, "clsort bench: %zu measurements in %.1f s, %u verification failures, %u errors\n",
          s.num_records, (wall_ms() - s.started_ms) / 1e3, s.failures, s.errors);
  if (s.json) fclose(s.json);
  free(s.records);
  free(s.skipped);
  return !(s.failures || s.errors || !peers_ok);
}
