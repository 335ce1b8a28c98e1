# isinstance() at compile time, as Triton runs it on a kernel's values:
# constexprs are plain Python values (never tl.constexpr instances; a bool
# is an int too), tensors, scalars and pointers are tl.tensor, descriptors
# (made in the kernel or given by the host) tl.tensor_descriptor; the class
# may be a tuple of classes. Tutorial 06's _maybe_make_tensor_desc is the
# real use: a parameter that is a pointer or a descriptor.
# RUN: %tilec compile %s -s "*fp32, i32, 64, True, 2.5" --emit=ast 2>&1 | FileCheck %s --check-prefix=PTR
# RUN: %tilec compile %s -s "tensordesc<fp32[64]>, i32, 64, True, 2.5" --emit=ast 2>&1 | FileCheck %s --check-prefix=DESC
# PTR: code = 1
# PTR: flags = 11010111
# DESC: code = 2
# DESC: flags = 11010111
import triton
import triton.language as tl


@triton.jit
def as_desc(p, n, BLOCK: tl.constexpr):
    if isinstance(p, tl.tensor_descriptor):
        return p
    else:
        return tl.make_tensor_descriptor(p, shape=[n], strides=[1], block_shape=[BLOCK])


@triton.jit
def kind_of(p):
    if isinstance(p, tl.tensor_descriptor):
        return 2
    elif isinstance(p, tl.tensor):
        return 1
    return 0


@triton.jit
def kernel(p, n, BLOCK: tl.constexpr, FLAG: tl.constexpr, F: tl.constexpr):
    code: tl.constexpr = kind_of(p)
    tl.static_print("code =", code)
    flags: tl.constexpr = (10000000 * isinstance(BLOCK, int) + 1000000 * isinstance(FLAG, (float, int))
                           + 100000 * isinstance(FLAG, tl.constexpr) + 10000 * isinstance(F, float)
                           + 1000 * isinstance(n, int) + 100 * isinstance(tl.float16, tl.dtype)
                           + 10 * isinstance(n, tl.tensor) + isinstance((BLOCK, F), tuple))
    tl.static_print("flags =", flags)
    d = as_desc(p, n, BLOCK)
    x = d.load([0])
    d.store([0], x + 1)
