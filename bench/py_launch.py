#!/usr/bin/env python3
"""py_launch.py: the host time the tilec package adds to a launch from Python.

    TILEC_LIBRARY=build/compile/libtilec.so PYTHONPATH=python python bench/py_launch.py [EXAMPLES_DIR] [--device cpu|cuda]

Launches examples/vector_add.py's kernel (one block of 64 elements)
through `kernel[grid](...)`, and the same specialized kernel through
libtilec's tilec_kernel_launch called directly with arguments built once:
the difference per launch is the package's part (binding the arguments,
checking the plan of the call's pattern, packing the argument block), the
launch itself being in both.

--device cpu (the default): NumPy arrays, on the CPU emulator; the kernel's
run on the emulator (about 50-90 us) is in both, and its noise too.
--device cuda: buffers of the CUDA device, passed as objects with
__cuda_array_interface__, on a GPU (--check: and the sum they hold after
is checked); or, with the fake driver of the tests
first on LD_LIBRARY_PATH (FAKE_CUDA_TRACE=/dev/null: its launches succeed
and do nothing), the host's part alone, without a GPU.

Rounds of the two paths alternate, so that the machine's drift falls on
both alike; prints the medians and the 20th-80th percentiles, in
microseconds per launch, and of the rounds' differences.
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

import tilec
from tilec import _lib

ap = argparse.ArgumentParser()
ap.add_argument("examples", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "examples"))
ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
ap.add_argument("--launches", type=int, default=None, help="launches per round (cpu 200, cuda 2000)")
ap.add_argument("--rounds", type=int, default=41)
ap.add_argument("--check", action="store_true", help="cuda: check the sum the launches left (not on the fake driver)")
opt = ap.parse_args()
launches = opt.launches or (200 if opt.device == "cpu" else 2000)

add = tilec.jit(os.path.join(opt.examples, "vector_add.py"), kernel="add_kernel")
n = 64
grid = (1,)

if opt.device == "cpu":
    import numpy as np

    x, y, out = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    add[grid](x, y, out, n, BLOCK_SIZE=64)  # compiles the specialization; the arrays stay registered from here on
    assert np.array_equal(out, x + y)
    ptrs = [a.ctypes.data for a in (x, y, out)]
else:
    lib = _lib.lib
    lib.tilec_device_alloc.restype = ctypes.c_int
    lib.tilec_device_alloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64),
                                       ctypes.POINTER(ctypes.c_void_p)]
    jit_module = sys.modules["tilec.jit"]  # (tilec.jit is the function)
    dev = jit_module._Device.get(jit_module.CUDA)

    class Buffer:
        """n fp32 of device memory, as CuPy or Numba would pass them."""

        def __init__(self):
            p, msg = ctypes.c_uint64(), ctypes.c_void_p()
            _lib.check(lib.tilec_device_alloc(dev, n * 4, ctypes.byref(p), ctypes.byref(msg)), msg)
            self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (p.value, False),
                                             "version": 3, "strides": None, "stream": None}

    x, y, out = Buffer(), Buffer(), Buffer()
    ptrs = [b.__cuda_array_interface__["data"][0] for b in (x, y, out)]
    lib.tilec_device_copy_to.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.tilec_device_copy_from.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p]
    for p, v in zip(ptrs, ([float(i) for i in range(n)], [0.5] * n, [-1.0] * n)):
        host = (ctypes.c_float * n)(*v)
        if lib.tilec_device_copy_to(dev, p, host, n * 4, None):
            raise SystemExit("copying to the device failed")
    add[grid](x, y, out, n, BLOCK_SIZE=64)

handle = next(iter(add._kernels.values()))
vals = [ctypes.c_uint64(p) for p in ptrs] + [ctypes.c_int32(n)]
argv = (ctypes.c_void_p * 4)(*map(ctypes.addressof, vals))
g = (ctypes.c_uint * 3)(1, 1, 1)
direct = _lib.lib.tilec_kernel_launch


def raw():
    for _ in range(launches):
        if direct(handle, g, argv, 4, None, None):
            raise SystemExit("the direct launch failed")


def package():
    for _ in range(launches):
        add[grid](x, y, out, n, BLOCK_SIZE=64)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) / launches * 1e6


raw(), package()  # warm
if opt.device == "cuda" and opt.check:  # the copy waits for the launches
    got = (ctypes.c_float * n)()
    if lib.tilec_device_copy_from(dev, got, ptrs[2], n * 4, None) or any(got[i] != i + 0.5 for i in range(n)):
        raise SystemExit(f"the launches' sum is wrong: {list(got)[:8]}...")
    print("the sum the launches left is right")
pairs = [(timed(raw), timed(package)) for _ in range(opt.rounds)]
r = sorted(a for a, _ in pairs)
p = sorted(b for _, b in pairs)
d = sorted(b - a for a, b in pairs)


def q(v, f):
    return v[min(len(v) - 1, int(f * len(v)))]


print(f"device: {opt.device}, {opt.rounds} rounds of {launches} launches of each path")
print(f"direct tilec_kernel_launch: {statistics.median(r):.2f} us per launch (20-80%: {q(r, .2):.2f}-{q(r, .8):.2f})")
print(f"kernel[grid](...):          {statistics.median(p):.2f} us per launch (20-80%: {q(p, .2):.2f}-{q(p, .8):.2f})")
print(f"the package's part:         {statistics.median(d):.2f} us per launch (20-80%: {q(d, .2):.2f}-{q(d, .8):.2f})")
