"""NumPy inputs and references for run.sh's emulator checks of liger-kernel kernels.

    emu_ref.py make NAME ROWS COLS DIR    writes the inputs of check NAME to DIR/*.npy
    emu_ref.py check NAME ROWS COLS DIR   compares DIR/out_*.npy, which tilec run saved,
                                          with the reference; exits 1 on a mismatch

Every array is fp32, rows x cols and contiguous, unless said otherwise. Outputs the
kernel only writes start as NaN, so an element it leaves alone shows. A reference is an
array (compared within 2e-5 + 2e-5 |x|) or (array, atol, rtol).
"""
import sys

import numpy as np


def rand(rng, *shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def nan(*shape):
    return np.full(shape, np.nan, dtype=np.float32)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


GATE = np.float32(1.5)  # the gate_multiplier run.sh passes to the swiglu kernels


# name -> (inputs(rng, R, C) -> {file: array}, reference(inputs) -> {output: array})
def swiglu_fwd_in(rng, r, c):
    return {"a": rand(rng, r, c), "b": rand(rng, r, c), "c": nan(r, c)}


def swiglu_fwd_ref(i):
    a = i["a"].astype(np.float64) * GATE
    return {"c": a * sigmoid(a) * i["b"]}


def swiglu_bwd_in(rng, r, c):
    return {"dc": rand(rng, r, c), "a": rand(rng, r, c), "b": rand(rng, r, c)}


def swiglu_bwd_ref(i):
    a = i["a"].astype(np.float64) * GATE
    s = sigmoid(a)
    silu = a * s
    dc = i["dc"].astype(np.float64)
    return {"dc": i["dc"], "a": dc * (silu * (1 - s) + s) * i["b"] * GATE, "b": dc * silu}


def geglu_fwd_ref(i):
    a = i["a"].astype(np.float64)
    g = 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3)))
    return {"c": g * i["b"]}


def relu_squared_fwd_in(rng, r, c):
    return {"x": rand(rng, r, c), "y": nan(r, c)}


def relu_squared_fwd_ref(i):
    return {"y": np.maximum(i["x"].astype(np.float64), 0) ** 2}


def relu_squared_bwd_in(rng, r, c):
    return {"dy": rand(rng, r, c), "x": rand(rng, r, c), "dx": nan(r, c)}


def relu_squared_bwd_ref(i):
    return {"dx": i["dy"].astype(np.float64) * 2 * np.maximum(i["x"], 0)}


def rms_norm_fwd_in(rng, r, c):
    return {"x": rand(rng, r, c), "w": rand(rng, c), "y": nan(r, c), "rstd": nan(r)}


def rms_norm_fwd_ref(i):
    x = i["x"].astype(np.float64)
    rstd = 1 / np.sqrt(np.mean(x * x, axis=1) + 1e-6)
    return {"y": x * rstd[:, None] * (0.0 + i["w"]), "rstd": rstd}


def layer_norm_fwd_in(rng, r, c):
    return {"x": rand(rng, r, c), "w": rand(rng, c), "b": rand(rng, c), "y": nan(r, c),
            "mean": nan(r), "rstd": nan(r)}


def layer_norm_fwd_ref(i):
    x = i["x"].astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + 1e-5)
    return {"y": (x - mean[:, None]) * rstd[:, None] * i["w"] + i["b"], "mean": mean, "rstd": rstd}


def softmax_fwd_in(rng, r, c):
    return {"x": rand(rng, r, c, lo=-8, hi=8), "y": nan(r, c)}


def softmax_fwd_ref(i):
    x = i["x"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def softmax_bwd_in(rng, r, c):
    y = softmax_fwd_ref({"x": rand(rng, r, c, lo=-8, hi=8)})["y"].astype(np.float32)
    return {"dy": rand(rng, r, c), "y": y, "dx": nan(r, c)}


def softmax_bwd_ref(i):
    dy = i["dy"].astype(np.float64)
    y = i["y"].astype(np.float64)
    return {"dx": y * (dy - (dy * y).sum(axis=1, keepdims=True))}


def dyt_fwd_in(rng, r, c):
    return {"x": rand(rng, r, c), "alpha": rand(rng, 1, lo=0.2, hi=1.5), "gamma": rand(rng, c),
            "beta": rand(rng, c), "y": nan(r, c)}


def dyt_fwd_ref(i):
    x = i["x"].astype(np.float64)
    return {"y": np.tanh(i["alpha"][0] * x) * i["gamma"] + i["beta"]}


def element_mul_in(rng, r, c):
    return {"x": rand(rng, r, c), "g": rand(rng, 1)}


def element_mul_ref(i):
    return {"x": i["x"].astype(np.float64) * i["g"][0]}


CHECKS = {
    "swiglu_fwd": (swiglu_fwd_in, swiglu_fwd_ref),
    "swiglu_bwd": (swiglu_bwd_in, swiglu_bwd_ref),
    "geglu_fwd": (swiglu_fwd_in, geglu_fwd_ref),
    "relu_squared_fwd": (relu_squared_fwd_in, relu_squared_fwd_ref),
    "relu_squared_bwd": (relu_squared_bwd_in, relu_squared_bwd_ref),
    "rms_norm_fwd": (rms_norm_fwd_in, rms_norm_fwd_ref),
    "layer_norm_fwd": (layer_norm_fwd_in, layer_norm_fwd_ref),
    "softmax_fwd": (softmax_fwd_in, softmax_fwd_ref),
    "softmax_bwd": (softmax_bwd_in, softmax_bwd_ref),
    "dyt_fwd": (dyt_fwd_in, dyt_fwd_ref),
    "element_mul": (element_mul_in, element_mul_ref),
}


def main(argv, checks=CHECKS):
    """make or check, for the table checks (sglang_ref.py passes its own)."""
    if len(argv) != 6 or argv[1] not in ("make", "check") or argv[2] not in checks:
        print("usage: %s make|check NAME ROWS COLS DIR (NAME: %s)" % (argv[0], ", ".join(checks)))
        return 2
    mode, name, rows, cols, d = argv[1], argv[2], int(argv[3]), int(argv[4]), argv[5]
    make, ref = checks[name]
    seed = (sum(map(ord, name)) * 1000003 + rows * 131 + cols) % (2**32)
    inputs = make(np.random.default_rng(seed), rows, cols)
    if mode == "make":
        for k, v in inputs.items():
            np.save("%s/%s.npy" % (d, k), v)
        return 0
    bad = 0
    for k, want in ref(inputs).items():
        try:
            got = np.load("%s/out_%s.npy" % (d, k))
        except OSError as e:
            print("error: no output %s: %s" % (k, e))
            bad += 1
            continue
        atol, rtol = 2e-5, 2e-5
        if isinstance(want, tuple):  # (reference, absolute, relative tolerance): a 16-bit output
            want, atol, rtol = want
        want = np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            print("error: %s has shape %s, expected %s" % (k, got.shape, want.shape))
            bad += 1
            continue
        got = got.astype(np.float64)
        err = np.abs(got - want)
        tol = atol + rtol * np.abs(want)
        wrong = ~(err <= tol)  # NaN counts as wrong
        if wrong.any():
            idx = tuple(int(j) for j in np.argwhere(wrong)[0])
            print("error: %s differs from NumPy in %d of %d elements; first at %s: got %r, expected %r"
                  % (k, int(wrong.sum()), want.size, idx, float(got[idx]), float(want[idx])))
            bad += 1
        else:
            print("%s: %d elements agree (max abs error %.3g)" % (k, want.size, float(err.max())))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
