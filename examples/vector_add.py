# Element-wise sum of two fp32 vectors, out[i] = x[i] + y[i]; the tail block is masked
# so any length works.
# tilec: -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
import torch

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, block_size: int = 1024) -> torch.Tensor:
    """Host wrapper: allocates the output and launches one program per block."""
    if x.shape != y.shape:
        raise ValueError(f"shape mismatch: {tuple(x.shape)} vs {tuple(y.shape)}")
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=block_size)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    for size in (1, 1000, 98_432, 1 << 20, 3 * 1024 + 17):
        a = torch.rand(size, device="cuda")
        b = torch.rand(size, device="cuda")
        err = (add(a, b) - (a + b)).abs().max().item()
        print(f"size={size:>9d}  max |triton - torch| = {err:.3e}")
