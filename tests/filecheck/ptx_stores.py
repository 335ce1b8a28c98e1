# A store of a replicated element is made by one holder: the first thread that
# holds it, thread 0 for a scalar. A 64-element block on 128 threads stores from
# threads 0-63 only; at 128 and 512 elements no thread holds a copy, so no
# predicate is added. The emulator runs these kernels in place
# (tests/emu/test_stores.c), where every holder storing would apply a
# read-modify-write twice or more.
# RUN: %tilec compile %s -k scale_in_place -s "*fp32, i32, 64" --emit=ptx | FileCheck %s --check-prefix=B64
# RUN: %tilec compile %s -k scale_in_place -s "*fp32, i32, 128" --emit=ptx | FileCheck %s --check-prefix=B128
# RUN: %tilec compile %s -k scale_in_place -s "*fp32, i32, 512" --emit=ptx | FileCheck %s --check-prefix=B512
# RUN: %tilec compile %s -k bump -s "*i32, i32" --emit=ptx | FileCheck %s --check-prefix=SCALAR
# RUN: %tilec compile %s -k tile_in_place -s "*fp32, i32, i32, i32, 4, 8" --emit=ptx | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k block_in_place -s "*fp32, i32, i32, i32, 4, 8" --emit=ptx | FileCheck %s --check-prefix=TILE
# RUN: %tilec compile %s -k accumulate_row_sums -s "*fp32, *fp32, i32, i32, i32, 4, 16" --emit=ptx | FileCheck %s --check-prefix=ROWS
# RUN: %tilec compile %s -k scale_in_place -s "*fp32, i32, 64" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k bump -s "*i32, i32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k accumulate_row_sums -s "*fp32, *fp32, i32, i32, i32, 4, 16" --emit=ptx | %ptxas_check
import triton
import triton.language as tl


# B64: mov.u32 [[TID:%r[0-9]+]], %tid.x;
# B64: setp.lt.s32 [[IN:%p[0-9]+]],
# B64: setp.lt.u32 [[OWN:%p[0-9]+]], [[TID]], 64;
# B64-NEXT: and.pred [[P:%p[0-9]+]], [[OWN]], [[IN]];
# B64-NEXT: selp.b32 [[S:%r[0-9]+]], 1, 0, [[P]];
# B64: { .reg .pred p; setp.ne.b32 p, [[S]], 0; @p st.global.b32
# B128-NOT: setp.lt.u32
# B128-NOT: and.pred
# B128: st.global.b32
# B512-NOT: setp.lt.u32
# B512-COUNT-4: st.global.b32


@triton.jit
def scale_in_place(p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(p + offs, mask=m)
    tl.store(p + offs, x * 2 + 1, mask=m)


# SCALAR: mov.u32 [[TID:%r[0-9]+]], %tid.x;
# SCALAR: setp.eq.b32 [[T0:%p[0-9]+]], [[TID]], 0;
# SCALAR-NEXT: selp.b32 [[S:%r[0-9]+]], 1, 0, [[T0]];
# SCALAR: { .reg .pred p; setp.ne.b32 p, [[S]], 0; @p st.global.b32
@triton.jit
def bump(counter, times):
    for _ in range(times):
        c = tl.load(counter)
        tl.store(counter, c + 1)


# TILE: mov.u32 [[TID:%r[0-9]+]], %tid.x;
# TILE: setp.lt.u32 [[OWN:%p[0-9]+]], [[TID]], 32;
# TILE-NEXT: and.pred [[P:%p[0-9]+]], [[OWN]],
# TILE-NEXT: selp.b32 [[S:%r[0-9]+]], 1, 0, [[P]];
# TILE: { .reg .pred p; setp.ne.b32 p, [[S]], 0; @p st.global.b32
@triton.jit
def tile_in_place(p, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    at = p + rows[:, None] * stride + cols[None, :]
    tl.store(at, tl.load(at, mask=m) * 2 + 1, mask=m)


# ROWS: mov.u32 [[TID:%r[0-9]+]], %tid.x;
# ROWS: setp.lt.u32 [[OWN:%p[0-9]+]], [[TID]], 4;
# ROWS-NEXT: and.pred [[P:%p[0-9]+]], [[OWN]],
# ROWS-NEXT: selp.b32 [[S:%r[0-9]+]], 1, 0, [[P]];
# ROWS: { .reg .pred p; setp.ne.b32 p, [[S]], 0; @p st.global.b32
@triton.jit
def accumulate_row_sums(x, sums, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    t = tl.load(x + rows[:, None] * stride + cols[None, :], mask=m, other=0.0)
    s = tl.load(sums + rows, mask=rows < M)
    tl.store(sums + rows, s + tl.sum(t, axis=1), mask=rows < M)


@triton.jit
def block_in_place(p, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.make_block_ptr(p, (M, N), (stride, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    tl.store(b, tl.load(b, boundary_check=(0, 1)) * 2 + 1, boundary_check=(0, 1))
