# tl.swizzle2d: index arithmetic on scalars (tutorial 03's grouped program
# order) and on blocks; constants fold to a constant pair.
# RUN: %tilec compile %s -k swizzle_grid -s "*i32, i32, i32, 8, 4, 2" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -k swizzle_grid -s "*i32, i32, i32, 8, 4, 2" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k swizzle_pid -s "*i32, i32, i32, i32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k swizzle_const -s "*i32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# CHECK: ni = (add (mul (floordiv {{.*}} (mod (mod {{.*}} (minimum (sub (splat size_i:i32 : <8x4xi32>)
# CHECK: nj = (floordiv (mod {{.*}} (minimum (sub (splat size_i:i32 : <8x4xi32>)

@triton.jit
def swizzle_grid(out_ptr, size_i, size_j, BI: tl.constexpr, BJ: tl.constexpr, G: tl.constexpr):
    i = tl.arange(0, BI)[:, None]
    j = tl.arange(0, BJ)[None, :]
    ni, nj = tl.swizzle2d(i, j, size_i, size_j, G)
    m = (i < size_i) & (j < size_j)
    tl.store(out_ptr + ni * size_j + nj, i * size_j + j, mask=m)

@triton.jit
def swizzle_pid(out_ptr, size_i, size_j, size_g):
    pid = tl.program_id(0)
    ni, nj = tl.swizzle2d(pid // size_j, pid % size_j, size_i, size_j, size_g)
    tl.store(out_ptr + ni * size_j + nj, pid)

@triton.jit
def swizzle_const(out_ptr):
    ni, nj = tl.swizzle2d(0, 1, 4, 4, 2)
    tl.store(out_ptr + 0, ni)
    tl.store(out_ptr + 1, nj)
