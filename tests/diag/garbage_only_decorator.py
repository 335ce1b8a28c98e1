@triton.jit
