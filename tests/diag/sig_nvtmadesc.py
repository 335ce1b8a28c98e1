# ARGS: -s "nvTmaDesc, i32, 64"
# A TMA descriptor built by host code (the API of Triton 3.0-3.2) needs TMA; the error says what works.
import triton
import triton.language as tl


@triton.jit
def kernel(desc, n, BLOCK: tl.constexpr):
    x = tl._experimental_descriptor_load(desc, [0], [BLOCK], tl.float32)
    tl._experimental_descriptor_store(desc, x + 1, [0])
