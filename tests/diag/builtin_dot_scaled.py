# ARGS: -s "*u8:16, *u8:16, *fp32:16"
import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    c = tl.dot_scaled(a, None, "e4m3", b, None, "e4m3")
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], c)
