# RMS norm forward and a fused GELU, as an operator library writes them:
# helpers and tl from the library's own modules, a kernel made by calling
# triton.jit, one whose heuristics are applied by a call, and a constexpr
# global that host code computes (give it with -D HAS_TMA=...).
import torch

from normlib.utils.helpers import acc_type, mul_add, row_start
from ..utils import helpers as H
from ..utils.triton_compat import rsqrt, tl, triton

HAS_TMA = tl.constexpr(torch.cuda.get_device_capability()[0] >= 9)


def _rms_norm_forward(Y, X, W, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row_start(row, stride)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(X + base + offs, mask=mask, other=0.0).to(acc_type(X.dtype.element_ty))
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    r = rsqrt(mean_sq + eps)
    w = tl.load(W + offs, mask=mask, other=0.0).to(acc_type(W.dtype.element_ty))
    y = mul_add(x * r, w, 0.0)
    tl.store(Y + base + offs, y.to(Y.dtype.element_ty), mask=mask)


rms_norm_kernel = triton.jit(_rms_norm_forward, do_not_specialize=["eps"])


@triton.jit
def _gelu_kernel(X, Y, n, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if HAS_TMA:
        y = H.gelu(x)
    else:
        y = H.gelu(x.to(tl.float32)).to(x.dtype)
    tl.store(Y + offs, y, mask=mask)


gelu_kernel = triton.heuristics({"WIDE": lambda args: args["BLOCK"] > 2048})(_gelu_kernel)


def rms_norm_forward(x, w, eps=1e-6):
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    rms_norm_kernel[(n_rows,)](y, x, w, x.stride(0), n_cols, eps, BLOCK=triton.next_power_of_2(n_cols))
    return y
