import triton
import triton.language as tl
@triton.jit
def k(n):
    x = ()
    for i in tl.static_range(4096):
        for j in tl.static_range(64):
            x = x + (i, j)
