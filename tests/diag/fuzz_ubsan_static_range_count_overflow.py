import triton
import triton.language as tl
@triton.jit
def k(n):
    for i in tl.static_range(-9223372036854775807 - 1, 9223372036854775807):
        pass
