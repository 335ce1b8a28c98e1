# A runtime argument that breaks its signature hint (i32:1, 2) is an error before anything runs
# COMMAND: run
# ARGS: -s "*fp32:16, *fp32:16, i32, i32:1, 4096" -g 2 rand:fp32:6000 zeros:fp32:6000 2999 2
import triton
import triton.language as tl


@triton.jit
def row_copy(x_ptr, out_ptr, n_cols, rows, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    tl.store(out_ptr + row * n_cols + offs, tl.load(x_ptr + row * n_cols + offs, mask=mask), mask=mask)
