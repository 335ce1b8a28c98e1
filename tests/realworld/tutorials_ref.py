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


def attention_ref(i, causal):
    q, k, v = f64(i["q"][0]), f64(i["k"][0]), f64(i["v"][0])
    n = q.shape[1]
    s = q @ k.transpose(0, 2, 1) * ATT_SCALE
    if causal:
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    mx = s.max(2, keepdims=True)
    e = np.exp(s - mx)
    den = e.sum(2, keepdims=True)
    o = (e / den) @ v
    m = (mx + np.log(den))[..., 0] / np.log(2.0)
    return {"o": (o[None],) + HALF_TOL, "m": (m.reshape(-1), 1e-3, 1e-4)}


CHECKS = {
    "vector_add": (vector_add_in, vector_add_ref),
    "softmax": (softmax_in, softmax_ref),
    "matmul": (matmul_in, matmul_ref),
    "matmul_hinted": (matmul_in, matmul_ref),
    "layer_norm": (layer_norm_in, layer_norm_ref),
    "attention_causal": (attention_in, lambda i: attention_ref(i, True)),
    "attention": (attention_in, lambda i: attention_ref(i, False)),
}

if __name__ == "__main__":
    sys.exit(main(sys.argv, CHECKS))
