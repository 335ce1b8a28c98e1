#!/usr/bin/env python3
"""py_launch.py: the host time the tilec package adds to a launch from Python.

    TILEC_LIBRARY=build/compile/libtilec.so PYTHONPATH=python python bench/py_launch.py [EXAMPLES_DIR] [LAUNCHES]

Launches examples/vector_add.py's kernel, one block, on NumPy arrays on the
CPU emulator, through `kernel[grid](...)` (binding, the signature, the
specialization's lookup, the arrays' registration with the CPU device),
and the same specialized kernel through libtilec's tilec_kernel_launch
called directly with arguments built once (the arrays registered once):
the difference per launch is the package's overhead (a NumPy array's
memory stays registered from its first launch while the array lives), the kernel's own
run on the emulator being in both. Prints the median and the spread of 7
rounds of each, in microseconds per launch.
"""
import ctypes
import os
import statistics
import sys
import time

import numpy as np

import tilec
from tilec import _lib

ex = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "examples")
launches = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
add = tilec.jit(os.path.join(ex, "vector_add.py"), kernel="add_kernel")
n = 64
x, y, out = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
grid = (1,)
launch = add[grid]
launch(x, y, out, n, BLOCK_SIZE=64)  # compiles the specialization
assert np.array_equal(out, x + y)
handle = next(iter(add._kernels.values()))  # the arrays stay registered from that launch on
vals = [ctypes.c_uint64(x.ctypes.data), ctypes.c_uint64(y.ctypes.data), ctypes.c_uint64(out.ctypes.data), ctypes.c_int32(n)]
argv = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in vals])
g = (ctypes.c_uint * 3)(1, 1, 1)


def raw():
    for _ in range(launches):
        if _lib.lib.tilec_kernel_launch(handle, g, argv, 4, None, None):
            raise SystemExit("the direct launch failed")


def package():
    for _ in range(launches):
        launch(x, y, out, n, BLOCK_SIZE=64)


def rounds(fn):
    t = []
    for _ in range(7):
        t0 = time.perf_counter()
        fn()
        t.append((time.perf_counter() - t0) / launches * 1e6)
    return statistics.median(t), min(t), max(t)


r = rounds(raw)
p = rounds(package)
print(f"direct tilec_kernel_launch: {r[0]:.2f} us per launch (spread {r[1]:.2f}-{r[2]:.2f})")
print(f"kernel[grid](...):          {p[0]:.2f} us per launch (spread {p[1]:.2f}-{p[2]:.2f})")
print(f"the package's overhead:     {p[0] - r[0]:.2f} us per launch")
