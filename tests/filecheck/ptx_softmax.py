# PTX of the fused softmax in examples/softmax.py: the row maximum and sum
# reduce across the lanes of a warp with butterfly shuffles and across warps
# through shared memory (dynamic: its size is given at launch); exp is
# ex2.approx of x * log2(e); masked loads are predicated, not branched around.
# RUN: %tilec compile %examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024" --emit=ptx | FileCheck %s

# CHECK: .extern .shared .align 16 .b8 tilec_smem[];
# CHECK: .visible .entry softmax_kernel(
# CHECK: @p ld.global
# CHECK: shfl.sync.bfly.b32
# CHECK: bar.sync 0;
# CHECK: ex2.approx.f32
# CHECK: shfl.sync.bfly.b32
# CHECK: st.global
