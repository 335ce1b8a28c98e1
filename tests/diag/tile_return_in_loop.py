# ARGS: -s "*i32, i32" --emit=tile-gpu
import triton
import triton.language as tl


@triton.jit
def early_exit(x_ptr, n):
    for i in range(n):
        if tl.load(x_ptr + i) < 0:
            return
        tl.store(x_ptr + i, 0)
