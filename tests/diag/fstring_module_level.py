# ARGS: -s "*fp32:16, i32, 1024"
# A module-level f-string is host code: Python computes it, tilec does not
# read it (a kernel that reads one gets the host-code error; -D sets it).
import triton
import triton.language as tl

TAG = f"v{2 * 3}"


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK > 0, TAG)
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)
