# Blocks of rank 5 to 7: tutorial 10's scale layouts, a 1-D load reshaped
# to 5 or 7 dimensions, permuted and reshaped back to 2-D. The emulator
# checks the values (emu/ops).
# RUN: %tilec compile %s -k scales5 -s "*u8, *u8, 128, 256, 32" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -k scales5 -s "*u8, *u8, 128, 256, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k scales7 -s "*u8, *u8, 64, 512, 32" --emit=ast | FileCheck %s --check-prefix=R7
# RUN: %tilec compile %s -k scales7 -s "*u8, *u8, 64, 512, 32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# CHECK: (trans (reshape {{.*}} : <1x2x32x4x4xu8>) [order=0,3,2,1,4] : <1x4x32x2x4xu8>)
# R7: : <2x2x4x16x2x2x1xu8>) [order=0,5,3,1,4,2,6] : <2x2x16x2x2x4x1xu8>)

@triton.jit
def scales5(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, VEC_SIZE: tl.constexpr):
    rep_m: tl.constexpr = BLOCK_M // 128
    rep_k: tl.constexpr = BLOCK_K // VEC_SIZE // 4
    offs = tl.arange(0, rep_m * rep_k * 32 * 4 * 4)
    s = tl.load(x_ptr + offs).reshape(rep_m, rep_k, 32, 4, 4).trans(0, 3, 2, 1, 4).reshape(BLOCK_M, BLOCK_K // VEC_SIZE)
    cols: tl.constexpr = BLOCK_K // VEC_SIZE
    tl.store(out_ptr + tl.arange(0, BLOCK_M)[:, None] * cols + tl.arange(0, cols)[None, :], s)

@triton.jit
def scales7(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, G: tl.constexpr):
    cols: tl.constexpr = BLOCK_K // G
    s = tl.load(x_ptr + tl.arange(0, BLOCK_M * cols))
    s = s.reshape(BLOCK_M // 32, BLOCK_K // G // 8, 4, 16, 2, 2, 1).permute(0, 5, 3, 1, 4, 2, 6).reshape(BLOCK_M, cols)
    tl.store(out_ptr + tl.arange(0, BLOCK_M)[:, None] * cols + tl.arange(0, cols)[None, :], s)
