# tl.where of two constants on a condition that varies (loaded data): the
# result is constant only where the condition is. Axis information took it
# for constant over whole vectors (the constants are), and the code
# generator computed one element per run of four: the other three took the
# first one's branch. emu/ops checks the values.
# RUN: %tilec compile %s -k where_flat -s "*fp32:16, *i32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k where_loop -s "*fp32:16, *i32:16, i32:16, 2, 32, 32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl


@triton.jit
def where_flat(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.where(x < 0, 3, 5))


@triton.jit
def where_loop(x_ptr, y_ptr, stride, T: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    for t in range(T):
        x = tl.load(x_ptr + offs_m[:, None] * stride + t * BN + offs_n[None, :])
        key = x.to(tl.uint32, bitcast=True)
        key = key ^ tl.where((key & 0x80000000) != 0, 0xFFFFFFFF, 0x80000000).to(tl.uint32)
        tl.store(y_ptr + offs_m[:, None] * stride + t * BN + offs_n[None, :], key.to(tl.int32, bitcast=True))
