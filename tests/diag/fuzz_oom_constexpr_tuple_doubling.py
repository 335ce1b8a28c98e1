import triton
import triton.language as tl
@triton.jit
def k(n):
    x = (1,)
    for i in tl.static_range(40):
        x = x + x
