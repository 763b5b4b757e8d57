/* top_k_small.c: top-k for a small k (topk_small.cl): each work-group
 * keeps the k smallest (order bits, position) pairs of its part of the
 * keys, then one work-group merges the groups' lists and writes the
 * result. Two launches, one read of the keys, nothing read back to the
 * host: the sampled path's fixed cost (two blocking reads, the
 * candidates' two sorts) is what it saves. */
#include "sorts/sorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const small_files[] = {"common/common.cl", "sorts/keys.cl",
                                          "sorts/topk_small.cl", NULL};
static const clsort__program_spec small_spec = {"topk_small", small_files};

/* The longest list a variant keeps (topk_small.cl's TK_K). */
#define SMALL_K_LIMIT 16u

/* The largest k the path takes unless CLSORT_TOPK says otherwise. In the
 * CPU shape each group is one work-item walking its part: the list's cost
 * is paid only by keys that beat its last entry, few: k = 16 cost what
 * k = 1 does, 1.3-3x faster than the sampled path (PoCL, 2^24 keys;
 * docs/PERFORMANCE.md). On GPUs
 * a work-item's list of k pairs lives in registers (sm_90: 40-56 for k =
 * 1, 71-86 for 8, 117-146 for 16, which leaves a quarter of the threads),
 * and an insertion costs k compare-exchanges that a whole warp pays when
 * one of its work-items takes one: the cost grows with k while the
 * sampled path's stays flat (0.3 ms at 2^26 on the H100). Up to 8 by
 * reasoning, until the H100 measures 16. */
#define SMALL_K_CPU 16u
#define SMALL_K_GPU 8u

/* CLSORT_TOPK=small takes this path for every k it can (k <= 16);
 * any other value (nosmall, or one that asks for the sampled path or the
 * radix select: top_k_sample.c) never. Unset or empty: k decides. */
static int small_knob(void) {
  const char *v = getenv("CLSORT_TOPK");
  if (!v || !*v) return 0;
  return strcmp(v, "small") == 0 ? 1 : -1;
}

bool clsort__top_k_small_takes(const clsort_context *ctx, size_t n, size_t k) {
  int knob = small_knob();
  /* Positions are 32-bit in the kernels, with 0xFFFFFFFF for none. */
  if (knob < 0 || k == 0 || n >= UINT32_MAX) return false;
  if (knob > 0) return k <= SMALL_K_LIMIT;
  return k <= (ctx->tuning.cpu_shape ? SMALL_K_CPU : SMALL_K_GPU);
}

/* The power of two at or above k: the variant's list length. */
static unsigned list_length(size_t k) {
  unsigned l = 1;
  while (l < k) l *= 2;
  return l;
}

static clsort_status small_kernel(clsort_context *ctx, size_t key_size, unsigned list,
                                  const char *name, cl_kernel *out) {
  char options[96];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu -DTK_K=%u",
           clsort__key_cl_type(key_size), key_size * 8, list);
  return clsort__get_kernel(ctx, &small_spec, options, name, out);
}

clsort_status clsort__top_k_small_prepare(clsort_context *ctx, size_t key_size) {
  cl_kernel k;
  for (unsigned list = 1; list <= SMALL_K_LIMIT; list *= 2) {
    FORWARD_IF_ERROR(small_kernel(ctx, key_size, list, "topk_small_groups", &k));
    FORWARD_IF_ERROR(small_kernel(ctx, key_size, list, "topk_small_final", &k));
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__top_k_small(clsort_context *ctx, const clsort__sort_job *job, cl_mem keys,
                                  size_t n, size_t k, const clsort__top_k_out *dst) {
  size_t ks = clsort_type_size(job->type), is = job->value_size;
  /* clsort_scratch_bytes (ctx->measuring) asks for the longest list:
   * the call it sizes may have any k. */
  unsigned list = ctx->measuring ? SMALL_K_LIMIT : list_length(k);
  size_t wg = ctx->tuning.wg_size;
  clsort__chunks c = clsort__chunking(ctx, n, clsort__tile(ctx));
  size_t m = c.groups * list;
  cl_mem bits, pos;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TOPK_KEYS, m * ks, &bits));
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_TOPK_POSITIONS, m * sizeof(cl_uint), &pos));
  if (ctx->measuring) return CLSORT_SUCCESS;
  cl_kernel groups_k, final_k;
  FORWARD_IF_ERROR(small_kernel(ctx, ks, list, "topk_small_groups", &groups_k));
  FORWARD_IF_ERROR(small_kernel(ctx, ks, list, "topk_small_final", &final_k));

  cl_ulong n64 = n, chunk64 = c.chunk, at = clsort__input_at(job, keys);
  int kind = clsort__key_kind(job->type), desc = job->descending;
  clsort__arg gargs[] = {ARG(keys), ARG(at),   ARG(n64),  ARG(chunk64),
                         ARG(kind), ARG(desc), ARG(bits), ARG(pos)};
  FORWARD_IF_ERROR(clsort__launch(ctx, groups_k, c.groups * wg, wg, 8, gargs, 0, NULL, NULL));

  /* An absent output is named by a buffer that is there, never written
   * (origin 0). */
  cl_uint m32 = (cl_uint)m, k32 = (cl_uint)k;
  int keys_out = dst->keys != NULL, positions = is != 0, wide = is == 8;
  cl_mem ko = keys_out ? dst->keys : dst->indices, io = positions ? dst->indices : dst->keys;
  cl_ulong ko_at = keys_out ? dst->keys_at : 0, io_at = positions ? dst->indices_at : 0;
  clsort__arg fargs[] = {ARG(bits),  ARG(pos),       ARG(m32),       ARG(k32),
                         ARG(kind),  ARG(desc),      ARG(keys_out),  ARG(ko),
                         ARG(ko_at), ARG(positions), ARG(wide),      ARG(io),
                         ARG(io),    ARG(io_at)};
  return clsort__launch(ctx, final_k, wg, wg, 14, fargs, 0, NULL, NULL);
}
