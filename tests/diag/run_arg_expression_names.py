# COMMAND: run
# ARGS: -s "*fp32:16, *fp32:16, i32, 128" -g "cdiv(n, BLOCK)" rand:fp32:300 empty:fp32:300 "3*x"
# A scalar argument may be an expression of integers (3*100), not of names
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)
