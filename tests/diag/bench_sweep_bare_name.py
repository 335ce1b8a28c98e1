# COMMAND: bench
# ARGS: -s "*fp32:16, *fp32:16, i32, 128" -g "cdiv(N, BLOCK)" "rand:fp32:{N}" "empty:fp32:{N}" "{N}" --sweep N=256:512:x2 --rep 1 --warmup 1
# The sweep's name written bare in the grid: the error says its value is written {N}
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)
