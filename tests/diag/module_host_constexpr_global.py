# ARGS: -s "*fp32, i32, 128"
# A constexpr global that host code computes cannot be evaluated; the error says how to give it.
import torch
import triton
import triton.language as tl

IS_HOPPER = tl.constexpr(torch.cuda.get_device_capability()[0] >= 9)


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if IS_HOPPER:
        tl.store(x_ptr + offs, 1.0, mask=offs < n)
    else:
        tl.store(x_ptr + offs, 2.0, mask=offs < n)
