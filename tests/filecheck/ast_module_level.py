# The module level as Python binds it: conditional imports (the first that
# resolves, and --emit=ast says which), a module-level alias of a Triton
# function, kernels made by calls, helpers in module-level if/else, a
# constexpr_function, constexpr globals over plain ones, an unreached helper
# whose f-string is no error, and helpers and tl from another module of the
# package (examples/normlib).
# RUN: %tilec compile %s -k scaled_exp -s "*fp32, i32, 256" | FileCheck %s --check-prefix=LOCAL
# RUN: %tilec compile %s -k made_by_call -s "*fp32, i32, 128" -D ON_HOPPER=True | FileCheck %s --check-prefix=CALL
# RUN: %tilec compile %examples/normlib/ops/rms_norm.py -k rms_norm_kernel -s "*fp32, *fp16, *fp16, i32, i32, fp32, 1024" | FileCheck %s --check-prefix=PKG
# RUN: cd %examples/normlib/ops && %tilec compile rms_norm.py -k gelu_kernel -s "*fp32, *fp32, i32, 4096" -D HAS_TMA=True | FileCheck %s --check-prefix=GELU
import torch
import triton
import triton.language as tl

if torch.version.hip:
    from triton.language.extra.hip import libdevice
else:
    try:
        from triton.language.extra.cuda import libdevice
    except ImportError:
        from triton.language.extra import libdevice

fast_exp = libdevice.exp2
_BASE = 64
TWICE: tl.constexpr = _BASE * 2
ON_HOPPER = tl.constexpr(torch.cuda.get_device_capability()[0] >= 9)

if triton.__version__ >= "3.0":
    @triton.jit
    def scale(x):
        return x * 2.0
else:
    @triton.jit
    def scale(x):
        return x * 3.0


@triton.constexpr_function
def half_of(n):
    return n // 2


@triton.jit
def never_called(x):
    print(f"{x}")


# (tilec has no hip namespace: the cuda import is the first that resolves)
# LOCAL-DAG: # {{.*}}ast_module_level.py:19: 'libdevice' is 'from triton.language.extra.cuda import libdevice', the first of 3 alternatives
# LOCAL-DAG: # {{.*}}ast_module_level.py:30: 'scale' is 'def scale', the first of 2 alternatives
# LOCAL: kernel scaled_exp(p: *fp32, n: i32)
# LOCAL: (arange [start=0 end=128] : <128xi32>)
# LOCAL: (libdevice.exp2
# LOCAL: (mul {{.*}} 2.0:<128xfp32>
@triton.jit
def scaled_exp(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, half_of(BLOCK))
    x = tl.load(p + offs, mask=offs < n)
    tl.store(p + offs, scale(fast_exp(x)), mask=offs < n)


def _impl(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, TWICE)
    if ON_HOPPER:
        tl.store(p + offs, 1.0, mask=offs < n)
    else:
        tl.store(p + offs, 2.0, mask=offs < n)


# CALL: kernel _impl(p: *fp32, n: i32)
# CALL: (arange [start=0 end=128] : <128xi32>)
# CALL: (store {{.*}} 1.0:<128xfp32>
# CALL-NOT: 2.0
made_by_call = triton.jit(_impl, do_not_specialize=["n"])

# PKG: # {{.*}}normlib/utils/triton_compat.py:18: 'rsqrt' is 'from triton.language.extra.libdevice import rsqrt', the first of 3
# PKG: kernel _rms_norm_forward(Y: *fp32, X: *fp16, W: *fp16, stride: i32, n_cols: i32, eps: fp32)
# PKG: (cast row_1:i32 : i64) {{.*}} in row_start
# PKG: (libdevice.rsqrt
# PKG: (fma {{.*}} in mul_add
# GELU: kernel _gelu_kernel(X: *fp32, Y: *fp32, n: i32)
# GELU: constexpr WIDE = True
# GELU: (erf
