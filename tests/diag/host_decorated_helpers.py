# ARGS: -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, 1024"
import functools

import torch
import triton
import triton.language as tl


def cached(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@cached
def make_grid(n_rows):
    return (n_rows, )


@triton.jit
def row_max(x):
    return tl.max(x, axis=1)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - row_max(x)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@torch.no_grad()
def softmax(x):
    y = torch.empty_like(x)
    softmax_kernel[make_grid(x.shape[0])](y, x, x.stride(0), x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y
