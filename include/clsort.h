/* clsort.h: the public interface of libclsort, a portable OpenCL sorting
 * library with a shared scan/compact primitive layer.
 *
 * Everything a program needs is declared here; every other header of the
 * project is private. Status codes are frozen once released. */
#ifndef CLSORT_H
#define CLSORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */
/* The version is defined here once; meson reads it from these lines. */
#define CLSORT_VERSION_MAJOR 0
#define CLSORT_VERSION_MINOR 3
#define CLSORT_VERSION_PATCH 0
#define CLSORT_VERSION_NUMBER \
  (CLSORT_VERSION_MAJOR * 10000 + CLSORT_VERSION_MINOR * 100 + CLSORT_VERSION_PATCH)

#if defined(CLSORT_STATIC_DEFINE)
#define CLSORT_API
#elif defined(_WIN32)
#ifdef CLSORT_BUILDING_LIBRARY
#define CLSORT_API __declspec(dllexport)
#else
#define CLSORT_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CLSORT_API __attribute__((visibility("default")))
#else
#define CLSORT_API
#endif

/* Returns CLSORT_VERSION_NUMBER of the library actually linked. Since 0.1. */
CLSORT_API unsigned clsort_version(void);
/* Returns "MAJOR.MINOR.PATCH" of the library actually linked. Since 0.1. */
CLSORT_API const char *clsort_version_string(void);

/* ----------------------------------------------------------------- status */
/* One list generates the enum, the names and the messages, so that they
 * cannot drift apart. X(name, value, message) */
#define CLSORT_STATUS_MAP(X)                                                              \
  X(CLSORT_SUCCESS, 0, "success")                                                         \
  X(CLSORT_ERROR_INVALID_ARGUMENT, -1, "invalid argument")                                \
  X(CLSORT_ERROR_UNSUPPORTED, -2, "unsupported type, algorithm or feature on this device") \
  X(CLSORT_ERROR_NO_DEVICE, -3, "no matching OpenCL device")                              \
  X(CLSORT_ERROR_OUT_OF_MEMORY, -4, "out of memory (host or device)")                     \
  X(CLSORT_ERROR_BUILD_FAILED, -5, "OpenCL kernel build failed")                          \
  X(CLSORT_ERROR_OPENCL, -6, "OpenCL call failed")                                        \
  X(CLSORT_ERROR_TOO_LARGE, -7, "input too large for the device or the chosen format")     \
  X(CLSORT_ERROR_MEMORY_LIMIT, -8, "the context's device memory limit is too small for the call")

typedef enum clsort_status {
#define CLSORT_STATUS_ENUM_(name, value, message) name = value,
  CLSORT_STATUS_MAP(CLSORT_STATUS_ENUM_)
#undef CLSORT_STATUS_ENUM_
} clsort_status;

/* Returns a static, human-readable description of `status`; "unknown
 * status" for values outside the list. Never NULL. Since 0.1. */
CLSORT_API const char *clsort_status_string(clsort_status status);
/* Returns the enumerator's name, e.g. "CLSORT_ERROR_NO_DEVICE". Since 0.1. */
CLSORT_API const char *clsort_status_name(clsort_status status);

/* The message of the last failing call made by this thread: what was wrong,
 * in one sentence ("n (1000) exceeds the keys buffer (4000 bytes = 500 keys)").
 * Empty string when the thread's last call succeeded. The pointer is valid
 * until this thread's next libclsort call. Since 0.1. */
CLSORT_API const char *clsort_last_error_message(void);
/* The OpenCL error code behind this thread's last CLSORT_ERROR_OPENCL,
 * CLSORT_ERROR_OUT_OF_MEMORY or CLSORT_ERROR_BUILD_FAILED (CL_SUCCESS when
 * none was involved). Since 0.1. */
CLSORT_API cl_int clsort_last_cl_error(void);

/* ------------------------------------------------------------------ types */
/* Key and element types. Floats sort in total order by bits:
 * -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
 *
 * The 8- and 16-bit types (since 0.3) are keys of every sort, algorithm,
 * mode and bit range (bits of the 8- or 16-bit order key). The half
 * floats are stored as their bits (uint16_t): F16 is IEEE 754 binary16,
 * BF16 bfloat16 (the high half of a float); no device half-precision
 * support is needed. The sorts widen the keys on the device into 32-bit
 * order keys and narrow them back: their device scratch is a u32 sort's
 * (see each algorithm) plus 4 bytes per key for the widened copy; the
 * radix sort then runs one 8-bit pass per key byte (fewer for a narrower
 * bit range). Primitives: clsort_scan and CLSORT_REDUCE_SUM take the
 * integer ones (sums wrap in the type); CLSORT_REDUCE_MIN/MAX take all six
 * (half floats as f32 does: NaNs ignored); they use 4 bytes of device
 * scratch per element. Scans and sums of F16 or BF16 return
 * CLSORT_ERROR_UNSUPPORTED (the library has no half-float arithmetic), as
 * do, for all six for now, clsort_merge, clsort_top_k, clsort_select and
 * clsort_segmented_sort (and their buffer and pairs forms). */
typedef enum clsort_type {
  CLSORT_U32 = 0,
  CLSORT_I32 = 1,
  CLSORT_F32 = 2,
  CLSORT_U64 = 3,
  CLSORT_I64 = 4,
  CLSORT_F64 = 5,
  CLSORT_U8 = 6,   /* since 0.3 */
  CLSORT_I8 = 7,   /* since 0.3 */
  CLSORT_U16 = 8,  /* since 0.3 */
  CLSORT_I16 = 9,  /* since 0.3 */
  CLSORT_F16 = 10, /* IEEE binary16 bits; since 0.3 */
  CLSORT_BF16 = 11 /* bfloat16 bits; since 0.3 */
} clsort_type;

/* Size in bytes of one element of `type`, or 0 for an unknown type. */
CLSORT_API size_t clsort_type_size(clsort_type type);
/* "u32", "i32", "f32", "u64", "i64", "f64", "u8", "i8", "u16", "i16",
 * "f16", "bf16", or NULL for an unknown type. */
CLSORT_API const char *clsort_type_name(clsort_type type);

typedef enum clsort_algorithm {
  /* The library picks: the bitonic sort for small n (up to 2^18 keys on
   * GPUs, 2^13 on CPUs) unless CLSORT_STABLE or a bit range is asked for,
   * the radix sort otherwise. */
  CLSORT_AUTO = 0,
  /* Radix sort, always stable in both directions: LSD with 8-bit digits
   * on GPUs; on CPUs one scatter by the top digit, then each bucket by LSD
   * passes of up to 11 bits inside a core's cache. Passes whose keys all
   * share a digit are skipped (narrow or constant data costs fewer
   * passes). Scratch memory, held by the
   * context (each buffer rounded up by about 1/8 so that later calls of
   * similar size reuse it): n keys (keys only); n keys + n values (pairs);
   * 2n keys + n indices (argsort); plus digit tables of a few MB at most. */
  CLSORT_RADIX = 1,
  /* Bitonic sort, any n (no padding is ever visible). Not stable: with
   * CLSORT_STABLE it returns CLSORT_ERROR_UNSUPPORTED (ties broken on the
   * input index would double the data every step moves). Compares whole
   * keys: a bit range other than the full key is unsupported too. On GPUs
   * it sorts in place after one copy; scratch: n keys for argsort only. Its
   * cost grows as n log^2 n: it wins for small inputs (one launch up to a
   * tile of 8192 u32 keys on an H100), the radix sort for large ones. On
   * CPUs (since 0.3) each of 2^k equal chunks (one per core) is sorted
   * serially and only the network's steps between chunks run, as
   * streaming passes, each stage ended by a linear merge per chunk:
   * n log n + n log^2(chunks);
   * scratch above 4096 keys: n keys (+ n values), and n keys more for
   * argsort. CLSORT_BITONIC_CPU=0 (environment) runs the network there
   * too. */
  CLSORT_BITONIC = 2,
  /* Sample sort (Fine Sample Sort, seed 004): splitters from a random
   * sample split the keys into up to 256 buckets per level on GPUs (128 on
   * CPUs), plus one equality bucket per splitter, so duplicate keys cost
   * no extra levels; buckets that fit the bitonic tile are sorted together
   * in one launch. On CPUs: parallel 128-way splits (fewer for short
   * buckets), then a serial introsort per core of the buckets up to 2^16
   * keys.
   * Not stable: with CLSORT_STABLE it returns CLSORT_ERROR_UNSUPPORTED, as
   * do bit ranges. Reads the bucket sizes back once per level (blocking),
   * so clsort_sort_buffer returns only after the last level has run, with
   * the same user-event caveat as the radix sort. Scratch as the radix
   * sort, plus a few MB of tables, plus 2 bytes a key on GPUs for 32-bit
   * keys (each key's bucket, kept between the two passes of a level; the
   * sort classifies twice instead where memory is short) and 1 byte a
   * key on CPUs.
   * CLSORT_SAMPLE=K[:S] (environment)
   * overrides the buckets per split and the oversampling. */
  CLSORT_SAMPLE = 3,
  /* Merge sort: runs from a block merge sort of tiles in local memory on
   * GPUs (serial blocks on CPUs), then merge-path passes (one partition
   * launch and one merge launch per doubling; co-rank splits give every
   * work-group an equal share). Always stable (CLSORT_STABLE costs
   * nothing). Whole keys only: a bit range returns
   * CLSORT_ERROR_UNSUPPORTED. Scratch: n keys (keys only); n keys + n
   * values (pairs); 2n keys + n indices (argsort); plus 8 bytes of co-rank
   * per merge tile (n / 256 bytes with the GPU tiles of 2048 keys) and,
   * on GPUs with 4096 tiles or more (2^23 keys there), n / 32 keys of
   * co-rank samples. On CPUs, pairs and argsort take a second n keys +
   * n values where that memory is there, so that only the last
   * pass writes the output; without it they sort through the output as
   * before (CLSORT_MERGE_CPU_SPARE=0 asks for that). CLSORT_MERGE=WG:ITEMS
   * (environment) overrides the merge tile. */
  CLSORT_MERGE = 4,
  /* Quicksort. On GPUs each level splits every segment 32 ways around 31
   * pivots sampled from that segment, plus an equality bucket per pivot
   * (a multi-pivot quicksort on the sample sort's classification and
   * scatter; the caveats and scratch of CLSORT_SAMPLE apply), and segments
   * up to a tile finish in the block sort. CLSORT_QUICK_WAYS=WAYS[:SAMPLES]
   * (environment) sets the ways and the keys sampled per pivot; with 2,
   * each level splits every segment around one pivot sampled from 63
   * strata, keys equal to a repeated pivot peeled off, and reads a few
   * bytes back per level, one level late (scratch: 2n keys + n bytes,
   * plus 2n values with payloads, plus about 450 bytes per tile of
   * tables). On CPUs: parallel two-way splits, then a serial introsort per
   * core. Not stable (CLSORT_STABLE returns CLSORT_ERROR_UNSUPPORTED);
   * whole keys only. */
  CLSORT_QUICK = 5
} clsort_algorithm;

/* Option flags, OR-ed into clsort_options.flags. */
#define CLSORT_DESCENDING 1u /* largest key first */
#define CLSORT_STABLE 2u     /* equal keys keep their input order (radix: always) */
#define CLSORT_FLAGS_ALL_ (CLSORT_DESCENDING | CLSORT_STABLE)

typedef struct clsort_options {
  clsort_algorithm algorithm;
  unsigned flags;
  /* Only bits [begin_bit, end_bit) of the (order-transformed) key are
   * compared, as in CUB. end_bit == 0 means the key's full width. */
  unsigned begin_bit;
  unsigned end_bit;
} clsort_options;

/* A NULL clsort_options pointer means exactly this. */
#define CLSORT_OPTIONS_DEFAULT {CLSORT_AUTO, 0u, 0u, 0u}

/* ---------------------------------------------------------------- context */
/* One device, its command queue, the compiled-program cache and the scratch
 * memory.
 *
 * Threads: contexts may be created from several threads at once, and
 * separate contexts run concurrently from separate threads. Calls on one
 * context from several threads are safe but serialised: each call holds
 * the context until it returns, so they run one after another, never in
 * parallel (give each thread its own context for that). Two contexts made
 * with clsort_context_create_with_queue on one queue share it, and are
 * only safe from one thread at a time. Releasing a context that another
 * thread is using or will use is the caller's bug: the release waits for
 * a call in flight, not for calls that start after it. */
typedef struct clsort_context clsort_context;

/* Creates a context on the device named by `device_spec`:
 *   NULL   - the CLSORT_DEVICE environment variable if set, else the first
 *            GPU of any platform, else the first CPU, else any device;
 *   "gpu" / "cpu" - the first device of that kind;
 *   "P:D"  - device D of platform P (0-based indices);
 *   other  - the first device whose name contains the text (any case).
 * The context owns an in-order, profiling-enabled queue.
 * Returns CLSORT_SUCCESS, CLSORT_ERROR_INVALID_ARGUMENT (ctx NULL, malformed
 * spec), CLSORT_ERROR_NO_DEVICE (no OpenCL platform, or none matches),
 * CLSORT_ERROR_OUT_OF_MEMORY or CLSORT_ERROR_OPENCL. On failure *ctx is set
 * to NULL. Release with clsort_context_release(). Since 0.1. */
CLSORT_API clsort_status clsort_context_create(clsort_context **ctx, const char *device_spec);

/* Creates a context that enqueues all work on the caller's `queue`, which it
 * retains (and releases on clsort_context_release); the queue's OpenCL
 * context and device are used. The queue must be in-order: an out-of-order
 * queue returns CLSORT_ERROR_UNSUPPORTED. Other returns as
 * clsort_context_create. Since 0.1. */
CLSORT_API clsort_status clsort_context_create_with_queue(clsort_context **ctx,
                                                          cl_command_queue queue);

/* Waits for the context's queued work, then frees the context, its programs
 * and its scratch memory. Releases only what the library retained itself.
 * Accepts NULL. Since 0.1. */
CLSORT_API void clsort_context_release(clsort_context *ctx);

/* Accessors; the returned handles and strings belong to the context and
 * stay valid until it is released (the build log: until the context's
 * next call). The handles are not retained for the caller. Since 0.1. */
CLSORT_API const char *clsort_context_device_name(const clsort_context *ctx);
CLSORT_API cl_command_queue clsort_context_queue(const clsort_context *ctx);
CLSORT_API cl_context clsort_context_cl_context(const clsort_context *ctx);
CLSORT_API cl_device_id clsort_context_device(const clsort_context *ctx);
/* The build log of the last program the context built from source (empty
 * when none was built, or it was loaded from the disk cache). */
CLSORT_API const char *clsort_context_build_log(const clsort_context *ctx);

/* The folder where compiled kernels are kept between processes, or NULL
 * when they are not (CLSORT_CACHE=0) or ctx is NULL. Usually the library's
 * own disk cache: CLSORT_CACHE_DIR, else $XDG_CACHE_HOME/clsort, else
 * ~/.cache/clsort. On PoCL the library leaves caching to PoCL's kernel
 * cache, which compiles only the kernels that calls use (POCL_CACHE_DIR,
 * else $XDG_CACHE_HOME/pocl/kcache or ~/.cache/pocl/kcache; none with
 * POCL_KERNEL_CACHE=0); CLSORT_CACHE=1 makes it use its own there too.
 * Since 0.2. */
CLSORT_API const char *clsort_context_cache_dir(const clsort_context *ctx);

/* Called on the calling thread just before the context compiles a kernel
 * program from source, which takes seconds on some devices (a program
 * found in memory or in the library's disk cache calls nothing), with the
 * device's name, clsort_context_cache_dir() and `user`. A driver's own
 * cache may still make that compile quick, and some drivers (PoCL) compile
 * each kernel at its first launch: a tool that wants to say why a call is
 * slow should time the whole call and speak only when it is slow and a
 * build happened in it. NULL removes the callback. Since 0.2. */
typedef void (*clsort_build_callback)(const char *device_name, const char *cache_dir, void *user);
CLSORT_API void clsort_context_set_build_callback(clsort_context *ctx,
                                                  clsort_build_callback callback, void *user);

/* ------------------------------------------------------ device memory */
/* Caps the device memory that the library allocates for this context's
 * calls at `bytes`: scratch buffers, the device copies of host arrays, and
 * the runs and buckets of out-of-core sorts. The caller's own buffers
 * (clsort_sort_buffer's, ...) are not counted. 0 removes the cap. The
 * environment variable CLSORT_DEVICE_MEMORY_LIMIT (bytes, or a number with
 * a K, M, G or T suffix, powers of 1024: "512M", "1.5G") sets it when the
 * context is created.
 *
 * Scratch that earlier calls left in the context is released as the cap
 * requires (now, when it is lowered below what the context holds). A call
 * that needs a buffer the cap cannot hold returns
 * CLSORT_ERROR_MEMORY_LIMIT, with the sizes in clsort_last_error_message(),
 * and modifies nothing. Sorts of host arrays never need more than the cap:
 * when the data and its scratch do not fit, they sort out of core (see
 * clsort_sort), and fail only when the cap is too small to sort one chunk.
 * Returns CLSORT_SUCCESS or CLSORT_ERROR_INVALID_ARGUMENT (ctx NULL).
 * Since 0.2. */
CLSORT_API clsort_status clsort_context_set_memory_limit(clsort_context *ctx, size_t bytes);
/* The cap in force (0: none), or 0 for a NULL ctx. Since 0.2. */
CLSORT_API size_t clsort_context_memory_limit(const clsort_context *ctx);
/* Bytes of device memory the library holds for this context now (its
 * scratch, kept between calls for reuse). 0 for a NULL ctx. Since 0.2. */
CLSORT_API size_t clsort_context_memory_used(const clsort_context *ctx);

/* Called on the calling thread while a long host-array sort runs (an
 * out-of-core sort, after each chunk it moves), with the bytes of the
 * caller's arrays that the sort has passed through so far and the total it
 * will (each byte counts once on its way to the device and once on its
 * way back). `done` grows to `total` by the end of a successful call. NULL
 * removes the callback. The callback must not call this context. Since
 * 0.2. */
typedef void (*clsort_progress_callback)(uint64_t done, uint64_t total, void *user);
CLSORT_API void clsort_context_set_progress_callback(clsort_context *ctx,
                                                     clsort_progress_callback callback,
                                                     void *user);

/* ---------------------------------------------------------- host memory */
/* Allocates `bytes` of page-locked (pinned) host memory through the
 * context's OpenCL context (a CL_MEM_ALLOC_HOST_PTR buffer, mapped), and
 * stores its address in *ptr. Host-array calls on this context recognise
 * arrays that lie in such memory and transfer them straight from and to
 * it, at the link's full speed, without staging; other arrays are staged
 * through pinned buffers the context owns (a radix sort of 2^26 keys or
 * more from such arrays on an NVIDIA GPU sorts by the top 8 bits first,
 * so that parts of the result travel back while the rest sorts, where the
 * device's memory, or the context's cap, holds the arrays twice beside
 * the sort's scratch). On CPU devices it is ordinary
 * memory. The memory stays valid until clsort_host_free or the release of
 * the context. Returns CLSORT_SUCCESS, CLSORT_ERROR_INVALID_ARGUMENT (ctx
 * or ptr NULL; bytes 0), CLSORT_ERROR_OUT_OF_MEMORY or CLSORT_ERROR_OPENCL;
 * on failure *ptr is NULL. Since 0.2. */
CLSORT_API clsort_status clsort_host_alloc(clsort_context *ctx, size_t bytes, void **ptr);
/* Frees memory from clsort_host_alloc on the same context. NULL ptr is a
 * no-op. Returns CLSORT_SUCCESS, or CLSORT_ERROR_INVALID_ARGUMENT when ctx
 * is NULL or ptr is not the start of one of its allocations (nothing is
 * freed). Since 0.2. */
CLSORT_API clsort_status clsort_host_free(clsort_context *ctx, void *ptr);

/* Applies the default-device rule of clsort_context_create(NULL) without
 * creating anything. *platform and *device receive the chosen indices and
 * *reason (if not NULL) a static sentence saying why ("CLSORT_DEVICE=gpu",
 * "first GPU", ...). Returns CLSORT_SUCCESS, CLSORT_ERROR_NO_DEVICE or
 * CLSORT_ERROR_INVALID_ARGUMENT. Since 0.1. */
CLSORT_API clsort_status clsort_default_device(unsigned *platform, unsigned *device,
                                               const char **reason);

/* ------------------------------------------------------------------ sorts */
/* In-place sorts of host arrays. Blocking: the data is copied to the device,
 * sorted there, and copied back; on a CPU device, arrays aligned as it wants
 * (CL_DEVICE_MEM_BASE_ADDR_ALIGN: 128 bytes on PoCL) are sorted in place
 * with no copy, and so are arrays aligned to their elements (as from
 * malloc). On any error the arrays
 * are unmodified.
 *
 * clsort_sort_pairs moves `values` (value_size bytes each: 4 or 8) with
 * their keys. clsort_argsort leaves `keys` untouched and writes into
 * `indices` (index_size 4 or 8 bytes each) the permutation that sorts them.
 *
 * Returns CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (NULL ctx or array
 * with n > 0, unknown type, flags or algorithm, bad value/index size, bad
 * bit range, values or indices overlapping keys); CLSORT_ERROR_UNSUPPORTED
 * (the algorithm is not available in this build or for this type/flag
 * combination, or fp64 on a device without it); CLSORT_ERROR_TOO_LARGE (n
 * exceeds the device allocation limit); CLSORT_ERROR_OUT_OF_MEMORY;
 * CLSORT_ERROR_BUILD_FAILED; CLSORT_ERROR_OPENCL. Since 0.1. */
CLSORT_API clsort_status clsort_sort(clsort_context *ctx, clsort_type type, void *keys, size_t n,
                                     const clsort_options *options);
CLSORT_API clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type type, void *keys,
                                           void *values, size_t value_size, size_t n,
                                           const clsort_options *options);
CLSORT_API clsort_status clsort_argsort(clsort_context *ctx, clsort_type type, const void *keys,
                                        void *indices, size_t index_size, size_t n,
                                        const clsort_options *options);

/* Sorts device buffers in place, enqueued on the context's queue after
 * `wait_list`. `values` may be NULL (keys only); otherwise value_size is 4
 * or 8. If `event` is not NULL it receives an event that completes with the
 * sort; the caller releases it. On NVIDIA GPUs the radix sort plans its
 * passes on the device and reads nothing back: the call returns once the
 * work is enqueued, even when `wait_list` holds a user event that is not
 * yet complete. Elsewhere (the portable kernels) it reads its digit
 * histograms back once (a few KB, blocking), so the call returns once that
 * first kernel has run, which is after `wait_list` has completed; the
 * passes are still in flight. There, a caller that gates the sort on a
 * user event must complete that event from another thread, or before the
 * call: otherwise the call never returns. Returns
 * as clsort_sort, plus CLSORT_ERROR_INVALID_ARGUMENT when n exceeds a
 * buffer's CL_MEM_SIZE, a buffer belongs to another OpenCL context or is
 * CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY (the sort reads and writes both),
 * or keys and values are the same buffer. Since 0.1. */
CLSORT_API clsort_status clsort_sort_buffer(clsort_context *ctx, clsort_type type, cl_mem keys,
                                            cl_mem values, size_t value_size, size_t n,
                                            const clsort_options *options, cl_uint num_wait,
                                            const cl_event *wait_list, cl_event *event);

/* ------------------------------------------------------ segmented sort */
/* Sorts each segment [offsets[i], offsets[i + 1]) of `keys` independently,
 * in place, with `values` (value_size 4 or 8 bytes each; NULL with
 * value_size 0 for keys only) moving with their keys. offsets has
 * num_segments + 1 entries: offsets[0] == 0, non-decreasing,
 * offsets[num_segments] == n; empty segments are allowed. Stable: equal
 * keys of a segment keep their input order. On GPUs
 * consecutive segments up to a tile (1024 to 4096 keys, fewer with values
 * and wider keys) are packed into tiles and all sorted in one launch, a
 * work-group per tile; segments of up to 2^20 keys are cut into sorted
 * tiles in the same launch and merged in passes within each segment, all
 * of them at once; each longer one is sorted by the sort the options
 * name (CLSORT_AUTO: the radix sort), one after another, the longest
 * first, or, when more than 64 are that long, every segment at once as
 * below. On CPU devices segments up to 2^15 keys are sorted together in
 * one launch, a serial sort each (keys alone: an introsort; with values a
 * stable radix sort, or insertion sorts and merges up to 512 keys, through
 * scratch of n keys and n values), and longer ones one after another.
 * The arrays are copied to the device and back, but on CPU devices they
 * are sorted in place wherever they are aligned to their elements.
 * CLSORT_SEGMENTED=global, packed, packed-split or split in the
 * environment forces a path, to measure them. options: NULL or
 * algorithm CLSORT_AUTO, CLSORT_RADIX or CLSORT_MERGE (the stable sorts),
 * CLSORT_DESCENDING; whole keys only (a bit range returns
 * CLSORT_ERROR_UNSUPPORTED).
 *
 * Returns CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (NULL ctx, keys,
 * values with value_size, or offsets; unknown type or flags; bad
 * value_size; values overlapping keys; offsets[0] not 0, decreasing, or
 * offsets[num_segments] not n: the message names the first bad entry);
 * CLSORT_ERROR_UNSUPPORTED (an unstable algorithm, a bit range, f64
 * without fp64);
 * CLSORT_ERROR_TOO_LARGE; CLSORT_ERROR_OUT_OF_MEMORY;
 * CLSORT_ERROR_BUILD_FAILED; CLSORT_ERROR_OPENCL. On error the arrays are
 * unmodified. Since 0.3. */
CLSORT_API clsort_status clsort_segmented_sort(clsort_context *ctx, clsort_type type, void *keys,
                                               void *values, size_t value_size, size_t n,
                                               const uint64_t *offsets, size_t num_segments,
                                               const clsort_options *options);
/* The buffer form: keys and values are device buffers sorted in place;
 * offsets stay in host memory (the call plans on them and copies the list
 * of small segments to the device, blocking), as for clsort_sort_buffer
 * the work is enqueued after `wait_list` and `event` completes with it.
 * Long segments sorted by the radix sort read their digit histograms back
 * (blocking), with clsort_sort_buffer's caveat about user events. Returns
 * as clsort_segmented_sort, plus clsort_sort_buffer's buffer checks.
 * Since 0.3. */
CLSORT_API clsort_status clsort_segmented_sort_buffer(clsort_context *ctx, clsort_type type,
                                                      cl_mem keys, cl_mem values,
                                                      size_t value_size, size_t n,
                                                      const uint64_t *offsets,
                                                      size_t num_segments,
                                                      const clsort_options *options,
                                                      cl_uint num_wait, const cl_event *wait_list,
                                                      cl_event *event);

/* ---------------------------------------------------- top-k and select */
/* The first k elements of the order clsort_sort would produce for these
 * options (the k smallest keys, or the k largest with CLSORT_DESCENDING),
 * sorted, into out_keys, and with `indices` not NULL their input positions
 * (index_size 4 or 8 bytes each). Among equal keys the order is the stable
 * sort's: the lowest input positions come first, so at the boundary the
 * keys equal to the k-th that are kept are those of lowest position.
 * `keys` is untouched. k may be 0 (nothing is written) up to n. Either
 * out_keys or indices may be NULL, not both (for k > 0).
 *
 * A small k (up to 16 on CPU devices, 8 on GPUs; n below 2^32 - 1) reads
 * the keys once: each work-item keeps its k smallest (key, position)
 * pairs, each work-group merges its work-items' lists, then one
 * work-group merges the groups' lists and writes the result (scratch: k
 * keys and k 4-byte positions per group, k rounded up to a power of two).
 * Nothing is read back to the host, so the buffer form does not wait.
 *
 * For a larger k, from 4096 keys (and below 2^32) the sampled path runs
 * first: a sample of the keys (one per stratum of positions) gives, on
 * the device, a threshold that, for keys in random order, has at least k
 * keys at or below it but for a chance below 1e-6, and one pass appends
 * those keys with their positions (of 2^26 random keys: about 16K for k
 * = 100, 57K for k = 10^4). On GPUs nothing is read back until the
 * result is written: for k up to 512 one work-group ranks the candidates
 * at or below the k-th and writes the result; above, the candidates are
 * sorted by key and equal keys then placed by position; then one read of
 * the counts says whether the threshold held. When
 * the count shows fewer than k or more than its buffer holds (many equal
 * keys, an unlucky sample), the radix select runs as below: the result
 * is the same, one pass later. The radix select finds the k-th key
 * (8-bit digits from the top: a histogram of the candidates' digits, read
 * back once a round, 256 counters; the compact primitive keeps the
 * candidates when their bucket is small), then the keys at or below it
 * are appended with their positions in one pass. Either way the set is
 * sorted (by position, then stably by key) with the radix sort. Many
 * keys equal to the k-th make that set, and its sorts, larger (up to n).
 * From k >= n / 4 the call sorts a copy of all n keys with their
 * positions instead. Scratch: up to n keys + n indices + n bytes, plus
 * the radix sort's for that many; clsort_scratch_bytes gives the bound.
 * The host forms of clsort_top_k and clsort_select copy the keys to the
 * device, but a CPU device reads them in place, with no copy, wherever
 * they are aligned to their elements (since 0.4; before, only where
 * aligned as the note on the sorts above says); likewise clsort_top_k
 * copies out_keys and indices back from the device, but a CPU device
 * writes each in place wherever it is aligned to its elements (since
 * 0.4; before, always copied).
 * options: NULL or algorithm CLSORT_AUTO or CLSORT_RADIX; CLSORT_STABLE
 * is accepted (the order is always the stable one); a bit range other
 * than the whole key returns CLSORT_ERROR_UNSUPPORTED.
 *
 * Returns CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (NULL ctx, keys
 * with n > 0, both outputs NULL, k > n, unknown type or flags, bad
 * index_size, an output overlapping keys or the other output);
 * CLSORT_ERROR_UNSUPPORTED (another algorithm, a bit range, f64 without
 * fp64); CLSORT_ERROR_TOO_LARGE (n beyond the device allocation limit,
 * or 4-byte indices that cannot count to n); CLSORT_ERROR_OUT_OF_MEMORY;
 * CLSORT_ERROR_BUILD_FAILED; CLSORT_ERROR_OPENCL. On error no output is
 * modified. Since 0.3. */
CLSORT_API clsort_status clsort_top_k(clsort_context *ctx, clsort_type type, const void *keys,
                                      size_t n, size_t k, void *out_keys, void *indices,
                                      size_t index_size, const clsort_options *options);
/* The buffer form: out_keys (k keys) and indices (k indices) are device
 * buffers, either NULL. Enqueued after `wait_list`; but above the path
 * of a small k the sampled path reads its counts back and the radix
 * select its histograms (blocking), so the call returns
 * after `wait_list` has completed, with clsort_sort_buffer's caveat about
 * user events; `event` completes with the last copy or kernel. Returns
 * as clsort_top_k, plus the buffer checks of clsort_sort_buffer (an
 * output that is also keys, or both outputs one buffer:
 * CLSORT_ERROR_INVALID_ARGUMENT). Since 0.3. */
CLSORT_API clsort_status clsort_top_k_buffer(clsort_context *ctx, clsort_type type, cl_mem keys,
                                             size_t n, size_t k, cl_mem out_keys, cl_mem indices,
                                             size_t index_size, const clsort_options *options,
                                             cl_uint num_wait, const cl_event *wait_list,
                                             cl_event *event);

/* The key at position k (0-based) of the order clsort_sort would produce
 * for these options, written at out_key (one key). `keys` is untouched.
 * On CPU devices, the sampled path of clsort_top_k with two thresholds
 * that bracket rank k (where they leave at most about a quarter of the
 * keys between them), then the radix select of the keys between them;
 * else (and on GPUs, where it measured faster) the radix select of all
 * keys: one histogram (1 KB) read back per 8 bits of key. Returns
 * as clsort_top_k, with CLSORT_ERROR_INVALID_ARGUMENT for k >= n (so for
 * n == 0) and for a NULL out_key. Since 0.3. */
CLSORT_API clsort_status clsort_select(clsort_context *ctx, clsort_type type, const void *keys,
                                       size_t n, size_t k, void *out_key,
                                       const clsort_options *options);
/* The buffer form: the key is written at the start of out_key. Blocking
 * as clsort_top_k_buffer. Since 0.3. */
CLSORT_API clsort_status clsort_select_buffer(clsort_context *ctx, clsort_type type, cl_mem keys,
                                              size_t n, size_t k, cl_mem out_key,
                                              const clsort_options *options, cl_uint num_wait,
                                              const cl_event *wait_list, cl_event *event);

/* --------------------------------------------------------------- merging */
/* Stable merge of two arrays sorted in the order the options name
 * (ascending, or descending with CLSORT_DESCENDING; whole keys, floats in
 * the total order above) into `out`, na + nb elements: on equal keys every
 * element of `a` comes before those of `b`, and each side keeps its own
 * order. Runs the merge sort's merge-path pass on the device. `a` and `b`
 * are read only (they may overlap each other); `out` must not overlap
 * either. Inputs that are not sorted give an unspecified output (not
 * even a permutation of the inputs), never a crash nor a write past
 * na + nb elements. options: NULL or algorithm CLSORT_AUTO or
 * CLSORT_MERGE; CLSORT_STABLE is accepted (always stable); a bit range
 * other than the whole key returns CLSORT_ERROR_UNSUPPORTED.
 *
 * clsort_merge_pairs moves values (value_size bytes each: 4 or 8) with
 * their keys: out_values[i] is the value of the key at out[i];
 * out_values must not overlap a_values, b_values or out. Device scratch:
 * 8 bytes of co-rank per merge tile of 2048 to 4096 outputs (0.4
 * and later; 0.3 used none); none on a CPU device, which uses the six
 * arrays in place, with no copy, wherever each is aligned to its elements
 * (since 0.4; other arrays, and every array on a GPU, are copied in to the
 * context's staging and out again).
 *
 * Returns CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (NULL ctx, a NULL
 * array with elements to read or write, unknown type or flags, bad
 * value_size, out overlapping an input); CLSORT_ERROR_UNSUPPORTED (another
 * algorithm, a bit range, f64 without fp64); CLSORT_ERROR_TOO_LARGE;
 * CLSORT_ERROR_OUT_OF_MEMORY; CLSORT_ERROR_BUILD_FAILED;
 * CLSORT_ERROR_OPENCL. On error no output is modified. Since 0.3. */
CLSORT_API clsort_status clsort_merge(clsort_context *ctx, clsort_type type, const void *a,
                                      size_t na, const void *b, size_t nb, void *out,
                                      const clsort_options *options);
CLSORT_API clsort_status clsort_merge_pairs(clsort_context *ctx, clsort_type type, const void *a,
                                            const void *a_values, size_t na, const void *b,
                                            const void *b_values, size_t nb, void *out,
                                            void *out_values, size_t value_size,
                                            const clsort_options *options);
/* The buffer form of both: `a_values`, `b_values` and `out_values` NULL
 * (with value_size 0) for keys only. Enqueued after `wait_list` on the
 * context's queue; never blocks; `event` (if not NULL) receives an event
 * that completes with the merge. Returns as clsort_merge, plus
 * CLSORT_ERROR_INVALID_ARGUMENT for buffers too small, of another OpenCL
 * context, CL_MEM_WRITE_ONLY inputs, a CL_MEM_READ_ONLY output, or an
 * output buffer that is also an input. Since 0.3. */
CLSORT_API clsort_status clsort_merge_buffer(clsort_context *ctx, clsort_type type, cl_mem a,
                                             cl_mem a_values, size_t na, cl_mem b,
                                             cl_mem b_values, size_t nb, cl_mem out,
                                             cl_mem out_values, size_t value_size,
                                             const clsort_options *options, cl_uint num_wait,
                                             const cl_event *wait_list, cl_event *event);

/* ------------------------------------------------------------- primitives */
/* The device-wide scan/compact layer that every algorithm uses. The
 * *_buffer forms are enqueued on the context's queue after `wait_list` and
 * return an optional completion event (released by the caller); the host
 * forms copy in, run and copy out, blocking (on a CPU device, clsort_scan
 * and clsort_reduce of every type, clsort_compact and clsort_split of 4-
 * and 8-byte types, and clsort_bucket_offsets use arrays aligned to their
 * elements in place, with no copy; the 8- and 16-bit scans and reductions
 * and the bucket offsets since 0.4). n may be
 * 0. On error nothing is
 * enqueued (but for the bucket-id check of clsort_bucket_offsets_buffer)
 * and no output is modified.
 *
 * Common returns: CLSORT_SUCCESS; CLSORT_ERROR_INVALID_ARGUMENT (NULL
 * context/buffer/pointer with n > 0, unknown type or op, n larger than a
 * buffer, bad element size, a buffer of another OpenCL context than the
 * context's, a CL_MEM_READ_ONLY buffer the call writes or a
 * CL_MEM_WRITE_ONLY one it reads, one buffer passed for two roles other
 * than scan's in-place output); CLSORT_ERROR_UNSUPPORTED (f64 without fp64 on
 * the device; scans and sums of f16 and bf16); CLSORT_ERROR_TOO_LARGE (n beyond the device allocation
 * limit); CLSORT_ERROR_OUT_OF_MEMORY; CLSORT_ERROR_BUILD_FAILED;
 * CLSORT_ERROR_OPENCL. */

typedef enum clsort_scan_kind {
  CLSORT_SCAN_EXCLUSIVE = 0, /* out[i] = in[0] + ... + in[i-1]; out[0] = 0 */
  CLSORT_SCAN_INCLUSIVE = 1  /* out[i] = in[0] + ... + in[i] */
} clsort_scan_kind;

/* Prefix sum of n elements of `type`. Integer sums wrap around. `output`
 * may equal `input` (in place). Float sums are computed in the element
 * type and in tree order, so they differ from a sequential sum by rounding.
 * Since 0.1. */
CLSORT_API clsort_status clsort_scan_buffer(clsort_context *ctx, clsort_type type,
                                            clsort_scan_kind kind, cl_mem input, cl_mem output,
                                            size_t n, cl_uint num_wait,
                                            const cl_event *wait_list, cl_event *event);
CLSORT_API clsort_status clsort_scan(clsort_context *ctx, clsort_type type, clsort_scan_kind kind,
                                     const void *input, void *output, size_t n);

typedef enum clsort_reduce_op {
  CLSORT_REDUCE_SUM = 0,
  CLSORT_REDUCE_MIN = 1,
  CLSORT_REDUCE_MAX = 2
} clsort_reduce_op;

/* Reduces n elements to one, written at the start of `result` (one element
 * of `type`). For n == 0 the result is the identity: 0 for SUM, the type's
 * largest value (+inf for floats) for MIN, its smallest (-inf) for MAX.
 * Float MIN/MAX ignore NaNs unless every element is NaN (as fmin/fmax).
 * Since 0.1. */
CLSORT_API clsort_status clsort_reduce_buffer(clsort_context *ctx, clsort_type type,
                                              clsort_reduce_op op, cl_mem input, size_t n,
                                              cl_mem result, cl_uint num_wait,
                                              const cl_event *wait_list, cl_event *event);
CLSORT_API clsort_status clsort_reduce(clsort_context *ctx, clsort_type type, clsort_reduce_op op,
                                       const void *input, size_t n, void *result);

/* Stable select: copies, in order, the elements whose flag byte is non-zero
 * to the front of `output`, and writes their count as a cl_ulong at the
 * start of `count`. element_size is 1, 2, 4, 8 or 16 bytes. `output` must
 * not overlap `input` (the host form returns CLSORT_ERROR_INVALID_ARGUMENT,
 * its arrays untouched, since 0.3). Since 0.1. */
CLSORT_API clsort_status clsort_compact_buffer(clsort_context *ctx, size_t element_size,
                                               cl_mem input, cl_mem flags, cl_mem output,
                                               size_t n, cl_mem count, cl_uint num_wait,
                                               const cl_event *wait_list, cl_event *event);
CLSORT_API clsort_status clsort_compact(clsort_context *ctx, size_t element_size, const void *input,
                                        const unsigned char *flags, void *output, size_t n,
                                        size_t *count);

/* Stable partition: the flagged elements first, in order, then the others,
 * in order; `count` receives the number flagged (as a cl_ulong for the
 * buffer form). Same element sizes and overlap rule as compact. Since 0.1. */
CLSORT_API clsort_status clsort_split_buffer(clsort_context *ctx, size_t element_size,
                                             cl_mem input, cl_mem flags, cl_mem output, size_t n,
                                             cl_mem count, cl_uint num_wait,
                                             const cl_event *wait_list, cl_event *event);
CLSORT_API clsort_status clsort_split(clsort_context *ctx, size_t element_size, const void *input,
                                      const unsigned char *flags, void *output, size_t n,
                                      size_t *count);

/* The per-tile histogram table plus scan that radix and sample sort use
 * (Fine Sample Sort phases 4-5). `buckets` holds n cl_uint bucket indices,
 * each below num_buckets (1..4096). The input is cut into p = ceil(n /
 * tile_size) tiles. `offsets` receives num_buckets * p entries in
 * column-major (bucket-major) order: offsets[b * p + t] is where the first
 * element of bucket b from tile t goes in a stable partition by bucket, i.e.
 * the exclusive scan of the count table. offset_type is CLSORT_U32 (n must
 * fit in 32 bits, else CLSORT_ERROR_TOO_LARGE) or CLSORT_U64. A bucket id
 * not below num_buckets returns CLSORT_ERROR_INVALID_ARGUMENT with no
 * offset written: the host form names the first one; the buffer form
 * checks on the device and reads the largest id back (blocking: it returns
 * after `wait_list` has completed, with clsort_sort_buffer's caveat about
 * user events). The table is scanned in place: `offsets` must not be
 * CL_MEM_WRITE_ONLY. Since 0.1. */
CLSORT_API clsort_status clsort_bucket_offsets_buffer(clsort_context *ctx, cl_mem buckets,
                                                      size_t n, unsigned num_buckets,
                                                      size_t tile_size, clsort_type offset_type,
                                                      cl_mem offsets, cl_uint num_wait,
                                                      const cl_event *wait_list, cl_event *event);
CLSORT_API clsort_status clsort_bucket_offsets(clsort_context *ctx, const unsigned *buckets,
                                               size_t n, unsigned num_buckets, size_t tile_size,
                                               clsort_type offset_type, void *offsets);

/* ------------------------------------------------------- building ahead */
/* The kinds of call clsort_prepare builds kernels for. */
typedef enum clsort_operation {
  CLSORT_OP_SORT = 0,          /* clsort_sort; clsort_sort_buffer without values */
  CLSORT_OP_SORT_PAIRS = 1,    /* clsort_sort_pairs and clsort_sort_buffer with values */
  CLSORT_OP_ARGSORT = 2,       /* clsort_argsort */
  CLSORT_OP_SCAN = 3,          /* clsort_scan(_buffer), both kinds */
  CLSORT_OP_REDUCE = 4,        /* clsort_reduce(_buffer), every op */
  CLSORT_OP_COMPACT = 5,       /* clsort_compact and clsort_split (and _buffer) */
  CLSORT_OP_BUCKET_OFFSETS = 6, /* clsort_bucket_offsets(_buffer) */
  /* Since 0.3. `size` for these: the value size (merge, segmented sort;
   * 0: keys only) or the index size (top-k; 0: none). */
  CLSORT_OP_MERGE = 7,         /* clsort_merge(_pairs)(_buffer) */
  CLSORT_OP_TOP_K = 8,         /* clsort_top_k(_buffer) */
  CLSORT_OP_SELECT = 9,        /* clsort_select(_buffer) */
  CLSORT_OP_SEGMENTED_SORT = 10 /* clsort_segmented_sort(_buffer) */
} clsort_operation;

/* Builds now, or loads from the disk cache, every kernel that calls of
 * kind `op` with these arguments use, for any n below 2^30, so that those
 * calls start without compiling anything: for programs that want the cost
 * at start-up rather than in their first timed call. The first use of a
 * kernel on a device compiles it (seconds on CPUs through PoCL); later
 * processes load it from the disk cache (see clsort_context_cache_dir).
 *
 * `type` is the key or element type (the offset type, CLSORT_U32 or
 * CLSORT_U64, for bucket offsets; ignored for compact). `size` is the
 * value size (pairs: 4 or 8), the index size (argsort: 4 or 8) or the
 * element size (compact: 1, 2, 4, 8 or 16); ignored otherwise. `options`
 * as the sorts take them (NULL: defaults); CLSORT_AUTO prepares every
 * algorithm AUTO may pick for those flags. Ignored for the primitives.
 *
 * It runs the operation once on synthetic data at each size where the
 * algorithms change kernels (up to 2^22 + 3 elements on GPUs, 2^17 + 5 on
 * CPUs), in the context's staging and scratch memory, which the context
 * keeps for later calls as usual; so the kernels are also exercised once.
 * Returns what the matching call would for invalid arguments, else as the
 * calls themselves. Since 0.2. */
CLSORT_API clsort_status clsort_prepare(clsort_context *ctx, clsort_operation op, clsort_type type,
                                        size_t size, const clsort_options *options);

/* --------------------------------------------------------- caller scratch */
/* Hands the context `buffer` (a cl_mem of its OpenCL context, readable and
 * writable, at least `bytes` long) to take its scratch memory from:
 * every later call carves the scratch its algorithm needs out of it
 * (sub-buffers, which allocate no device memory) instead of allocating
 * scratch of its own, so that a loop of calls allocates nothing. A call
 * that repeats the one before reuses the same sub-buffers. The buffer is
 * retained until it is replaced, removed (buffer NULL) or the context
 * released; the caller must not use it while calls are queued. A call
 * whose scratch does not fit returns CLSORT_ERROR_MEMORY_LIMIT (the
 * message gives the sizes) before it writes any output; clsort_scratch_bytes
 * tells how much a call needs. Not carved: the staging of the host-array
 * forms (they copy the caller's arrays through buffers the context
 * allocates, except where a CPU device uses the arrays in place), and
 * on GPUs the pinned staging of the host-array sorts. Scratch that the
 * context held before is released. Returns CLSORT_SUCCESS or
 * CLSORT_ERROR_INVALID_ARGUMENT (NULL ctx; bytes 0 or beyond the buffer;
 * a buffer of another OpenCL context, or CL_MEM_READ_ONLY or
 * CL_MEM_WRITE_ONLY). Since 0.3. */
CLSORT_API clsort_status clsort_context_set_scratch(clsort_context *ctx, cl_mem buffer,
                                                    size_t bytes);

/* Writes to *bytes the caller scratch (clsort_context_set_scratch) that
 * the buffer form of operation `op` needs for n elements of `type`: it
 * runs that call once on synthetic device data (so it costs about one
 * such call, and builds its kernels), adding up the scratch requests as
 * the carving would. `size` is the value size of the pairs forms (sort
 * pairs, merge pairs, segmented sort with values; 0: keys only) or the
 * index size of top-k (0: no indices). options as the call takes them.
 * The figure covers the data the call may meet: top-k over every k
 * (measured at k = 1 with every key equal, the most candidates, at k =
 * n, and at k = 1 on random keys); select on every key equal and on
 * random keys (in both, the radix select's largest compactions and the
 * sampled path's largest buffers are asked up front, whatever the keys
 * make); the segmented sort on one segment of n
 * keys plus the list of n / 2 short segments; merge with n / 2 keys a
 * side. The sample sort and quicksort plan on their data: for them it is
 * measured on random keys, and other data may need more. Operations:
 * CLSORT_OP_SORT, CLSORT_OP_SORT_PAIRS (clsort_sort_buffer), CLSORT_OP_SCAN,
 * CLSORT_OP_REDUCE and the 0.3 operations; others return
 * CLSORT_ERROR_UNSUPPORTED. Returns as the call itself would for its
 * arguments, plus CLSORT_ERROR_INVALID_ARGUMENT for a NULL bytes. The
 * context's own scratch stays allocated afterwards, as after the call.
 * Since 0.3. */
CLSORT_API clsort_status clsort_scratch_bytes(clsort_context *ctx, clsort_operation op,
                                              clsort_type type, size_t n, size_t size,
                                              const clsort_options *options, size_t *bytes);

#ifdef __cplusplus
}
#endif
#endif /* CLSORT_H */
