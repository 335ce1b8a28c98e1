# PTX of the fused softmax in examples/softmax.py: the loop over rows is
# tl.range(..., num_stages=2), so the next row goes ahead into shared memory
# by cp.async while this one is computed (as Triton does); the row maximum
# and sum reduce in the load's layout, across the lanes of a warp with
# butterfly shuffles and across warps through shared memory (dynamic: its
# size is given at launch); exp is ex2.approx of x * log2(e), once per
# element; masked copies zero-fill, and -inf is selected where the mask is off.
# Shared addresses are 32-bit registers (short pointers, as Triton).
# RUN: %tilec compile %examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024" --emit=ptx | FileCheck %s
# RUN: %tilec compile %examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024" --emit=ptx | FileCheck %s --check-prefix=WIDE
# RUN: %tilec compile %examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024" --emit=ptx | %ptxas_check

# CHECK: .extern .shared .align 16 .b8 tilec_smem[];
# CHECK: .visible .entry softmax_kernel(
# CHECK: mov.b32 %r{{[0-9]+}}, tilec_smem;
# CHECK-COUNT-8: cp.async.ca.shared.global [%r{{[0-9]+}}], [{{.*}}], 4, n;
# CHECK: cp.async.commit_group;
# CHECK: cp.async.wait_group 0;
# CHECK: ld.shared.b32
# CHECK: shfl.sync.bfly.b32
# CHECK: bar.sync 0;
# CHECK-COUNT-8: ex2.approx.f32
# CHECK-NOT: ex2.approx.f32
# CHECK: shfl.sync.bfly.b32
# CHECK: st.global
# CHECK: cp.async.ca.shared.global

# Aligned rows (the hints): two 16-byte copies per thread and row, read back
# as two 128-bit shared loads; the stores are 128 bits.
# WIDE-COUNT-2: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, n;
# WIDE: cp.async.wait_group 0;
# WIDE-COUNT-2: ld.shared.v4.b32
# WIDE: st.global.v4.b32
