"""NumPy inputs and references for run.sh's emulator checks of Triton's tutorials.

    tutorials_ref.py make NAME ROWS COLS DIR    writes the inputs of check NAME to DIR/*.npy
    tutorials_ref.py check NAME ROWS COLS DIR   compares DIR/out_*.npy with the reference

fp16 outputs are compared within 1e-2 (their rounding and the order of sums differ).
"""
import sys

import numpy as np

from emu_ref import main, nan, rand


def half(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float16)


def hnan(*shape):
    return np.full(shape, np.nan, dtype=np.float16)


def f64(x):
    return x.astype(np.float64)


HALF_TOL = (1e-2, 1e-2)


# 01: z = x + y over R * C elements
def vector_add_in(rng, r, c):
    return {"x": rand(rng, r * c), "y": rand(rng, r * c), "z": nan(r * c)}


def vector_add_ref(i):
    return {"z": f64(i["x"]) + f64(i["y"])}


# 02: the softmax of each row
def softmax_in(rng, r, c):
    return {"x": rand(rng, r, c, lo=-4.0, hi=4.0), "y": nan(r, c)}


def softmax_ref(i):
    x = f64(i["x"])
    e = np.exp(x - x.max(1, keepdims=True))
    return {"y": e / e.sum(1, keepdims=True)}


# 03: c = a @ b, fp16 [R, 80] @ [80, C], K ragged against BLOCK_K 32
MM_K = 80


def matmul_in(rng, r, c):
    return {"a": half(rng, r, MM_K, scale=0.5), "b": half(rng, MM_K, c, scale=0.5), "c": hnan(r, c)}


def matmul_ref(i):
    return {"c": (f64(i["a"]) @ f64(i["b"]),) + HALF_TOL}


# 09: c = a @ b with b handed over transposed, as 09's host code passes it (b.T of a
# [K, N] matrix: memory [N][K], stride_bk 1)
def matmul_bt_in(rng, r, c):
    return {"a": half(rng, r, MM_K, scale=0.5), "bt": half(rng, c, MM_K, scale=0.5), "c": hnan(r, c)}


def matmul_bt_ref(i):
    return {"c": (f64(i["a"]) @ f64(i["bt"]).T,) + HALF_TOL}


# 05: the fused layer norm's forward, fp16 rows, fp32 mean and 1/std
def layer_norm_in(rng, r, c):
    return {"x": half(rng, r, c), "w": half(rng, c), "b": half(rng, c), "y": hnan(r, c),
            "mean": nan(r), "rstd": nan(r)}


def layer_norm_ref(i):
    x = f64(i["x"])
    mean = x.mean(1)
    rstd = 1.0 / np.sqrt(((x - mean[:, None]) ** 2).mean(1) + 1e-5)
    y = (x - mean[:, None]) * rstd[:, None] * f64(i["w"]) + f64(i["b"])
    return {"y": (y,) + HALF_TOL, "mean": (mean, 1e-4, 1e-4), "rstd": (rstd, 1e-4, 1e-4)}


# 06: attention's forward, one batch of 2 heads of C tokens, HEAD_DIM 64, sm_scale 0.5;
# o (fp16) and M, the base-2 log of each row's softmax denominator
ATT_H, ATT_D, ATT_SCALE = 2, 64, 0.5


def attention_in(rng, r, c):
    shape = (1, ATT_H, c, ATT_D)
    return {"q": half(rng, *shape), "k": half(rng, *shape), "v": half(rng, *shape),
            "o": hnan(*shape), "m": nan(ATT_H * c)}


RCP_LN2 = 1.0 / np.log(2.0)


def attention_parts(q, k, causal):
    """softmax(q k^T * scale) of double q and k, and each row's base-2 log-sum-exp."""
    n = q.shape[1]
    s = q @ k.transpose(0, 2, 1) * ATT_SCALE
    if causal:
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    mx = s.max(2, keepdims=True)
    e = np.exp(s - mx)
    den = e.sum(2, keepdims=True)
    return e / den, ((mx + np.log(den))[..., 0] * RCP_LN2)


def attention_ref(i, causal):
    p, m = attention_parts(f64(i["q"][0]), f64(i["k"][0]), causal)
    return {"o": ((p @ f64(i["v"][0]))[None],) + HALF_TOL, "m": (m.reshape(-1), 1e-3, 1e-4)}


# 06: attention's backward, the same shapes. The tutorial's host code hands _attn_bwd K scaled by
# sm_scale / ln 2 (so that exp2 gives the softmax), M from the forward (the base-2 log of each row's
# denominator, its maximum included) and Delta from _attn_bwd_preprocess (each row's sum of o * do);
# the inputs here are made that way from the K the kernel reads, and the gradients of
# o = softmax(q k^T * sm_scale) v are computed in double.


def attention_bwd_in(rng, r, c, causal):
    shape = (1, ATT_H, c, ATT_D)
    q, v, do = half(rng, *shape), half(rng, *shape), half(rng, *shape)
    k_arg = (half(rng, *shape).astype(np.float64) * (ATT_SCALE * RCP_LN2)).astype(np.float16)
    k = f64(k_arg[0]) / (ATT_SCALE * RCP_LN2)
    p, m = attention_parts(f64(q[0]), k, causal)
    o = p @ f64(v[0])
    delta = (o * f64(do[0])).sum(2)
    return {"q": q, "k_arg": k_arg, "v": v, "do": do, "m": m.reshape(-1).astype(np.float32),
            "delta": delta.reshape(-1).astype(np.float32), "dq": hnan(*shape), "dk": hnan(*shape),
            "dv": hnan(*shape)}


def attention_bwd_ref(i, causal):
    q, v, do = f64(i["q"][0]), f64(i["v"][0]), f64(i["do"][0])
    k = f64(i["k_arg"][0]) / (ATT_SCALE * RCP_LN2)
    p, _ = attention_parts(q, k, causal)
    dv = p.transpose(0, 2, 1) @ do
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - i["delta"].astype(np.float64).reshape(ATT_H, -1)[..., None])
    dq = ds @ k * ATT_SCALE
    dk = ds.transpose(0, 2, 1) @ q * ATT_SCALE
    return {"dq": (dq[None],) + HALF_TOL, "dk": (dk[None],) + HALF_TOL, "dv": (dv[None],) + HALF_TOL}


# 06: the backward's preprocess, Delta = the sum over each row of o * do (fp16 in, fp32 out)
def attention_pre_in(rng, r, c):
    shape = (1, ATT_H, c, ATT_D)
    return {"o": half(rng, *shape), "do": half(rng, *shape), "delta": nan(ATT_H * c)}


def attention_pre_ref(i):
    return {"delta": ((f64(i["o"]) * f64(i["do"])).sum(3).reshape(-1), 1e-4, 1e-4)}


CHECKS = {
    "vector_add": (vector_add_in, vector_add_ref),
    "softmax": (softmax_in, softmax_ref),
    "matmul": (matmul_in, matmul_ref),
    "matmul_hinted": (matmul_in, matmul_ref),
    "matmul_bt": (matmul_bt_in, matmul_bt_ref),
    "matmul_tma": (matmul_bt_in, matmul_bt_ref),
    "matmul_tma_persistent": (matmul_bt_in, matmul_bt_ref),
    "layer_norm": (layer_norm_in, layer_norm_ref),
    "attention_causal": (attention_in, lambda i: attention_ref(i, True)),
    "attention": (attention_in, lambda i: attention_ref(i, False)),
    "attention_tma_causal": (attention_in, lambda i: attention_ref(i, True)),
    "attention_bwd_causal": (lambda g, r, c: attention_bwd_in(g, r, c, True), lambda i: attention_bwd_ref(i, True)),
    "attention_bwd": (lambda g, r, c: attention_bwd_in(g, r, c, False), lambda i: attention_bwd_ref(i, False)),
    "attention_bwd_preprocess": (attention_pre_in, attention_pre_ref),
}

if __name__ == "__main__":
    sys.exit(main(sys.argv, CHECKS))
