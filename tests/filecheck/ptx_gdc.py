# Programmatic dependent launch (Triton's tutorial 11): tl.extra.cuda.gdc_wait
# and gdc_launch_dependents are griddepcontrol on sm_90 and later, nothing on
# sm_80; the emulator runs the kernel (tests/emu/test_lang.c).
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 1024, True" --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=SM90
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 1024, True" --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=SM80
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 1024, True" --emit=ptx --arch=sm_80 | %ptxas_check
# RUN: %tilec compile %s -s "*fp32, *fp32, *fp32, i32, 1024, True" --emit=ptx --arch=sm_90 | %ptxas_check_sm90
import triton
import triton.language as tl

from triton.language.extra.cuda import gdc_launch_dependents


# SM90: griddepcontrol.wait;
# SM90: ld.global
# SM90: griddepcontrol.launch_dependents;
# SM80-NOT: griddepcontrol
@triton.jit
def gdc_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if USE_GDC:
        gdc_launch_dependents()
    tl.store(out_ptr + offs, x + y, mask=mask)
