# ARGS: -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def first_four(x_ptr, n):
    acc = 0
    for i in tl.static_range(8):
        if i == 4:
            break
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)
