# libdevice's rounded arithmetic, conversions and integer functions on
# inputs whose results the PTX ISA's definitions fix: tests/emu/test_libdevice.c
# runs `rounded` and `integers` on the emulator and compares every bit with
# constants written from those definitions. ptxas accepts the PTX.
# RUN: %tilec compile %s -k rounded -s "*fp32, *i32" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k integers -s "*i32, *i32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def rounded(x_ptr, out_ptr):
    one = tl.load(x_ptr)          # 1.0
    tiny = tl.load(x_ptr + 1)     # 2^-30
    three = tl.load(x_ptr + 2)    # 3.0
    two = tl.load(x_ptr + 3)      # 2.0
    half = tl.load(x_ptr + 4)     # 2.5
    r = tl.zeros((16,), dtype=tl.int32)
    o = tl.arange(0, 16)
    r = tl.where(o == 0, libdevice.add_rn(one, tiny).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 1, libdevice.add_rz(one, tiny).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 2, libdevice.add_ru(one, tiny).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 3, libdevice.add_rd(-one, -tiny).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 4, libdevice.div_rz(one, three).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 5, libdevice.div_ru(one, three).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 6, libdevice.sqrt_rn(two).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 7, libdevice.sqrt_ru(two).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 8, libdevice.rcp_rd(three).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 9, libdevice.mul_ru(three, one / three).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 10, libdevice.fma_rz(three, one / three, -one).to(tl.int32, bitcast=True), r)
    r = tl.where(o == 11, libdevice.float2int_rn(half), r)
    r = tl.where(o == 12, libdevice.float2int_rn(half + one), r)
    r = tl.where(o == 13, libdevice.float2int_rn(-half), r)
    r = tl.where(o == 14, libdevice.float2int_rz(-half - tiny * 0.0 - 0.2), r)
    r = tl.where(o == 15, libdevice.float_as_int(-two), r)
    tl.store(out_ptr + o, r)


@triton.jit
def integers(x_ptr, out_ptr):
    a = tl.load(x_ptr)        # 0x33221100
    b = tl.load(x_ptr + 1)    # 0x77665544
    s = tl.load(x_ptr + 2)    # 0x7531
    five = tl.load(x_ptr + 3)  # 5
    nine = tl.load(x_ptr + 4)  # 9
    m1 = tl.load(x_ptr + 5)   # -1
    o = tl.arange(0, 16)
    r = tl.zeros((16,), dtype=tl.int32)
    r = tl.where(o == 0, libdevice.byte_perm(a, b, s), r)
    r = tl.where(o == 1, libdevice.sad(five, nine, 100), r)
    r = tl.where(o == 2, libdevice.usad(five, nine, 100), r)
    r = tl.where(o == 3, libdevice.brev(five - 4), r)
    r = tl.where(o == 4, libdevice.clz(five - 4), r)
    r = tl.where(o == 5, libdevice.ffs(nine - 1), r)
    r = tl.where(o == 6, libdevice.popc(m1), r)
    r = tl.where(o == 7, libdevice.mulhi(a, nine - 1), r)
    r = tl.where(o == 8, libdevice.umulhi(m1, m1), r)
    r = tl.where(o == 9, libdevice.hadd(m1, nine), r)
    r = tl.where(o == 10, libdevice.urhadd(m1, five), r)
    r = tl.where(o == 11, libdevice.umin(m1, five), r)
    r = tl.where(o == 12, libdevice.max(m1, five), r)
    r = tl.where(o == 13, libdevice.clz(m1 - m1), r)
    r = tl.where(o == 14, libdevice.ffs(m1 - m1), r)
    r = tl.where(o == 15, libdevice.rhadd(m1, m1 - 1), r)
    tl.store(out_ptr + o, r)
