"""The tilec package from JAX: kernels called through XLA's FFI (tilec.jax.call)
on the CPU platform, eagerly, under jax.jit and jax.vmap, and under shard_map
over 4 CPU devices, against jax.numpy.

    TILEC_LIBRARY=... PYTHONPATH=python python tests/frameworks/test_jax.py EXAMPLES_DIR
"""
import os
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import tilec  # noqa: E402
import tilec.jax  # noqa: E402
from harness import case, finish  # noqa: E402

EX = sys.argv[1]
if not tilec._lib.lib.tilec_xla_ffi_handler():
    print("skipped: this libtilec was built without the XLA FFI handler (no jaxlib header when it was configured)")
    sys.exit(77)



add_k = tilec.jit(os.path.join(EX, "vector_add.py"), kernel="add_kernel")
softmax_k = tilec.jit(os.path.join(EX, "softmax.py"))
matmul_k = tilec.jit(os.path.join(EX, "matmul.py"), kernel="matmul_kernel")
fwd_k = tilec.jit(os.path.join(EX, "layer_norm.py"), kernel="layer_norm_fwd_kernel")


def add(x, y):
    return tilec.jax.call(add_k, x, y, grid=lambda m: (tilec.cdiv(m["n_elements"], m["BLOCK_SIZE"]),),
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), n_elements=x.size, BLOCK_SIZE=256)


def softmax(x):
    # softmax_kernel(out_ptr, in_ptr, ...): the output comes first, as an operand aliased to the result
    rows, cols = x.shape
    return tilec.jax.call(softmax_k, jnp.zeros_like(x), x, grid=(rows,), out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          input_output_aliases={0: 0}, in_row_stride=cols, out_row_stride=cols, n_rows=rows, n_cols=cols,
                          BLOCK_SIZE=512)


rng = np.random.default_rng(5)


@case
def vector_add_eager_and_jit():
    x, y = jnp.asarray(rng.standard_normal(1000, np.float32)), jnp.asarray(rng.standard_normal(1000, np.float32))
    assert np.array_equal(add(x, y), x + y)
    assert np.array_equal(jax.jit(add)(x, y), x + y)
    assert np.array_equal(jax.jit(lambda a, b: add(a, b) * 2)(x, y), (x + y) * 2)


@case
def dlpack_arrays_in_a_direct_launch():
    # kernel[grid] reads JAX arrays through __dlpack__ (in place, on the
    # emulator), here into a NumPy output; a bf16 one too, and a view
    x = jnp.asarray(rng.standard_normal(1000, np.float32))
    y = jnp.asarray(rng.standard_normal((2, 1000), np.float32))[1]
    out = np.full(1000, np.nan, np.float32)
    add_k[(tilec.cdiv(1000, 256),)](x, y, out, 1000, BLOCK_SIZE=256)
    assert np.array_equal(out, np.asarray(x + y)), "vector add on JAX arrays differs"
    xb = jnp.asarray(rng.standard_normal(300, np.float32)).astype(jnp.bfloat16)
    outb = jnp.zeros(300, jnp.bfloat16)  # written in place: fine for a test, not for JAX's own arrays
    add_k[(2,)](xb, xb, outb, 300, BLOCK_SIZE=256)
    assert np.array_equal(np.asarray(outb, np.float32), np.asarray(xb + xb, np.float32)), "bf16 differs"
    try:  # the emulator's bounds are the DLPack tensor's
        add_k[(2,)](x[:100], x[:100], out, 1000, BLOCK_SIZE=256)
        raise AssertionError("an out-of-bounds read passed")
    except tilec.LaunchError as e:
        assert "out-of-bounds load" in str(e), str(e)


@case
def vmap():
    x, y = jnp.asarray(rng.standard_normal((3, 500), np.float32)), jnp.asarray(rng.standard_normal((3, 500), np.float32))
    assert np.array_equal(jax.vmap(add)(x, y), x + y)


@case
def matmul_fp16():
    M, N, K = 70, 90, 50
    a = jnp.asarray(rng.standard_normal((M, K)).astype(np.float16))
    b = jnp.asarray(rng.standard_normal((K, N)).astype(np.float16))
    c = tilec.jax.call(matmul_k, a, b, grid=lambda m: (tilec.cdiv(M, m["BLOCK_SIZE_M"]) * tilec.cdiv(N, m["BLOCK_SIZE_N"]),),
                       out_shape=jax.ShapeDtypeStruct((M, N), jnp.float16), M=M, N=N, K=K, stride_am=K, stride_ak=1,
                       stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1, ACTIVATION="")
    err = np.abs(np.asarray(c, np.float64) - np.asarray(a, np.float64) @ np.asarray(b, np.float64)).max()
    assert err < 0.05, f"matmul differs by {err}"


@case
def softmax_rows():
    x = jnp.asarray(rng.standard_normal((37, 300), np.float32))
    assert np.allclose(jax.jit(softmax)(x), jax.nn.softmax(x, axis=1), rtol=1e-5, atol=1e-7)


@case
def layer_norm_forward():
    # layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps): every buffer an operand, Y, Mean and
    # Rstd aliased to the three results
    M, N = 45, 200
    x = jnp.asarray(rng.standard_normal((M, N), np.float32))
    w, b = jnp.asarray(rng.standard_normal(N, np.float32)), jnp.asarray(rng.standard_normal(N, np.float32))

    def layer_norm(x, w, b):
        outs = [jax.ShapeDtypeStruct((M, N), x.dtype), jax.ShapeDtypeStruct((M,), jnp.float32),
                jax.ShapeDtypeStruct((M,), jnp.float32)]
        return tilec.jax.call(fwd_k, x, jnp.zeros_like(x), w, b, jnp.zeros(M, jnp.float32), jnp.zeros(M, jnp.float32),
                              grid=(M,), out_shape=outs, input_output_aliases={1: 0, 4: 1, 5: 2},
                              stride=N, N=N, eps=1e-5, BLOCK_SIZE=256)

    y, mean, rstd = jax.jit(layer_norm)(x, w, b)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    assert np.allclose(y, (x - mu) / jnp.sqrt(var + 1e-5) * w + b, rtol=1e-4, atol=1e-4)
    assert np.allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-6)


@case
def shard_map_four_devices():
    from jax.sharding import Mesh, PartitionSpec as P
    assert len(jax.devices()) == 4, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("d",))
    x, y = jnp.asarray(rng.standard_normal(4096, np.float32)), jnp.asarray(rng.standard_normal(4096, np.float32))
    f = jax.jit(jax.shard_map(add, mesh=mesh, in_specs=(P("d"), P("d")), out_specs=P("d")))
    assert np.array_equal(f(x, y), x + y)


@case
def wrong_dtype_gives_tilecs_message():
    x = jnp.arange(300, dtype=jnp.int32).reshape(1, 300)
    try:
        softmax(x)
        raise AssertionError("an int32 softmax compiled")
    except tilec.CompileError as e:
        assert "softmax.py:" in str(e) and "tl.exp" in str(e), str(e)


finish()
