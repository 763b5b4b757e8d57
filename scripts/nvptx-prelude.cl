/* nvptx-prelude.cl: definitions of the OpenCL C built-in functions that
 * libclsort's kernels call, for scripts/check-nvptx, which compiles the
 * kernels with clang for NVPTX where no OpenCL library (libclc) is at hand.
 * Only a compile check: NVIDIA's own OpenCL compiler builds the real
 * programs. Work-item functions read the PTX special registers; atomics
 * map to clang's __atomic builtins (relaxed), barrier to bar.sync. */
#define OVL __attribute__((overloadable)) __attribute__((always_inline))

OVL size_t get_local_id(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_tid_x() : d == 1 ? __nvvm_read_ptx_sreg_tid_y() : d == 2 ? __nvvm_read_ptx_sreg_tid_z() : 0;
}
OVL size_t get_group_id(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : d == 2 ? __nvvm_read_ptx_sreg_ctaid_z() : 0;
}
OVL size_t get_local_size(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_ntid_x() : d == 1 ? __nvvm_read_ptx_sreg_ntid_y() : d == 2 ? __nvvm_read_ptx_sreg_ntid_z() : 1;
}
OVL size_t get_num_groups(uint d) {
  return d == 0 ? __nvvm_read_ptx_sreg_nctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_nctaid_y() : d == 2 ? __nvvm_read_ptx_sreg_nctaid_z() : 1;
}
OVL size_t get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
OVL size_t get_global_size(uint d) { return get_num_groups(d) * get_local_size(d); }
OVL void barrier(cl_mem_fence_flags f) { __asm__ volatile("bar.sync 0;" ::: "memory"); }
OVL void mem_fence(cl_mem_fence_flags f) { __asm__ volatile("membar.gl;" ::: "memory"); }
OVL void read_mem_fence(cl_mem_fence_flags f) { __asm__ volatile("membar.gl;" ::: "memory"); }
OVL void write_mem_fence(cl_mem_fence_flags f) { __asm__ volatile("membar.gl;" ::: "memory"); }

/* Atomics as PTX: clang's OpenCL mode for NVPTX has no lock-free atomics.
 * The operand is the address in its state space (shared or global). */
#define ATOM1(AS, SS, T, PT, NAME, OP)                                       \
  OVL T NAME(volatile AS T *p, T v) {                                      \
    T r;                                                                   \
    __asm__ volatile("atom." SS "." OP "." PT " %0, [%1], %2;"             \
                     : "=r"(r) : "l"((ulong)p), "r"(v) : "memory");         \
    return r;                                                              \
  }
#define ATOMICS(AS, SS, T, PT)                                                \
  ATOM1(AS, SS, T, "b32", atomic_xchg, "exch")                              \
  ATOM1(AS, SS, T, "b32", atomic_or, "or")                                  \
  ATOM1(AS, SS, T, "b32", atomic_and, "and")                                \
  ATOM1(AS, SS, T, PT, atomic_min, "min")                                   \
  ATOM1(AS, SS, T, PT, atomic_max, "max")                                   \
  ATOM1(AS, SS, T, "u32", atomic_add, "add")                                \
  OVL T atomic_sub(volatile AS T *p, T v) { return atomic_add(p, (T)0 - v); } \
  OVL T atomic_inc(volatile AS T *p) { return atomic_add(p, (T)1); }         \
  OVL T atomic_dec(volatile AS T *p) { return atomic_add(p, (T)0 - (T)1); }  \
  OVL T atomic_cmpxchg(volatile AS T *p, T c, T v) {                         \
    T r;                                                                   \
    __asm__ volatile("atom." SS ".cas.b32 %0, [%1], %2, %3;"              \
                     : "=r"(r) : "l"((ulong)p), "r"(c), "r"(v) : "memory"); \
    return r;                                                              \
  }
ATOMICS(__global, "global", uint, "u32")
ATOMICS(__global, "global", int, "s32")
ATOMICS(__local, "shared", uint, "u32")
ATOMICS(__local, "shared", int, "s32")
#define ATOM64(AS, SS, T, PT)                                                 \
  OVL T atom_add(volatile AS T *p, T v) {                                    \
    T r;                                                                     \
    __asm__ volatile("atom." SS ".add.u64 %0, [%1], %2;"                    \
                     : "=l"(r) : "l"((ulong)p), "l"(v) : "memory");          \
    return r;                                                                \
  }                                                                          \
  OVL T atom_inc(volatile AS T *p) { return atom_add(p, (T)1); }
ATOM64(__global, "global", ulong, "u64")
ATOM64(__global, "global", long, "s64")
ATOM64(__local, "shared", ulong, "u64")
ATOM64(__local, "shared", long, "s64")

#define MINMAX(T)                                                 \
  OVL T min(T a, T b) { return b < a ? b : a; }                   \
  OVL T max(T a, T b) { return a < b ? b : a; }                   \
  OVL T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
MINMAX(uint)
MINMAX(int)
MINMAX(ulong)
MINMAX(long)
/* select.cl's flag counting; vectors compare and select element-wise. */
OVL uchar16 min(uchar16 a, uchar16 b) { return b < a ? b : a; }
OVL void vstore16(uchar16 v, size_t i, __private uchar *p) {
  for (int k = 0; k < 16; k++) p[16 * i + k] = v[k];
}
#define VSTORE4(T)                                              \
  OVL void vstore4(T##4 v, size_t i, __private T *p) {          \
    p[4 * i] = v.x; p[4 * i + 1] = v.y; p[4 * i + 2] = v.z; p[4 * i + 3] = v.w; \
  }
VSTORE4(uint)
VSTORE4(int)
VSTORE4(float)
VSTORE4(ulong)
VSTORE4(long)
VSTORE4(double)
/* merge.cl's 16-byte vectors of keys and values, to and from registers. */
#define VLOAD_VSTORE(T)                                                            \
  OVL T##4 vload4(size_t i, const __private T *p) {                                \
    return (T##4)(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]);             \
  }                                                                                \
  OVL T##2 vload2(size_t i, const __private T *p) { return (T##2)(p[2 * i], p[2 * i + 1]); } \
  OVL void vstore2(T##2 v, size_t i, __private T *p) { p[2 * i] = v.x; p[2 * i + 1] = v.y; }
VLOAD_VSTORE(uint)
VLOAD_VSTORE(ulong)
OVL uint clz(uint x) { return x ? __builtin_clz(x) : 32u; }
OVL int clz(int x) { return x ? __builtin_clz((uint)x) : 32; }
OVL ulong clz(ulong x) { return x ? __builtin_clzl(x) : 64ul; }
OVL uint popcount(uint x) { return __builtin_popcount(x); }
OVL ulong popcount(ulong x) { return __builtin_popcountl(x); }
OVL ulong mul_hi(ulong a, ulong b) { return (ulong)(((unsigned __int128)a * b) >> 64); }
OVL float fmin(float a, float b) { return __builtin_fminf(a, b); }
OVL float fmax(float a, float b) { return __builtin_fmaxf(a, b); }
OVL double fmin(double a, double b) { return __builtin_fmin(a, b); }
OVL double fmax(double a, double b) { return __builtin_fmax(a, b); }
#undef OVL
