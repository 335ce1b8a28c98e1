# ARGS: -s "*fp32:16"
import os

import triton
import triton.language as tl

BLOCK = tl.constexpr(int(os.environ["TILEC_BLOCK"]))


@triton.jit
def kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)
