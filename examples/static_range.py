# Compile-time unrolled loops with tl.static_range:
#  - poly_kernel evaluates out[i] = c[0] + c[1]*x[i] + ... + c[DEGREE]*x[i]**DEGREE by
#    Horner's rule, the DEGREE+1 coefficient loads and multiply-adds fully unrolled.
#  - window_sum_kernel computes out[i] = x[i] + x[i+1] + ... + x[i+WINDOW-1] (terms past
#    the end count as 0) by summing WINDOW shifted, masked tiles.
# tilec: -k poly_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 4, 1024"
# tilec: -k window_sum_kernel -s "*fp32:16, *fp32:16, i32, 8, 512"
import triton
import triton.language as tl


@triton.jit
def poly_kernel(x_ptr, coeff_ptr, out_ptr, n_elements, DEGREE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for i in tl.static_range(DEGREE + 1):
        # highest coefficient first
        c = tl.load(coeff_ptr + (DEGREE - i))
        acc = acc * x + c
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def window_sum_kernel(x_ptr, out_ptr, n_elements, WINDOW: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for i in tl.static_range(0, WINDOW, 1):
        shifted = offs + i
        acc += tl.load(x_ptr + shifted, mask=shifted < n_elements, other=0.0)
    tl.store(out_ptr + offs, acc, mask=offs < n_elements)
