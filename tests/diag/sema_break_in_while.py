# ARGS: -s "*i32, i32" --emit=tile
import triton
import triton.language as tl


@triton.jit
def first_negative(x_ptr, n):
    i = 0
    while i < n:
        if tl.load(x_ptr + i) < 0:
            break
        i += 1
    tl.store(x_ptr, i)
