# isinstance() against a class tilec does not model is an error at the call
# ARGS: -s "*fp32"
import triton
import triton.language as tl


@triton.jit
def kernel(p):
    if isinstance(p, tl.block_type):
        tl.store(p, 1.0)
