"""Tests of the clsort Python package against numpy: every dtype, the
options, out= and in place, the error paths, and the binding's declarations
against include/clsort.h. Seeded; CLSORT_TEST_SEED replays a run."""
import os
import re

import numpy as np
import pytest

import clsort
from clsort import _ffi

SEED = int(os.environ.get("CLSORT_TEST_SEED", "0") or 0) or int.from_bytes(os.urandom(4), "little")
print("clsort python tests: seed %d (CLSORT_TEST_SEED replays)" % SEED)
DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.float16, np.uint32, np.int32, np.float32,
          np.uint64, np.int64, np.float64]
N = 3000  # beyond one bitonic tile on CPUs is not needed: the C tests cover sizes


def data(dtype, n=N, seed=0):
    rng = np.random.default_rng(SEED + seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        a = rng.standard_normal(n).astype(dtype) * 1000
        a[::97] = a[5]  # duplicates
        return a
    info = np.iinfo(dtype)
    # Few distinct values, so that stability is visible.
    return rng.integers(info.min, info.max, size=n // 10 + 1, dtype=dtype, endpoint=True)[
        rng.integers(0, n // 10 + 1, size=n)]


def order_key(a):
    """The library's order as an unsigned integer key: floats in total
    order by bits (-nan < -inf < -0.0 < +0.0 < inf < nan), signed ints by
    value."""
    if a.dtype.kind == "f":
        u = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])
        sign = u.dtype.type(1) << u.dtype.type(8 * a.itemsize - 1)
        return np.where(u & sign, ~u, u | sign)
    return a


def stable_order(a, descending=False):
    key = order_key(a)
    if descending:
        # Reversing a stable ascending order of the reversed input keeps
        # equal keys in input order.
        return (len(a) - 1 - np.argsort(key[::-1], kind="stable"))[::-1]
    return np.argsort(key, kind="stable")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_every_dtype(dtype, descending):
    a = data(dtype)
    before = a.copy()
    r = clsort.sort(a, descending=descending)
    assert r is not a and r.dtype == a.dtype and r.shape == a.shape
    np.testing.assert_array_equal(a, before)  # the input is untouched
    np.testing.assert_array_equal(r, a[stable_order(a, descending)])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_total_order(dtype):
    a = np.array([np.nan, 1.0, -np.inf, 0.0, -0.0, np.inf, -np.nan, -1.0], dtype=dtype)
    r = clsort.sort(a)
    bits = r.view(np.uint32 if r.itemsize == 4 else np.uint64)
    expected = a[stable_order(a)].view(bits.dtype)
    np.testing.assert_array_equal(bits, expected)
    assert np.signbit(r[0]) and np.isnan(r[0]) and np.isnan(r[-1]) and not np.signbit(r[-1])
    assert np.signbit(r[3]) and r[3] == 0 and not np.signbit(r[4])


@pytest.mark.parametrize("dtype", DTYPES)
def test_argsort_every_dtype(dtype):
    a = data(dtype, seed=1)
    idx = clsort.argsort(a, stable=True)
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(idx, stable_order(a))


@pytest.mark.parametrize("index_dtype", [np.int32, np.uint32, np.uint64])
def test_argsort_index_dtype(index_dtype):
    a = data(np.float32, seed=2)
    idx = clsort.argsort(a, descending=True, stable=True, index_dtype=index_dtype)
    assert idx.dtype == np.dtype(index_dtype)
    np.testing.assert_array_equal(idx, stable_order(a, descending=True))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_pairs_every_dtype(dtype):
    keys = data(dtype, seed=3)
    values = np.arange(len(keys), dtype=np.float64 if np.dtype(dtype).itemsize == 8 else np.int32)
    k, v = clsort.sort_pairs(keys, values, stable=True)
    order = stable_order(keys)
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(v, values[order])


def test_out_and_in_place():
    a = data(np.int64, seed=4)
    expected = a[stable_order(a)]
    out = np.empty_like(a)
    assert clsort.sort(a, out=out) is out
    np.testing.assert_array_equal(out, expected)
    assert clsort.sort(a, out=a) is a  # in place
    np.testing.assert_array_equal(a, expected)
    keys, values = data(np.uint32, seed=5), np.arange(N, dtype=np.uint32)
    order = stable_order(keys)
    ek, ev = keys[order], values[order]
    k, v = clsort.sort_pairs(keys, values, stable=True, out=(keys, values))
    assert k is keys and v is values
    np.testing.assert_array_equal(keys, ek)
    np.testing.assert_array_equal(values, ev)


@pytest.mark.parametrize("algorithm", ["radix", "bitonic", "sample", "merge", "quick"])
def test_algorithms(algorithm):
    a = data(np.uint32, seed=6)
    np.testing.assert_array_equal(clsort.sort(a, algorithm=algorithm), np.sort(a))
    stable = algorithm in ("radix", "merge")
    if stable:
        np.testing.assert_array_equal(clsort.argsort(a, algorithm=algorithm, stable=True),
                                      stable_order(a))


def test_non_contiguous_and_empty():
    a = data(np.float64, seed=7)[::3]
    np.testing.assert_array_equal(clsort.sort(a), a[stable_order(a)])
    e = np.empty(0, dtype=np.uint32)
    assert clsort.sort(e).size == 0 and clsort.argsort(e).size == 0


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64, np.longdouble, np.dtype(">u4"),
                                   np.dtype(">f2"), object])
def test_unsupported_dtype_is_type_error(dtype):
    a = np.zeros(4, dtype=dtype)
    with pytest.raises(TypeError, match="not supported"):
        clsort.sort(a)
    with pytest.raises(TypeError):
        clsort.argsort(a)


def test_bad_arguments():
    a = np.arange(6, dtype=np.uint32)
    with pytest.raises(TypeError):
        clsort.sort([3, 1, 2])
    with pytest.raises(ValueError, match="1-D"):
        clsort.sort(a.reshape(2, 3))
    with pytest.raises(ValueError, match="unknown algorithm"):
        clsort.sort(a, algorithm="bogo")
    with pytest.raises(ValueError, match="out"):
        clsort.sort(a, out=np.empty(6, dtype=np.int32))
    with pytest.raises(ValueError):
        clsort.sort_pairs(a, np.arange(5, dtype=np.uint32))
    with pytest.raises(TypeError, match="4- or 8-byte"):
        clsort.sort_pairs(a, np.arange(6, dtype=np.int16))
    with pytest.raises(TypeError, match="index_dtype"):
        clsort.argsort(a, index_dtype=np.float32)
    # Outputs over each other, or over the other input, would lose data.
    k = np.arange(6, dtype=np.uint32)[::-1].copy()
    v = np.arange(6, dtype=np.uint32)
    for out in ((v, k), (k, k), (v, v)):
        with pytest.raises(ValueError, match="share memory"):
            clsort.sort_pairs(k, v, out=out)
    assert (k == np.arange(6, dtype=np.uint32)[::-1]).all() and (v == np.arange(6)).all()
    # Byte-swapped indices would come back scrambled, not refused.
    swapped = np.dtype(np.int64).newbyteorder()
    with pytest.raises(TypeError, match="index_dtype"):
        clsort.argsort(a, index_dtype=swapped)


def test_library_error_carries_status_and_message():
    a = data(np.int32, seed=8)
    before = a.copy()
    with pytest.raises(clsort.Error) as e:
        clsort.sort(a, algorithm="bitonic", stable=True, out=a)
    err = e.value
    assert err.status == _ffi.lib.CLSORT_ERROR_UNSUPPORTED == -2
    assert err.status_name == "CLSORT_ERROR_UNSUPPORTED"
    assert err.message and "CLSORT_ERROR_UNSUPPORTED" in str(err)
    np.testing.assert_array_equal(a, before)  # nothing changed on failure


def test_no_device_error():
    with pytest.raises(clsort.Error) as e:
        clsort.Context(device="no such device anywhere")
    assert e.value.status_name == "CLSORT_ERROR_NO_DEVICE"
    assert "no such device anywhere" in e.value.message


def test_devices_and_context():
    devs = clsort.devices()
    assert devs and sum(d["default"] for d in devs) == 1
    for d in devs:
        assert re.fullmatch(r"\d+:\d+", d["spec"]) and d["name"] and d["memory"] > 0
    d = next(d for d in devs if d["default"])
    with clsort.Context(device=d["spec"]) as ctx:
        assert ctx.device_name.strip() == d["name"]
        a = data(np.uint64, seed=9)
        for _ in range(2):  # repeated calls on one context
            np.testing.assert_array_equal(ctx.sort(a), np.sort(a))
    with pytest.raises(ValueError, match="closed"):
        ctx.sort(a)


def test_declarations_match_the_header():
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "clsort.h")
    if not os.path.exists(header):
        pytest.skip("no include/clsort.h beside this package")
    text = open(header).read()

    def norm(s):
        return re.sub(r"\s+", " ", s).replace("( ", "(").replace(" )", ")").strip()

    declared = {norm(m.group(1)) for m in re.finditer(r"CLSORT_API ([^;]*\));", text)}
    for m in re.finditer(r"^[a-z][^;{]*\bclsort_\w+\([^;]*\);", _ffi.CDEF, re.M):
        assert norm(m.group(0)[:-1]) in declared, m.group(0)
    for name, value in re.findall(r"X\((CLSORT_\w+), (-?\d+),", text):
        assert getattr(_ffi.lib, name) == int(value), name
    for name, value in re.findall(r"(CLSORT_(?:U|I|F|BF)(?:8|16|32|64)) = (\d+)", text):
        assert getattr(_ffi.lib, name) == int(value), name
    assert _ffi.DESCENDING == int(re.search(r"#define CLSORT_DESCENDING (\d+)u", text).group(1))
    assert _ffi.STABLE == int(re.search(r"#define CLSORT_STABLE (\d+)u", text).group(1))
