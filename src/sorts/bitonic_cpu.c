/* bitonic_cpu.c: the bitonic sort's CPU shape (cl/sorts/bitonic_cpu.cl),
 * which clsort__bitonic_sort runs when ctx->tuning.cpu_shape is set: a
 * serial sort of each of 2^k equal chunks, then the network's steps
 * between chunks as streaming passes and a linear merge of each chunk per
 * stage. n log n + n log^2(chunks), where the tile network costs
 * n log^2 n. Not stable, as the GPU shape. */
#include "sorts/sorts.h"

static const char *const bitonic_cpu_files[] = {"common/common.cl", "sorts/keys.cl",
                                                "sorts/introsort_cpu.cl", "sorts/bitonic_cpu.cl",
                                                NULL};
static const clsort__program_spec bitonic_cpu_spec = {"bitonic_cpu", bitonic_cpu_files};

#define LOG_ROWS 4 /* bitonic_cpu.cl's BC_LOG_ROWS: steps per bcpu_cross */
#define STRIP 64   /* bitonic_cpu.cl's BC_STRIP: a chunk holds whole strips */
#define MIN_CHUNK 4096

/* The shape: 2^k chunks of equal length, a multiple of STRIP, k the
 * smallest with at least `per_cu` chunks per compute unit (equal chunks
 * keep the cores equally busy whatever n is); chunks of at least 4096
 * keys, so that smaller inputs are one serial sort (a launch costs more
 * than it saves). One chunk per compute unit: PoCL hands a launch's
 * groups out in halves, not one by one, so more chunks balance nothing
 * and only add stages (2^24 u32 keys on 2 cores under load, alternating
 * three times: 8 chunks, 3 stages, medians 1334-1475 ms; 2 chunks, one
 * stage, 1290-1326 ms). CLSORT_BITONIC_CPU=0 runs the tile network instead (the
 * GPU shape's kernels; the tests and bench/ compare both);
 * CLSORT_BITONIC_CPU=1:CHUNK[:PER_CU] forces the chunk (keys, rounded up
 * to a multiple of STRIP; the tests' small chunks reach many stages) and
 * the chunks per compute unit. */
typedef struct shape {
  bool on;
  size_t chunk; /* 0: from n */
  unsigned per_cu;
} shape;

static shape shape_for(void) {
  shape s = {true, 0, 1};
  unsigned f[3] = {1, 0, 0};
  static const char *const name = "CLSORT_BITONIC_CPU";
  unsigned got = clsort__env_fields(name, f, 3);
  if (got >= 1) s.on = f[0] != 0;
  if (got >= 2 && f[1] != 0 && clsort__env_field_ok(name, "CHUNK", f[1], 1, 1u << 31, ENV_ANY))
    s.chunk = clsort__div_up(f[1], STRIP) * STRIP;
  if (got >= 3 && clsort__env_field_ok(name, "PER_CU", f[2], 1, 64, ENV_ANY)) s.per_cu = f[2];
  return s;
}

bool clsort__bitonic_cpu_enabled(const clsort_context *ctx) {
  return ctx->tuning.cpu_shape && shape_for().on;
}

static size_t chunk_for(const clsort_context *ctx, size_t n, const shape *s) {
  if (s->chunk) return s->chunk;
  size_t parts = 1;
  while (parts < (size_t)s->per_cu * clsort__max(ctx->compute_units, 1u)) parts *= 2;
  return clsort__max(clsort__div_up(clsort__div_up(n, parts), STRIP) * STRIP, MIN_CHUNK);
}

static clsort_status kernel(clsort_context *ctx, const clsort__sort_job *job, const char *name,
                            cl_kernel *out) {
  return clsort__cpu_sort_kernel(ctx, &bitonic_cpu_spec, job, name, out);
}

/* The steps at chunk bits [lo, lo + r) of `chunks` (a power of two), in
 * place: work-items of a run of strips each, several per compute unit. */
static clsort_status cross(clsort_context *ctx, cl_kernel k, cl_mem keys, cl_mem vals,
                           cl_ulong2 at, size_t n, size_t chunk, size_t chunks, unsigned lo,
                           unsigned r, bool flip) {
  cl_ulong n64 = n, chunk64 = chunk, strips = (chunks >> r) * (chunk / STRIP);
  cl_ulong cus = clsort__max(ctx->compute_units, 1u);
  cl_ulong per = clsort__max(clsort__div_up(strips, 8 * cus), 1);
  cl_uint lo32 = lo, r32 = r;
  int flip_arg = flip;
  clsort__arg args[] = {ARG(keys), ARG(vals),     ARG(at),     ARG(n64), ARG(chunk64),
                        ARG(lo32), ARG(r32),      ARG(flip_arg), ARG(strips), ARG(per)};
  return clsort__launch(ctx, k, clsort__div_up(strips, per), 1, 10, args, 0, NULL, NULL);
}

clsort_status clsort__bitonic_sort_cpu(clsort_context *ctx, const clsort__sort_job *job) {
  size_t n = job->n, ks = clsort_type_size(job->type), vs = job->value_size;
  shape s = shape_for();
  size_t chunk = chunk_for(ctx, n, &s), chunks = clsort__div_up(n, chunk);
  unsigned stages = 0;
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
  cl_ulong2 in_at = clsort__pair_at(job, job->keys_in, vin);
  cl_ulong2 at[2] = {clsort__pair_at(job, K[0], V[0]), clsort__pair_at(job, K[1], V[1])};
  clsort__arg chunk_args[] = {ARG(job->keys_in), ARG(vin),     ARG(K[cur]), ARG(V[cur]),
                              ARG(in_at),        ARG(at[cur]), ARG(n64),    ARG(chunk64),
                              ARG(kind),         ARG(desc),    ARG(make_index), ARG(to_bits)};
  FORWARD_IF_ERROR(clsort__launch(ctx, sort_chunks, chunks, 1, 12, chunk_args, 0, NULL, NULL));
  for (unsigned j = 1; j <= stages; j++) {
    /* Stage j merges blocks of 2^j chunks: its steps at chunk bits
     * [0, j) in rounds of up to LOG_ROWS, the first a flip; then each
     * chunk's linear merge. */
    for (unsigned top = j; top > 0;) {
      unsigned r = clsort__min(LOG_ROWS, top);
      FORWARD_IF_ERROR(cross(ctx, cross_k, K[cur], V[cur], at[cur], n, chunk,
                             (size_t)1 << stages, top - r, r, top == j));
      top -= r;
    }
    int to_keys = j == stages;
    clsort__arg args[] = {ARG(K[cur]),   ARG(V[cur]),      ARG(K[1 - cur]), ARG(V[1 - cur]),
                          ARG(at[cur]),  ARG(at[1 - cur]), ARG(n64),        ARG(chunk64),
                          ARG(kind),     ARG(desc),        ARG(to_keys)};
    FORWARD_IF_ERROR(clsort__launch(ctx, finish, chunks, 1, 11, args, 0, NULL, NULL));
    cur = 1 - cur;
  }
  return CLSORT_SUCCESS;
}
