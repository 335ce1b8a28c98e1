# ARGS: -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def odd_sum(x_ptr, n):
    acc = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)
