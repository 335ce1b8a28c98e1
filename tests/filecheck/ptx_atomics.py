# Atomics: each element once (by its first holder), predicated by the mask;
# a scalar atomic by one thread, its result shared when it is used (and with
# no barrier when it is not). ptxas accepts the PTX.
# RUN: %tilec compile %s -s "*i32, *i32, i32, 32" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*i32, *i32, i32, 32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

@triton.jit
def hist(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(bins_ptr + b, 1, mask=m)
    tl.atomic_max(bins_ptr, tl.max(b, axis=0))
    old = tl.atomic_add(bins_ptr + 1, 2)
    tl.atomic_add(x_ptr + offs, old, mask=m, sem="relaxed", scope="cta")

# CHECK: @p atom.acq_rel.gpu.global.add.u32
# CHECK: @p atom.acq_rel.gpu.global.max.s32
# CHECK-NOT: bar.sync
# CHECK: @p atom.acq_rel.gpu.global.add.u32
# CHECK: bar.sync 0;
# CHECK: @p atom.relaxed.cta.global.add.u32
