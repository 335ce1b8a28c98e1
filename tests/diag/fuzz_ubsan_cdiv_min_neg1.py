i32
import triton
import triton.language as tl
@triton.jit
def k(n):
    x = tl.cdiv(-9223372036854775807 - 1, -1)
