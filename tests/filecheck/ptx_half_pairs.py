# fp32 values stored as fp16 or bf16: each pair of neighbours in a 32-bit
# word converts with one cvt.rn.f16x2.f32 (bf16x2), as Triton's code does,
# not with two conversions and a pack.
# RUN: %tilec compile %s -k to_half -s "*fp32:16, *fp16:16, *bf16:16, i32:16, 1024" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -k to_half -s "*fp32:16, *fp16:16, *bf16:16, i32:16, 1024" --emit=ptx | %ptxas_check
# CHECK-NOT: cvt.rn.f16.f32
# CHECK-NOT: cvt.rn.bf16.f32
# CHECK-COUNT-4: cvt.rn.f16x2.f32
# CHECK-NOT: cvt.rn.f16.f32
# CHECK: st.global.v4.b32
# CHECK-COUNT-4: cvt.rn.bf16x2.f32
# CHECK-NOT: cvt.rn.bf16.f32
# CHECK: st.global.v4.b32
import triton
import triton.language as tl


@triton.jit
def to_half(x_ptr, h_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(h_ptr + offs, (x * 2.0).to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, (x * 3.0).to(tl.bfloat16), mask=mask)
