# ARGS: -s "*fp32:16, i32, i32, i32, 64, 64"
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    blk = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, ), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    x = tl.load(blk, boundary_check=(0, 1))
    tl.store(blk, x * 2.0, boundary_check=(0, 1))
