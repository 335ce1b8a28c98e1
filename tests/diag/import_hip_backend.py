# A name of AMD's backend module, reached by a kernel: the error says it is HIP's (a kernel that does not reach it compiles)
# ARGS: -k hip_kernel -s "*fp32"
import triton
import triton.language as tl
from triton.language.extra.hip import libdevice as hipdev
from triton.language.extra.hip.libdevice import fast_expf as hip_fast


@triton.jit
def ok_kernel(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) * 2)


@triton.jit
def hip_kernel(x_ptr):
    tl.store(x_ptr, hipdev.exp(tl.load(x_ptr)))
