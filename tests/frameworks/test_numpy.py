"""The tilec package on NumPy arrays: the examples' kernels launched with
Triton's syntax, run on the CPU emulator in place, against NumPy.

    TILEC_LIBRARY=build/compile/libtilec.so PYTHONPATH=python python3 tests/frameworks/test_numpy.py EXAMPLES_DIR
"""
import os
import shutil
import sys
import tempfile

import numpy as np

import tilec
from harness import case, finish

EX = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "examples")
rng = np.random.default_rng(7)



@case
def vector_add():
    add = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
    n = 1000  # ragged: the last program is masked
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    add[lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=256)
    assert np.array_equal(out, x + y), "vector add differs"
    # the same kernel by keywords, and a tuple grid; a second specialization (n not divisible by 16)
    out2 = np.full(n - 3, np.nan, dtype=np.float32)
    add[(tilec.cdiv(n - 3, 128),)](x_ptr=x, y_ptr=y, out_ptr=out2, n_elements=n - 3, BLOCK_SIZE=128)
    assert np.array_equal(out2, (x + y)[: n - 3]), "vector add by keywords differs"


@case
def launches_of_one_pattern():
    # the second and later launches take the first one's plan: new arrays, new scalar values, views,
    # and a constexpr that changes (another kernel) must all be read again
    add = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
    grid = lambda meta: (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
    for n, block in ((1000, 128), (333, 128), (333, 64), (2**20 + 5, 1024)):
        x, y = rng.standard_normal(n + 7, dtype=np.float32), rng.standard_normal(n + 7, dtype=np.float32)
        out = np.full(n + 7, np.nan, dtype=np.float32)
        add[grid](x[7:], y[:n], out[3:n + 3], n, BLOCK_SIZE=block)  # views: offsets into their arrays
        assert np.array_equal(out[3:n + 3], x[7:] + y[:n]), f"n={n}, BLOCK_SIZE={block}"
        assert np.isnan(out[:3]).all() and np.isnan(out[n + 3:]).all(), "wrote outside the view"
    x = np.zeros(64, np.float32)
    x.flags.writeable = False
    try:
        add[(1,)](x, x, np.zeros(64, np.float32), 64, BLOCK_SIZE=64)
        raise AssertionError("a read-only array was taken")
    except TypeError as e:
        assert "read-only" in str(e)


@case
def launches_take_their_plans():
    # a launch like one before takes that one's plan, without the full path;
    # what the plan's specialization assumed (dtype, an int's width, a
    # constexpr, the arrays' identity) changing takes the full path again
    add = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
    full = []
    slow = add._run_slow
    add._run_slow = lambda *a: (full.append(1), slow(*a))
    n = 64
    x, y, out = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32), np.zeros(n, np.float32)
    for i in range(5):
        x += 1  # the same arrays, new contents: read again at each launch
        add[(1,)](x, y, out, n, BLOCK_SIZE=64)
        assert np.array_equal(out, x + y), f"launch {i} differs"
    assert len(full) == 1, f"{len(full)} launches of one pattern took the full path"
    grid = lambda meta: (tilec.cdiv(min(meta["n_elements"], 64), meta["BLOCK_SIZE"]),)  # the arrays have 64
    cases = [
        (np.float32, 64, 64, 1),       # a callable grid: a new shape of call
        (np.float32, 64, 64, 0),
        (np.float64, 64, 64, 1),       # another dtype
        (np.float32, 40, 64, 1),       # n = 40: another specialization (not divisible by 16), and a new plan
        (np.float32, 2**31 + 5, 64, 1),  # an i64: another signature
        (np.float32, 64, 32, 1),       # another constexpr
        (np.float32, 40, 64, 0),       # each plan is kept, latest first
        (np.float32, 64, 64, 0),
    ]
    for dt, n, block, new in cases:
        full.clear()
        m = 64
        x, y, out = rng.standard_normal(m).astype(dt), rng.standard_normal(m).astype(dt), np.zeros(m, dt)
        add[grid](x, y, out, n, BLOCK_SIZE=block)  # new arrays: the full path once, to register them
        add[grid](x, y, out, n, BLOCK_SIZE=block)
        k = min(n, tilec.cdiv(min(n, m), block) * block)
        assert np.array_equal(out[:k], (x + y)[:k]), f"{dt.__name__}, n={n}, BLOCK_SIZE={block} differs"
        assert len(full) == 1, f"{dt.__name__}, n={n}, BLOCK_SIZE={block}: {len(full)} of 2 launches took the full path"
    # a view, then the array it views: two arrays, two addresses
    base = np.zeros(70, np.float32)
    v = base[6:]
    one = np.ones(64, np.float32)
    add[(1,)](one, one, v, 64, BLOCK_SIZE=64)
    add[(1,)](one, one, v, 64, BLOCK_SIZE=64)
    add[(1,)](one, one, base, 64, BLOCK_SIZE=64)
    assert (base[:6] == 2).all() and (base[64:] == 2).all() and (base[6:64] == 2).all(), "a view and its base mixed up"
    assert base[65] == 2 and (v[58:] == 2).all()
    # arrays that go: a new one at the same address is registered afresh
    for i in range(20):
        t = np.full(64, float(i), np.float32)
        add[(1,)](t, one, t, 64, BLOCK_SIZE=64)
        assert (t == i + 1).all(), f"round {i}: {t[:4]}"
    # a launch's error from the plan's path is the same exception
    try:
        add[(2,)](x, y, out, 128, BLOCK_SIZE=64)  # x has 64 elements: the emulator's bounds check
        raise AssertionError("an out-of-bounds launch passed")
    except tilec.LaunchError as e:
        assert "out-of-bounds load" in str(e), str(e)


@case
def cuda_array_interface():
    # objects with __cuda_array_interface__ on the CUDA device, on the fake
    # driver of the tests (run-frameworks.sh): each launch is a line of its
    # trace, with its grid and which allocation the first argument is in
    trace = os.environ.get("FAKE_CUDA_TRACE")
    if not trace:
        print("     (no fake CUDA driver: skipped)")
        return
    import ctypes
    from tilec import _lib
    jit_module = sys.modules["tilec.jit"]  # (tilec.jit is the function)
    lib = _lib.lib
    lib.tilec_device_alloc.restype = ctypes.c_int
    lib.tilec_device_alloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64),
                                       ctypes.POINTER(ctypes.c_void_p)]
    dev = jit_module._Device.get(jit_module.CUDA)

    class Buffer:
        def __init__(self, n, typestr):
            p = ctypes.c_uint64()
            assert lib.tilec_device_alloc(dev, n * 4, ctypes.byref(p), None) == 0
            self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (p.value, False),
                                             "version": 3, "strides": None, "stream": None}

    add = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
    full = []
    slow = add._run_slow
    add._run_slow = lambda *a: (full.append(1), slow(*a))
    bufs = [Buffer(1000, "<f4") for _ in range(3)]
    grid = lambda meta: (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
    for n, order in ((1000, (0, 1, 2)), (1000, (1, 0, 2)), (500, (2, 1, 0)), (1000, (0, 1, 2))):
        add[grid](*(bufs[i] for i in order), n, BLOCK_SIZE=256)
    ints = [Buffer(1000, "<i4") for _ in range(3)]  # another dtype: another signature and plan
    add[grid](*ints, 1000, BLOCK_SIZE=256)
    with open(trace) as f:
        lines = [line.strip() for line in f if line.startswith("launch")]
    want = [f"launch {g} 1 1, 128 threads, argument 0 in allocation {a}" for g, a in ((4, 0), (4, 1), (2, 2), (4, 0), (4, 3))]
    assert lines[-5:] == want, f"the launches were {lines[-5:]}, expected {want}"
    assert len(full) == 2, f"{len(full)} of 5 launches took the full path (expected the first of each dtype)"


@case
def autotuned_kernel():
    # an autotuned kernel without its meta-parameters is tuned on the first
    # launch of each key (n_elements), with the grid asked for per config;
    # then launched with the chosen config alone
    k = tilec.jit(os.path.join(EX, "autotune.py"), kernel="axpy_kernel")
    seen = []

    def grid(meta):
        seen.append(meta["BLOCK_SIZE"])
        return (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)

    full = []
    slow = k._run_slow
    k._run_slow = lambda *a: (full.append(1), slow(*a))
    for n in (5000, 5000, 300, 5000):
        x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
        out = np.full(n, np.nan, dtype=np.float32)
        seen.clear()
        k[grid](x, y, out, 2.5, n)
        assert np.allclose(out, 2.5 * x + y, rtol=1e-5, atol=1e-6), f"n={n}: axpy differs"
        first = n == 300 or len(full) == 1 and len(seen) > 1
        if first:
            assert sorted(set(seen)) == [256, 1024, 4096], f"n={n}: the grid saw the configs {sorted(set(seen))}"
        else:
            assert len(seen) == 1 and seen[0] in (256, 1024, 4096), f"n={n}: a tuned key's launch saw {seen}"
    assert len(full) == 4, f"{len(full)} full paths: new arrays every launch take it once each"
    x, out = np.ones(700, np.float32), np.zeros(700, np.float32)
    full.clear()
    for i in range(3):  # the same arrays: the plan, with the chosen config's grid
        seen.clear()
        k[grid](x, x, out, 1.0, 700)
        if i == 0:  # a new key: tuned
            assert sorted(set(seen)) == [256, 1024, 4096], f"launch {i} saw {seen}"
        else:
            assert len(seen) == 1, f"launch {i} of a tuned key saw {seen}"
    assert (out == 2).all() and len(full) == 1, f"{len(full)} full paths"
    # the meta-parameters given: that config's values, no tuning
    seen.clear()
    out = np.zeros(5000, np.float32)
    k[grid](x[:1] * 0 + np.ones(5000, np.float32), np.ones(5000, np.float32), out, 1.0, 5000, BLOCK_SIZE=512)
    assert seen == [512] and (out == 2).all(), seen
    # what the grid raises comes out of the launch
    def bad(meta):
        raise ValueError("no grid today")
    try:
        k[bad](np.ones(64, np.float32), np.ones(64, np.float32), np.ones(64, np.float32), 1.0, 64)
        raise AssertionError("a failing grid launched")
    except ValueError as e:
        assert "no grid today" in str(e)


@case
def softmax():
    k = tilec.jit(os.path.join(EX, "softmax.py"))
    rows, cols = 37, 300
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    y = np.full_like(x, np.nan)
    k[(rows,)](y, x, x.strides[0] // 4, y.strides[0] // 4, rows, cols, BLOCK_SIZE=512)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert np.allclose(y, ref, rtol=1e-5, atol=1e-7), f"softmax differs by {np.abs(y - ref).max()}"


@case
def matmul():
    k = tilec.jit(os.path.join(EX, "matmul.py"), kernel="matmul_kernel")
    M, N, K = 70, 90, 50  # odd sizes: masked rows, columns and K
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    grid = lambda meta: (tilec.cdiv(M, meta["BLOCK_SIZE_M"]) * tilec.cdiv(N, meta["BLOCK_SIZE_N"]),)
    k[grid](a, b, c, M, N, K, *(s // 2 for s in a.strides), *(s // 2 for s in b.strides), *(s // 2 for s in c.strides),
            ACTIVATION="")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(c.astype(np.float64) - ref).max()
    assert err < 0.05, f"matmul differs by {err}"


@case
def matmul_as_hopper_code():
    # TILEC_ARCH: the CPU device runs the code compiled for sm_90a (wgmma) on the emulator
    M, N, K = 70, 90, 50
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, dtype=np.float16)
    old = os.environ.get("TILEC_ARCH")
    try:
        os.environ["TILEC_ARCH"] = "sm_90a"
        k = tilec.jit(os.path.join(EX, "matmul.py"), kernel="matmul_kernel")
        k[(tilec.cdiv(M, 64) * tilec.cdiv(N, 64),)](a, b, c, M, N, K, *(s // 2 for s in a.strides), *(s // 2 for s in b.strides),
                                                    *(s // 2 for s in c.strides), BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                                    BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_warps=4)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        err = np.abs(c.astype(np.float64) - ref).max()
        assert err < 0.05, f"matmul as sm_90a code differs by {err}"
        os.environ["TILEC_ARCH"] = "sm_75"
        k = tilec.jit(os.path.join(EX, "matmul.py"), kernel="matmul_kernel")
        try:
            k[(1,)](a, b, c, M, N, K, *(s // 2 for s in a.strides), *(s // 2 for s in b.strides), *(s // 2 for s in c.strides),
                    BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", num_warps=4)
            raise AssertionError("an unknown TILEC_ARCH was taken")
        except tilec.Error as e:
            assert "arch 'sm_75' (from TILEC_ARCH) is not a target tilec knows" in str(e), str(e)
    finally:
        if old is None:
            os.environ.pop("TILEC_ARCH", None)
        else:
            os.environ["TILEC_ARCH"] = old


@case
def layer_norm_forward_backward():
    path = os.path.join(EX, "layer_norm.py")
    fwd = tilec.jit(path, kernel="layer_norm_fwd_kernel")
    bwd = tilec.jit(path, kernel="layer_norm_bwd_dx_kernel")
    dwdb = tilec.jit(path, kernel="layer_norm_bwd_dwdb_kernel")
    M, N, eps = 45, 200, 1e-5
    x = rng.standard_normal((M, N), dtype=np.float32)
    w, b = rng.standard_normal(N, dtype=np.float32), rng.standard_normal(N, dtype=np.float32)
    y, mean, rstd = np.empty_like(x), np.empty(M, np.float32), np.empty(M, np.float32)
    fwd[(M,)](x, y, w, b, mean, rstd, N, N, eps, BLOCK_SIZE=256)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    assert np.allclose(y, xhat * w + b, rtol=1e-4, atol=1e-4), "layer norm forward differs"
    dy = rng.standard_normal((M, N), dtype=np.float32)
    group = 8
    locks, counts = np.zeros(group, np.int32), np.zeros(group, np.int32)
    pdw, pdb = np.zeros((group, N), np.float32), np.zeros((group, N), np.float32)
    dx = np.empty_like(x)
    bwd[(M,)](dx, dy, pdw, pdb, x, w, mean, rstd, locks, counts, N, N, GROUP_SIZE_M=group, BLOCK_SIZE_N=256)
    dw, db = np.empty(N, np.float32), np.empty(N, np.float32)
    dwdb[lambda meta: (tilec.cdiv(N, meta["BLOCK_SIZE_N"]),)](pdw, pdb, dw, db, group, N, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    wdy = dy * w
    ref_dx = (wdy - xhat * (wdy * xhat).mean(axis=1, keepdims=True) - wdy.mean(axis=1, keepdims=True)) / np.sqrt(var + eps)
    assert np.allclose(dx, ref_dx, rtol=1e-3, atol=1e-4), f"layer norm dx differs by {np.abs(dx - ref_dx).max()}"
    assert np.allclose(dw, (dy * xhat).sum(axis=0), rtol=1e-3, atol=1e-3), "layer norm dw differs"
    assert np.allclose(db, dy.sum(axis=0), rtol=1e-3, atol=1e-3), "layer norm db differs"


@case
def errors_carry_the_compilers_message():
    add = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
    x = np.zeros(64, np.float32)
    try:  # a constexpr missing: the compiler says which, at the kernel's line
        add[(1,)](x, x, x, 64)
        raise AssertionError("no error for a missing constexpr")
    except tilec.CompileError as e:
        assert "vector_add.py:" in str(e) and "BLOCK_SIZE" in str(e), str(e)
    try:
        add[(1,)](x, x, x, 64, BLOCK_SIZE=64, NOPE=1)
        raise AssertionError("no error for an unknown keyword")
    except TypeError as e:
        assert "NOPE" in str(e), str(e)
    try:  # out of bounds: the emulator's check, as an exception, and the program goes on
        add[(2,)](x, x, np.zeros(64, np.float32)[:10].copy(), 128, BLOCK_SIZE=64)
        raise AssertionError("no error for an access out of bounds")
    except tilec.LaunchError as e:
        assert "out-of-bounds store" in str(e) and "vector_add.py:17" in str(e), str(e)


@case
def edited_file_is_compiled_again():
    d = tempfile.mkdtemp()
    try:
        path = os.path.join(d, "k.py")
        src = open(os.path.join(EX, "vector_add.py")).read()
        open(path, "w").write(src)
        add = tilec.jit(path, kernel="add_kernel")
        x, y = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
        out = np.zeros(64, np.float32)
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
        assert np.array_equal(out, x + y)
        open(path, "w").write(src.replace("x + y", "x - y"))
        # as the next run reads it: the disk cache is keyed on the file's text, so the edit compiles again
        edited = tilec.jit(path, kernel="add_kernel")
        edited[(1,)](x, y, out, 64, BLOCK_SIZE=64)
        assert np.array_equal(out, x - y), "the edited kernel was not compiled again"
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)  # the kernel read before keeps its text, as Triton's JITFunction does
        assert np.array_equal(out, x + y)
    finally:
        shutil.rmtree(d)


finish()
