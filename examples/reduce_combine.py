# Reductions and scans with user-defined combine functions, one row per program:
#  - row_absmax_kernel: for each row, the largest |x| and the first column holding it,
#    via tl.reduce over a (value, index) tuple with a custom combine.
#  - row_argmax_kernel: for each row, max(x) via tl.reduce with a custom scalar combine,
#    and its column via tl.argmax.
#  - linear_recurrence_kernel: h[t] = a[t] * h[t-1] + x[t] (h[-1] = 0) along each row,
#    via tl.associative_scan over (a, x) pairs with a custom combine.
# tilec: -k row_absmax_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024"
# tilec: -k row_argmax_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024"
# tilec: -k linear_recurrence_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, 1024"
import torch

import triton
import triton.language as tl


@triton.jit
def _absmax_index_combine(value_a, index_a, value_b, index_b):
    # Keep the larger value; on ties keep the smaller index.
    take_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(take_a, value_a, value_b), tl.where(take_a, index_a, index_b)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _linear_recurrence_combine(a_left, x_left, a_right, x_right):
    # Composition of h -> a_left * h + x_left followed by h -> a_right * h + x_right.
    return a_left * a_right, a_right * x_left + x_right


@triton.jit
def row_absmax_kernel(x_ptr, absmax_ptr, index_ptr, n_cols, row_stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    values = tl.where(mask, tl.abs(x), -float("inf"))
    best_value, best_index = tl.reduce((values, cols), 0, _absmax_index_combine)
    tl.store(absmax_ptr + row, best_value)
    tl.store(index_ptr + row, best_index)


@triton.jit
def row_argmax_kernel(x_ptr, max_ptr, index_ptr, n_cols, row_stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=-float("inf"))
    row_max = tl.reduce(x, axis=0, combine_fn=_max_combine)
    row_argmax = tl.argmax(x, axis=0)
    tl.store(max_ptr + row, row_max)
    tl.store(index_ptr + row, row_argmax)


@triton.jit
def linear_recurrence_kernel(a_ptr, x_ptr, h_ptr, seq_len, row_stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK_SIZE)
    mask = t < seq_len
    a = tl.load(a_ptr + row * row_stride + t, mask=mask, other=1.0)
    x = tl.load(x_ptr + row * row_stride + t, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=_linear_recurrence_combine)
    tl.store(h_ptr + row * row_stride + t, h, mask=mask)


def _launch_rowwise(kernel, x, *outs):
    n_rows, n_cols = x.shape
    kernel[(n_rows, )](x, *outs, n_cols, x.stride(0), BLOCK_SIZE=triton.next_power_of_2(n_cols))


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(37, 1000, device="cuda")

    vals = torch.empty(37, device="cuda")
    idxs = torch.empty(37, device="cuda", dtype=torch.int32)
    _launch_rowwise(row_absmax_kernel, x, vals, idxs)
    ref_vals, ref_idxs = x.abs().max(dim=1)
    print(f"absmax ok={torch.equal(vals, ref_vals)} argabsmax ok={torch.equal(idxs.long(), ref_idxs)}")

    _launch_rowwise(row_argmax_kernel, x, vals, idxs)
    ref_vals, ref_idxs = x.max(dim=1)
    print(f"max ok={torch.equal(vals, ref_vals)} argmax ok={torch.equal(idxs.long(), ref_idxs)}")

    a = torch.rand(37, 1000, device="cuda")
    h = torch.empty_like(x)
    linear_recurrence_kernel[(37, )](a, x, h, 1000, x.stride(0), BLOCK_SIZE=1024)
    ref = torch.zeros_like(x)
    state = torch.zeros(37, device="cuda")
    for step in range(1000):
        state = a[:, step] * state + x[:, step]
        ref[:, step] = state
    print(f"scan max err: {(h - ref).abs().max().item():.3e}")
