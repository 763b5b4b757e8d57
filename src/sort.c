/* sort.c: the public sort entry points. They validate everything, then
 * dispatch to the algorithm the options name; an algorithm that has not
 * landed returns CLSORT_ERROR_UNSUPPORTED, never a wrong result. */
#include "internal.h"

static const clsort_options default_options = CLSORT_OPTIONS_DEFAULT;

static const char *algorithm_name(clsort_algorithm a) {
  static const char *const names[] = {"auto", "radix", "bitonic", "sample", "merge", "quick"};
  return (unsigned)a <= CLSORT_QUICK ? names[a] : "unknown";
}

static clsort_status check_options(const clsort_context *ctx, clsort_type type,
                                   const clsort_options *o) {
  FORWARD_IF_ERROR(clsort__check_type(ctx, type));
  RETURN_IF((unsigned)o->algorithm > CLSORT_QUICK, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown algorithm %d", (int)o->algorithm);
  RETURN_IF(o->flags & ~CLSORT_FLAGS_ALL_, CLSORT_ERROR_INVALID_ARGUMENT,
            "unknown flags 0x%x", o->flags & ~CLSORT_FLAGS_ALL_);
  unsigned bits = (unsigned)clsort_type_size(type) * 8;
  unsigned end = o->end_bit ? o->end_bit : bits;
  RETURN_IF(end > bits || o->begin_bit >= end, CLSORT_ERROR_INVALID_ARGUMENT,
            "bit range [%u, %u) is not inside the key's %u bits", o->begin_bit, end, bits);
  return CLSORT_SUCCESS;
}

/* Dispatches to the chosen algorithm. None has landed yet. */
static clsort_status dispatch(const clsort_options *o) {
  return FAIL(CLSORT_ERROR_UNSUPPORTED, "the %s sort is not available in this build",
              algorithm_name(o->algorithm));
}

clsort_status clsort_sort(clsort_context *ctx, clsort_type type, void *keys, size_t n,
                          const clsort_options *options) {
  clsort__clear_error();
  const clsort_options *o = options ? options : &default_options;
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(check_options(ctx, type, o));
  RETURN_IF(n > 0 && !keys, CLSORT_ERROR_INVALID_ARGUMENT, "keys must not be NULL");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  return dispatch(o);
}

clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type type, void *keys, void *values,
                                size_t value_size, size_t n, const clsort_options *options) {
  clsort__clear_error();
  const clsort_options *o = options ? options : &default_options;
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(check_options(ctx, type, o));
  RETURN_IF(value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size %zu is not 4 or 8", value_size);
  RETURN_IF(n > 0 && (!keys || !values), CLSORT_ERROR_INVALID_ARGUMENT,
            "keys and values must not be NULL");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, value_size));
  return dispatch(o);
}

clsort_status clsort_argsort(clsort_context *ctx, clsort_type type, const void *keys,
                             void *indices, size_t index_size, size_t n,
                             const clsort_options *options) {
  clsort__clear_error();
  const clsort_options *o = options ? options : &default_options;
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(check_options(ctx, type, o));
  RETURN_IF(index_size != 4 && index_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "index_size %zu is not 4 or 8", index_size);
  RETURN_IF(index_size == 4 && n > UINT32_MAX, CLSORT_ERROR_TOO_LARGE,
            "n (%zu) does not fit 4-byte indices", n);
  RETURN_IF(n > 0 && (!keys || !indices), CLSORT_ERROR_INVALID_ARGUMENT,
            "keys and indices must not be NULL");
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  return dispatch(o);
}

clsort_status clsort_sort_buffer(clsort_context *ctx, clsort_type type, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, const clsort_options *options,
                                 cl_uint num_wait, const cl_event *wait_list, cl_event *event) {
  clsort__clear_error();
  const clsort_options *o = options ? options : &default_options;
  FORWARD_IF_ERROR(clsort__check_context(ctx));
  FORWARD_IF_ERROR(check_options(ctx, type, o));
  FORWARD_IF_ERROR(clsort__check_wait_list(num_wait, wait_list));
  RETURN_IF(values && value_size != 4 && value_size != 8, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size %zu is not 4 or 8", value_size);
  RETURN_IF(!values && value_size != 0, CLSORT_ERROR_INVALID_ARGUMENT,
            "value_size is %zu but values is NULL", value_size);
  FORWARD_IF_ERROR(clsort__check_size(ctx, n, clsort_type_size(type)));
  if (n > 0) {
    FORWARD_IF_ERROR(clsort__check_buffer(keys, "keys", n, clsort_type_size(type)));
    if (values) FORWARD_IF_ERROR(clsort__check_buffer(values, "values", n, value_size));
  }
  (void)event;
  return dispatch(o);
}
