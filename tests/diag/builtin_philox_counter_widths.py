# ARGS: -s "*u32:16, i64, 1024"
import triton
import triton.language as tl


@triton.jit
def kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, c, d = tl.philox(seed, offs.to(tl.int64), offs, offs, offs)
    tl.store(out_ptr + offs, a + b + c + d)
