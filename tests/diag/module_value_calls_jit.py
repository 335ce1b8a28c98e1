# A constexpr global computed by calling a jit function: host code, which tilec does not run
# ARGS: -k k1 -s "*fp32"
import triton
import triton.language as tl


@triton.jit
def twice(x):
    return x * 2


def host_size():
    n = 0
    for i in range(10):
        n += i
    return n


FROM_JIT = tl.constexpr(twice(3))
FROM_HOST = tl.constexpr(host_size())


@triton.jit
def k1(dst):
    tl.store(dst, FROM_JIT)


@triton.jit
def k2(dst):
    tl.store(dst, FROM_HOST)
