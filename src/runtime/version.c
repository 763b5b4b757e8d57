/* version.c: the run-time version of the linked library. */
#include "runtime/runtime.h"

#define CLSORT_STR2_(x) #x
#define CLSORT_STR_(x) CLSORT_STR2_(x)

unsigned clsort_version(void) { return CLSORT_VERSION_NUMBER; }

const char *clsort_version_string(void) {
  return CLSORT_STR_(CLSORT_VERSION_MAJOR) "." CLSORT_STR_(CLSORT_VERSION_MINOR) "." CLSORT_STR_(
      CLSORT_VERSION_PATCH);
}
