# Shape ops. trans, join and split move no data when the layouts allow it:
# a join feeding a split and a transpose of a transpose need no shared
# memory and no barrier. reshape and cat go through shared memory. Each
# kernel's PTX is accepted by ptxas.
# RUN: %tilec compile %s -k join_split -s "*fp32:16, *fp32:16, *fp32:16, 128" --emit=ptx | FileCheck %s --check-prefix=REGS
# RUN: %tilec compile %s -k trans_trans -s "*fp32:16, *fp32:16, 32, 64" --emit=ptx | FileCheck %s --check-prefix=REGS
# RUN: %tilec compile %s -k trans_trans -s "*fp32:16, *fp32:16, 32, 64" --emit=tile-gpu | FileCheck %s --check-prefix=TRANS
# RUN: %tilec compile %s -k transpose -s "*fp16:16, *fp16:16, 64, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k permute3 -s "*i32, *i32, 8" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k reshape_rows -s "*fp32:16, *fp32:16, 16, 64" --emit=ptx | FileCheck %s --check-prefix=RESHAPE
# RUN: %tilec compile %s -k reshape_rows -s "*fp32:16, *fp32:16, 16, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k concat -s "*fp32, *fp32, *fp32, 128" --emit=ptx | FileCheck %s --check-prefix=SMEM
# RUN: %tilec compile %s -k concat -s "*fp32, *fp32, *fp32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k join_split -s "*fp32:16, *fp32:16, *fp32:16, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k interleave -s "*bf16:16, *bf16:16, *bf16:16, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k interleave_rows -s "*fp32, *fp32, *fp32, *fp32, i32, 8, 16" --emit=ast | FileCheck %s --check-prefix=INTERLEAVE
# RUN: %tilec compile %s -k interleave_rows -s "*fp32, *fp32, *fp32, *fp32, i32, 8, 16" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# REGS-NOT: .shared
# REGS-NOT: bar.sync
# REGS: ret;

# The transposes take the load's layout, permuted, and back: no conversion.
# TRANS-NOT: tile.convert_layout
# TRANS: tile.trans{{.*}}#tile.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>) -> tensor<64x32xf32, #tile.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>>
# TRANS: tile.trans{{.*}}#tile.blocked<[4, 1], [16, 2], [1, 4], [0, 1]>>) -> tensor<32x64xf32, #tile.blocked<[1, 4], [2, 16], [4, 1], [1, 0]>>
# TRANS-NOT: tile.convert_layout

# tl.interleave is Triton's join then reshape; two scalars give their join
# (blocks of one joined, reshaped to <2>).
# INTERLEAVE: z = (reshape (join x:<8x16xfp32> y:<8x16xfp32> : <8x16x2xfp32>) : <8x32xfp32>)
# INTERLEAVE-NEXT: zc = 
# INTERLEAVE: s = (reshape (join (splat (load x_ptr:*fp32 _ _ : fp32) : <1xfp32>) {{.*}} : <1x2xfp32>) : <2xfp32>)
# INTERLEAVE: (reshape (sub (mul x:<8x16xfp32> {{.*}} : <128xfp32>)

# SMEM: .shared
# SMEM-COUNT-1: bar.sync
# SMEM-NOT: bar.sync

# The reshape goes through shared memory, fenced before its reads.
# RESHAPE: .shared
# RESHAPE: bar.sync


@triton.jit
def join_split(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    a, b = tl.split(tl.join(x, y))
    tl.store(out_ptr + offs, a * 2.0 - b)


@triton.jit
def trans_trans(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.trans(tl.trans(x)) + 1.0)


@triton.jit
def transpose(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], x.T)


@triton.jit
def permute3(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    offs = r[:, None, None] * N * N + r[None, :, None] * N + r[None, None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.permute(x, (2, 0, 1)))


@triton.jit
def reshape_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M * N))
    rows = tl.sum(tl.reshape(x, (M, N)), axis=1)
    tl.store(out_ptr + tl.arange(0, M), rows)


@triton.jit
def concat(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    c = tl.cat(tl.load(x_ptr + offs), tl.load(y_ptr + offs), can_reorder=True)
    tl.store(out_ptr + tl.arange(0, 2 * N), c)


@triton.jit
def interleave(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    pairs = tl.join(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(out_ptr + offs[:, None] * 2 + tl.arange(0, 2)[None, :], pairs)


@triton.jit
def interleave_rows(x_ptr, y_ptr, out_ptr, flat_ptr, n, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    m = rows * N + cols < n
    x = tl.load(x_ptr + rows * N + cols, mask=m, other=0.0)
    y = tl.load(y_ptr + rows * N + cols, mask=m, other=0.0)
    z = tl.interleave(x, y)
    zc = tl.arange(0, 2 * N)[None, :]
    tl.store(out_ptr + rows * (2 * N) + zc, z, mask=rows * N + zc // 2 < n)
    s = tl.interleave(tl.load(x_ptr), tl.load(y_ptr + 1))
    tl.store(out_ptr + M * 2 * N + tl.arange(0, 2), s)
    tl.store(flat_ptr + tl.arange(0, M * N), tl.ravel(x * 2.0 - y))
