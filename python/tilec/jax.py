"""tilec kernels from JAX, through XLA's FFI (libtilec's tilec_xla_ffi_handler).

    add = tilec.jit("vector_add.py", kernel="add_kernel")
    out = tilec.jax.call(add, x, y, grid=lambda meta: (tilec.cdiv(meta["n_elements"], 1024),),
                         out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), n_elements=x.size, BLOCK_SIZE=1024)

jax-triton's triton_call convention: the arrays bind to the kernel's first
parameters, the outputs (out_shape, one or a list) to the parameters that
follow, but for those input_output_aliases ties to an operand (they are
that operand's buffer: a kernel whose output comes first takes it so, as
a zero-filled operand aliased to the result), scalars and constexprs by
keyword (static: their values are part
of the traced call). It works under jax.jit, jax.vmap (vmap_method, as
jax.ffi.ffi_call takes it; "sequential" by default) and shard_map; on the
CPU the kernel runs on the emulator, on XLA's own buffers in place, on CUDA
on the stream XLA gives.
"""
import ctypes

import jax
import numpy as np

from . import _lib
from .jit import CPU, CUDA, _DTYPES, _CTYPES

_TARGET = "tilec_kernel"
_registered = set()
_kernels = set()  # the kernels whose tilec_kernel handles traced calls name: kept alive with the process


def _register(platform):
    if platform in _registered:
        return
    handler = _lib.lib.tilec_xla_ffi_handler()
    if not handler:
        raise _lib.Error("tilec: this libtilec was built without the XLA FFI handler (jaxlib's xla/ffi/api/c_api.h "
                         "was not found when it was built); `tilec --version` says so")
    fn = ctypes.cast(handler, ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p))
    jax.ffi.register_ffi_target(_TARGET, jax.ffi.pycapsule(fn), platform=platform)
    _registered.add(platform)


def _bits(v, t):
    """A scalar's value as the int64 whose first bytes hold it (little-endian)."""
    c = _CTYPES[t](float(v) if t in ("fp32", "fp64") else int(v))
    word = ctypes.c_uint64(0)
    ctypes.memmove(ctypes.byref(word), ctypes.byref(c), ctypes.sizeof(c))
    return np.int64(np.uint64(word.value).view(np.int64))


def call(kernel, *arrays, grid, out_shape, input_output_aliases=None, vmap_method="sequential", num_warps=None,
         num_stages=None, **kwargs):
    single = not isinstance(out_shape, (list, tuple))
    outs = [out_shape] if single else list(out_shape)
    if len(arrays) + len(outs) > len(kernel.params):
        raise TypeError(f"tilec.jax.call: {kernel.name} takes {len(kernel.params)} parameters, given "
                        f"{len(arrays)} arrays and {len(outs)} outputs")
    platform = jax.default_backend()
    device = CPU if platform == "cpu" else CUDA
    _register("cpu" if device == CPU else "CUDA")
    names = kernel.params
    aliases = dict(input_output_aliases or {})
    buffers = {names[i]: a for i, a in enumerate(arrays)}
    # an output aliased to an operand is that operand's buffer; the others bind in order after the operands
    free = [i for i in range(len(outs)) if i not in aliases.values()]
    order = {names[i]: i for i in range(len(arrays))}
    for j, i in enumerate(free):
        buffers[names[len(arrays) + j]] = outs[i]
        order[names[len(arrays) + j]] = len(arrays) + i
    for k in kwargs:
        if k not in names or k in buffers:
            raise TypeError(f"tilec.jax.call: '{k}' is not a parameter of {kernel.name} left for a keyword")
    def array_dtype(name, a):
        if name not in buffers:
            return None
        dt = _DTYPES.get(np.dtype(a.dtype).name)
        if dt is None:
            raise TypeError(f"tilec.jax.call: '{name}' has dtype {a.dtype}, which tilec has no type for")
        return dt

    sig, defines, runtime, meta = kernel._signature({**kwargs, **buffers}, array_dtype)
    bind, scalars = [], []
    for name, t, v in runtime:
        if name in buffers:
            bind.append(order[name])
        else:
            bind.append(-1 - len(scalars))
            scalars.append(_bits(v, t))
    g = grid(meta) if callable(grid) else grid
    g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))
    g = g + (1,) * (3 - len(g))
    key = (device, ", ".join(sig), tuple(defines), num_warps or 0, num_stages or 0, False)  # an autotuned kernel: its first config
    handle = kernel._kernels.get(key) or kernel._create(device, key)
    _kernels.add(kernel)
    result_types = [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in outs]
    f = jax.ffi.ffi_call(_TARGET, result_types, vmap_method=vmap_method, input_output_aliases=aliases)
    res = f(*arrays, kernel=np.uint64(handle.value), grid=np.array(g, np.int64), bind=np.array(bind, np.int64),
            scalars=np.array(scalars, np.int64))
    return res[0] if single else res
