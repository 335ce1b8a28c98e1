# Fused row-wise softmax of an fp32 matrix: each program walks a strided set of rows,
# loads a row once (padded to BLOCK_SIZE with -inf), and writes exp(x - max) / sum.
# tilec: -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024"
import torch

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        in_ptrs = in_ptr + row_idx * in_row_stride + col_offsets
        row = tl.load(in_ptrs, mask=mask, other=-float('inf'))
        row_max = tl.max(row, axis=0)
        numerator = tl.exp(row - row_max)
        denominator = tl.sum(numerator, axis=0)
        result = numerator / denominator
        out_ptrs = out_ptr + row_idx * out_row_stride + col_offsets
        tl.store(out_ptrs, result, mask=mask)


class FusedSoftmax:
    """Small host-side helper that caches the launch configuration per column count."""

    def __init__(self, max_programs: int = 1024, num_warps: int = 8):
        self.max_programs = max_programs
        self.num_warps = num_warps
        self._block_sizes = {}

    def block_size(self, n_cols: int) -> int:
        if n_cols not in self._block_sizes:
            self._block_sizes[n_cols] = triton.next_power_of_2(n_cols)
        return self._block_sizes[n_cols]

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        assert x.ndim == 2, f"expected a matrix, got {x.ndim} dims"
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        num_programs = min(self.max_programs, n_rows)
        softmax_kernel[(num_programs, )](
            y, x, x.stride(0), y.stride(0), n_rows, n_cols,
            BLOCK_SIZE=self.block_size(n_cols), num_warps=self.num_warps,
        )
        return y

    def __repr__(self):
        return f"{type(self).__name__}(max_programs={self.max_programs}, num_warps={self.num_warps})"


if __name__ == "__main__":
    torch.manual_seed(0)
    softmax = FusedSoftmax()
    print(repr(softmax))
    x = torch.randn(1823, 781, device="cuda")
    y = softmax(x)
    ok = torch.allclose(y, torch.softmax(x, dim=1), atol=1e-6)
    print(f"{'match' if ok else 'MISMATCH'}: rows={x.shape[0]} cols={x.shape[1]}")
