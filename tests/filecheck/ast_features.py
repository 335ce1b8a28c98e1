# Language features beyond the examples: heuristics, constexpr globals, dtype constexprs,
# libdevice, methods, max with indices, print, tl.range options, assert.
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 64, fp16" | FileCheck %s
import triton
import triton.language as tl
from triton.language.extra import libdevice
BLOCK = tl.constexpr(64)

@triton.heuristics({'EVEN': lambda args: args['BLOCK_N'] % 32 == 0})
@triton.jit
def k(p, q, n, BLOCK_N: tl.constexpr, EVEN: tl.constexpr, DT: tl.constexpr):
    """docstring"""
    offs = tl.arange(0, BLOCK)
    x = tl.load(p + offs, mask=offs < n)
    if x.dtype.is_fp32():
        y = x.to(DT)
    assert EVEN, "even"
    z = libdevice.pow(x, 2.0) + x.exp() + tl.math.exp2(x)
    m, i = tl.max(x, axis=0, return_indices=True)
    w = x.reshape(8, 8).permute(1, 0).argmax(axis=1)
    print("hello", m)
    for j in tl.range(0, n, 2, loop_unroll_factor=2):
        z += 1
    tl.store(q + offs, z)
# CHECK: kernel k(p: *fp32, q: *fp32, n: i32)
# CHECK-NEXT:   constexpr BLOCK_N = 64
# CHECK-NEXT:   constexpr EVEN = True
# CHECK-NEXT:   constexpr DT = fp16
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   offs = (arange [start=0 end=64] : <64xi32>)  @13:5
# CHECK-NEXT:   x = (load (addptr (splat p:*fp32 : <64x*fp32>) offs:<64xi32> : <64x*fp32>) (lt offs:<64xi32> (splat n:i32 : <64xi32>) : <64xi1>) _ : <64xfp32>)  @14:5
# CHECK-NEXT:   y = (cast x:<64xfp32> : <64xfp16>)  @16:9
# CHECK-NEXT:   z = (add (add (libdevice.pow x:<64xfp32> 2.0:<64xfp32> : <64xfp32>) (exp x:<64xfp32> : <64xfp32>) : <64xfp32>) (exp2 x:<64xfp32> : <64xfp32>) : <64xfp32>)  @18:5
# CHECK-NEXT:   reduce.7, reduce.8 = (reduce x:<64xfp32> [kind=max_with_index axis=0 tie_break_left] : (fp32, i32))  @19:12
# CHECK-NEXT:   m = reduce.7:fp32  @19:5
# CHECK-NEXT:   i = reduce.8:i32  @19:8
# CHECK-NEXT:   w = (reduce (trans (reshape x:<64xfp32> : <8x8xfp32>) [order=1,0] : <8x8xfp32>) [kind=argmax axis=1 tie_break_left] : <8xi32>)  @20:5
# CHECK-NEXT:   (device_print m:fp32 [prefix='hello'] : void)  @21:5
# CHECK-NEXT:   for j in range(0:i32, n:i32, 2:i32) loop_unroll_factor=2 -> z  @22:5
# CHECK-NEXT:     z = (add z:<64xfp32> 1.0:<64xfp32> : <64xfp32>)  @23:9
# CHECK-NEXT:   (store (addptr (splat q:*fp32 : <64x*fp32>) offs:<64xi32> : <64x*fp32>) z:<64xfp32> _ : void)  @24:5
