# Seeded dropout on an fp32 vector: keep x[i] / (1 - p) where tl.rand(seed, i) > p,
# else 0. The mask is regenerated from (seed, offset), so it never has to be stored.
# tilec: -k dropout_kernel -s "*fp32:16, *fp32:16, i32, fp32, i32, 1024"
import torch

import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    random = tl.rand(seed, offsets)
    keep = random > p
    output = tl.where(keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


class SeededDropout(torch.nn.Module):
    """Dropout whose mask depends only on (seed, element index)."""

    def __init__(self, p: float = 0.5, seed: int = 1234, block_size: int = 1024):
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p!r}")
        self.p = p
        self.seed = seed
        self.block_size = block_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, self.block_size), )
        dropout_kernel[grid](x, out, n, self.p, self.seed, BLOCK_SIZE=self.block_size)
        return out

    def extra_repr(self) -> str:
        return f"p={self.p}, seed={self.seed}"


if __name__ == "__main__":
    x = torch.randn(10_000, device="cuda")
    layer = SeededDropout(p=0.3, seed=42)
    print(layer)
    y1, y2 = layer(x), layer(x)
    kept = (y1 != 0).float().mean().item()
    print(f"same seed -> same mask: {torch.equal(y1, y2)}; kept fraction {kept:.3f} (expected ~{1 - layer.p:.1f})")
