# device_print (and Python's print) call vprintf once per element a thread holds,
# with the program ids, the element's index and the values; ptxas accepts it.
# RUN: %tilec compile %s -s "*fp16, i32, 64" --emit=ptx | FileCheck %s
# RUN: %tilec compile %s -s "*fp16, i32, 64" --emit=ptx | %ptxas_check
import triton
import triton.language as tl

@triton.jit
def show(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_print("x=", x, offs)
    print("n", n)

# CHECK: .extern .func  (.param .b32 func_retval0) vprintf
# CHECK: .visible .entry show(
# CHECK: vprintf
