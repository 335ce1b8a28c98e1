"""tilec from Python: Triton kernels compiled by libtilec, launched with
Triton's syntax on NumPy arrays (the CPU emulator) and on CUDA arrays.

    import tilec
    add = tilec.jit("vector_add.py", kernel="add_kernel")
    add[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
"""
from ._lib import CompileError, Error, LaunchError, version
from .jit import Kernel, cdiv, jit

__all__ = ["jit", "Kernel", "cdiv", "Error", "CompileError", "LaunchError", "version"]
__version__ = version()
