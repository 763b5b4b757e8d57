/* common.cl: macros and warp helpers shared by every libclsort kernel.
 *
 * Needs (from the host's build options):
 *   WG_SIZE  work-items per group of the shared layer (a power of two)
 *   ITEMS    elements per work-item per tile
 *   USE_PTX  1 on NVIDIA GPUs: warp operations through inline PTX;
 *            0 everywhere else: the portable local-memory paths.
 *   IS_CPU   1 on CPU devices
 * Provides: CAT, TILE, KERNEL, CHUNK_LOOP, CPU_KERNEL, CPU_STREAM, UNROLL, and with USE_PTX the 32-bit warp
 * shuffles and votes.
 */
#ifndef WG_SIZE
#error "common.cl needs WG_SIZE"
#endif
#ifndef ITEMS
#error "common.cl needs ITEMS"
#endif
#ifndef USE_PTX
#error "common.cl needs USE_PTX (0 or 1)"
#endif
#ifndef IS_CPU
#error "common.cl needs IS_CPU (0 or 1)"
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define CAT3(a, b, c) CAT(CAT(a, b), c)

/* Elements one group handles per step of its loop. */
#define TILE (WG_SIZE * ITEMS)

#define KERNEL __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))

/* CHUNK_LOOP(i, n) { body }: the element loop of an elementwise kernel
 * over [0, n). Each work-group takes one contiguous chunk, its work-items
 * striding through it: coalesced on GPUs, and on a CPU (one work-item per
 * group) each core walks its own cache lines instead of sharing every
 * line with the other cores, as a grid-wide stride would. */
#define CHUNK_LOOP(i, n)                                                                  \
  for (ulong chunk_ = ((n) + get_num_groups(0) - 1) / get_num_groups(0),                  \
             end_ = min((ulong)(n), (get_group_id(0) + 1) * chunk_),                       \
             i = get_group_id(0) * chunk_ + get_local_id(0);                               \
       i < end_; i += get_local_size(0))

/* The CPU shape's kernels (the *_cpu.cl files): one work-item per group,
 * each walking a contiguous chunk in a plain serial loop, whatever WG_SIZE
 * the rest of the program uses. No barriers, no local atomics. */
#define CPU_KERNEL __kernel __attribute__((reqd_work_group_size(1, 1, 1)))

/* A CPU sort's kernels may be given a caller's host array, used in place
 * from the aligned address before it (src/api/sort.c): each pair of key
 * and value buffers comes with `at`, the elements before the pair's first
 * key and first value (sorts.h's keys_at and vals_at; 0 for scratch).
 * CPU_AT moves the pair there first; every index after is relative. */
#define CPU_AT(k, v, at) \
  do {                   \
    (k) += (at).s0;      \
    (v) += (at).s1;      \
  } while (0)

/* CPU_STREAM(v, p): stores the vector v, a whole 64-byte-aligned line, to
 * *p without reading the line into the caches first, where the compiler
 * offers such a store (clang, as in PoCL); else a plain store. The
 * stores are weakly ordered: a kernel that uses them ends with
 * mem_fence(CLK_GLOBAL_MEM_FENCE). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CPU_STREAM(v, p) __builtin_nontemporal_store((v), (p))
#endif
#endif
#ifndef CPU_STREAM
#define CPU_STREAM(v, p) (*(p) = (v))
#endif

/* The barrier over local memory of a group of WG_SIZE work-items. A group
 * of one work-item needs none (its own accesses are ordered), and leaving
 * the call out keeps PoCL's work-group compiler from splitting the kernel
 * into regions at all: faster to compile, and clear of the region bugs of
 * PoCL 5 (kernels of one work-item are the CPU shape). Other group sizes
 * (bitonic.cl's, merge.cl's) define their own the same way. */
#if WG_SIZE > 1
#define WG_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#else
#define WG_BARRIER() ((void)0)
#endif

/* Full unrolling keeps per-item arrays in GPU registers. On CPUs, where
 * ITEMS is in the hundreds, it multiplies compile time (PoCL compiles every
 * variant at first use: 48 s for a compact variant), so loops unroll by 16
 * there. UNROLL_FULL is for the few loops whose speed on CPUs needs it (the
 * scan's, measured 14 ms fully unrolled against 19-21 ms by 16 at 2^24). */
#define UNROLL_FULL _Pragma("unroll")
#if IS_CPU
#define UNROLL _Pragma("unroll 16")
#else
#define UNROLL _Pragma("unroll")
#endif

#if USE_PTX
/* NVIDIA's OpenCL has no subgroup extension; these are the warp operations
 * CUDA exposes, written as PTX. Every call must be reached by all 32 lanes
 * of the warp (full masks, uniform control flow). */
#define WARP_SIZE 32
#define NUM_WARPS (WG_SIZE / WARP_SIZE)
#if WG_SIZE % 32 != 0
#error "USE_PTX needs WG_SIZE to be a multiple of 32"
#endif

inline uint lane_id(void) { return get_local_id(0) & 31u; }
inline uint warp_id(void) { return get_local_id(0) >> 5; }

inline uint shfl_up_u32(uint x, uint delta) {
  uint r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
  return r;
}

inline uint shfl_idx_u32(uint x, uint src) {
  uint r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
  return r;
}

inline uint shfl_xor_u32(uint x, uint mask) {
  uint r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(mask));
  return r;
}

/* Bit i set when lane i's predicate is non-zero. */
inline uint warp_ballot(int pred) {
  uint r;
  asm volatile(
      "{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
      : "=r"(r)
      : "r"(pred));
  return r;
}

/* Lanes whose `key` equals this lane's, as a bit mask. */
inline uint warp_match(uint key) {
  uint r;
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(key));
  return r;
}
#endif

/* Counts into a local bin. A one-work-item group has no one to race with,
 * and on a CPU an atomic is a locked instruction: increment plainly. */
#if WG_SIZE == 1
#define LOCAL_INC(p) ((void)(*(p) += 1u))
#else
#define LOCAL_INC(p) ((void)atomic_inc(p))
#endif

/* Local-memory index with one padding word per 32: a work-item's blocked
 * run (stride ITEMS between work-items) then spreads over all 32 banks
 * instead of two. Arrays indexed through PAD need PADDED(n) elements. */
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

/* Lowest set bit's index; OpenCL 1.2 has clz but not ctz. x != 0. */
inline uint lowest_bit(uint x) { return 31u - clz(x & (0u - x)); }

#if defined(OFFSET_BITS)
#if OFFSET_BITS == 64 && defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
/* Adds to a global counter of the program's offset type (OFFSET_T): the
 * 64-bit one when arrays may pass 2^32 elements. */
inline void add_offset(__global OFFSET_T *p, uint v) {
#if OFFSET_BITS == 64
  atom_add(p, (ulong)v);
#else
  atomic_add(p, v);
#endif
}
#endif
