"""NumPy inputs and references for run.sh's emulator checks of sglang kernels.

    sglang_ref.py make NAME ROWS COLS DIR    writes the inputs of check NAME to DIR/*.npy
    sglang_ref.py check NAME ROWS COLS DIR   compares DIR/out_*.npy with the reference

ROWS is the token count; the expert counts are the kernels' constexprs in run.sh's
table (COLS is unused). Routers rank experts by a score, ties to the lower expert id,
as the kernels' packed sort keys do. Outputs the kernel only writes start as NaN (or -1).
"""
import sys

import numpy as np

from emu_ref import main, nan


def sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def top(score, k):
    """The k best columns of each row of score: descending, ties to the lower column."""
    cols = np.arange(score.shape[1])
    return np.stack([np.lexsort((cols, -row))[:k] for row in score])


def ints(*shape):
    return np.full(shape, -1, dtype=np.int32)


# gate_topk.py _streaming_topk_kernel: the top 6 of 240 scores per token, values and ids
TOPK_N, TOPK_K = 240, 6


def streaming_topk_in(rng, r, c):
    return {"x": rng.standard_normal((r, TOPK_N)).astype(np.float32), "values": nan(r, TOPK_K), "indices": ints(r, TOPK_K)}


def streaming_topk_ref(i):
    idx = top(i["x"], TOPK_K)
    return {"values": np.take_along_axis(i["x"], idx, 1), "indices": idx}


# moe_fused_gate.py _sm120_router_top22_kernel: 512 experts ranked by sigmoid(score) +
# bias, the 22 best's sigmoid(score) renormalized and scaled by 2.5
def router_top22_in(rng, r, c):
    return {"scores": rng.standard_normal((r, 512)).astype(np.float32),
            "bias": (0.1 * rng.standard_normal(512)).astype(np.float32),
            "weights": nan(r, 22), "ids": ints(r, 22)}


def router_top22_ref(i):
    act = sigmoid(i["scores"])
    idx = top(act + i["bias"], 22)
    w = np.take_along_axis(act, idx, 1).astype(np.float64)
    return {"weights": w / w.sum(1, keepdims=True) * 2.5, "ids": idx}


# sigmoid_gate_topk_renorm.py: 256 routed experts ranked by sigmoid(logit) + bias, the 6
# best and the 2 shared experts (logit columns 256, 257 of 272) weighted by their
# sigmoids renormalized, times route_scale 1.25 and global_scale
SG_N, SG_S, SG_K, SG_STRIDE = 256, 2, 6, 272


def sigmoid_gate_in(rng, r, c):
    return {"logits": rng.standard_normal((r, SG_STRIDE)).astype(np.float32),
            "bias": (0.1 * rng.standard_normal(SG_N)).astype(np.float32),
            "scale": np.array([0.75], dtype=np.float32),
            "routed": nan(r, SG_K), "shared": nan(r, SG_S), "indices": ints(r, SG_K),
            "packed": np.zeros((r, SG_K), dtype=np.int32)}


def sigmoid_gate_ref(i):
    lg = i["logits"]
    idx = top(sigmoid(lg[:, :SG_N]) + i["bias"], SG_K)
    active = np.concatenate([np.take_along_axis(lg, idx, 1), lg[:, SG_N:SG_N + SG_S]], 1)
    p = 1.0 / (1.0 + np.exp(-active.astype(np.float64)))
    w = p / p.sum(1, keepdims=True) * 1.25 * float(i["scale"][0])
    return {"routed": w[:, :SG_K], "shared": w[:, SG_K:], "indices": idx}


CHECKS = {
    "streaming_topk": (streaming_topk_in, streaming_topk_ref),
    "router_top22": (router_top22_in, router_top22_ref),
    "sigmoid_gate": (sigmoid_gate_in, sigmoid_gate_ref),
}

if __name__ == "__main__":
    sys.exit(main(sys.argv, CHECKS))
