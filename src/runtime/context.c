/* context.c: creating and releasing a context: device facts, the queue,
 * fault-injection settings and the disk-cache location. */
#include "runtime/runtime.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long live_contexts;

long clsort__live_contexts(void) { return atomic_load(&live_contexts); }

static void read_string(cl_device_id dev, cl_device_info what, char *buf, size_t size) {
  buf[0] = '\0';
  if (clGetDeviceInfo(dev, what, size - 1, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
  buf[size - 1] = '\0';
}

/* Reads what the library needs to know of the device, once. */
static clsort_status read_device_facts(clsort_context *ctx) {
  cl_device_id dev = ctx->device;
  read_string(dev, CL_DEVICE_NAME, ctx->device_name, sizeof ctx->device_name);
  read_string(dev, CL_DEVICE_VERSION, ctx->device_version, sizeof ctx->device_version);
  read_string(dev, CL_DRIVER_VERSION, ctx->driver_version, sizeof ctx->driver_version);
  ctx->platform_name[0] = '\0';
  clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof ctx->platform_name - 1,
                    ctx->platform_name, NULL);
  ctx->one_call_per_process = strstr(ctx->platform_name, "Portable Computing Language") != NULL;
  cl_device_type type = 0;
  cl_device_fp_config fp64 = 0;
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL)));
  FORWARD_IF_ERROR(
      CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof ctx->vendor_id, &ctx->vendor_id, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS,
                                            sizeof ctx->compute_units, &ctx->compute_units, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                            sizeof ctx->max_alloc, &ctx->max_alloc, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE,
                                            sizeof ctx->global_mem, &ctx->global_mem, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                            sizeof ctx->max_wg_size, &ctx->max_wg_size, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE,
                                            sizeof ctx->local_mem, &ctx->local_mem, NULL)));
  if (clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS)
    fp64 = 0;
  ctx->has_fp64 = fp64 != 0;
  ctx->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  if (ctx->compute_units == 0) ctx->compute_units = 1;
  return CLSORT_SUCCESS;
}

/* Allocates a zeroed context. CLSORT_FAIL_ALLOC_AFTER=N makes the (N+1)-th
 * allocation fail, counting this one as the first, so that the tests reach
 * context creation too. */
static clsort_status new_context(clsort_context **out) {
  const char *fail_after = getenv("CLSORT_FAIL_ALLOC_AFTER");
  long after = fail_after && *fail_after ? strtol(fail_after, NULL, 10) : -1;
  *out = after == 0 ? NULL : calloc(1, sizeof **out);
  if (!*out)
    return clsort__fail(CLSORT_ERROR_OUT_OF_MEMORY, CL_OUT_OF_HOST_MEMORY, __FILE__, __LINE__,
                        "no host memory for a context%s", after == 0 ? " (injected)" : "");
  /* Recursive: clsort_prepare runs public calls under its own lock. */
  pthread_mutexattr_t attr;
  bool locked = pthread_mutexattr_init(&attr) == 0;
  if (locked) {
    locked = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
             pthread_mutex_init(&(*out)->lock, &attr) == 0;
    pthread_mutexattr_destroy(&attr);
  }
  if (!locked) {
    free(*out);
    *out = NULL;
    return FAIL(CLSORT_ERROR_OUT_OF_MEMORY, "cannot create the context's mutex");
  }
  (*out)->fail_alloc_after = after > 0 ? after - 1 : -1;
  return CLSORT_SUCCESS;
}

/* Settings read from the environment at creation, so that a context keeps
 * one behaviour for its whole life. */
static clsort_status read_environment(clsort_context *ctx) {
  const char *fail_build = getenv("CLSORT_FAIL_BUILD");
  ctx->fail_build = fail_build && *fail_build && strcmp(fail_build, "0") != 0;
  const char *profile = getenv("CLSORT_PROFILE");
  ctx->timeline = profile && strcmp(profile, "timeline") == 0;
  ctx->profile = profile && *profile && strcmp(profile, "0") != 0 && !ctx->timeline;
  /* A level's scatter on an H100 takes 0.1-0.2 ms at 2^24 keys: polling
   * that long costs a core little and spares the wake-up of a blocked
   * thread. */
  ctx->wait_spin_us = 200;
  unsigned us = 0;
  static const char *const spin = "CLSORT_WAIT_SPIN_US";
  if (clsort__env_fields(spin, &us, 1) == 1 &&
      clsort__env_field_ok(spin, "US", us, 0, 100000, ENV_ANY))
    ctx->wait_spin_us = us;
  clsort__host_settings_from_env(ctx);
  FORWARD_IF_ERROR(clsort__memory_limit_from_env(ctx));
  return clsort__cache_dirs_from_env(ctx);
}

static clsort_status finish_setup(clsort_context *ctx) {
  FORWARD_IF_ERROR(read_device_facts(ctx));
  FORWARD_IF_ERROR(read_environment(ctx));
  clsort__tune(ctx);
  clsort__debug("context on '%s' (%s, driver %s), %u compute units, %s path", ctx->device_name,
                ctx->platform_name, ctx->driver_version, ctx->compute_units,
                ctx->tuning.use_ptx ? "NVIDIA PTX" : "portable");
  atomic_fetch_add(&live_contexts, 1);
  return CLSORT_SUCCESS;
}

/* Frees a context that may be partly built. */
static void destroy(clsort_context *ctx) {
  if (!ctx) return;
  if (ctx->queue) clFinish(ctx->queue);
  clsort__worklist_release(ctx);
  clsort__transfer_release(ctx);
  clsort__pool_release(ctx);
  clsort__scratch_release_all(ctx);
  /* After the sub-buffers carved from it. */
  if (ctx->caller_scratch) clReleaseMemObject(ctx->caller_scratch);
  clsort__programs_release(ctx);
  if (ctx->queue) clReleaseCommandQueue(ctx->queue);
  if (ctx->cl_ctx) clReleaseContext(ctx->cl_ctx);
  free(ctx->cache_dir);
  free(ctx->driver_cache_dir);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

clsort_status clsort_context_create(clsort_context **out, const char *device_spec) {
  clsort__clear_error();
  RETURN_IF(!out, CLSORT_ERROR_INVALID_ARGUMENT, "the context pointer is NULL");
  *out = NULL;
  clsort_context *ctx;
  FORWARD_IF_ERROR(new_context(&ctx));
  clsort_status st;
  cl_int err;
  GOTO_IF_ERROR(clsort__select_device(device_spec, &ctx->platform, &ctx->device));
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform,
                                   0};
  ctx->cl_ctx = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
  GOTO_IF_ERROR(CL_CHECK(err));
  ctx->owns_context = true;
  /* Profiling costs nothing measurable and lets callers time our events. */
  ctx->queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
  GOTO_IF_ERROR(CL_CHECK(err));
  GOTO_IF_ERROR(finish_setup(ctx));
  *out = ctx;
  return CLSORT_SUCCESS;
cleanup:
  destroy(ctx);
  return st;
}

clsort_status clsort_context_create_with_queue(clsort_context **out, cl_command_queue queue) {
  clsort__clear_error();
  RETURN_IF(!out, CLSORT_ERROR_INVALID_ARGUMENT, "the context pointer is NULL");
  *out = NULL;
  RETURN_IF(!queue, CLSORT_ERROR_INVALID_ARGUMENT, "the queue is NULL");
  cl_command_queue_properties qprops = 0;
  cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL);
  if (err != CL_SUCCESS)
    return clsort__fail(CLSORT_ERROR_INVALID_ARGUMENT, err, __FILE__, __LINE__,
                        "the queue is not a valid command queue (%s)", clsort__cl_error_name(err));
  /* The library chains its kernels through queue order. */
  RETURN_IF(qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CLSORT_ERROR_UNSUPPORTED,
            "out-of-order command queues are not supported; pass an in-order queue");
  clsort_context *ctx;
  FORWARD_IF_ERROR(new_context(&ctx));
  clsort_status st;
  GOTO_IF_ERROR(CL_CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx->cl_ctx,
                                               &ctx->cl_ctx, NULL)));
  GOTO_IF_ERROR(CL_CHECK(
      clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL)));
  GOTO_IF_ERROR(CL_CHECK(clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform,
                                         &ctx->platform, NULL)));
  /* Retain what we store, so that destroy() can release symmetrically. */
  GOTO_IF_ERROR(CL_CHECK(clRetainContext(ctx->cl_ctx)));
  if ((st = CL_CHECK(clRetainCommandQueue(queue))) != CLSORT_SUCCESS) {
    clReleaseContext(ctx->cl_ctx);
    ctx->cl_ctx = NULL;
    goto cleanup;
  }
  ctx->queue = queue;
  GOTO_IF_ERROR(finish_setup(ctx));
  *out = ctx;
  return CLSORT_SUCCESS;
cleanup:
  if (st != CLSORT_SUCCESS && ctx->queue == NULL) ctx->cl_ctx = NULL;
  destroy(ctx);
  return st;
}

/* PoCL 5.0 aborts (pocl_release_dlhandle_cache: `found->ref_count > 0`)
 * when contexts of one process run the same kernels from several threads
 * at once: 3 of 6 runs of test_threads on the device host. On PoCL every
 * public call therefore holds one process-wide lock as well, taken after
 * the context's (always in that order, so no deadlock); a CPU device runs
 * each kernel on all its cores anyway. Recursive, as the context's is. */
static pthread_mutex_t pocl_lock;
static pthread_once_t pocl_lock_once = PTHREAD_ONCE_INIT;
static void init_pocl_lock(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&pocl_lock, &attr);
  pthread_mutexattr_destroy(&attr);
}

void clsort_context_release(clsort_context *ctx) {
  if (!ctx) return;
  /* Lets a call in flight on another thread finish first. One that starts
   * later uses freed memory: that is the caller's bug (see clsort.h). */
  pthread_mutex_lock(&ctx->lock);
  pthread_mutex_unlock(&ctx->lock);
  /* One release at a time in the process: PoCL 5.0 aborts in
   * pocl_release_dlhandle_cache (assertion `found->ref_count > 0`) when
   * contexts that ran the same kernels are released from several threads
   * at once (seen on the device host, test_threads and test_context). */
  static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&release_lock);
  bool pocl = ctx->one_call_per_process;
  if (pocl) {
    pthread_once(&pocl_lock_once, init_pocl_lock);
    pthread_mutex_lock(&pocl_lock);
  } /* no other call runs kernels meanwhile */
  destroy(ctx);
  if (pocl) pthread_mutex_unlock(&pocl_lock);
  pthread_mutex_unlock(&release_lock);
  atomic_fetch_sub(&live_contexts, 1);
}

void clsort__enter(clsort_context *ctx) {
  clsort__clear_error();
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  if (ctx->one_call_per_process) {
    pthread_once(&pocl_lock_once, init_pocl_lock);
    pthread_mutex_lock(&pocl_lock);
  }
  /* Scratch that earlier calls used is idle for this one (budget.c). */
  ctx->epoch++;
  /* The caller's scratch is carved afresh by each outermost call. */
  if (ctx->depth++ == 0) clsort__carve_new_call(ctx);
}

clsort_status clsort__leave(clsort_context *ctx, clsort_status st) {
  if (ctx) {
    ctx->depth--;
    if (ctx->one_call_per_process) pthread_mutex_unlock(&pocl_lock);
    pthread_mutex_unlock(&ctx->lock);
  }
  return st;
}

const char *clsort_context_device_name(const clsort_context *ctx) {
  return ctx ? ctx->device_name : "";
}
cl_command_queue clsort_context_queue(const clsort_context *ctx) { return ctx ? ctx->queue : NULL; }
cl_context clsort_context_cl_context(const clsort_context *ctx) {
  return ctx ? ctx->cl_ctx : NULL;
}
cl_device_id clsort_context_device(const clsort_context *ctx) { return ctx ? ctx->device : NULL; }

clsort__build_stats clsort__context_build_stats(const clsort_context *ctx) { return ctx->stats; }
const char *clsort__cache_dir(const clsort_context *ctx) { return ctx->cache_dir; }
void clsort_context_set_build_callback(clsort_context *ctx, clsort_build_callback callback,
                                       void *user) {
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  ctx->build_callback = callback;
  ctx->build_callback_user = user;
  pthread_mutex_unlock(&ctx->lock);
}
int clsort__uses_ptx(const clsort_context *ctx) { return ctx->tuning.use_ptx; }
