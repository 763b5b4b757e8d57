"""_ffi.py: the C declarations that the binding uses, and the loading of
libclsort through cffi in ABI mode (no compiler needed at install time).

The declarations repeat those of include/clsort.h; tests/test_clsort.py
checks them against the header, so that they cannot drift apart.
"""
import ctypes.util
import os

from cffi import FFI

CDEF = """
typedef int32_t cl_int;
typedef enum clsort_status {
  CLSORT_SUCCESS = 0,
  CLSORT_ERROR_INVALID_ARGUMENT = -1,
  CLSORT_ERROR_UNSUPPORTED = -2,
  CLSORT_ERROR_NO_DEVICE = -3,
  CLSORT_ERROR_OUT_OF_MEMORY = -4,
  CLSORT_ERROR_BUILD_FAILED = -5,
  CLSORT_ERROR_OPENCL = -6,
  CLSORT_ERROR_TOO_LARGE = -7,
  CLSORT_ERROR_MEMORY_LIMIT = -8
} clsort_status;
typedef enum clsort_type {
  CLSORT_U32 = 0, CLSORT_I32 = 1, CLSORT_F32 = 2,
  CLSORT_U64 = 3, CLSORT_I64 = 4, CLSORT_F64 = 5,
  CLSORT_U8 = 6, CLSORT_I8 = 7, CLSORT_U16 = 8, CLSORT_I16 = 9,
  CLSORT_F16 = 10, CLSORT_BF16 = 11
} clsort_type;
typedef enum clsort_algorithm {
  CLSORT_AUTO = 0, CLSORT_RADIX = 1, CLSORT_BITONIC = 2,
  CLSORT_SAMPLE = 3, CLSORT_MERGE = 4, CLSORT_QUICK = 5
} clsort_algorithm;
typedef struct clsort_options {
  clsort_algorithm algorithm;
  unsigned flags;
  unsigned begin_bit;
  unsigned end_bit;
} clsort_options;
typedef struct clsort_context clsort_context;

const char *clsort_version_string(void);
const char *clsort_status_name(clsort_status status);
const char *clsort_status_string(clsort_status status);
const char *clsort_last_error_message(void);
clsort_status clsort_context_create(clsort_context **ctx, const char *device_spec);
void clsort_context_release(clsort_context *ctx);
const char *clsort_context_device_name(const clsort_context *ctx);
clsort_status clsort_default_device(unsigned *platform, unsigned *device, const char **reason);
clsort_status clsort_sort(clsort_context *ctx, clsort_type type, void *keys, size_t n,
                          const clsort_options *options);
clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type type, void *keys,
                                void *values, size_t value_size, size_t n,
                                const clsort_options *options);
clsort_status clsort_argsort(clsort_context *ctx, clsort_type type, const void *keys,
                             void *indices, size_t index_size, size_t n,
                             const clsort_options *options);
"""

# Flags of clsort_options.flags (#defines in the header, which cffi's ABI
# mode cannot read).
DESCENDING = 1
STABLE = 2

# The parts of OpenCL that clsort.devices() lists the devices with.
OPENCL_CDEF = """
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef uint64_t cl_device_type;
cl_int clGetPlatformIDs(uint32_t num_entries, cl_platform_id *platforms, uint32_t *num_platforms);
cl_int clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type, uint32_t num_entries,
                      cl_device_id *devices, uint32_t *num_devices);
cl_int clGetDeviceInfo(cl_device_id device, uint32_t param_name, size_t param_value_size,
                       void *param_value, size_t *param_value_size_ret);
"""
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_TYPE = 0x1000
CL_DEVICE_NAME = 0x102B
CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F
CL_DEVICE_TYPE_CPU = 1 << 1
CL_DEVICE_TYPE_GPU = 1 << 2

ffi = FFI()
ffi.cdef(CDEF)
ffi.cdef(OPENCL_CDEF)


def _candidates():
    """Where libclsort may be, best first: CLSORT_LIBRARY, the copy built
    into the package, the installed copy the build found, the linker's
    search path."""
    env = os.environ.get("CLSORT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    bundled = os.path.join(here, "libclsort.so.0")
    if os.path.exists(bundled):
        found.append(bundled)
    try:
        from . import _config  # written by setup.py

        if _config.LIBRARY:
            found.append(_config.LIBRARY)
    except ImportError:
        pass
    name = ctypes.util.find_library("clsort")
    if name:
        found.append(name)
    return found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "clsort: cannot load libclsort; tried: %s. Install the library (meson install), "
        "set CLSORT_LIBRARY to its path, or reinstall this package so that it builds one."
        % ("; ".join(tried) or "nothing found"))


lib, library_path = _load()

# OpenCL, for clsort.devices(): the ICD loader libclsort itself links.
_opencl = None


def opencl():
    global _opencl
    if _opencl is None:
        name = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
        _opencl = ffi.dlopen(name)
    return _opencl
