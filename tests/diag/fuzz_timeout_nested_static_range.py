import triton
import triton.language as tl
@triton.jit
def k(n):
    for i in tl.static_range(4096):
        for j in tl.static_range(4096):
            for l in tl.static_range(4096):
                pass
