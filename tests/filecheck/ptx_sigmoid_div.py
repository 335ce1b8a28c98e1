# tl.sigmoid divides as Triton's `/` does: div.full.f32 for fp32 (it was
# rcp.rn.f32, the IEEE reciprocal with its long slow path), the same PTX as
# Triton 3.9 gives: mul by -log2(e), ex2.approx, add 1, div.full.
# RUN: %tilec compile %s -s "*fp32, *fp32" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp32" --emit=ptx | %ptxas_check
# CHECK: mul.f32 {{.*}}0fBFB8AA3B;
# CHECK-NEXT: ex2.approx.f32
# CHECK-NEXT: add.f32 {{.*}}0f3F800000;
# CHECK: div.full.f32
# CHECK-NOT: rcp.rn
import triton
import triton.language as tl


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr):
    r = tl.arange(0, 128)
    tl.store(y_ptr + r, tl.sigmoid(tl.load(x_ptr + r)))
