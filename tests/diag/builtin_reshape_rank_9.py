# ARGS: -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 512))
    tl.store(x_ptr + tl.arange(0, 512), x.reshape(2, 2, 2, 2, 2, 2, 2, 2, 2).reshape(512))
