/* bitonic_cpu.c: the bitonic sort's CPU shape (cl/sorts/bitonic_cpu.cl),
 * which clsort__bitonic_sort runs when ctx->tuning.cpu_shape is set: a
 * serial sort of each chunk, a few chunks per core, then the network's
 * steps across chunks as streaming passes and a linear merge of each chunk
 * per stage. n log n + n log^2(chunks), where the tile network costs
 * n log^2 n. Not stable, as the GPU shape. */
#include "sorts/sorts.h"

#include <stdio.h>

static const char *const bitonic_cpu_files[] = {"common/common.cl", "sorts/keys.cl",
                                                "sorts/introsort_cpu.cl", "sorts/bitonic_cpu.cl",
                                                NULL};
static const clsort__program_spec bitonic_cpu_spec = {"bitonic_cpu", bitonic_cpu_files};

#define LOG_MIN_CHUNK 6 /* bitonic_cpu.cl's BC_STRIP: a chunk holds whole strips */
#define LOG_ROWS 4      /* bitonic_cpu.cl's BC_LOG_ROWS: steps per bcpu_cross */
#define STRIP 64        /* bitonic_cpu.cl's BC_STRIP */

/* The shape: chunks of 2^log_chunk keys, about `per_cu` per compute unit
 * so that a busy core does not hold the others up, and at least 2^12 keys
 * (smaller inputs are one serial sort: a launch costs more than it saves).
 * CLSORT_BITONIC_CPU=0 runs the tile network instead (the GPU shape's
 * kernels; tests and bench/ compare both); CLSORT_BITONIC_CPU=1:LOG_CHUNK
 * [:PER_CU] forces the chunk (the tests' small chunks reach many stages)
 * and the chunks per compute unit. */
typedef struct shape {
  bool on;
  unsigned log_chunk; /* 0: from n */
  unsigned per_cu;
} shape;

static shape shape_for(void) {
  shape s = {true, 0, 4};
  unsigned f[3] = {1, 0, 0};
  static const char *const name = "CLSORT_BITONIC_CPU";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got >= 1) s.on = f[0] != 0;
  if (got >= 2 && f[1] != 0 &&
      clsort__env_field_ok(name, "LOG_CHUNK", f[1], LOG_MIN_CHUNK, 40, ENV_ANY))
    s.log_chunk = f[1];
  if (got >= 3 && clsort__env_field_ok(name, "PER_CU", f[2], 1, 64, ENV_ANY)) s.per_cu = f[2];
  return s;
}

bool clsort__bitonic_cpu_enabled(const clsort_context *ctx) {
  return ctx->tuning.cpu_shape && shape_for().on;
}

static unsigned log_chunk_for(const clsort_context *ctx, size_t n, const shape *s) {
  if (s->log_chunk) return s->log_chunk;
  size_t target = clsort__div_up(n, (size_t)s->per_cu * ctx->compute_units);
  unsigned l = 12;
  while (((size_t)1 << l) < target) l++;
  return l;
}

static clsort_status kernel(clsort_context *ctx, const clsort__sort_job *job, const char *name,
                            cl_kernel *out) {
  size_t key_size = clsort_type_size(job->type), vs = job->value_size;
  char options[128];
  snprintf(options, sizeof options, "-DKEY_T=%s -DKEY_BITS=%zu -DHAS_VALUES=%d -DVALUE_T=%s",
           key_size == 8 ? "ulong" : "uint", key_size * 8, vs ? 1 : 0,
           vs == 8 ? "ulong" : "uint");
  return clsort__get_kernel(ctx, &bitonic_cpu_spec, options, name, out);
}

/* The steps at element bits [lo, lo + r) (strides of a chunk and more), in
 * place: work-items of a few strips each, several per compute unit. */
static clsort_status cross(clsort_context *ctx, cl_kernel k, cl_mem keys, cl_mem vals, size_t n,
                           unsigned lo, unsigned r, bool flip) {
  cl_ulong n64 = n, top = lo + r;
  /* The cosets whose first element lies below n (bitonic.c: launch_global). */
  cl_ulong cosets = ((n64 >> top) << lo) + clsort__min(n64 & (((cl_ulong)1 << top) - 1),
                                                      (cl_ulong)1 << lo);
  cl_ulong strips = clsort__div_up(cosets, STRIP);
  cl_ulong per = clsort__max(clsort__div_up(strips, 8 * (cl_ulong)ctx->compute_units), 1);
  cl_uint lo32 = lo, r32 = r;
  int flip_arg = flip;
  clsort__arg args[] = {ARG(keys), ARG(vals), ARG(n64), ARG(lo32), ARG(r32), ARG(flip_arg),
                        ARG(strips), ARG(per)};
  return clsort__launch(ctx, k, clsort__div_up(strips, per), 1, 8, args, 0, NULL, NULL);
}

clsort_status clsort__bitonic_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  shape s = shape_for();
  unsigned log_chunk = log_chunk_for(ctx, n, &s), stages = 0;
  size_t chunk = (size_t)1 << log_chunk, chunks = clsort__div_up(n, chunk);
  while (((size_t)1 << stages) < chunks) stages++;
  cl_kernel sort_chunks, cross_k = NULL, finish = NULL;
  FORWARD_IF_ERROR(kernel(ctx, job, "bcpu_chunks", &sort_chunks));
  if (stages) {
    FORWARD_IF_ERROR(kernel(ctx, job, "bcpu_cross", &cross_k));
    FORWARD_IF_ERROR(kernel(ctx, job, "bcpu_finish", &finish));
  }
  /* Each stage's merge moves the keys to the other buffer; the last lands
   * in K[0]: the output, or scratch for an argsort. */
  cl_mem K[2] = {job->keys_out, NULL}, V[2] = {job->vals_out, NULL};
  if (!K[0]) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS2, n * ks, &K[0]));
  if (stages) FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_KEYS, n * ks, &K[1]));
  if (vs && stages) {
    FORWARD_IF_ERROR(clsort__scratch(ctx, SLOT_SORT_VALUES, n * vs, &V[1]));
  } else if (!vs) {
    V[0] = K[0]; /* keys-only programs ignore values: any valid buffer */
    V[1] = K[1] ? K[1] : K[0];
  }
  cl_mem vin = vs && !job->make_index ? job->vals_in : V[0];
  cl_ulong n64 = n, chunk64 = chunk;
  int kind = clsort__key_kind(job->type), desc = job->descending, make_index = job->make_index;
  int to_bits = stages > 0;
  unsigned cur = stages % 2;
  clsort__arg chunk_args[] = {ARG(job->keys_in), ARG(vin),        ARG(K[cur]), ARG(V[cur]),
                              ARG(n64),          ARG(chunk64),    ARG(kind),   ARG(desc),
                              ARG(make_index),   ARG(to_bits)};
  FORWARD_IF_ERROR(clsort__launch(ctx, sort_chunks, chunks, 1, 10, chunk_args, 0, NULL, NULL));
  for (unsigned j = 1; j <= stages; j++) {
    /* Stage j merges blocks of 2^j chunks: its steps at element bits
     * [log_chunk, log_chunk + j) in rounds of up to LOG_ROWS, the first
     * a flip; then each chunk's linear merge. */
    for (unsigned top = log_chunk + j; top > log_chunk;) {
      unsigned r = clsort__min(LOG_ROWS, top - log_chunk);
      FORWARD_IF_ERROR(
          cross(ctx, cross_k, K[cur], V[cur], n, top - r, r, top == log_chunk + j));
      top -= r;
    }
    int to_keys = j == stages;
    clsort__arg args[] = {ARG(K[cur]), ARG(V[cur]), ARG(K[1 - cur]), ARG(V[1 - cur]), ARG(n64),
                          ARG(chunk64), ARG(kind),  ARG(desc),       ARG(to_keys)};
    FORWARD_IF_ERROR(clsort__launch(ctx, finish, chunks, 1, 9, args, 0, NULL, NULL));
    cur = 1 - cur;
  }
  return CLSORT_SUCCESS;
}
