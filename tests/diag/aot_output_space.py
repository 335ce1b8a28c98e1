# COMMAND: aot
# ARGS: --ptx-only -s "*fp32, i32, 64" -o "out/my kernel"
# EXIT: 2
# -o names the generated C functions: its file name must be a C identifier.
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
