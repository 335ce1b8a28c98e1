# COMMAND: aot
# ARGS: --ptx-only -s "*fp32:16, *fp32:16, i32, 128" -s "*fp32, *fp32, i64, 128" -o out
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)
