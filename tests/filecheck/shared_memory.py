# allocate-shared and insert-barriers. Uses of shared memory whose times do
# not overlap share memory, as Triton's allocator places them; a small one
# goes apart only where that costs no memory and saves a barrier. A barrier
# goes only where a read would see another thread's write too early, or a
# write would clobber what is still read.
#
# argmax: it reduces in the load's layout, with no conversion before it;
# the value and the index partials of the four warps each get a buffer of
# their own (the two do not alias), one barrier before they are read.
# RUN: %tilec compile %s -k argmax_rows -s "*fp32:16, *i32, 1024" --emit=llvm-mlir | FileCheck %s --check-prefix=ARGMAX
# ARGMAX: llvm.mlir.global external @tilec_smem() {{.*}} : !llvm.array<0 x i8>
# ARGMAX: tilec.shared_bytes = 32
# ARGMAX: llvm.getelementptr %{{[0-9]+}}[16] : (!llvm.ptr<3>)
# ARGMAX-COUNT-1: nvvm.barrier0
# ARGMAX-NOT: nvvm.barrier0
#
# Two 64x64 fp32 transposes share memory (16640 bytes each: every row of
# 256 bytes is padded by a word against bank conflicts): a barrier before the first reads, one
# before the second writes (the first's reads must be done), one before the
# second reads. At 32x32 (4224 bytes) the same.
# RUN: %tilec compile %s -k two_transposes -s "*fp32:16, *fp32:16, 64, 64" --emit=llvm-mlir | FileCheck %s --check-prefix=SHARE
# SHARE: tilec.shared_bytes = 16640
# SHARE-COUNT-3: nvvm.barrier0
# SHARE-NOT: nvvm.barrier0
# RUN: %tilec compile %s -k two_transposes -s "*fp32:16, *fp32:16, 32, 32" --emit=llvm-mlir | FileCheck %s --check-prefix=SHARE32
# SHARE32: tilec.shared_bytes = 4224
# SHARE32-COUNT-3: nvvm.barrier0
# SHARE32-NOT: nvvm.barrier0
#
# In a loop, the next iteration's writes wait for this one's reads: a
# conversion in a loop body gets a barrier before its writes too.
# RUN: %tilec compile %s -k loop_transpose -s "*fp32:16, *fp32:16, i32, 32, 32" --emit=llvm-mlir | FileCheck %s --check-prefix=LOOP
# LOOP: scf.for
# LOOP: nvvm.barrier0
# LOOP: llvm.store {{.*}}tilec.smem
# LOOP: nvvm.barrier0
# LOOP: llvm.load {{.*}}tilec.smem
# LOOP-NOT: nvvm.barrier0
# LOOP: llvm.return
# RUN: %tilec compile %s -k loop_transpose -s "*fp32:16, *fp32:16, i32, 32, 32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k two_transposes -s "*fp32:16, *fp32:16, 64, 64" --emit=ptx | %ptxas_check
import triton
import triton.language as tl


@triton.jit
def argmax_rows(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + tl.program_id(0), tl.argmax(tl.load(x_ptr + tl.program_id(0) * N + offs), axis=0))


@triton.jit
def two_transposes(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + c[:, None] * M + r[None, :], tl.trans(x))
    z = tl.load(y_ptr + r[:, None] * N + c[None, :])
    tl.store(x_ptr + c[:, None] * M + r[None, :], tl.trans(z))


@triton.jit
def loop_transpose(x_ptr, y_ptr, n, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    for i in range(n):
        x = tl.load(x_ptr + i * M * N + r[:, None] * N + c[None, :])
        tl.store(y_ptr + i * M * N + c[:, None] * M + r[None, :], tl.trans(x))
