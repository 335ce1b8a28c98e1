# tl.div_rn and tl.sqrt_rn are libdevice's __nv_fdiv_rn / __nv_fsqrt_rn for fp32 and
# __nv_ddiv_rn / __nv_dsqrt_rn for fp64, linked in: no external function is left in the
# PTX. The emulator runs them against the host's correctly rounded / and sqrt
# (tests/emu/test_lang.c).
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 128" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp64, *fp64, *fp64, i32, 128" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*fp64, *fp64, *fp64, i32, 128" --emit=ptx | %ptxas_check
# CHECK-NOT: .extern
# CHECK: .entry rounded
import triton
import triton.language as tl


@triton.jit
def rounded(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m, other=1.0)
    b = tl.load(y + offs, mask=m, other=1.0)
    tl.store(out + offs, tl.div_rn(a, b) + tl.sqrt_rn(b), mask=m)
