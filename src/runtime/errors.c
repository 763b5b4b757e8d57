/* errors.c: status texts, the per-thread last error, OpenCL error mapping
 * and debug logging. */
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* From cl_khr_icd; the ICD loader returns it when no platform is installed. */
#define CLSORT_PLATFORM_NOT_FOUND_KHR (-1001)

/* Per thread, so that a failing call on one thread cannot overwrite the
 * message another thread is about to read. */
static _Thread_local char last_message[512];
static _Thread_local cl_int last_cl_error = CL_SUCCESS;

const char *clsort_status_string(clsort_status status) {
  switch (status) {
#define CLSORT_STATUS_TEXT_(name, value, message) \
  case name:                                     \
    return message;
    CLSORT_STATUS_MAP(CLSORT_STATUS_TEXT_)
#undef CLSORT_STATUS_TEXT_
  }
  return "unknown status";
}

const char *clsort_status_name(clsort_status status) {
  switch (status) {
#define CLSORT_STATUS_NAME_(name, value, message) \
  case name:                                     \
    return #name;
    CLSORT_STATUS_MAP(CLSORT_STATUS_NAME_)
#undef CLSORT_STATUS_NAME_
  }
  return "CLSORT_UNKNOWN_STATUS";
}

const char *clsort_last_error_message(void) { return last_message; }
cl_int clsort_last_cl_error(void) { return last_cl_error; }

void clsort__clear_error(void) {
  last_message[0] = '\0';
  last_cl_error = CL_SUCCESS;
}

bool clsort__debug_enabled(void) {
  const char *level = getenv("CLSORT_LOG");
  return level && strcmp(level, "debug") == 0;
}

double clsort__now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void clsort__debug(const char *fmt, ...) {
  if (!clsort__debug_enabled()) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("clsort: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

clsort_status clsort__fail(clsort_status status, cl_int cl_error, const char *file, int line,
                           const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  last_cl_error = cl_error;
  clsort__debug("%s at %s:%d: %s", clsort_status_name(status), file, line, last_message);
  return status;
}

const char *clsort__cl_error_name(cl_int err) {
  switch (err) {
#define NAME_(e) \
  case e:        \
    return #e;
    NAME_(CL_SUCCESS)
    NAME_(CL_DEVICE_NOT_FOUND)
    NAME_(CL_DEVICE_NOT_AVAILABLE)
    NAME_(CL_COMPILER_NOT_AVAILABLE)
    NAME_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME_(CL_OUT_OF_RESOURCES)
    NAME_(CL_OUT_OF_HOST_MEMORY)
    NAME_(CL_BUILD_PROGRAM_FAILURE)
    NAME_(CL_INVALID_VALUE)
    NAME_(CL_INVALID_DEVICE)
    NAME_(CL_INVALID_CONTEXT)
    NAME_(CL_INVALID_COMMAND_QUEUE)
    NAME_(CL_INVALID_MEM_OBJECT)
    NAME_(CL_INVALID_BINARY)
    NAME_(CL_INVALID_BUILD_OPTIONS)
    NAME_(CL_INVALID_PROGRAM)
    NAME_(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME_(CL_INVALID_KERNEL_NAME)
    NAME_(CL_INVALID_KERNEL)
    NAME_(CL_INVALID_ARG_INDEX)
    NAME_(CL_INVALID_ARG_VALUE)
    NAME_(CL_INVALID_ARG_SIZE)
    NAME_(CL_INVALID_KERNEL_ARGS)
    NAME_(CL_INVALID_WORK_GROUP_SIZE)
    NAME_(CL_INVALID_WORK_ITEM_SIZE)
    NAME_(CL_INVALID_GLOBAL_OFFSET)
    NAME_(CL_INVALID_EVENT_WAIT_LIST)
    NAME_(CL_INVALID_EVENT)
    NAME_(CL_INVALID_BUFFER_SIZE)
    NAME_(CL_INVALID_GLOBAL_WORK_SIZE)
    NAME_(CL_INVALID_OPERATION)
    case CLSORT_PLATFORM_NOT_FOUND_KHR:
      return "CL_PLATFORM_NOT_FOUND_KHR";
#undef NAME_
    default:
      return "unknown OpenCL error";
  }
}

clsort_status clsort__status_from_cl(cl_int err) {
  switch (err) {
    case CL_SUCCESS:
      return CLSORT_SUCCESS;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
      return CLSORT_ERROR_OUT_OF_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
      return CLSORT_ERROR_BUILD_FAILED;
    case CL_DEVICE_NOT_FOUND:
    case CLSORT_PLATFORM_NOT_FOUND_KHR:
      return CLSORT_ERROR_NO_DEVICE;
    default:
      return CLSORT_ERROR_OPENCL;
  }
}

clsort_status clsort__check_cl(cl_int err, const char *what, const char *file, int line) {
  if (err == CL_SUCCESS) return CLSORT_SUCCESS;
  return clsort__fail(clsort__status_from_cl(err), err, file, line, "%s failed: %s (%d)", what,
                      clsort__cl_error_name(err), (int)err);
}
