# Every stage can be stopped after (--emit=STAGE) and dumped after
# (--dump-after=STAGE), and --time names each in the order they run.
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=coalesce | FileCheck %s --check-prefix=COALESCE
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=lower | FileCheck %s --check-prefix=LOWER
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=allocate-shared | FileCheck %s --check-prefix=ALLOC
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=ptx --dump-after=insert-barriers 2>&1 >/dev/null | FileCheck %s --check-prefix=BARRIERS
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=to-llvm-ir | FileCheck %s --check-prefix=LLVMIR
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=retarget-host | FileCheck %s --check-prefix=HOST
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=ptx --time 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME
# RUN: %tilec compile %s -s "*fp32:16, *fp32:16, 256" --emit=cpu --time 2>&1 >/dev/null | FileCheck %s --check-prefix=CPUTIME
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    tl.store(y_ptr, tl.sum(x, 0))
    tl.store(y_ptr + 1, tl.max(x, 0))

# After coalesce, before remove-layout-conversions: the load's vector
# layout is converted back for the reductions (which later reduce in it).
# COALESCE: "tile.load"{{.*}} -> tensor<256xf32, #tile.blocked<[2], [32], [4], [0]>>
# COALESCE: "tile.convert_layout"

# The lowering gives each use of shared memory a buffer of its own and
# puts no barriers for them.
# LOWER-DAG: llvm.mlir.global internal @tilec_smem_0()
# LOWER-DAG: llvm.mlir.global internal @tilec_smem_1()
# LOWER-NOT: nvvm.barrier0
# LOWER-NOT: tilec.smem_offsets

# allocate-shared places them in one (the same 16 bytes: the sum's partials
# are read before the max's are written), and still no barriers.
# ALLOC: llvm.mlir.global external @tilec_smem()
# ALLOC: tilec.shared_bytes = 16 : i64, tilec.smem_offsets = array<i64: 0, 0>, tilec.smem_sizes = array<i64: 16, 16>
# ALLOC-NOT: nvvm.barrier0

# insert-barriers: one before the sum's partials are read, one before the
# max's are written over them, one before those are read.
# BARRIERS: llvm.func @row_sum
# BARRIERS-COUNT-3: nvvm.barrier0
# BARRIERS-NOT: nvvm.barrier0
# BARRIERS-NOT: tilec_smem_0

# LLVMIR: define ptx_kernel void @row_sum(ptr addrspace(1) %0, ptr addrspace(1) %1)
# LLVMIR: @llvm.nvvm.barrier

# HOST: llvm.func @tilec.emu.barrier()
# HOST: llvm.mlir.global external constant @tilec_emu_shared_bytes(16 : i64)
# HOST: llvm.mlir.global external constant @tilec_emu_fibers(1 : i32)
# HOST: llvm.func @tilec_emu_entry

# TIME: frontend
# TIME-NEXT: irgen
# TIME-NEXT: verify
# TIME-NEXT: tma-lowering
# TIME-NEXT: rewrite-block-pointers
# TIME-NEXT: canonicalize
# TIME: remove-layout-conversions
# TIME: dce
# TIME-NEXT: pipeline
# TIME-NEXT: verify
# TIME-NEXT: axis-analysis
# TIME-NEXT: lower
# TIME-NEXT: allocate-shared
# TIME-NEXT: insert-barriers
# TIME-NEXT: metadata
# TIME-NEXT: expand-for-gpu
# TIME-NEXT: to-llvm-dialect
# TIME-NEXT: to-llvm-ir
# TIME-NEXT: libdevice
# TIME-NEXT: llvm-passes
# TIME-NEXT: nvptx
# TIME-NOT: retarget-host

# CPUTIME: metadata
# CPUTIME-NEXT: retarget-host
# CPUTIME-NEXT: to-llvm-dialect
# CPUTIME-NEXT: to-llvm-ir
# CPUTIME-NEXT: llvm-passes
# CPUTIME-NEXT: host-object
