# The reference of bench/gpu.sh's memory-bound kernels: a copy, whose
# GB/s on a GPU is what its memory delivers to a streaming kernel.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)
