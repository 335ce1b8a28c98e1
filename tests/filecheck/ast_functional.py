# Triton's functional spellings: tl.add, tl.sub, tl.mul (sanitize_overflow
# read and checked to be a constexpr), tl.unsqueeze and tl.squeeze.
# RUN: %tilec compile %s -s "*i32, *i32" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -s "*i32, *i32" --emit=ptx | %ptxas_check
# CHECK: a = (add x:<16xi32> 1:<16xi32> : <16xi32>)
# CHECK: b = (mul a:<16xi32> x:<16xi32> : <16xi32>)
# CHECK: c = (sub b:<16xi32> 3:<16xi32> : <16xi32>)
# CHECK: u = (expand_dims c:<16xi32> axis=0 : <1x16xi32>)
# CHECK: s = (reshape u:<1x16xi32> : <16xi32>)
import triton
import triton.language as tl


@triton.jit
def functional(x_ptr, y_ptr):
    r = tl.arange(0, 16)
    x = tl.load(x_ptr + r)
    a = tl.add(x, 1)
    b = tl.mul(a, x, sanitize_overflow=False)
    c = tl.sub(b, 3)
    u = tl.unsqueeze(c, 0)
    s = tl.squeeze(u, 0)
    tl.store(y_ptr + r, s)
