# Float atomic max and min, which PTX has no instruction for: as Triton, by
# the bits as integers, max.s where the value is non-negative and min.u
# where it is negative (min the other way round), for fp32 and fp64 (an
# fp8 quantizer's absmax, sglang's _per_tensor_quant_mla_fp8_stage1).
# ptxas accepts the PTX. (The emulator runs the atomic itself, as a float
# max or min, not this PTX.)
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 256" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -s "*fp64, *fp64, i32, 256" --emit=ptx | FileCheck %s --check-prefix=F64
# RUN: %tilec compile %s -s "*fp64, *fp64, i32, 256" --emit=ptx | %ptxas_check
# CHECK: setp.lt.s32 n, [[V:%r[0-9]+]], 0
# CHECK: @a atom.acq_rel.gpu.global.max.s32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], [[V]]; @b atom.acq_rel.gpu.global.min.u32
# CHECK: @a atom.acq_rel.gpu.global.min.s32 {{.*}} @b atom.acq_rel.gpu.global.max.u32
# CHECK-NOT: .f32 {{%r[0-9]+}}, [
# F64: setp.lt.s64 n
# F64: @a atom.acq_rel.gpu.global.max.s64 {{.*}} @b atom.acq_rel.gpu.global.min.u64
import triton
import triton.language as tl

@triton.jit
def amax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_max(out_ptr, tl.max(tl.abs(x), axis=0))
    tl.atomic_min(out_ptr + 1, tl.min(x, axis=0))
    tl.atomic_max(out_ptr + 2 + offs % 4, x, mask=offs < n)
