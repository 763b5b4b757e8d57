/* types.c: what each clsort_type is: its size, its name and its OpenCL C
 * spelling. Here, in the lowest layer that needs them (the primitives size
 * their buffers by type), so that every layer above reaches them. */
#include "primitives/primitives.h"

size_t clsort_type_size(clsort_type type) {
  switch (type) {
    case CLSORT_U8:
    case CLSORT_I8:
      return 1;
    case CLSORT_U16:
    case CLSORT_I16:
    case CLSORT_F16:
    case CLSORT_BF16:
      return 2;
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
  static const char *const names[] = {"u32", "i32", "f32", "u64", "i64", "f64",
                                      "u8",  "i8",  "u16", "i16", "f16", "bf16"};
  return clsort_type_size(type) ? names[type] : NULL;
}

/* The half floats have no OpenCL C type that needs no extension: their
 * bits travel as ushort. */
const char *clsort__cl_type_name(clsort_type type) {
  static const char *const names[] = {"uint",  "int",   "float",  "ulong",  "long",   "double",
                                      "uchar", "char",  "ushort", "short",  "ushort", "ushort"};
  return names[type];
}

bool clsort__type_is_narrow(clsort_type type) {
  size_t size = clsort_type_size(type);
  return size == 1 || size == 2;
}

clsort_type clsort__wide_type(clsort_type type) {
  switch (type) {
    case CLSORT_I8:
    case CLSORT_I16:
      return CLSORT_I32;
    case CLSORT_F16:
    case CLSORT_BF16:
      return CLSORT_F32;
    case CLSORT_U8:
    case CLSORT_U16:
      return CLSORT_U32;
    default:
      return type;
  }
}
