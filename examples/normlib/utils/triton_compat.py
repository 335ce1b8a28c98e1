# One place for the differences between Triton versions: the rest of the
# library imports tl, triton and the math functions from here.
import operator

import triton
import triton.language as tl
from packaging.version import Version


def compare_version(package, op, version):
    mod = __import__(package)
    return op(Version(mod.__version__), Version(version))


if compare_version("triton", operator.ge, "3.0.0"):
    try:
        # Triton >= 3.x for Nvidia and AMD
        from triton.language.extra.libdevice import rsqrt, tanh
    except ModuleNotFoundError:
        # for the builds of Triton that keep it under cuda/
        from triton.language.extra.cuda.libdevice import rsqrt, tanh
else:
    from triton.language.math import rsqrt, tanh

erf = tl.math.erf
