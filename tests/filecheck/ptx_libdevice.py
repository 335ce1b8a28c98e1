# Math beyond the fast instructions comes from libdevice, linked from the
# CUDA toolkit: only the functions used stay, inlined; ptxas accepts it.
# RUN: %tilec compile %s -s "*fp32:16, *fp64:16, i32, 256" --emit=llvm | FileCheck %s --check-prefix=LLVM
# RUN: %tilec compile %s -s "*fp32:16, *fp64:16, i32, 256" --emit=ptx | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %s -s "*fp32:16, *fp64:16, i32, 256" --emit=ptx | %ptxas_check
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def special(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    x = tl.erf(x) + libdevice.pow(x, 2.5)
    y = tl.exp(y)
    tl.store(x_ptr + offs, x, mask=m)
    tl.store(y_ptr + offs, y, mask=m)

# The libdevice functions are inlined and gone: no call remains.
# LLVM: define {{.*}}void @special(
# LLVM-NOT: call {{.*}}@__nv_
# LLVM-NOT: define {{.*}}@__nv_
# PTX: .visible .entry special(
# PTX-NOT: call.uni
# PTX: ret;
