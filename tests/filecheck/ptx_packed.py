# Elements under 32 bits that one access moves together travel packed in
# 32-bit words: eight halves are one 128-bit access, as Triton makes them,
# four bf16 or eight bytes a 64-bit one, two bytes one 16-bit word. The mask (n a
# multiple of 16) is constant over each run. The emulator runs these kernels
# against references (tests/emu/test_ops.c, packed), so a word whose
# elements come back in another order fails there.
# RUN: %tilec compile %s -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 1024" --emit=ptx | FileCheck %s --check-prefix=F16
# RUN: %tilec compile %s -s "*fp16:16, *fp16:16, *fp16:16, i32:16, 1024" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*bf16:16, *bf16:16, *bf16:16, i32:16, 512" --emit=ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -s "*i8:16, *i8:16, *i8:16, i32:16, 1024" --emit=ptx | FileCheck %s --check-prefix=I8
# RUN: %tilec compile %s -s "*i8:16, *i8:16, *i8:16, i32:16, 256" --emit=ptx | FileCheck %s --check-prefix=I8X2
# RUN: %tilec compile %s -s "*i8:16, *i8:16, *i8:16, i32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*fp16:16, *fp16:16, *fp16:16, i32, 1024" --emit=ptx | FileCheck %s --check-prefix=ANYN
import triton
import triton.language as tl

# F16-COUNT-1: ld.global.v4.b32
# F16: st.global.v4.b32
# F16: st.global.v4.b32
# F16-NOT: .b16 [

# BF16: ld.global.v2.b32
# BF16: st.global.v2.b32

# I8: ld.global.v2.b32
# I8: st.global.v2.b32
# I8-NOT: .b8 [

# I8X2: ld.global.b16
# I8X2: st.global.b16

# Without the hint on n the mask may change inside a run: the masked
# accesses go one at a time, the unmasked store still packed.
# ANYN: ld.global.b16
# ANYN-NOT: ld.global.v
# ANYN: st.global.v4.b32


@triton.jit
def shifted(x_ptr, out_ptr, raw_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=7)
    # each element gets its own position's value: a word unpacked in
    # another order shows
    tl.store(out_ptr + offs, x + (offs % 64).to(x.dtype), mask=mask)
    tl.store(raw_ptr + offs, x)
