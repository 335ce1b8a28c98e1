# A layout conversion by words (codegen/lower_convert.c): a dot's result,
# in the MMA layout, goes to the store's layout through shared memory by
# 16-byte words both layouts hold in registers (its column pair and rows 8
# and more apart), one st.shared.v4 and one ld.shared.v4 per word, swizzled
# against bank conflicts; no access element by element. test_ops runs
# dot_out on the emulator at these shapes and others against a reference.
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 128" --emit=ptx | FileCheck %s --check-prefix=F16
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp32:16, 64, 16, 64" -w 2 --emit=ptx | FileCheck %s --check-prefix=F32
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp32:16, 64, 16, 64" -w 2 --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 128, 32, 64" -w 8 --emit=ptx | %ptxas_check
# Where the reading thread holds no 16-byte word of the writer's (the warps
# along M, a store layout of 8 columns a thread, 8 threads a row), 16-bit
# words are read by ldmatrix: lane l gets the piece l % 4 of row l / 4 of each
# of four 16-byte words, as Triton converts them.
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 64" --emit=ptx | FileCheck %s --check-prefix=LDM
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 128, 16, 64" --emit=ptx | %ptxas_check
# Too few common registers for a 16-byte word (a 16x16 tile over 2 warps):
# element by element, as before.
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | FileCheck %s --check-prefix=SMALL
# RUN: %tilec compile %s -k dot_out -s "*fp16:16, *fp16:16, *fp16:16, 16, 16, 16" -w 2 --emit=ptx | %ptxas_check
import triton
import triton.language as tl

# F16: mma.sync.aligned.m16n8k16
# F16-NOT: st.shared.b16
# F16-NOT: st.shared.b32
# F16: st.shared.v4.b32
# F16-NOT: ld.shared.b16
# F16-NOT: ld.shared.b32
# F16: ld.shared.v4.b32
# F16: st.global.v4.b32

# F32: mma.sync.aligned.m16n8k16
# F32-NOT: st.shared.b32
# F32: st.shared.v4.b32
# F32-NOT: ld.shared.b32
# F32: ld.shared.v4.b32
# F32: st.global.v4.b32

# LDM: mma.sync.aligned.m16n8k16
# LDM-NOT: st.shared.b
# LDM: st.shared.v4.b32
# LDM-NOT: ld.shared
# LDM: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# LDM-NOT: ld.shared
# LDM: st.global.v4.b32

# SMALL: mma.sync.aligned.m16n8k16
# SMALL-NOT: st.shared.v4
# SMALL-NOT: ld.shared.v4
# SMALL: st.global


@triton.jit
def dot_out(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    m = tl.arange(0, M)
    k = tl.arange(0, K)
    n = tl.arange(0, N)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + m[:, None] * N + n[None, :], c.to(c_ptr.dtype.element_ty))
