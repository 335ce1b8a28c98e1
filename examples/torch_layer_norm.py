"""Layer norm as a PyTorch operator with autograd, on tilec.

The forward and backward kernels of layer_norm.py (tutorial 05's) become
operators through tilec.torch.custom_op, and torch.library.register_autograd
ties them together, so that `layer_norm(x, w, b)` takes part in autograd
and in torch.compile like any PyTorch operator. On CPU tensors the kernels
run on tilec's CPU emulator; on CUDA tensors, on the GPU.

    TILEC_LIBRARY=build/compile/libtilec.so PYTHONPATH=python python examples/torch_layer_norm.py
"""
import os

import torch

import tilec
import tilec.torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layer_norm.py")
BLOCK = 256  # the largest row this example takes
GROUP = 8    # the backward's partial sums of dw and db: one row per group of input rows

_fwd = tilec.jit(HERE, kernel="layer_norm_fwd_kernel")
_bwd_dx = tilec.jit(HERE, kernel="layer_norm_bwd_dx_kernel")
_bwd_dwdb = tilec.jit(HERE, kernel="layer_norm_bwd_dwdb_kernel")

# y, mean, rstd = forward(x, w, b, stride, N, eps)
forward = tilec.torch.custom_op(
    "tilec_example::layer_norm_fwd", _fwd, grid=lambda m: (m["X"].shape[0],),
    outputs={"Y": lambda m: torch.empty_like(m["X"]),
             "Mean": lambda m: m["X"].new_empty(m["X"].shape[0], dtype=torch.float32),
             "Rstd": lambda m: m["X"].new_empty(m["X"].shape[0], dtype=torch.float32)},
    scalars={"stride": int, "N": int, "eps": float}, BLOCK_SIZE=BLOCK)

# dx, partial dw, partial db (and the kernel's locks) = backward_dx(dy, x, w, mean, rstd, stride, N)
backward_dx = tilec.torch.custom_op(
    "tilec_example::layer_norm_bwd_dx", _bwd_dx, grid=lambda m: (m["X"].shape[0],),
    outputs={"DX": lambda m: torch.empty_like(m["X"]),
             "DW": lambda m: m["X"].new_zeros((GROUP, m["N"]), dtype=torch.float32),
             "DB": lambda m: m["X"].new_zeros((GROUP, m["N"]), dtype=torch.float32),
             "Lock": lambda m: m["X"].new_zeros(GROUP, dtype=torch.int32),
             "Count": lambda m: m["X"].new_zeros(GROUP, dtype=torch.int32)},
    scalars={"stride": int, "N": int}, GROUP_SIZE_M=GROUP, BLOCK_SIZE_N=BLOCK)

# dw, db = backward_dwdb(partial dw, partial db, M, N)
backward_dwdb = tilec.torch.custom_op(
    "tilec_example::layer_norm_bwd_dwdb", _bwd_dwdb, grid=lambda m: (tilec.cdiv(m["N"], 128),),
    outputs={"FINAL_DW": lambda m: m["DW"].new_empty(m["N"]), "FINAL_DB": lambda m: m["DB"].new_empty(m["N"])},
    scalars={"M": int, "N": int}, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)


def _setup_context(ctx, inputs, output):
    x, w, _b, stride, n, _eps = inputs
    _y, mean, rstd = output
    ctx.save_for_backward(x, w, mean, rstd)
    ctx.stride, ctx.n = stride, n


def _backward(ctx, dy, _dmean, _drstd):
    x, w, mean, rstd = ctx.saved_tensors
    dx, pdw, pdb, _lock, _count = backward_dx(dy.contiguous(), x, w, mean, rstd, ctx.stride, ctx.n)
    dw, db = backward_dwdb(pdw, pdb, GROUP, ctx.n)
    return dx, dw, db, None, None, None


torch.library.register_autograd("tilec_example::layer_norm_fwd", _backward, setup_context=_setup_context)


def layer_norm(x, w, b, eps=1e-5):
    """torch.nn.functional.layer_norm over the last dimension (at most 256 wide), on tilec's kernels."""
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    if x2.shape[1] > BLOCK:
        raise ValueError(f"layer_norm: rows of {x2.shape[1]}; this example takes at most {BLOCK}")
    y, _mean, _rstd = forward(x2, w, b, x2.stride(0), x2.shape[1], eps)
    return y.reshape(x.shape)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(45, 200, requires_grad=True)
    w = torch.randn(200, requires_grad=True)
    b = torch.randn(200, requires_grad=True)
    y = layer_norm(x, w, b)
    ref = torch.nn.functional.layer_norm(x, (200,), w, b)
    dy = torch.randn_like(y)
    got = torch.autograd.grad(y, (x, w, b), dy)
    want = torch.autograd.grad(ref, (x, w, b), dy)
    print("forward max error", (y - ref).abs().max().item())
    for name, g, r in zip(("dx", "dw", "db"), got, want):
        print(f"{name} max error", (g - r).abs().max().item())
