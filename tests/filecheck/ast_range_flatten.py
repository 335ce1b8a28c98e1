# tl.range's flatten=True and warp_specialize=True (tutorial 09's persistent
# kernels, tutorial 06's forward) are optimizations that leave the loop's
# meaning as it is: tilec runs the loops as written and --emit=ast says the
# request is not applied, once per loop.
# RUN: %tilec compile %s -s "*fp32, i32, i32, 64" --emit=ast | FileCheck %s
# CHECK: # {{.*}}ast_range_flatten.py:20: tl.range's flatten=True is not applied: the loops run nested, as written
# CHECK: # {{.*}}ast_range_flatten.py:21: tl.range's warp_specialize=True is not applied: the loop runs without warp specialization
# CHECK: kernel persistent(
# CHECK: for tile
# CHECK: for k
import triton
import triton.language as tl


@triton.jit
def persistent(x_ptr, tiles, k_tiles, BLOCK: tl.constexpr):
    start = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for tile in tl.range(start, tiles, tl.num_programs(0), flatten=True):
        for k in tl.range(0, k_tiles, warp_specialize=True):
            acc += tl.load(x_ptr + (tile * k_tiles + k) * BLOCK + offs)
    tl.store(x_ptr + offs, acc)
