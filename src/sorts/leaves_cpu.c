/* leaves_cpu.c: what the CPU shapes' splitting sorts (the quicksort's,
 * quick_cpu.c, and the sample sort's, sample_cpu.c) share: their buffers,
 * the loop of their levels, and their last launch: every
 * finished range into the output as keys, sorted first where it needs
 * it, by quick_cpu.cl's qcpu_leaves. The ranges are packed into one bin
 * per compute unit, largest first, each to the bin with the least work so
 * far (LPT), and one work-item takes each bin: an even split, whatever
 * order the device takes the work-items in. */
#include "sorts/sorts.h"

#include <stdlib.h>
#include <string.h>

clsort_status clsort__cpu_split_buffers(clsort_context *ctx, const clsort__sort_job *job,
                                        cl_mem k[3], cl_mem v[3]) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  k[CLSORT__CPU_IN] = job->keys_in;
  k[CLSORT__CPU_OUT] = job->keys_out;
  FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * ks, &k[CLSORT__CPU_SCRATCH]));
  if (!k[CLSORT__CPU_OUT])
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * ks, &k[CLSORT__CPU_OUT]));
  if (!vs) {
    for (int i = 0; i < 3; i++) v[i] = k[i]; /* keys-only programs ignore values: any buffer */
    return CLSORT_SUCCESS;
  }
  v[CLSORT__CPU_OUT] = job->vals_out;
  v[CLSORT__CPU_IN] = job->make_index ? job->vals_out : job->vals_in;
  return clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &v[CLSORT__CPU_SCRATCH]);
}

clsort_status clsort__cpu_split_levels(clsort_context *ctx, clsort__cpu_leaves *l,
                                       clsort__cpu_segment **cur, clsort__cpu_segment **next,
                                       size_t n, size_t leaf, unsigned levels,
                                       clsort__cpu_level_fn level, void *plan, unsigned *ran) {
  size_t segments = 0;
  *ran = 0;
  if (n <= leaf)
    clsort__cpu_leaves_add(l, 0, n, CLSORT__CPU_IN, true);
  else
    (*cur)[segments++] = (clsort__cpu_segment){0, n, CLSORT__CPU_IN, false, 0};
  for (; segments > 0; ++*ran) {
    if (*ran == levels) {
      for (size_t i = 0; i < segments; i++)
        clsort__cpu_leaves_add(l, (*cur)[i].begin, (*cur)[i].len, (*cur)[i].src, true);
      break;
    }
    size_t next_count = 0;
    FORWARD_IF_ERROR(level(ctx, plan, segments, *ran == 0, &next_count));
    clsort__cpu_segment *t = *cur;
    *cur = *next;
    *next = t;
    segments = next_count;
  }
  return CLSORT_SUCCESS;
}

size_t clsort__cpu_leaves_host_bytes(size_t cap, size_t bins) {
  return (6 * cap + 2 * (bins + 1)) * sizeof(cl_ulong) + cap * sizeof(size_t) +
         bins * sizeof(double);
}

void clsort__cpu_leaves_init(clsort__cpu_leaves *l, void *host, size_t cap, size_t bins) {
  l->list = host;
  l->grouped = l->list + 3 * cap;
  l->bin_start = l->grouped + 3 * cap;
  l->rooms = l->bin_start + bins + 1;
  l->bin_of = (size_t *)(void *)(l->rooms + bins + 1);
  l->load = (double *)(void *)(l->bin_of + cap);
  l->cap = cap;
  l->bins = bins;
  l->count = 0;
}

void clsort__cpu_leaves_add(clsort__cpu_leaves *l, size_t begin, size_t len, unsigned src,
                            bool sort) {
  if (len == 0) return;
  cl_ulong *e = l->list + 3 * l->count++;
  e[0] = begin;
  e[1] = begin + len;
  e[2] = src | (sort && len > 1 ? 4u : 0u);
}

/* The work of finishing a range, in key moves: a sort's n log2 n
 * comparisons (a move each, about), or a copy. */
static double leaf_work(const cl_ulong *l) {
  double len = (double)(l[1] - l[0]), w = len;
  if (l[2] & 4)
    for (cl_ulong m = l[1] - l[0]; m > 1; m >>= 1) w += len;
  return w;
}

static int more_work_first(const void *a, const void *b) {
  double x = leaf_work(a), y = leaf_work(b);
  return x < y ? 1 : x > y ? -1 : 0;
}

/* The leaves' spare values (quick_cpu.cl's qc_sort_pairs), for keys and
 * values of one size: each bin's room holds its longest leaf to sort and
 * a page more to choose the place from (at most the sort's values and a
 * page a bin); rooms[b] is where bin b's begins. Else no room (all 0, any
 * buffer): also when the memory for it is not there, since the levels
 * before may have written the caller's arrays, and the leaves sort as well
 * where they are, only slower. */
static clsort_status spare_values(clsort_context *ctx, clsort__cpu_leaves *l,
                                  const clsort__sort_job *job, size_t bins, cl_mem any,
                                  cl_mem *spare) {
  size_t vs = job->value_size;
  *spare = any;
  memset(l->rooms, 0, (bins + 1) * sizeof(cl_ulong));
  if (!vs || vs != clsort_type_size(job->type)) return CLSORT_SUCCESS;
  for (size_t b = 0, at = 0; b < bins; b++) {
    size_t longest = 0;
    for (size_t i = l->bin_start[b]; i < l->bin_start[b + 1]; i++) {
      const cl_ulong *e = l->grouped + 3 * i;
      if ((e[2] & 4) && e[1] - e[0] > longest) longest = e[1] - e[0];
    }
    at += longest ? longest + 4096 / vs : 0;
    l->rooms[b + 1] = at;
  }
  if (l->rooms[bins] == 0) return CLSORT_SUCCESS;
  if (clsort__scratch(ctx, SLOT_LEAF_VALUES, l->rooms[bins] * vs, spare) != CLSORT_SUCCESS) {
    clsort__clear_error();
    *spare = any;
    memset(l->rooms, 0, (bins + 1) * sizeof(cl_ulong));
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__cpu_leaves_run(clsort_context *ctx, clsort__cpu_leaves *l, cl_kernel kernel,
                                     const clsort__sort_job *job, const cl_mem k[3],
                                     const cl_mem v[3], cl_mem aux, cl_ulong bins_at) {
  size_t count = l->count, bins = clsort__min(l->bins, count);
  if (count == 0) return CLSORT_SUCCESS;
  qsort(l->list, count, 3 * sizeof(cl_ulong), more_work_first);
  memset(l->load, 0, bins * sizeof(double));
  memset(l->bin_start, 0, (bins + 1) * sizeof(cl_ulong));
  for (size_t i = 0; i < count; i++) {
    size_t best = 0;
    for (size_t b = 1; b < bins; b++)
      if (l->load[b] < l->load[best]) best = b;
    l->load[best] += leaf_work(l->list + 3 * i);
    l->bin_of[i] = best;
    l->bin_start[best + 1]++;
  }
  for (size_t b = 0; b < bins; b++) l->bin_start[b + 1] += l->bin_start[b];
  for (size_t b = 0, at = 0; b < bins; b++)
    for (size_t i = 0; i < count; i++)
      if (l->bin_of[i] == b) memcpy(l->grouped + 3 * at++, l->list + 3 * i, 3 * sizeof(cl_ulong));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, aux, CL_TRUE, 0,
                                                 count * 3 * sizeof(cl_ulong), l->grouped, 0,
                                                 NULL, NULL)));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, aux, CL_TRUE,
                                                 bins_at * sizeof(cl_ulong),
                                                 (bins + 1) * sizeof(cl_ulong), l->bin_start, 0,
                                                 NULL, NULL)));
  int kind = clsort__key_kind(job->type), desc = job->descending, mi = job->make_index;
  cl_ulong2 at0 = clsort__pair_at(job, k[0], v[0]);
  cl_ulong2 at2 = clsort__pair_at(job, k[2], v[2]);
  cl_mem spare;
  FORWARD_IF_ERROR(spare_values(ctx, l, job, bins, v[0], &spare));
  FORWARD_IF_ERROR(CL_CHECK(clEnqueueWriteBuffer(ctx->queue, aux, CL_TRUE,
                                                 (bins_at + bins + 1) * sizeof(cl_ulong),
                                                 (bins + 1) * sizeof(cl_ulong), l->rooms, 0,
                                                 NULL, NULL)));
  clsort__arg args[] = {ARG(k[0]), ARG(k[1]), ARG(k[2]), ARG(v[0]), ARG(v[1]),
                        ARG(v[2]), ARG(at0),  ARG(at2),  ARG(aux),  ARG(bins_at),
                        ARG(mi),   ARG(kind), ARG(desc), ARG(spare)};
  return clsort__launch(ctx, kernel, bins, 1, 14, args, 0, NULL, NULL);
}
