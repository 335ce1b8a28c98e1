# tl.sort (Triton's bitonic network along the last dimension, ascending or
# descending) and tl.flip, built from reshapes, xor_sums and selects: the
# typed AST shows a stage's compare-and-swap; ptxas accepts the PTX.
# RUN: %tilec compile %s -k sort_rows -s "*fp32, *fp32, *fp32, i32, 4, 16, False" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -k sort_rows -s "*fp32, *fp32, *fp32, i32, 4, 16, False" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k sort_ints -s "*i32, *i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k gather_rows -s "*fp16, *i32, *fp16, *i32, i32, 8, 16, 32" --emit=ast | FileCheck %s --check-prefix=GATHER
# RUN: %tilec compile %s -k gather_rows -s "*fp16, *i32, *fp16, *i32, i32, 8, 16, 32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# A round views the rows as [.., 2, 2^k] and finds each element's partner
# by an xor over the pair, then keeps the smaller or the larger.
# CHECK: [[X:\$net[0-9]+]] = x:<4x16xfp32>
# CHECK: [[V:\$net[0-9]+]] = (reshape [[X]]:<4x16xfp32> : <32x2x1xfp32>)
# CHECK-NEXT: [[B:\$net[0-9]+]] = (bitcast [[V]]:<32x2x1xfp32> : <32x2x1xi32>)
# CHECK-NEXT: = (bitcast (xor [[B]]:<32x2x1xi32> (broadcast (reduce [[B]]:<32x2x1xi32> [kind=xor axis=1 keep_dims]
# CHECK-NEXT: = (reshape (where (ne (cast (gt [[V]]:<32x2x1xfp32>

# tl.gather compares each index with the positions along the axis and keeps
# the bits of the one it names; tl.histogram counts one-hot comparisons.
# GATHER: (bitcast (reduce (where (eq (broadcast (expand_dims idx:<8x32xi32> axis=2 : <8x32x1xi32>) : <8x32x16xi32>) {{.*}} [kind=xor axis=2] : <8x32xi16>) : <8x32xfp16>)
# GATHER: (reduce (cast (and (eq (broadcast (expand_dims flat:<256xi32> axis=1 : <256x1xi32>) : <256x16xi32>) {{.*}} [kind=sum axis=0] : <16xi32>)

@triton.jit
def sort_rows(x_ptr, out_ptr, flip_ptr, n, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    m = cols < n
    x = tl.load(x_ptr + rows * N + cols, mask=m, other=float("inf"))
    tl.store(out_ptr + rows * N + cols, tl.sort(x, descending=DESC))
    tl.store(flip_ptr + rows * N + cols, tl.flip(x, dim=1))

@triton.jit
def sort_ints(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.sort(dim=0, descending=True))

@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, hist_ptr, n, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    src = tl.load(src_ptr + rows * N + tl.arange(0, N)[None, :])
    kc = tl.arange(0, K)[None, :]
    idx = tl.load(idx_ptr + rows * K + kc)
    tl.store(out_ptr + rows * K + kc, tl.gather(src, idx, axis=1))
    offs = tl.arange(0, M * K)
    flat = tl.load(idx_ptr + offs)
    tl.store(hist_ptr + tl.arange(0, N), tl.histogram(flat, N, mask=offs < n))
