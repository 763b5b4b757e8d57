/* device_select.c: turns a device spec ("gpu", "cpu", "P:D", a name
 * substring, or NULL for the default rule) into an OpenCL device. */
#include "runtime/runtime.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct found {
  cl_platform_id platform;
  cl_device_id device;
  unsigned platform_index, device_index;
} found;

/* Visits every device of every platform in order; stops when `match`
 * returns true. Returns false when nothing matched. */
static bool find_device(bool (*match)(cl_device_id, unsigned, unsigned, const void *),
                        const void *arg, found *out) {
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS) return false;
  for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
    cl_device_id devices[MAX_DEVICES];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) != CL_SUCCESS)
      continue;
    for (cl_uint d = 0; d < nd && d < MAX_DEVICES; d++) {
      if (match(devices[d], p, d, arg)) {
        *out = (found){platforms[p], devices[d], p, d};
        return true;
      }
    }
  }
  return false;
}

static bool match_type(cl_device_id dev, unsigned p, unsigned d, const void *arg) {
  (void)p, (void)d;
  cl_device_type type = 0;
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  return (type & *(const cl_device_type *)arg) != 0;
}

static bool match_index(cl_device_id dev, unsigned p, unsigned d, const void *arg) {
  (void)dev;
  const unsigned *want = arg;
  return p == want[0] && d == want[1];
}

static bool contains_ignoring_case(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return true;
  }
  return false;
}

static bool match_name(cl_device_id dev, unsigned p, unsigned d, const void *arg) {
  (void)p, (void)d;
  char name[256] = {0};
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  return contains_ignoring_case(name, arg);
}

static bool match_any(cl_device_id dev, unsigned p, unsigned d, const void *arg) {
  (void)dev, (void)p, (void)d, (void)arg;
  return true;
}

/* Parses "P:D"; returns false when the spec is not of that form. */
static bool parse_index(const char *spec, unsigned out[2]) {
  char *end;
  if (!isdigit((unsigned char)spec[0])) return false;
  unsigned long p = strtoul(spec, &end, 10);
  if (*end != ':' || !isdigit((unsigned char)end[1])) return false;
  unsigned long d = strtoul(end + 1, &end, 10);
  if (*end != '\0' || p > 1000 || d > 1000) return false;
  out[0] = (unsigned)p;
  out[1] = (unsigned)d;
  return true;
}

/* The first platform and device enumeration of a process initialises the
 * ICD loader and the drivers, and that is not thread-safe: 8 threads
 * creating their first contexts at once crashed in PoCL, or found no
 * device. Every search runs it once first, so that later enumerations,
 * concurrent or not, only read what it built. */
static void enumerate_all(void) {
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS) return;
  for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
    cl_uint nd = 0;
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
  }
}

/* Every search asks this first, so the guard above runs before any other
 * enumeration. */
static bool have_platform(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, enumerate_all);
  cl_uint np = 0;
  return clGetPlatformIDs(0, NULL, &np) == CL_SUCCESS && np > 0;
}

/* The list list_devices writes: the text so far in out[0, at). */
typedef struct device_list {
  char *out;
  size_t size, at;
} device_list;

/* A find_device visitor that matches nothing: it appends "P:D name
 * (platform)" of every device it is shown. */
static bool append_device(cl_device_id dev, unsigned p, unsigned d, const void *arg) {
  device_list *l = (device_list *)(uintptr_t)arg;
  if (l->at + 1 >= l->size) return false;
  char name[128] = {0}, platform[128] = {0};
  cl_platform_id id = NULL;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof id, &id, NULL) == CL_SUCCESS)
    clGetPlatformInfo(id, CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL);
  int w = snprintf(l->out + l->at, l->size - l->at, "%s%u:%u %s (%s)", l->at ? "; " : "", p, d,
                   name, platform);
  if (w > 0) l->at += (size_t)w < l->size - l->at ? (size_t)w : l->size - l->at - 1;
  return false;
}

/* "P:D name (platform)" of every device, for a message: a spec that
 * matches nothing is most often a driver the ICD loader did not list (an
 * ICD not registered, or one whose start-up failed), and the list shows
 * which. */
static void list_devices(char *out, size_t size) {
  device_list l = {out, size, 0};
  out[0] = '\0';
  found unused;
  find_device(append_device, &l, &unused);
  if (l.at == 0) snprintf(out, size, "none");
}

/* Finds the device for an explicit spec. */
static clsort_status find_by_spec(const char *spec, found *out) {
  RETURN_IF(spec[0] == '\0', CLSORT_ERROR_INVALID_ARGUMENT,
            "the device spec is empty (use \"gpu\", \"cpu\", \"P:D\" or a name)");
  RETURN_IF(!have_platform(), CLSORT_ERROR_NO_DEVICE,
            "no OpenCL platform is installed (is an ICD such as pocl-opencl-icd present?)");
  unsigned index[2];
  bool ok;
  if (strcmp(spec, "gpu") == 0 || strcmp(spec, "GPU") == 0) {
    cl_device_type t = CL_DEVICE_TYPE_GPU;
    ok = find_device(match_type, &t, out);
  } else if (strcmp(spec, "cpu") == 0 || strcmp(spec, "CPU") == 0) {
    cl_device_type t = CL_DEVICE_TYPE_CPU;
    ok = find_device(match_type, &t, out);
  } else if (parse_index(spec, index)) {
    ok = find_device(match_index, index, out);
  } else {
    RETURN_IF(strchr(spec, ':') && isdigit((unsigned char)spec[0]),
              CLSORT_ERROR_INVALID_ARGUMENT,
              "device spec '%s' is malformed: \"P:D\" takes two indices", spec);
    ok = find_device(match_name, spec, out);
  }
  if (!ok) {
    char devices[512];
    list_devices(devices, sizeof devices);
    return FAIL(CLSORT_ERROR_NO_DEVICE, "no OpenCL device matches '%s'; the devices found: %s", spec,
                devices);
  }
  return CLSORT_SUCCESS;
}

/* The default rule: CLSORT_DEVICE, else first GPU, else first CPU, else any. */
static clsort_status find_default(found *out, const char **reason) {
  const char *env = getenv("CLSORT_DEVICE");
  if (env && *env) {
    *reason = "set by CLSORT_DEVICE";
    return find_by_spec(env, out);
  }
  RETURN_IF(!have_platform(), CLSORT_ERROR_NO_DEVICE,
            "no OpenCL platform is installed (is an ICD such as pocl-opencl-icd present?)");
  cl_device_type gpu = CL_DEVICE_TYPE_GPU, cpu = CL_DEVICE_TYPE_CPU;
  if (find_device(match_type, &gpu, out)) {
    *reason = "first GPU (CLSORT_DEVICE not set)";
  } else if (find_device(match_type, &cpu, out)) {
    *reason = "first CPU; no GPU found (CLSORT_DEVICE not set)";
  } else if (find_device(match_any, NULL, out)) {
    *reason = "first device; no GPU or CPU found (CLSORT_DEVICE not set)";
  } else {
    return FAIL(CLSORT_ERROR_NO_DEVICE, "OpenCL platforms exist but expose no device");
  }
  return CLSORT_SUCCESS;
}

clsort_status clsort__select_device(const char *spec, cl_platform_id *platform,
                                    cl_device_id *device) {
  found f;
  const char *reason = NULL;
  FORWARD_IF_ERROR(spec ? find_by_spec(spec, &f) : find_default(&f, &reason));
  *platform = f.platform;
  *device = f.device;
  return CLSORT_SUCCESS;
}

clsort_status clsort_default_device(unsigned *platform, unsigned *device, const char **reason) {
  clsort__clear_error();
  RETURN_IF(!platform || !device, CLSORT_ERROR_INVALID_ARGUMENT,
            "platform and device must not be NULL");
  found f;
  const char *why = NULL;
  FORWARD_IF_ERROR(find_default(&f, &why));
  *platform = f.platform_index;
  *device = f.device_index;
  if (reason) *reason = why;
  return CLSORT_SUCCESS;
}
