"""clsort: sorts numpy arrays on an OpenCL device (GPU, or CPU through PoCL)
with libclsort.

    import numpy as np, clsort
    clsort.sort(np.array([3.5, -1.0, 2.0]))          # array([-1. ,  2. ,  3.5])
    clsort.argsort(np.array([30, 10, 20], np.uint32)) # array([1, 2, 0])

Arrays are 1-D, of dtype uint8, int8, uint16, int16, float16, uint32, int32,
float32, uint64, int64 or float64
(native byte order). Floats sort in total order by bits:
-nan < -inf < ... < -0.0 < +0.0 < ... < inf < nan. The module functions use
one context on the default device (CLSORT_DEVICE, else the first GPU, else
the first CPU), made at the first call; Context(device=...) picks another.
Failures of the library raise clsort.Error with its status and message.
"""
import atexit
import threading

import numpy as np

from ._ffi import DESCENDING, STABLE, ffi, lib, library_path
from . import _ffi

__all__ = ["Context", "Error", "sort", "argsort", "sort_pairs", "devices",
           "library_version", "library_path"]

_TYPES = {
    np.dtype(np.uint32): lib.CLSORT_U32,
    np.dtype(np.int32): lib.CLSORT_I32,
    np.dtype(np.float32): lib.CLSORT_F32,
    np.dtype(np.uint64): lib.CLSORT_U64,
    np.dtype(np.int64): lib.CLSORT_I64,
    np.dtype(np.float64): lib.CLSORT_F64,
    # Since 0.3: the 8- and 16-bit keys (numpy has no bfloat16).
    np.dtype(np.uint8): lib.CLSORT_U8,
    np.dtype(np.int8): lib.CLSORT_I8,
    np.dtype(np.uint16): lib.CLSORT_U16,
    np.dtype(np.int16): lib.CLSORT_I16,
    np.dtype(np.float16): lib.CLSORT_F16,
}
_ALGORITHMS = {
    "auto": lib.CLSORT_AUTO,
    "radix": lib.CLSORT_RADIX,
    "bitonic": lib.CLSORT_BITONIC,
    "sample": lib.CLSORT_SAMPLE,
    "merge": lib.CLSORT_MERGE,
    "quick": lib.CLSORT_QUICK,
}


def _text(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


class Error(Exception):
    """A libclsort call failed. `status` is the library's clsort_status
    (a negative int), `status_name` its name (e.g.
    "CLSORT_ERROR_UNSUPPORTED"), `message` the library's sentence saying
    what was wrong."""

    def __init__(self, status, message, call):
        self.status = int(status)
        self.status_name = _text(lib.clsort_status_name(status))
        self.message = message
        self.call = call
        super().__init__("%s: %s: %s" % (call, self.status_name, message))


def _check(status, call):
    if status != lib.CLSORT_SUCCESS:
        # The message is per thread and read before any other library call.
        message = _text(lib.clsort_last_error_message()) or _text(lib.clsort_status_string(status))
        raise Error(status, message, call)


def library_version():
    """The version of the libclsort loaded, "MAJOR.MINOR.PATCH"."""
    return _text(lib.clsort_version_string())


def _keys_type(a, what="keys"):
    if not isinstance(a, np.ndarray):
        raise TypeError("clsort: %s must be a numpy array, not %s" % (what, type(a).__name__))
    t = _TYPES.get(a.dtype)
    if t is None:
        raise TypeError("clsort: %s of dtype %s are not supported; use uint8, int8, uint16, "
                        "int16, float16, uint32, int32, float32, uint64, int64 or float64 in "
                        "native byte order" % (what, a.dtype))
    if a.ndim != 1:
        raise ValueError("clsort: %s must be 1-D, not %d-D" % (what, a.ndim))
    return t


def _options(algorithm, descending, stable):
    code = _ALGORITHMS.get(algorithm)
    if code is None:
        raise ValueError("clsort: unknown algorithm %r; use one of %s"
                         % (algorithm, ", ".join(_ALGORITHMS)))
    o = ffi.new("clsort_options *")
    o.algorithm = code
    o.flags = (DESCENDING if descending else 0) | (STABLE if stable else 0)
    return o


def _ptr(a):
    return ffi.cast("void *", a.ctypes.data)


def _target(a, out, what):
    """The array the result goes to: a new copy of `a`, or `out` (which may
    be `a` itself: in place) after `a` is copied into it."""
    if out is None:
        return np.array(a, order="C", copy=True)
    if not isinstance(out, np.ndarray):
        raise TypeError("clsort: out must be a numpy array")
    if out.dtype != a.dtype or out.shape != a.shape:
        raise ValueError("clsort: %s out must have dtype %s and shape %s, not %s and %s"
                         % (what, a.dtype, a.shape, out.dtype, out.shape))
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("clsort: %s out must be C-contiguous and writeable" % what)
    if out is not a:
        np.copyto(out, a)
    return out


class Context:
    """A libclsort context: one OpenCL device, its compiled kernels and its
    scratch memory, kept for repeated calls. `device` is None (the default
    device), "gpu", "cpu", "P:D" (platform and device indices, as
    clsort.devices() lists them) or part of a device name. Use it in a
    `with` block, or call close(); calls on one context from several
    threads run one after another."""

    def __init__(self, device=None):
        p = ffi.new("clsort_context **")
        spec = ffi.NULL if device is None else str(device).encode()
        _check(lib.clsort_context_create(p, spec), "clsort_context_create")
        self._ctx = p[0]

    @property
    def device_name(self):
        return _text(lib.clsort_context_device_name(self._live()))

    def _live(self):
        if self._ctx is None:
            raise ValueError("clsort: the context is closed")
        return self._ctx

    def close(self):
        """Releases the device's resources; the context is unusable after."""
        ctx, self._ctx = getattr(self, "_ctx", None), None
        if ctx is not None:
            lib.clsort_context_release(ctx)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def sort(self, a, algorithm="auto", descending=False, stable=False, out=None):
        """Returns the elements of `a` sorted, in a new array, or in `out`
        (which may be `a`: sorted in place). `algorithm`: "auto", "radix",
        "bitonic", "sample", "merge" or "quick"; bitonic, sample and quick
        are not stable and raise Error (CLSORT_ERROR_UNSUPPORTED) with
        stable=True."""
        t = _keys_type(a)
        o = _options(algorithm, descending, stable)
        r = _target(a, out, "sort")
        _check(lib.clsort_sort(self._live(), t, _ptr(r), r.size, o), "clsort_sort")
        return r

    def argsort(self, a, algorithm="auto", descending=False, stable=False, index_dtype=np.int64):
        """Returns the indices that sort `a` (as numpy.argsort), of
        `index_dtype`: int64 (default), uint64, int32 or uint32. `a` is not
        modified."""
        t = _keys_type(a)
        o = _options(algorithm, descending, stable)
        index_dtype = np.dtype(index_dtype)
        # The library writes native integers: a byte-swapped dtype would
        # hold every index scrambled.
        if (index_dtype.kind not in "iu" or index_dtype.itemsize not in (4, 8)
                or not index_dtype.isnative):
            raise TypeError("clsort: index_dtype must be a 4- or 8-byte integer in native "
                            "byte order, not %s" % index_dtype)
        keys = np.ascontiguousarray(a)
        idx = np.empty(keys.size, dtype=index_dtype)
        _check(lib.clsort_argsort(self._live(), t, _ptr(keys), _ptr(idx), idx.itemsize,
                                  keys.size, o), "clsort_argsort")
        return idx

    def sort_pairs(self, keys, values, algorithm="auto", descending=False, stable=False,
                   out=None):
        """Sorts `keys` and moves `values` (one per key, any dtype of 4 or 8
        bytes) with them. Returns (sorted keys, values), new arrays, or the
        pair of arrays in out=(keys_out, values_out) (which may be the
        inputs themselves: in place)."""
        t = _keys_type(keys)
        if not isinstance(values, np.ndarray):
            raise TypeError("clsort: values must be a numpy array")
        if values.itemsize not in (4, 8) or values.dtype.hasobject:
            raise TypeError("clsort: values must have 4- or 8-byte elements, not %s"
                            % values.dtype)
        if values.shape != keys.shape:
            raise ValueError("clsort: %d keys but values of shape %s"
                             % (keys.size, values.shape))
        o = _options(algorithm, descending, stable)
        k_out, v_out = (None, None) if out is None else out
        # Each output is filled from its input before the sort: one that
        # shares memory with the other output, or with the other input,
        # would overwrite it first (out=(values, keys) lost the values).
        if out is not None:
            pairs = ((k_out, v_out, "keys out and values out"),
                     (k_out, values, "keys out and values"), (v_out, keys, "values out and keys"))
            for a, b, what in pairs:
                if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) \
                        and np.may_share_memory(a, b):
                    raise ValueError("clsort: sort_pairs %s share memory" % what)
        k = _target(keys, k_out, "sort_pairs keys")
        v = _target(values, v_out, "sort_pairs values")
        _check(lib.clsort_sort_pairs(self._live(), t, _ptr(k), _ptr(v), v.itemsize, k.size, o),
               "clsort_sort_pairs")
        return k, v


_default = None
_default_lock = threading.Lock()


def _context():
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
            # Released while the interpreter and the OpenCL driver are still
            # whole, not by a finalizer during shutdown.
            atexit.register(_default.close)
        return _default


def sort(a, algorithm="auto", descending=False, stable=False, out=None):
    """Context.sort on the default device."""
    return _context().sort(a, algorithm, descending, stable, out)


def argsort(a, algorithm="auto", descending=False, stable=False, index_dtype=np.int64):
    """Context.argsort on the default device."""
    return _context().argsort(a, algorithm, descending, stable, index_dtype)


def sort_pairs(keys, values, algorithm="auto", descending=False, stable=False, out=None):
    """Context.sort_pairs on the default device."""
    return _context().sort_pairs(keys, values, algorithm, descending, stable, out)


def devices():
    """Every OpenCL device, as a list of dicts: spec ("P:D", what
    Context(device=...) takes), name, type ("gpu", "cpu" or "other"),
    memory (bytes) and default (True for the device that Context() and the
    module functions use)."""
    cl = _ffi.opencl()
    count = ffi.new("uint32_t *")
    if cl.clGetPlatformIDs(0, ffi.NULL, count) != 0 or count[0] == 0:
        return []
    platforms = ffi.new("cl_platform_id[]", count[0])
    cl.clGetPlatformIDs(count[0], platforms, ffi.NULL)
    dp, dd = ffi.new("unsigned *"), ffi.new("unsigned *")
    has_default = lib.clsort_default_device(dp, dd, ffi.NULL) == lib.CLSORT_SUCCESS
    found = []
    for p in range(count[0]):
        nd = ffi.new("uint32_t *")
        if cl.clGetDeviceIDs(platforms[p], _ffi.CL_DEVICE_TYPE_ALL, 0, ffi.NULL, nd) != 0:
            continue
        ids = ffi.new("cl_device_id[]", nd[0])
        cl.clGetDeviceIDs(platforms[p], _ffi.CL_DEVICE_TYPE_ALL, nd[0], ids, ffi.NULL)
        for d in range(nd[0]):
            name = ffi.new("char[]", 512)
            cl.clGetDeviceInfo(ids[d], _ffi.CL_DEVICE_NAME, 512, name, ffi.NULL)
            kind = ffi.new("uint64_t *")
            cl.clGetDeviceInfo(ids[d], _ffi.CL_DEVICE_TYPE, 8, kind, ffi.NULL)
            mem = ffi.new("uint64_t *")
            cl.clGetDeviceInfo(ids[d], _ffi.CL_DEVICE_GLOBAL_MEM_SIZE, 8, mem, ffi.NULL)
            found.append({
                "spec": "%d:%d" % (p, d),
                "name": _text(name).strip(),
                "type": ("gpu" if kind[0] & _ffi.CL_DEVICE_TYPE_GPU else
                         "cpu" if kind[0] & _ffi.CL_DEVICE_TYPE_CPU else "other"),
                "memory": int(mem[0]),
                "default": has_default and (dp[0], dd[0]) == (p, d),
            })
    return found
