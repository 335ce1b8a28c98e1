# tl.sort (Triton's bitonic network along the last dimension, ascending or
# descending) and tl.flip, built from reshapes, xor_sums and selects: the
# typed AST shows a stage's compare-and-swap; ptxas accepts the PTX.
# RUN: %tilec compile %s -k sort_rows -s "*fp32, *fp32, *fp32, i32, 4, 16, False" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -k sort_rows -s "*fp32, *fp32, *fp32, i32, 4, 16, False" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k sort_ints -s "*i32, *i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k topk_rows -s "*fp32, *fp32, i32, 4, 64, 8, True" --emit=ast | FileCheck %s --check-prefix=TOPK
# RUN: %tilec compile %s -k topk_rows -s "*fp32, *fp32, i32, 4, 64, 8, True" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k topk_keys -s "*u64, *u64, 512, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k topk_streaming -s "*i32, *i32, 256, 64, 16" --emit=ptx | %ptxas_check
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

# tl.topk sorts runs of K, then halves the rows by a max over pairs of runs
# (the bit log2 K of the index) and merges again, until K are left.
# TOPK: (reshape (reduce (reshape {{.*}}:<4x64xfp32> : <16x2x8xfp32>) [kind=max axis=1] : <16x8xfp32>) : <4x32xfp32>)
# TOPK: (reshape (reduce (reshape {{.*}}:<4x32xfp32> : <8x2x8xfp32>) [kind=max axis=1] : <8x8xfp32>) : <4x16xfp32>)
# TOPK: (reshape (reduce (reshape {{.*}}:<4x16xfp32> : <4x2x8xfp32>) [kind=max axis=1] : <4x8xfp32>) : <4x8xfp32>)
# TOPK-NOT: kind=max

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

@triton.jit
def topk_rows(x_ptr, out_ptr, n, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols, mask=cols < n, other=float("-inf") if DESC else float("inf"))
    tl.store(out_ptr + rows * K + tl.arange(0, K)[None, :], tl.topk(x, K, dim=1, descending=DESC))

@triton.jit
def topk_keys(x_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, K), tl.topk(x, K))

# sglang's streaming top-k: the running top K merged into ascending order
# and kept elementwise against the next tile's descending top K.
@triton.jit
def topk_streaming(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.topk(tl.load(x_ptr + row * N + offs)[None, :], K, dim=1)
    for i in range(1, N // BLOCK):
        acc = tl.bitonic_merge(acc)
        x = tl.load(x_ptr + row * N + i * BLOCK + offs)[None, :]
        acc = tl.maximum(acc, tl.topk(x, K, dim=1))
    acc = tl.sort(acc, dim=1, descending=True)
    tl.store(out_ptr + row * K + tl.arange(0, K)[None, :], acc)
