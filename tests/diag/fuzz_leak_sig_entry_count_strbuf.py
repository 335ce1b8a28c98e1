import triton
@triton.jit
def kl(x):r