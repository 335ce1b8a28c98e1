# Matrix multiplication through host tensor descriptors, C = A @ B^T: A is [M, K], B is
# handed over as [N, K] (both K-contiguous, as a linear layer's weight is stored) and C
# is [M, N], all fp16 with fp32 accumulation. Each descriptor is a `tensordesc` parameter:
# the launch passes its base, shape and strides, and on sm_90 and later its blocks move
# by TMA (the K loop's into wgmma's operand slots, C's store from shared memory) through
# tensor maps the launch builds from them; elsewhere they are bounds-checked loads and
# stores. Blocks past M, N or K read zeros and are not written. Programs walk the tiles
# in groups of GROUP_M rows of tiles, so that the B tiles a group reads stay in L2.
# tilec: -k matmul_descriptor -s "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, i32, i32, 128, 128, 64, 8"
import triton
import triton.language as tl


@triton.jit
def matmul_descriptor(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % group_m
    tile_n = (pid % per_group) // group_m
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([tile_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([tile_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))
