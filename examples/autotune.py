# out = alpha * x + y, autotuned over the block size and the warps per program: each
# config is a block size with its warps; the tuner times them for each distinct
# n_elements (the key) and keeps the fastest. The grid depends on the config:
# cdiv(n_elements, BLOCK_SIZE).
# tilec: -k axpy_kernel -s "*fp32:16, *fp32:16, *fp32:16, fp32, i32"
# tilec: -k axpy_kernel -s "*fp32:16, *fp32:16, *fp32:16, fp32, i32" --config 2
import torch

import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE': 256}, num_warps=2),
        triton.Config({'BLOCK_SIZE': 1024}, num_warps=4),
        triton.Config({'BLOCK_SIZE': 4096}, num_warps=8),
    ],
    key=['n_elements'],
)
@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def axpy(alpha: float, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    axpy_kernel[grid](x, y, out, alpha, n_elements)
    return out
