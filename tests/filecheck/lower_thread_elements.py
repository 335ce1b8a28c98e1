# A thread may hold 1024 elements of a tensor (LW_MAX_THREAD_ELEMS): the
# largest block, 2^20 elements, lowers on 32 warps, as 2^17 does on 4
# (tests/diag/thread_elements_*.py: one step more is an error). A dot's
# operands count all of K per thread but stay in shared memory, read at each
# step of the dot's loop over K: they are not bounded (4096 here).
# RUN: %tilec compile %s -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1048576" -w 32 --emit=llvm-mlir | FileCheck %s --check-prefix=W32
# RUN: %tilec compile %s -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 131072" -w 4 --emit=llvm-mlir | FileCheck %s --check-prefix=W4
# RUN: %tilec compile %s -k dot_long_k -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 512" --emit=ptx | FileCheck %s --check-prefix=DOT
# RUN: %tilec compile %s -k dot_long_k -s "*fp16:16, *fp16:16, *fp32:16, 64, 64, 512" --emit=ptx | %ptxas_check
# W32: llvm.func @add_kernel
# W32-SAME: nvvm.maxntid = array<i32: 1024>
# W4: llvm.func @add_kernel
# W4-SAME: nvvm.maxntid = array<i32: 128>
# DOT: .entry dot_long_k
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def dot_long_k(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))
