"""The tilec package from PyTorch: kernels as torch.library operators on CPU
tensors (run on the CPU emulator in place), checked by opcheck, kept whole
by torch.compile(fullgraph=True), and the layer norm example's autograd.

    TILEC_LIBRARY=... PYTHONPATH=python:examples python tests/frameworks/test_torch.py EXAMPLES_DIR
"""
import os
import sys

import torch

import tilec
import tilec.torch
from harness import case, finish

EX = sys.argv[1]
sys.path.insert(0, EX)
torch.manual_seed(3)



add = tilec.torch.custom_op(
    "tilec_test::add", tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel"),
    grid=lambda meta: (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),),
    outputs={"out_ptr": lambda meta: torch.empty_like(meta["x_ptr"])}, scalars={"n_elements": int}, BLOCK_SIZE=256)

softmax_kernel = tilec.jit(os.path.join(EX, "softmax.py"))
softmax = tilec.torch.custom_op(
    "tilec_test::softmax", softmax_kernel, grid=lambda meta: (meta["n_rows"],),
    outputs={"out_ptr": lambda meta: torch.empty_like(meta["in_ptr"])},
    scalars={"in_row_stride": int, "out_row_stride": int, "n_rows": int, "n_cols": int}, BLOCK_SIZE=512)

matmul = tilec.torch.custom_op(
    "tilec_test::matmul", tilec.jit(os.path.join(EX, "matmul.py"), kernel="matmul_kernel"),
    grid=lambda meta: (tilec.cdiv(meta["M"], meta["BLOCK_SIZE_M"]) * tilec.cdiv(meta["N"], meta["BLOCK_SIZE_N"]),),
    outputs={"c_ptr": lambda meta: meta["a_ptr"].new_empty((meta["M"], meta["N"]))},
    scalars={n: int for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")},
    ACTIVATION="")


def mm(a, b):
    M, K = a.shape
    N = b.shape[1]
    return matmul(a, b, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), N, 1)


@case
def vector_add():
    x, y = torch.randn(1000), torch.randn(1000)
    assert torch.equal(add(x, y, 1000), x + y)
    assert torch.equal(torch.ops.tilec_test.add.default(x, y, 1000), x + y)
    torch.library.opcheck(add, (x, y, 1000))


@case
def softmax_rows():
    x = torch.randn(37, 300)
    y = softmax(x, x.stride(0), x.stride(0), 37, 300)
    assert torch.allclose(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-7)
    torch.library.opcheck(softmax, (x, x.stride(0), x.stride(0), 37, 300))


@case
def matmul_fp16():
    a, b = torch.randn(70, 50, dtype=torch.float16), torch.randn(50, 90, dtype=torch.float16)
    err = (mm(a, b).double() - a.double() @ b.double()).abs().max().item()
    assert err < 0.05, f"matmul differs by {err}"


@case
def compiled_fullgraph():
    def f(x, y, w):
        h = add(x, y, x.numel()).reshape(20, 50)
        return softmax(h * w, 50, 50, 20, 50).sum(dim=0)
    x, y, w = torch.randn(1000), torch.randn(1000), torch.randn(20, 50)
    g = torch.compile(f, fullgraph=True)
    want = torch.softmax((x + y).reshape(20, 50) * w, dim=1).sum(dim=0)
    assert torch.allclose(g(x, y, w), want, rtol=1e-5, atol=1e-6)


@case
def layer_norm_autograd():
    import torch_layer_norm as ln
    x = torch.randn(45, 200, requires_grad=True)
    w, b = torch.randn(200, requires_grad=True), torch.randn(200, requires_grad=True)
    y = ln.layer_norm(x, w, b)
    ref = torch.nn.functional.layer_norm(x, (200,), w, b)
    assert torch.allclose(y, ref, rtol=1e-4, atol=1e-5)
    dy = torch.randn_like(y)
    for g, r in zip(torch.autograd.grad(y, (x, w, b), dy), torch.autograd.grad(ref, (x, w, b), dy)):
        assert torch.allclose(g, r, rtol=1e-3, atol=1e-4), (g - r).abs().max().item()
    # and compiled: the custom operators stay in the graph, forward and backward
    yc = torch.compile(ln.layer_norm, fullgraph=True)(x, w, b)
    assert torch.allclose(yc, ref, rtol=1e-4, atol=1e-5)


@case
def wrong_dtype_gives_tilecs_message():
    x = torch.arange(300, dtype=torch.int32).reshape(1, 300)
    try:
        softmax(x, 300, 300, 1, 300)
        raise AssertionError("an int32 softmax compiled")
    except tilec.CompileError as e:
        assert "softmax.py:" in str(e) and "tl.exp" in str(e), str(e)


finish()
