/* runtime.h: the runtime layer, which every other layer builds on and
 * which includes none of them: the context, the error helpers, the program
 * cache, the scratch memory, the tuning and the launches. */
#ifndef CLSORT_RUNTIME_H
#define CLSORT_RUNTIME_H

#include "clsort.h"
#include "runtime/testing.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>

/* ------------------------------------------------------------------ errors */
/* Records `status` with a printf-style message as this thread's last error
 * (clsort_last_error_message), logs it when CLSORT_LOG=debug, and returns
 * the status so that callers can write `return clsort__fail(...)`. */
clsort_status clsort__fail(clsort_status status, cl_int cl_error, const char *file, int line,
                           const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Clears the thread's last error; every public entry point calls it first. */
void clsort__clear_error(void);
/* Maps an OpenCL error code to the library's status. */
clsort_status clsort__status_from_cl(cl_int err);
const char *clsort__cl_error_name(cl_int err);
/* True when CLSORT_LOG=debug; debug logging goes to stderr. */
bool clsort__debug_enabled(void);
/* A monotonic clock in milliseconds, for the debug log's timings. */
double clsort__now_ms(void);
void clsort__debug(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#define FAIL(status, ...) clsort__fail((status), CL_SUCCESS, __FILE__, __LINE__, __VA_ARGS__)
#define RETURN_IF(cond, status, ...)        \
  do {                                      \
    if (cond) return FAIL(status, __VA_ARGS__); \
  } while (0)
#define FORWARD_IF_ERROR(expr)         \
  do {                                 \
    clsort_status fwd_st_ = (expr);    \
    if (fwd_st_ != CLSORT_SUCCESS) return fwd_st_; \
  } while (0)
/* For functions with a `cleanup:` label and a `clsort_status st` local. */
#define GOTO_IF_ERROR(expr)              \
  do {                                   \
    st = (expr);                         \
    if (st != CLSORT_SUCCESS) goto cleanup; \
  } while (0)
/* Turns a failing OpenCL call into the matching status with a message. */
#define CL_CHECK(call)                                                                   \
  clsort__check_cl((call), #call, __FILE__, __LINE__)
clsort_status clsort__check_cl(cl_int err, const char *what, const char *file, int line);

/* ------------------------------------------------------------- scratch */
/* Scratch slots: each is one device buffer that only grows and is reused
 * across calls. Work is enqueued in order, so reuse after a call is safe. */
typedef enum clsort__slot {
  SLOT_PARTIALS,     /* per-work-group partial sums of the scan layer */
  SLOT_LOOKBACK,     /* tile status words of the single-pass scan */
  SLOT_TABLE,        /* histogram tables */
  SLOT_HOST_IN,      /* staging for the host-array helpers */
  SLOT_HOST_OUT,
  SLOT_HOST_AUX,
  SLOT_HOST_COUNT,
  SLOT_HOST_OUT_VALUES, /* the split sort's values (api/staging.c) */
  SLOT_HISTOGRAM,    /* the radix sort's digit histograms of all passes */
  SLOT_PASS_TABLES,  /* and every pass's per-chunk digit table */
  SLOT_SORT_KEYS,    /* double buffers of the sorts */
  SLOT_SORT_KEYS2,
  SLOT_SORT_VALUES,
  SLOT_SORT_VALUES2, /* (the sample sort, which keeps no values there: its bucket ids) */
  SLOT_SORT_KEYS3,   /* the CPU merge sort's second scratch pair: keys (values: VALUES2) */
  SLOT_SORT_AUX1,    /* per-algorithm tables: splitters, bucket counts, */
  SLOT_SORT_AUX2,    /* merge-path splits, segment lists, ... */
  SLOT_SORT_AUX3,
  SLOT_RADIX_NV,     /* the NVIDIA radix's counts and plan, kept zeroed */
  SLOT_SEGMENT_LIST, /* the segmented sort's small segments, */
  SLOT_SEGMENT_KEYS, /* and the copy of one large segment */
  SLOT_SEGMENT_VALUES,
  SLOT_SEGMENT_POS,  /* the global path's positions */
  SLOT_SEGMENT_IDS,  /* and segment ids */
  SLOT_SEGMENT_PARTS, /* the long segments' merge co-ranks */
  SLOT_SEGMENT_TMP,  /* the CPUs' stable segment sort's scratch: keys, */
  SLOT_SEGMENT_TMP_VALUES, /* values */
  SLOT_LEAF_VALUES,  /* the CPU leaves' values, half a page from their keys */
  SLOT_SELECT_A,     /* the radix select's candidates (ping-pong), */
  SLOT_SELECT_B,     /* then top-k's keys and positions */
  SLOT_SELECT_TABLE, /* the digit histogram */
  SLOT_SELECT_FLAGS, /* the candidates that stay */
  SLOT_SELECT_COUNT, /* the compact primitive's count; top-k's append counter */
  SLOT_WIDE,         /* 8- and 16-bit keys or elements widened to 32 bits */
  SLOT_TOPK_CTL,     /* top-k's sampled path: the sample, then its counts, */
  SLOT_TOPK_KEYS,    /* its candidates */
  SLOT_TOPK_POSITIONS, /* and their positions */
  SLOT_COUNT_
} clsort__slot;

/* ------------------------------------------------------ device tuning */
/* Launch shapes chosen per device by tuning.c. */
typedef struct clsort__tuning {
  unsigned wg_size;        /* work-items per group of the scan layer */
  unsigned items;          /* elements per work-item per tile */
  unsigned groups_per_cu;  /* resident groups per compute unit for chunked passes */
  unsigned radix_items;    /* keys per work-item of a radix tile; 0: derived */
  unsigned bitonic_wg;     /* work-items of a bitonic tile; 0: from local memory */
  bool cpu_shape;          /* CPU devices: the *_cpu.cl kernels (one work-item per group) */
  unsigned radix_cpu_top;  /* CPU radix: widest top (bucket) digit, bits */
  unsigned radix_cpu_low;  /* CPU radix: widest digit of the passes inside a bucket */
  bool radix_cpu_wc;       /* CPU radix: write-combining scatter */
  unsigned radix_cpu_bucket; /* CPU radix: log2 of the keys a bucket aims at */
  unsigned scan_cpu_lanes; /* CPU scan of 4-byte types: lanes of a line (8 or 16) */
  bool use_ptx;            /* NVIDIA warp intrinsics through inline PTX */
  bool single_pass_scan;   /* decoupled look-back scan (validated on NVIDIA only) */
  bool tile_by_group;      /* single-pass tiles by group id (NVIDIA), else a ticket */
  unsigned scan64_items;   /* single-pass scan: 64-bit elements per work-item */
  unsigned scan64_wg;      /* single-pass scan: work-items per group for 64-bit types */
  unsigned lookback_ns;    /* look-back sleep between polls (NVIDIA), 0 spins */
} clsort__tuning;

/* The NVIDIA radix pass's launch shape (cl/onesweep.cl): work-items per
 * group, keys per work-item, whether warps find equal digits with
 * match.any (1) or with ballots (0), and a register cap for the pass
 * kernel (.maxnreg through ptx_registers.c; 0: the compiler's choice). */
typedef struct clsort__onesweep_shape {
  unsigned wg, items, match, regs;
} clsort__onesweep_shape;
/* The shape for n keys of key_size bytes with values of value_size bytes
 * (0: keys only), from the table in tuning.c or CLSORT_ONESWEEP. */
clsort__onesweep_shape clsort__onesweep_shape_for(const clsort_context *ctx, size_t key_size,
                                                  size_t value_size, size_t n);

/* --------------------------------------------------------- programs */
/* Register caps for single kernels (ptx_registers.c): an option token
 * -DCLSORT_MAXNREG_<kernel>=<N> asks for one. clsort__ptx_capped returns
 * the program rebuilt from its PTX with ".maxnreg N" in each named entry
 * (NVIDIA), or NULL where nothing applies or the rebuild fails; the
 * program as built then serves. */
#define VENDOR_NVIDIA 0x10de
bool clsort__has_register_caps(const char *options);
cl_program clsort__ptx_capped(clsort_context *ctx, cl_program program, const char *options);

/* topk.cl has the most: the radix select's three and the sampled path's
 * six. */
#define CLSORT_MAX_KERNELS_PER_PROGRAM 12

typedef struct clsort__program {
  char *key;  /* program name + options: identifies the variant in memory */
  cl_program program;
  cl_kernel kernels[CLSORT_MAX_KERNELS_PER_PROGRAM];
  const char *kernel_names[CLSORT_MAX_KERNELS_PER_PROGRAM];
  struct clsort__program *next;
} clsort__program;

/* A program is a list of cl/ files concatenated in order after the host's
 * #defines. */
typedef struct clsort__program_spec {
  const char *name;          /* for messages and the in-memory key */
  const char *const *files;  /* NULL-terminated list of cl/ file names */
} clsort__program_spec;

/* ---------------------------------------------------------- context */
struct clsort_context {
  cl_platform_id platform;
  cl_device_id device;
  cl_context cl_ctx;
  cl_command_queue queue;
  bool owns_context; /* false when created with the caller's queue */

  char device_name[256];
  char platform_name[256];
  char device_version[128];
  char driver_version[128];
  cl_uint vendor_id; /* VENDOR_NVIDIA: NVIDIA's PCI vendor id */
  cl_uint compute_units;
  cl_ulong max_alloc;
  cl_ulong global_mem;
  size_t max_wg_size;
  cl_ulong local_mem;
  bool has_fp64;
  bool is_cpu;
  bool one_call_per_process; /* PoCL: see clsort__enter */
  clsort__tuning tuning;
  char common_options[192]; /* -D flags shared by every program (tuning.c) */

  clsort__program *programs; /* in-memory cache, one entry per variant */
  char *build_log;
  clsort__build_stats stats;
  char *cache_dir;        /* our disk cache; NULL: off */
  char *driver_cache_dir; /* the driver's own, when it is used instead (PoCL) */

  cl_mem scratch[SLOT_COUNT_];
  size_t scratch_size[SLOT_COUNT_];

  /* Held for the whole of every public call on the context (LOCKED). */
  pthread_mutex_t lock;
  /* Called before a program is compiled from source (program.c). */
  clsort_build_callback build_callback;
  void *build_callback_user;

  /* The device memory limit (budget.c): the cap (0: none), the bytes the
   * library holds on the device now, and the call epoch that tells scratch
   * a call is using from scratch left idle by earlier calls. */
  size_t memory_limit;
  size_t device_bytes;
  unsigned long epoch;
  unsigned long scratch_epoch[SLOT_COUNT_];

  /* Host threads (pool.c) and transfers (transfer.c), made at first use;
   * their settings are read from the environment at creation. */
  struct clsort__pool *pool;
  unsigned host_threads;
  struct clsort__staging *staging;
  struct clsort__pinned *pinned; /* clsort_host_alloc's allocations */
  size_t staging_slot_bytes;
  size_t staging_ramp_bytes; /* the shortest slot at a transfer's ends; 0: none */
  unsigned staging_slots;
  bool staging_off;   /* CLSORT_STAGING=0 */
  bool staging_force; /* CLSORT_STAGING=KIB:SLOTS:1: stage on CPU devices too (tests) */
  bool plain_copy;    /* CLSORT_PLAIN_COPY=1: staging copies by memcpy (bench/ compares) */
  clsort_progress_callback progress;
  void *progress_user;

  /* Fault injection: allocations left before the next one fails (-1: off),
   * and whether program builds are forced to fail. */
  long fail_alloc_after;
  bool fail_build;
  bool profile; /* CLSORT_PROFILE=1: print each kernel's device time */
  /* CLSORT_PROFILE=timeline: each sort's launches keep their events,
   * printed when the sort ends (launch.c), without serialising the queue,
   * so that the idle time between kernels shows. */
  bool timeline;
  unsigned timeline_count;
  struct {
    cl_event ev;
    char name[40];
  } timeline_log[128];
  /* CLSORT_WAIT_SPIN_US: how long a wait for a short device step polls
   * its event before it blocks (clsort__wait_event). */
  unsigned wait_spin_us;
  /* worklist.c: the sorts' host worklists, pinned or (worklist_pinned
   * false) plain memory. */
  void *worklist;
  size_t worklist_bytes;
  bool worklist_pinned;
  /* The SLOT_RADIX_NV buffer while its counts are known to be zero (each
   * NVIDIA radix histogram launch leaves them so); NULL: fill it first. */
  cl_mem radix_nv_clean;

  /* Caller scratch (caller_scratch.c): the caller's buffer that the
   * algorithms' slots are carved from instead of allocated (NULL: none),
   * its usable bytes, the carving cursor of the call in flight, and
   * which slots hold a carved sub-buffer (not counted as device memory).
   * `depth` counts nested public calls: the cursor restarts with each
   * outermost one. While `measuring` (clsort_scratch_bytes), every slot
   * request is also added up as carving would take it, into `measured`. */
  cl_mem caller_scratch;
  size_t caller_scratch_bytes;
  size_t carve_cursor;
  bool carved[SLOT_COUNT_];
  size_t carve_origin[SLOT_COUNT_];
  unsigned long carve_call, carve_call_of[SLOT_COUNT_];
  unsigned depth;
  bool measuring;
  size_t measured;
  size_t measure_size[SLOT_COUNT_];
};

/* context.c: every public entry point that takes a context runs its body
 * as `return LOCKED(ctx, body(ctx, ...));`, which clears the thread's last
 * error and holds the context's mutex for the call (a NULL ctx is left to
 * the body's checks). The queue, the scratch buffers and the program cache
 * are not safe to share (PoCL aborts when two threads enqueue on one
 * queue), so calls on one context from several threads are serialised.
 * The mutex is recursive, so a public call may make others
 * (clsort_prepare does). */
#define LOCKED(ctx, call) (clsort__enter(ctx), clsort__leave((ctx), (call)))

/* The bodies of the public memory calls (src/api/memory.c locks around
 * them): the device memory limit (budget.c), pinned host memory
 * (transfer.c). */
clsort_status clsort__set_memory_limit(clsort_context *ctx, size_t bytes);
clsort_status clsort__host_alloc(clsort_context *ctx, size_t bytes, void **ptr);
clsort_status clsort__host_free(clsort_context *ctx, void *ptr);
void clsort__enter(clsort_context *ctx);
clsort_status clsort__leave(clsort_context *ctx, clsort_status st);

/* device_select.c */
clsort_status clsort__select_device(const char *spec, cl_platform_id *platform,
                                    cl_device_id *device);

/* tuning.c: picks the launch shapes and paths for the context's device,
 * and the "-D" options every program built for it shares. */
void clsort__tune(clsort_context *ctx);
const char *clsort__common_options(const clsort_context *ctx);

/* Reads the variable `name` as up to `max` unsigned fields separated by
 * ':' ("256:16") into fields[0..]; returns how many parsed (0 when unset
 * or malformed from the first field; CLSORT_LOG=debug reports a malformed
 * field). The tuning overrides (CLSORT_TUNING, CLSORT_SAMPLE, CLSORT_MERGE,
 * CLSORT_QUICK, CLSORT_BITONIC) go through it, then check each field with
 * clsort__env_field_ok. */
unsigned clsort__env_fields(const char *name, unsigned *fields, unsigned max);
/* What a field of an override must be besides lying in [lo, hi]. */
typedef enum clsort__env_rule { ENV_ANY, ENV_POW2, ENV_MUL4, ENV_ODD } clsort__env_rule;
/* Whether `value`, the field `what` of the override `name`, lies in
 * [lo, hi] and follows `rule`. The overrides are for benchmarks, not API:
 * a field that does not is ignored (the default stays) and CLSORT_LOG=debug
 * says so. */
bool clsort__env_field_ok(const char *name, const char *what, unsigned value, unsigned lo,
                          unsigned hi, clsort__env_rule rule);
/* Whether the variable `name` is set to something other than "" or "0". */
bool clsort__env_flag(const char *name);

/* alloc.c: every allocation goes through these, so that fault injection
 * (CLSORT_FAIL_ALLOC_AFTER=N) reaches all of them. */
void *clsort__malloc(clsort_context *ctx, size_t bytes);
clsort_status clsort__create_buffer(clsort_context *ctx, cl_mem_flags flags, size_t bytes,
                                    cl_mem *out);
/* Whether host memory at p can serve a CPU device in place: the CPU
 * shape, and p aligned as the device wants its buffers
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN), so that CL_MEM_USE_HOST_PTR copies
 * nothing. */
bool clsort__can_wrap(const clsort_context *ctx, const void *p);
/* The alignment (bytes) that clsort__can_wrap asks of host memory; 0
 * where host memory is never used in place (not the CPU shape). */
size_t clsort__wrap_alignment(const clsort_context *ctx);
/* A buffer over `bytes` of host memory at p (CL_MEM_USE_HOST_PTR), through
 * the allocation hook like every other. */
clsort_status clsort__wrap_host(clsort_context *ctx, void *p, size_t bytes, cl_mem *out);
/* Returns the slot's buffer, grown to at least `bytes`. */
clsort_status clsort__scratch(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out);
void clsort__scratch_release_all(clsort_context *ctx);
/* Releases one slot's buffer (uncounting it unless it was carved). */
void clsort__release_slot(clsort_context *ctx, int slot);

/* Allocates a buffer in host memory that the device reaches directly
 * (flags must include CL_MEM_ALLOC_HOST_PTR): pinned memory on GPUs. Not
 * counted against the device memory limit; fault injection reaches it. */
clsort_status clsort__create_host_buffer(clsort_context *ctx, cl_mem_flags flags, size_t bytes,
                                         cl_mem *out);
/* Releases a buffer made by clsort__create_buffer and uncounts its bytes.
 * Accepts NULL. */
void clsort__release_buffer(clsort_context *ctx, cl_mem buf);

/* caller_scratch.c: the scratch buffer a caller hands the context
 * (clsort_context_set_scratch). Whether `slot` is carved from it (the
 * algorithms' slots are; the host-array staging slots never are). */
bool clsort__carving(const clsort_context *ctx, clsort__slot slot);
/* Whether the slot's sub-buffer of the caller's scratch, of at least
 * `bytes`, can serve again (into *out): carved earlier in this call, or
 * by an earlier call just where this one's carving has got to, with the
 * same size (so a call that repeats the one before creates nothing). */
bool clsort__carve_reuse(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out);
/* Carves a new sub-buffer of `bytes` for the (released) slot at the
 * cursor. CLSORT_ERROR_MEMORY_LIMIT when the caller's buffer is too small. */
clsort_status clsort__carve_new(clsort_context *ctx, clsort__slot slot, size_t bytes, cl_mem *out);
/* Restarts the carving: each outermost public call (clsort__enter). */
void clsort__carve_new_call(clsort_context *ctx);
/* Adds a slot request to the measurement of clsort_scratch_bytes. */
void clsort__measure(clsort_context *ctx, clsort__slot slot, size_t bytes);
/* The bytes a carve of `bytes` takes: rounded up to the device's
 * sub-buffer alignment. */
size_t clsort__carve_bytes(const clsort_context *ctx, size_t bytes);
/* Makes `buffer` (NULL: none) the context's scratch, retained; the
 * caller releases every slot first (clsort__scratch_release_all). */
void clsort__set_caller_scratch(clsort_context *ctx, cl_mem buffer, size_t bytes);

/* budget.c: the device memory limit. */
/* Reads CLSORT_DEVICE_MEMORY_LIMIT (at context creation); a malformed value
 * is CLSORT_ERROR_INVALID_ARGUMENT. */
clsort_status clsort__memory_limit_from_env(clsort_context *ctx);
/* Parses "4096", "64K", "512M", "1.5G", "2T" (powers of 1024). */
bool clsort__parse_bytes(const char *text, size_t *out);
/* Makes room for `bytes` more under the limit, releasing scratch that no
 * part of the current call has used (largest first); returns whether it
 * fits. Always true without a limit. */
bool clsort__budget_make_room(clsort_context *ctx, size_t bytes);
/* The device memory a call may plan with: the limit, else 15/16 of the
 * device's global memory. */
size_t clsort__budget_total(const clsort_context *ctx);
/* Starts a new epoch: scratch acquired before it counts as idle (the
 * out-of-core sort calls it between its sorts). */
void clsort__scratch_new_epoch(clsort_context *ctx);
/* Releases every scratch slot that the current epoch has not used. */
void clsort__scratch_release_idle(clsort_context *ctx);

/* pool.c: the context's host threads. fn(arg, i, count) runs once for
 * every i in [0, count), spread over the threads (the caller is one of
 * them); returns when all have. Never fails: without threads it runs them
 * in turn. */
typedef void (*clsort__task)(void *arg, unsigned index, unsigned count);
void clsort__parallel(clsort_context *ctx, unsigned count, clsort__task fn, void *arg);
/* The number of host threads the pool runs (CLSORT_HOST_THREADS, else the
 * online processors, at most 16). */
unsigned clsort__host_thread_count(const clsort_context *ctx);
void clsort__pool_release(clsort_context *ctx);
/* Settings of pool.c and transfer.c from the environment (at creation). */
void clsort__host_settings_from_env(clsort_context *ctx);

/* transfer.c: host <-> device copies, staged through pinned memory on
 * GPUs. One piece is a device range [offset, offset + bytes) of `mem` and
 * host memory at `host`. */
typedef struct clsort__piece {
  cl_mem mem;
  size_t offset;
  void *host;
  size_t bytes;
} clsort__piece;
/* memcpy for the staging copies: non-temporal stores on x86 (stream_copy.c). */
void clsort__stream_copy(void *dst, const void *src, size_t bytes);
/* Whether host arrays on this context are staged through pinned buffers
 * (GPUs unless CLSORT_STAGING=0; CPUs only when forced). */
bool clsort__staging_on(const clsort_context *ctx);
/* Copies the pieces' host memory to the device after `wait`. Returns once
 * the host memory may change again (for pinned or unstaged memory: once the
 * copies are enqueued; the caller keeps it unchanged until *done). *done
 * (if not NULL) receives an event that completes with the last copy.
 * Consecutive pieces whose device ranges follow each other share copies. */
clsort_status clsort__upload(clsort_context *ctx, const clsort__piece *pieces, size_t count,
                             cl_uint num_wait, const cl_event *wait, cl_event *done);
/* Copies the pieces' device ranges to host memory after `wait`; blocking:
 * returns when every piece is in host memory. */
clsort_status clsort__download(clsort_context *ctx, const clsort__piece *pieces, size_t count,
                               cl_uint num_wait, const cl_event *wait);
/* clsort__download_when's hook: *ready receives an event after which
 * bytes [0, end) of piece i are final (NULL: already), which the caller
 * keeps and releases after the download. Asked before each read of the
 * piece, in order; with `block` false the hook may answer "not yet"
 * (*available false), and the download goes on copying out what it has
 * and asks again; with `block` true (nothing else to do) it must wait.
 * So a caller can make a piece's parts while the earlier parts travel. */
typedef clsort_status (*clsort__piece_ready)(void *arg, size_t i, size_t end, bool block,
                                             cl_event *ready, bool *available);
/* clsort__download, with each read also waiting for the hook's event
 * (ready NULL: clsort__download). */
clsort_status clsort__download_when(clsort_context *ctx, const clsort__piece *pieces,
                                    size_t count, cl_uint num_wait, const cl_event *wait,
                                    clsort__piece_ready ready, void *arg);
/* Waits for every transfer in flight (after a failure, so that nothing
 * still reads or writes the caller's memory). */
void clsort__transfer_finish(clsort_context *ctx);
/* Whether [p, p + bytes) lies in one clsort_host_alloc allocation. */
bool clsort__is_pinned(const clsort_context *ctx, const void *p, size_t bytes);
/* worklist.c: host memory of at least `bytes` for a sort's lists that go
 * to and from the device, pinned where the device allows; the context
 * keeps it (one sort at a time uses it: calls on a context are
 * serialised). What a transfer from it queued without blocking must be
 * done before the memory is written again. */
clsort_status clsort__worklist(clsort_context *ctx, size_t bytes, void **out);
void clsort__worklist_release(clsort_context *ctx);
/* Frees the staging buffers, the transfer queue and the pinned allocations. */
void clsort__transfer_release(clsort_context *ctx);
/* Calls the progress callback, if any. */
void clsort__progress(clsort_context *ctx, uint64_t done, uint64_t total);

/* hash.c: a 128-bit non-cryptographic hash (two independent 64-bit lanes). */
typedef struct clsort__hash {
  uint64_t a, b;
} clsort__hash;
void clsort__hash_init(clsort__hash *h);
void clsort__hash_bytes(clsort__hash *h, const void *data, size_t len);
void clsort__hash_str(clsort__hash *h, const char *s); /* includes the terminator */
void clsort__hash_hex(const clsort__hash *h, char out[33]);

/* disk_cache.c */
/* The disk-cache directory the environment asks for, or NULL (*out) when
 * the disk cache is off. */
/* Where compiled programs are kept between processes, from the
 * environment and the device (read before): our disk cache (cache_dir),
 * or, on a driver that caches its kernels itself and compiles them lazily
 * (PoCL), that driver's cache (driver_cache_dir) and none of ours.
 * CLSORT_CACHE=0 turns both off; CLSORT_CACHE=1 uses ours everywhere. */
clsort_status clsort__cache_dirs_from_env(clsort_context *ctx);
/* Returns a malloc'ed binary, or NULL when absent or corrupt; *corrupt
 * tells the two apart. */
unsigned char *clsort__disk_cache_load(clsort_context *ctx, const char *key_hex,
                                       size_t *size, bool *corrupt);
void clsort__disk_cache_store(const clsort_context *ctx, const char *key_hex,
                              const unsigned char *binary, size_t size);
/* clsort__driver_build_lock: in runtime/testing.h, where the tests reach it. */

/* embedded_kernels.c (generated from cl/ by src/embed_kernels.py) */
typedef struct clsort__kernel_file {
  const char *name;
  const char *text;
} clsort__kernel_file;
extern const clsort__kernel_file clsort__kernel_files[];
extern const size_t clsort__kernel_file_count;

/* program.c: returns the kernel `kernel_name` of the program `spec` built
 * with `options` (a string of -D flags), building and caching as needed. */
clsort_status clsort__get_kernel(clsort_context *ctx, const clsort__program_spec *spec,
                                 const char *options, const char *kernel_name, cl_kernel *out);
/* The most work-items a group of `kernel` may have on the context's device
 * (CL_KERNEL_WORK_GROUP_SIZE: its registers and local memory decide); 0
 * when the driver does not say. */
size_t clsort__kernel_wg_limit(const clsort_context *ctx, cl_kernel kernel);
/* Releases the context's programs and its build log. */
void clsort__programs_release(clsort_context *ctx);
/* Reads one cl/ file from CLSORT_KERNEL_DIR or the embedded copy into
 * memory the caller frees. */
clsort_status clsort__kernel_source(clsort_context *ctx, const char *file, char **out);

/* launch.c: setting arguments and enqueueing with error mapping. */
typedef struct clsort__arg {
  size_t size;
  const void *value; /* NULL with size > 0: local memory of that size */
} clsort__arg;
#define ARG(x) ((clsort__arg){sizeof(x), &(x)})
#define ARG_LOCAL(bytes) ((clsort__arg){(bytes), NULL})
clsort_status clsort__launch(clsort_context *ctx, cl_kernel kernel, size_t global, size_t local,
                             size_t nargs, const clsort__arg *args, cl_uint num_wait,
                             const cl_event *wait_list, cl_event *event);
/* Makes everything enqueued next wait for the caller's wait list (one
 * barrier, only when the list is not empty). */
clsort_status clsort__begin(clsort_context *ctx, cl_uint num_wait, const cl_event *wait_list);
/* Enqueues a marker that completes after everything enqueued so far and
 * returns it in *event, for the public calls' output event. */
clsort_status clsort__marker(clsort_context *ctx, cl_event *event);
/* Waits for ev, polling it for up to ctx->wait_spin_us first: for the
 * host's round trips inside a sort (a level's bucket sizes), where a
 * blocking wait's wake-up leaves the device idle. */
cl_int clsort__wait_event(const clsort_context *ctx, cl_event ev);
/* CLSORT_PROFILE=timeline: prints the launches recorded since the last
 * call (waiting for them), then forgets them. */
void clsort__timeline_print(clsort_context *ctx);

/* Integer helpers. */
static inline size_t clsort__div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static inline size_t clsort__min(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t clsort__max(size_t a, size_t b) { return a > b ? a : b; }

#endif
