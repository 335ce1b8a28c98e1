# A scalar given a new axis (`pid[None]`, then `[None, :]`: a convolution
# kernel's bias offset) is a block of one, made by a splat; the GPU code
# generator rejected the expand_dims it was before.
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 64" --emit=tile | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 64" --emit=ptx | %ptxas_check
# CHECK: "tile.splat"(%{{[0-9]+}}) {{.*}}: (i32) -> tensor<1xi32>
# CHECK-NOT: "tile.expand_dims"({{.*}}: (i32)
import triton
import triton.language as tl


@triton.jit
def bias_row(b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(b_ptr + (pid[None] * n)[None, :] + offs[None, :])
    tl.store(out_ptr + offs[None, :], x + tl.expand_dims(pid, 0)[None, :].to(tl.float32))
