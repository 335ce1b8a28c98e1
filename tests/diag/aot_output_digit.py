# COMMAND: aot
# ARGS: --ptx-only -s "*fp32, i32, 64" -o "2fill"
# EXIT: 2
# A C identifier cannot start with a digit.
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
