/* types.c: what each clsort_type is: its size, its name and its OpenCL C
 * spelling. Here, in the lowest layer that needs them (the primitives size
 * their buffers by type), so that every layer above reaches them. */
#include "primitives/primitives.h"

size_t clsort_type_size(clsort_type type) {
  switch (type) {
    case CLSORT_U32:
    case CLSORT_I32:
    case CLSORT_F32:
      return 4;
    case CLSORT_U64:
    case CLSORT_I64:
    case CLSORT_F64:
      return 8;
  }
  return 0;
}

const char *clsort_type_name(clsort_type type) {
  static const char *const names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
  return clsort_type_size(type) ? names[type] : NULL;
}

const char *clsort__cl_type_name(clsort_type type) {
  static const char *const names[] = {"uint", "int", "float", "ulong", "long", "double"};
  return names[type];
}
