# Atomic adds on fp16 and bf16: two neighbours of a thread in one 32-bit
# word go as one atom.add.noftz.f16x2 (bf16x2 on sm_90), a lone element or
# a scalar as atom.add.noftz.f16; bf16 before sm_90, which has no bf16
# atomics, is a compare-and-swap loop. ptxas accepts each.
# RUN: %tilec compile %s -k add_pairs -s "*fp16:16, *fp16:16, i32:16, 256" --emit=ptx | FileCheck %s --check-prefix=PAIRS
# RUN: %tilec compile %s -k add_pairs -s "*fp16:16, *fp16:16, i32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k add_pairs -s "*bf16:16, *bf16:16, i32:16, 256" --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=BF90
# RUN: %tilec compile %s -k add_pairs -s "*bf16:16, *bf16:16, i32:16, 256" --emit=ptx --arch=sm_90 | %ptxas_check_sm90
# RUN: %tilec compile %s -k add_pairs -s "*bf16:16, *bf16:16, i32:16, 256" --emit=ptx | FileCheck %s --check-prefix=BF80
# RUN: %tilec compile %s -k add_pairs -s "*bf16:16, *bf16:16, i32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k add_scattered -s "*fp16, *i32, *bf16, i32, 256" --emit=ptx | FileCheck %s --check-prefix=SCAT
# RUN: %tilec compile %s -k add_scattered -s "*fp16, *i32, *bf16, i32, 256" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

@triton.jit
def add_pairs(out_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    old = tl.atomic_add(out_ptr + offs, x, mask=m)
    tl.store(x_ptr + offs, old, mask=m)

@triton.jit
def add_scattered(h_ptr, idx_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    i = tl.load(idx_ptr + offs, mask=m, other=0)
    tl.atomic_add(h_ptr + i, 1.0, mask=m)
    tl.atomic_add(b_ptr + i, 0.5, mask=m, sem="relaxed", scope="cta")
    tl.atomic_add(h_ptr, 2.0)

# PAIRS: @p atom.acq_rel.gpu.global.add.noftz.f16x2
# PAIRS-NOT: atom.{{.*}}.f16 {{.*}}
# BF90: @p atom.acq_rel.gpu.global.add.noftz.bf16x2
# BF80-NOT: atom.{{.*}}.add.noftz.bf16
# BF80: atom.acq_rel.gpu.global.cas.b32
# SCAT: @p atom.acq_rel.gpu.global.add.noftz.f16 %rs
# SCAT: atom.relaxed.cta.global.cas.b16
# SCAT: tilec_cas_loop_1:
# SCAT: @p atom.acq_rel.gpu.global.add.noftz.f16 %rs
