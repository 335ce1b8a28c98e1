# Floating-point fusion, on by default as Triton 3.9's enable_fp_fusion: a
# multiply and the add of its product become one fma.rn.f32, and the ops
# left carry no rounding mode (ptxas may fuse them too). --fp-fusion=0, or
# TILEC_ENABLE_FP_FUSION=0 in the environment, rounds each op on its own:
# mul.rn.f32 and add.rn.f32, no fma. tl.fma is an fma either way.
# RUN: %tilec compile %s -s "*fp32, *fp32, 128" --emit=ptx | FileCheck %s --check-prefix=FUSE
# RUN: %tilec compile %s -s "*fp32, *fp32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*fp32, *fp32, 128" --emit=ptx --fp-fusion=0 | FileCheck %s --check-prefix=EXACT
# RUN: TILEC_ENABLE_FP_FUSION=0 %tilec compile %s -s "*fp32, *fp32, 128" --emit=ptx | FileCheck %s --check-prefix=EXACT
# RUN: TILEC_ENABLE_FP_FUSION=0 %tilec compile %s -s "*fp32, *fp32, 128" --emit=ptx --fp-fusion=1 | FileCheck %s --check-prefix=FUSE
# FUSE-NOT: mul.rn.f32
# FUSE-COUNT-3: fma.rn.f32
# FUSE-NOT: mul.rn.f32
# FUSE-NOT: add.rn.f32
# EXACT-COUNT-2: mul.rn.f32
# EXACT: fma.rn.f32
# EXACT-NOT: fma.rn.f32
import triton
import triton.language as tl


@triton.jit
def poly(x_ptr, y_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = (x * 0.5 + 0.25) * x + 3.0
    tl.store(y_ptr + i, tl.fma(y, x, 1.0))
