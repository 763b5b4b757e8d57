/* sort_check.h: what the sort test programs (test_sort.c, test_bitonic.c)
 * share: the documented key order and a stable C reference, the ten key
 * distributions, the checks of one sort's output (sorted keys, stable or
 * merely consistent payloads, untouched guards), the special-value lists,
 * and the fixtures of the GPU-style tile shapes. */
#ifndef CLSORT_TESTS_SORT_CHECK_H
#define CLSORT_TESTS_SORT_CHECK_H

#include "common.h"

/* Elements past n, filled with poison, that a sort must not write. */
#define GUARD 16

/* ------------------------------------------------------------ reference */
/* The order-preserving unsigned form of key i: the documented total order
 * (floats by bits: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). */
uint64_t t_order_key(clsort_type t, const void *p, size_t i);
/* The inverse of t_order_key: the key's bits for an order-space value. */
uint64_t t_from_order(clsort_type t, uint64_t u);

/* The bits [begin, end) of the order key that the options compare. */
typedef struct t_key_range {
  unsigned begin;
  uint64_t mask;
} t_key_range;
t_key_range t_range_of(clsort_type t, const clsort_options *o);
uint64_t t_masked_key(clsort_type t, const void *p, size_t i, t_key_range k);

/* The stable reference: the permutation (a t_alloc array) that sorts `keys`
 * by their masked order keys, ascending or descending, ties in input order. */
size_t *t_ref_permutation(clsort_type t, const void *keys, size_t n, const clsort_options *o);
/* dst[i] = src[perm[i]], elements of es bytes. */
void t_gather(const void *src, const size_t *perm, size_t n, size_t es, void *dst);

/* Whether the result order is fully determined: a stable sort (RADIX is
 * stable by definition; STABLE asks for it). */
bool t_is_stable(const clsort_options *o);
/* "radix descending stable bits [0,0)": for labels; a static buffer. */
const char *t_opt_name(const clsort_options *o);

/* ---------------------------------------------------------------- modes */
/* What one input is sorted through: keys only, pairs with 4- or 8-byte
 * values, argsort with 4- or 8-byte indices. */
enum { M_KEYS, M_PAIRS4, M_PAIRS8, M_ARG4, M_ARG8, M_COUNT };
#define MODES_ALL ((1u << M_COUNT) - 1)
#define MODES_PAYLOAD (MODES_ALL & ~(1u << M_KEYS))
extern const char *const t_mode_names[M_COUNT];  /* the function's name */
extern const size_t t_mode_payload[M_COUNT];     /* bytes of value or index; 0 */
bool t_mode_is_argsort(int mode);

/* The value that pairs carry for input element i: its index, and for 8-byte
 * values a tag derived from it in the high half, so that both halves must
 * travel. */
uint64_t t_pair_value(size_t i, size_t vs);
uint64_t t_get_payload(const void *p, size_t i, size_t vs);
/* vals[i] = t_pair_value(i) for i in [0, n). */
void t_fill_pair_values(void *vals, size_t vs, size_t n);

/* ---------------------------------------------------------------- checks */
/* Masked order keys must not decrease (ascending) or increase (descending). */
void t_check_sorted(clsort_type t, const void *keys, size_t n, const clsort_options *o);
/* Stable payloads: element i must be what input perm[i] carried (its
 * index, for argsort). */
void t_check_payload_exact(const void *vals, size_t vs, const size_t *perm, size_t n,
                           bool indices);
/* Unstable payloads: each of the n payloads must name a distinct input
 * (its index for argsort; t_pair_value of it for pairs) whose key in
 * `keys_in` is the key at its place in `sorted`. With `sorted` itself
 * checked sorted, argsort's keys[idx[i]] are then sorted and pairs keep
 * each value with its key. */
void t_check_payload_permutation(clsort_type t, const void *keys_in, const void *sorted,
                                 const void *vals, size_t vs, size_t n, bool indices);
/* The same for a range: the payloads must name distinct inputs among
 * [first, first + n) of the whole input `keys_in`; sorted and vals hold
 * the range's n outputs. */
void t_check_payload_permutation_at(clsort_type t, const void *keys_in, const void *sorted,
                                    const void *vals, size_t vs, size_t first, size_t n,
                                    bool indices);

/* One sort's outputs from the input `keys` (n keys): the keys `got`
 * sorted and equal to `want` (keys gathered by the stable reference
 * permutation `perm`), or for an argsort (indices) equal to the input;
 * the payload `vals` (vs bytes each; 0: none) exactly as perm says when
 * the options are stable, else a permutation consistent with the keys. */
void t_check_outputs(clsort_type t, const void *keys, const void *want, const size_t *perm,
                     const void *got, const void *vals, size_t vs, size_t n,
                     const clsort_options *o, bool indices);

/* One input through the chosen modes, each output checked: keys sorted and
 * equal to the stable reference (so a permutation of the input), payloads
 * in the stable order (or, for an unstable sort, a permutation carrying
 * the right keys), argsort's keys untouched, nothing written past n.
 * `what` names the data in the labels. */
void t_check_input(clsort_type t, const void *keys, size_t n, const clsort_options *o,
                   unsigned modes, const char *what);

/* --------------------------------------------------------- distributions */
/* The distributions. Integers draw in the type's order space (so
 * signed keys straddle zero); floats under uniform, bucket, staggered,
 * sorted and reverse are arbitrary bit patterns (NaNs of both signs,
 * infinities, denormals included), which the total order covers; the
 * others are real numbers. */
enum {
  D_UNIFORM,
  D_GAUSSIAN,
  D_BUCKET,
  D_SORTED,
  D_REVERSE,
  D_ZERO,
  D_FEW,      /* at most 16 distinct values, specials among them */
  D_POISSON,  /* lambda 100: one digit varies for integers, an odd pass count */
  D_STAGGERED,
  D_NARROW,   /* 0..1023 */
  D_COUNT
};
extern const char *const t_dist_names[D_COUNT];
void t_gen_keys(t_rng *r, clsort_type t, int dist, void *p, size_t n);
/* Draws n keys of the distribution and runs t_check_input on them. */
void t_check_dist(t_rng *r, clsort_type t, int dist, size_t n, const clsort_options *o,
                  unsigned modes);

/* ------------------------------------------------------------ edge sizes */
/* fixed[] and around[] (sizes around a sort's tile or run) merged into
 * out, sorted, without repeats and without sizes above max; returns the
 * count. out holds nf + na. */
size_t t_edge_sizes(const size_t *fixed, size_t nf, const size_t *around, size_t na, size_t max,
                    size_t *out);
/* The edge sweep the bitonic, merge and quick tests share, for type t: in
 * every mode, every size sizes_for(unit_of(t, the mode's payload)) gives
 * (at most 64), both directions up to four units and one direction
 * (alternating) above; distinct keys or few distinct ones, alternating.
 * options(desc, few) makes each sort's options. */
void t_check_edge_sweep(t_rng *r, clsort_type t, size_t (*unit_of)(clsort_type, size_t),
                        size_t (*sizes_for)(size_t unit, size_t *out),
                        clsort_options (*options)(bool desc, bool few));

/* Whether T_CTX cannot sort keys of type t (f64 without fp64): skip. */
bool t_skip_type(clsort_type t);

/* ------------------------------------------------------- special values */
/* Distinct keys of each type, strictly ascending in the documented order
 * (INT_MIN/INT_MAX, signed zeros, infinities, NaNs of both signs and several
 * payloads, denormals), written by hand so that they also check
 * t_order_key. At most 32. */
const uint64_t *t_special_list(clsort_type t, size_t *count);
/* The output's keys, mapped to their places in the hand-written list, must
 * run in the requested direction and keep each value's count. */
void t_check_against_list(clsort_type t, const uint64_t *list, size_t count, const void *keys_in,
                          const void *out, size_t n, bool desc);
/* n keys drawn from the list: each once (n == count), then shuffled. */
void t_special_keys(t_rng *r, clsort_type t, void *keys, size_t n);

/* ------------------------------------------------ parts and tile shapes */
/* Whether the comma-separated part list of argv[2] (t_part) names `name`;
 * no part runs them all. */
bool t_part_selected(const char *name);
/* A fixture that makes T_CTX with CLSORT_TUNING=shape (it is read at
 * creation), restored at teardown; t_shape is the shape in force. */
extern const char *t_shape;
void t_shape_setup(const char *shape);
TCase *t_shape_tcase(Suite *s, const char *name, void (*setup)(void));


/* One case of the buffer form, every output checked (sort_check.c). */
void t_check_buffer_case(t_rng *r, clsort_type t, size_t n, int dist, const clsort_options *o,
                         size_t vs, bool with_values, bool stable);

/* Keys drawn from the hand-written list at each of the sizes (each key
 * once when the size is the list's length), sorted in both directions
 * with options(s, desc) for sizes[s], every output checked by
 * t_check_specials_case. */
void t_check_specials_sweep(t_rng *r, clsort_type t, const size_t *sizes, size_t nsizes,
                            clsort_options (*options)(size_t s, bool desc), const char *what);

/* One sort of special values, every output checked (sort_check.c). */
void t_check_specials_case(clsort_type t, const uint64_t *list, size_t count, const void *keys,
                           void *out, size_t n, const clsort_options *o, const char *what);

#endif
