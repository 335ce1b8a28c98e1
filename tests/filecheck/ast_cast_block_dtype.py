# .to() of a block type (a block pointer's element_ty, as a triangular-solve
# kernel stores through one) converts to its element, as Triton takes
# dst_ty.scalar; a conversion to the type a value already has is no
# conversion, whatever fp_downcast_rounding says (Triton returns early).
# RUN: %tilec compile %s -s "*fp32, *fp16, i32" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp16, i32" --emit=ptx | %ptxas_check
# CHECK: (store p:*<16x16xfp32> x:<16x16xfp32> _ [boundary_check=0,1]
# CHECK: (store q:*<16x16xfp16> (fp_downcast x:<16x16xfp32> [rounding=rtne] : <16x16xfp16>) _ [boundary_check=0,1]
import triton
import triton.language as tl


@triton.jit
def store_through(a_ptr, b_ptr, T):
    p = tl.make_block_ptr(a_ptr, (T, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    q = tl.make_block_ptr(b_ptr, (T, 16), (16, 1), (0, 0), (16, 16), (1, 0))
    x = tl.load(p, boundary_check=(0, 1))
    tl.store(p, x.to(p.dtype.element_ty, fp_downcast_rounding="rtne"), boundary_check=(0, 1))
    tl.store(q, x.to(q.dtype.element_ty, fp_downcast_rounding="rtne"), boundary_check=(0, 1))
