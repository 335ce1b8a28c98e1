"""tilec.jit: a Triton kernel, launched as Triton launches it.

    add = tilec.jit("kernels/vector_add.py", kernel="add_kernel")
    add[lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)

The kernel's file is read by libtilec (tilec_describe) for its parameters;
each call binds its arguments to them as Python does, builds the signature
from their types (a pointer of the array's dtype, i32 or i64 for an int as
Triton picks, fp32 for a float), keeps the constexprs as -D values, and
launches the JIT's kernel for that signature, which specializes on the
values as Triton's JIT does (16-byte alignment, divisibility by 16, 1).
NumPy arrays and CPU tensors run on the CPU emulator in place (registered
with the CPU device for the launch); arrays with __cuda_array_interface__
(CUDA tensors, CuPy) run on the GPU, on the framework's current stream.
"""
import ast
import ctypes
import json
import os
import struct
import threading
import weakref

try:
    from numpy import ndarray as _ndarray
except ImportError:  # the package works without NumPy (PyTorch, CUDA arrays)
    _ndarray = None

from . import _lib
from ._lib import lib

# dtype names (NumPy's, PyTorch's, the array interface's) -> Triton's
_DTYPES = {
    "float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}
# the array interface's typestr kinds and sizes
_TYPESTR = {
    ("f", 4): "float32", ("f", 2): "float16", ("f", 8): "float64", ("i", 1): "int8", ("i", 2): "int16",
    ("i", 4): "int32", ("i", 8): "int64", ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32",
    ("u", 8): "uint64", ("b", 1): "bool",
}
# a scalar parameter's C type, by Triton's type name
_CTYPES = {
    "i1": ctypes.c_int8, "i8": ctypes.c_int8, "u8": ctypes.c_uint8, "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
    "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}

CPU, CUDA = 1, 2
_cpu_lock = threading.Lock()


def cdiv(a, b):
    """ceil(a / b) for integers, as triton.cdiv."""
    return (a + b - 1) // b


class _Device:
    """One device of each kind per process, opened on first use."""
    _lock = threading.Lock()
    _open = {}

    @classmethod
    def get(cls, kind):
        with cls._lock:
            d = cls._open.get(kind)
            if d is None:
                h, msg = ctypes.c_void_p(), ctypes.c_void_p()
                st = lib.tilec_device_create(kind, ctypes.byref(h), ctypes.byref(msg))
                _lib.check(st, msg)
                d = cls._open[kind] = h
            return d


class _Array:
    """What a launch needs of an array argument: its address, its element
    type, the device it lives on, and (on the CPU) the memory to register."""

    __slots__ = ("ptr", "dtype", "device", "base", "nbytes", "stream", "owner", "arg")

    def __init__(self, ptr, dtype, device, base=None, nbytes=0, stream=None, owner=None, arg=None):
        self.ptr, self.dtype, self.device, self.base, self.nbytes, self.stream = ptr, dtype, device, base, nbytes, stream
        self.owner = owner  # the NumPy array that owns the memory: registered while it lives
        self.arg = arg  # the NumPy array given


def _dtype_name(dt):
    s = str(dt)
    return s[len("torch."):] if s.startswith("torch.") else s


_np_dtypes = {}  # a NumPy dtype -> Triton's name (None: none)
_seen = {}  # id of a NumPy array met -> (a weak reference to it, what its _Array holds, its size)


def _as_array(x):
    """An _Array for an array argument, or None for anything else."""
    if _ndarray is not None and type(x) is _ndarray:  # the common case, without the array interface's dict
        seen = _seen.get(id(x))
        if seen is not None and seen[0]() is x and seen[6] == x.size:  # an array met before, not resized since
            if not x.flags.writeable:
                raise TypeError("tilec: a read-only array: kernels may write their pointer arguments; pass a writable copy")
            _, ptr, name, base, nbytes, own, _ = seen
            owner = x if own == 1 else _root(x) if own == 2 else None
            return _Array(ptr, name, CPU, base=base, nbytes=nbytes, owner=owner, arg=x)
        a = _numpy_array(x)
        a.arg = x
        own = 1 if a.owner is x else 2 if a.owner is not None else 0
        try:  # no strong reference: the entry goes with the array
            _seen[id(x)] = (weakref.ref(x, lambda _r, k=id(x): _seen.pop(k, None)), a.ptr, a.dtype, a.base, a.nbytes, own,
                            x.size)
        except TypeError:
            pass
        return a
    return _other_array(x)


def _numpy_array(x):
    """An _Array for a NumPy array, read through its array interface (some µs: _as_array keeps what it finds)."""
    dt = x.dtype
    name = _np_dtypes.get(dt, False)
    if name is False:
        name = _np_dtypes[dt] = _DTYPES.get(dt.name)
    if not x.flags.writeable:
        raise TypeError("tilec: a read-only array: kernels may write their pointer arguments; pass a writable copy")
    ptr = x.__array_interface__["data"][0]
    root = _root(x)
    if root is x or root.flags.c_contiguous or root.flags.f_contiguous:
        rptr = ptr if root is x else root.__array_interface__["data"][0]
        return _Array(ptr, name, CPU, base=rptr, nbytes=root.nbytes, owner=root)
    base, nbytes = _extent(x, ptr, dt.itemsize)
    return _Array(ptr, name, CPU, base=base, nbytes=nbytes)


def _root(x):
    """The NumPy array that owns x's memory (x itself, or the base its views lead to)."""
    while isinstance(x.base, _ndarray):
        x = x.base
    return x


def _other_array(x):
    """An _Array for anything else with an array interface, or None."""
    if _is_torch(x):  # a PyTorch tensor: its pointer and device without the array interfaces' dicts
        dtype = _DTYPES.get(_dtype_name(x.dtype))
        if x.is_cuda:
            return _Array(x.data_ptr(), dtype, CUDA, stream=_torch_stream()(x.get_device()))
        if x.device.type != "cpu":
            raise TypeError(f"tilec: a tensor on device '{x.device}': tilec runs on 'cpu' (the emulator) and 'cuda'")
        st = x.untyped_storage()
        return _Array(x.data_ptr(), dtype, CPU, base=st.data_ptr(), nbytes=st.nbytes())
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        kind, size = cai["typestr"][1], int(cai["typestr"][2:])
        name = _dtype_name(getattr(x, "dtype", "")) if hasattr(x, "dtype") else ""
        dtype = _DTYPES.get(name) or _DTYPES.get(_TYPESTR.get((kind, size), ""))
        return _Array(cai["data"][0], dtype, CUDA, stream=cai.get("stream"))
    ai = getattr(x, "__array_interface__", None)
    if ai is not None:  # NumPy (and anything that exposes host memory so)
        name = _dtype_name(getattr(x, "dtype", ""))
        kind, size = ai["typestr"][1], int(ai["typestr"][2:])
        dtype = _DTYPES.get(name) or _DTYPES.get(_TYPESTR.get((kind, size), ""))
        if ai.get("data", (0, False))[1]:
            raise TypeError("tilec: a read-only array: kernels may write their pointer arguments; pass a writable copy")
        ptr = ai["data"][0]
        base, nbytes = _extent(x, ptr, size)
        return _Array(ptr, dtype, CPU, base=base, nbytes=nbytes)
    if hasattr(x, "__dlpack__"):
        return _dlpack_array(x)
    return None


# DLPack (dlpack.h): what a capsule "dltensor" holds
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_TYPES = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64", (1, 8): "uint8", (1, 16): "uint16",
             (1, 32): "uint32", (1, 64): "uint64", (2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
             (4, 16): "bfloat16", (6, 8): "bool"}


def _dlpack_array(x):
    """An _Array for anything with __dlpack__ (JAX arrays, say): the capsule
    is read, not consumed, and kept with the _Array for the launch; host
    memory runs on the emulator, CUDA memory on the legacy default stream
    (the one the capsule was asked for)."""
    dev = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else _DL_CPU
    cap = x.__dlpack__(stream=1) if dev in (_DL_CUDA, _DL_CUDA_MANAGED) else x.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = _DLTensor.from_address(get(cap, b"dltensor"))  # a DLManagedTensor starts with its DLTensor
    if t.dtype.lanes != 1:
        raise TypeError(f"tilec: an array of {t.dtype.lanes}-lane vectors: tilec takes arrays of scalars")
    dtype = _DTYPES.get(_DL_TYPES.get((t.dtype.code, t.dtype.bits), ""))
    ptr = (t.data or 0) + t.byte_offset
    if t.device.device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        return _Array(ptr, dtype, CUDA, stream=None, owner=None, arg=cap)
    if t.device.device_type not in (_DL_CPU, _DL_CUDA_HOST):
        raise TypeError(f"tilec: an array on DLPack device {t.device.device_type}: tilec runs on the CPU and CUDA")
    shape = [t.shape[i] for i in range(t.ndim)]
    size = (t.dtype.bits + 7) // 8
    if t.strides:
        strides = [t.strides[i] * size for i in range(t.ndim)]
    else:  # contiguous, row-major
        strides, step = [], size
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    if any(n == 0 for n in shape):
        return _Array(ptr, dtype, CPU, base=ptr, nbytes=0, arg=cap)
    base, nbytes = _span(ptr, shape, strides, size)
    return _Array(ptr, dtype, CPU, base=base, nbytes=nbytes, arg=cap)


def _extent(x, ptr, itemsize):
    """The host memory a NumPy array views: from its base array's start to its end."""
    root = x
    while getattr(root, "base", None) is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    rai = root.__array_interface__
    if getattr(root, "flags", None) is not None and root.flags["C_CONTIGUOUS"] or root.flags["F_CONTIGUOUS"]:
        return rai["data"][0], root.nbytes
    return _span(ptr, x.shape, x.strides, itemsize)  # a strided view with no contiguous base


def _span(ptr, shape, strides, itemsize):
    """The bytes the elements of a strided array at ptr cover: (start, length)."""
    lo = ptr + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides) if n)
    hi = ptr + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides) if n) + itemsize
    return lo, hi - lo


def _scalar_type(v, name):
    """Triton's type of a scalar argument."""
    if isinstance(v, bool):
        return "i1"
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return "i32"
        if -2**63 <= v < 2**63:
            return "i64"
        if v < 2**64:
            return "u64"
        raise OverflowError(f"tilec: argument '{name}' = {v} does not fit in 64 bits")
    if isinstance(v, float):
        return "fp32"
    t = type(v).__name__  # NumPy scalars
    if t in ("float32", "float64", "int32", "int64", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "bool_"):
        return _DTYPES["bool" if t == "bool_" else t]
    raise TypeError(f"tilec: argument '{name}' of type {type(v).__name__} is not an array, a number or a bool")


def _literal(v):
    """A constexpr's value as the signature and -D take it: a Python literal."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_literal(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    name = _dtype_name(v)
    if name in _DTYPES:  # a dtype as a constexpr (tl.float16 passed as torch.float16)
        return "tl." + name
    raise TypeError(f"tilec: a constexpr of type {type(v).__name__}: give a number, a bool, a string or None")


class Kernel:
    """A @triton.jit kernel of a file, launched with kernel[grid](*args, **kwargs)."""

    def __init__(self, path, kernel=None, include_dirs=(), device=None):
        self.path = os.path.abspath(path)
        self.include_dirs = [os.fspath(d) for d in include_dirs]
        self._device = device
        self._kernels = {}
        self._plans = {}  # the number of positional arguments -> the plans of launches so called (_plan), latest first
        self._lock = threading.Lock()
        self._read(kernel)

    def _read(self, kernel):
        with open(self.path, "rb") as f:
            self._source = f.read()
        opts = _lib._CompileOptions()
        opts.kernel = kernel.encode() if kernel else None
        dirs, _keep = _lib.strings(self.include_dirs)
        opts.include_dirs, opts.num_include_dirs = dirs, len(self.include_dirs)
        res = ctypes.c_void_p()
        st = lib.tilec_describe(self.path.encode(), self._source, len(self._source), ctypes.byref(opts), ctypes.byref(res))
        try:
            if st != 0:
                diag = lib.tilec_result_diagnostics(res) if res else None
                raise _lib.CompileError(diag.decode("utf-8", "replace") if diag else "tilec: describe failed", _lib.STATUS.get(st))
            self.info = json.loads(lib.tilec_result_output(res, None).decode())
        finally:
            lib.tilec_result_destroy(res)
        self.name = self.info["name"]
        self.params = [p["name"] for p in self.info["params"]]
        self._constexpr = {p["name"]: p["constexpr"] for p in self.info["params"]}
        self._defaults = {p["name"]: p["default"] for p in self.info["params"] if p["has_default"]}
        configs = self.info["configs"]
        self._meta = {k: ast.literal_eval(v) for k, v in configs[0]["kwargs"].items()} if configs else {}
        self.decorated = set(self._meta) | set(self.info["heuristics"])  # set by autotune configs, heuristics
        # each config's part of the meta dict a grid callable gets (its meta-parameters, warps, stages)
        self._config_meta = [{**{k: ast.literal_eval(v) for k, v in c["kwargs"].items()},
                              "num_warps": c["num_warps"] or 4, "num_stages": c["num_stages"] or 3} for c in configs]

    def __repr__(self):
        return f"<tilec kernel {self.name} of {self.path}>"

    def __getitem__(self, grid):
        return _Launcher(self, grid)

    def _bind(self, args, kwargs):
        if len(args) > len(self.params):
            raise TypeError(f"tilec: {self.name}() takes {len(self.params)} arguments, got {len(args)}")
        bound = dict(zip(self.params, args))
        for k, v in kwargs.items():
            if k not in self._constexpr:
                raise TypeError(f"tilec: {self.name}() has no parameter '{k}' (its parameters: {', '.join(self.params)})")
            if k in bound:
                raise TypeError(f"tilec: {self.name}() got two values for '{k}'")
            bound[k] = v
        return bound

    def run(self, *args, grid, num_warps=None, num_stages=None, **kwargs):
        _Launcher(self, grid)(*args, num_warps=num_warps, num_stages=num_stages, **kwargs)

    def _signature(self, bound, array_dtype):
        """The signature of a launch, from the values bound to the parameters,
        as Triton's JIT builds it: a pointer to an array's element type
        (array_dtype(name, value) gives it, None for anything but an array),
        i32/i64/u64 for an int, fp32 for a float, i1 for a bool; a
        constexpr's value and a None as -D; a parameter left out takes its
        default, but those an autotune config or a heuristic sets. Returns
        the signature's types, the defines, the runtime parameters given a
        value as (name, type, value), and Triton's meta dict (every
        argument by name, with the first config's meta-parameters)."""
        sig, defines, runtime, meta = [], [], [], dict(self._meta)
        for name in self.params:
            given = name in bound
            v = bound.get(name)
            if self._constexpr[name]:
                if given:
                    defines.append(f"{name}={_literal(v)}")
                    meta[name] = v
                elif name in self._defaults and self._defaults[name] is not None:
                    meta.setdefault(name, ast.literal_eval(self._defaults[name]))
                continue
            if not given:
                if name in self.decorated:
                    continue
                if name not in self._defaults:
                    raise TypeError(f"tilec: {self.name}() is missing argument '{name}'")
                v = ast.literal_eval(self._defaults[name]) if self._defaults[name] is not None else None
            meta[name] = v
            if v is None:
                defines.append(f"{name}=None")  # None specializes the parameter away, as in Triton
                continue
            dt = array_dtype(name, v)
            t = "*" + dt if dt else _scalar_type(v, name)
            sig.append(t)
            runtime.append((name, t, v))
        return sig, defines, runtime, meta

    def _run_slow(self, args, kwargs, grid, num_warps, num_stages):
        bound = self._bind(args, kwargs)
        arrays = []

        def array_dtype(name, v):
            a = _as_array(v)
            if a is None:
                return None
            if a.dtype is None:
                raise TypeError(f"tilec: argument '{name}' has dtype {getattr(v, 'dtype', '?')}, which tilec has no type for")
            arrays.append(a)
            return a.dtype

        sig, defines, runtime_given, meta = self._signature(bound, array_dtype)
        it = iter(arrays)
        values = [ctypes.c_uint64(next(it).ptr) if t[0] == "*" else _CTYPES[t](float(v) if t in ("fp32", "fp64") else int(v))
                  for _, t, v in runtime_given]
        runtime = [name for name, _, _ in runtime_given]
        devices = {a.device for a in arrays}
        if len(devices) > 1:
            raise ValueError(f"tilec: {self.name}(): arrays on the CPU and on CUDA in one launch")
        device = devices.pop() if devices else (self._device or CPU)
        # an autotuned kernel whose meta-parameters the call leaves out is
        # tuned by libtilec, as Triton's autotuner does, on the first launch
        # of each key; the grid is then asked for per config (_grid_of)
        tune = bool(self._config_meta) and any(n not in bound for n in self._meta)
        if tune:
            meta = {n: v for n, v in meta.items() if n not in self._meta}
            g = (grid, meta)
        else:
            g = _grid3(grid(meta) if callable(grid) else grid)
        key = (device, ", ".join(sig), tuple(defines), num_warps or 0, num_stages or 0, tune)
        k = self._kernels.get(key)
        if k is None:
            k = self._create(device, key)
        stream = next((a.stream for a in arrays if a.stream), None)
        if g is not None:
            self._launch(k, device, g, values, arrays, stream)
        plan = _plan(self, args, kwargs, num_warps, num_stages, bound, runtime, sig, values, meta, k, tune)
        if plan is not None:
            with self._lock:
                plans = self._plans.setdefault(len(args), [])
                plans.insert(0, plan)
                del plans[_PLANS_PER_SHAPE:]

    def _create(self, device, key):
        with self._lock:
            k = self._kernels.get(key)
            if k is not None:
                return k
            _, signature, defines, warps, stages, tune = key
            opts = _lib._JitOptions()
            if tune:
                opts.config = _lib.CONFIG_TUNE
                opts.grid_fn = ctypes.cast(_grid_fn, ctypes.c_void_p)
            opts.kernel = self.name.encode()
            opts.signature = signature.encode()
            darr, _keep1 = _lib.strings(defines)
            opts.defines, opts.num_defines = darr, len(defines)
            dirs, _keep2 = _lib.strings(self.include_dirs)
            opts.include_dirs, opts.num_include_dirs = dirs, len(self.include_dirs)
            opts.num_warps, opts.num_stages = warps, stages
            h, msg = ctypes.c_void_p(), ctypes.c_void_p()
            st = lib.tilec_kernel_create(_Device.get(device), self.path.encode(), self._source, len(self._source),
                                         ctypes.byref(opts), ctypes.byref(h), ctypes.byref(msg))
            _lib.check(st, msg)
            self._kernels[key] = h
            return h

    def _launch(self, k, device, grid, values, arrays, stream):
        """A launch; grid is three ints, or for a tuned kernel (Triton's grid, the call's meta dict)."""
        dev = _Device.get(device)
        argv = (ctypes.c_void_p * max(len(values), 1))(*map(ctypes.addressof, values))
        if len(grid) == 2:  # tuned: the grid of each config comes from _grid_of
            _tls.grid = (self, *grid)
            g = None
        else:
            g = (ctypes.c_uint * 3)(*grid)
        registered = []  # (base, bytes) of the host memory registered for this launch only
        msg = ctypes.c_void_p()
        held = _cpu_lock.acquire() if device == CPU else False  # one launch's registrations at a time
        try:
            if device == CPU:
                for a in arrays:
                    if not a.nbytes or (a.owner is not None and _kept.get(a.base) == (a.nbytes, id(a.owner))):
                        continue  # empty, or memory that stays registered while its array lives
                    if any(b <= a.base and a.base + a.nbytes <= b + n for b, n in registered):
                        continue  # a view of memory registered for this launch already
                    st = lib.tilec_device_register_host(dev, ctypes.c_void_p(a.base), a.nbytes, ctypes.byref(msg))
                    _lib.check(st, msg, _lib.LaunchError)
                    if a.owner is not None and _keep_registered(dev, a):
                        continue
                    registered.append((a.base, a.nbytes))
            if device == CPU:
                for a in arrays:
                    if a.arg is not None and a.owner is not None and _kept.get(a.base) == (a.nbytes, id(a.owner)):
                        _ready_add(a.arg, a.ptr)
            st = lib.tilec_kernel_launch(k, g, argv, len(values), ctypes.c_void_p(stream or 0), ctypes.byref(msg))
            if st:
                _grid_error()
            _lib.check(st, msg, _lib.LaunchError)
        finally:
            for base, _ in registered:
                lib.tilec_device_unregister_host(dev, ctypes.c_void_p(base), None)
            if held:
                _cpu_lock.release()


# A NumPy array whose memory stays registered with the CPU device (its
# owner is watched, _keep_registered) is ready: a plan takes its address
# from here. id -> (a weak reference to it, its address, its size); the
# size changes if ndarray.resize moves it, which the plans check.
_ready = {}


def _ready_add(x, ptr):
    key = id(x)
    e = _ready.get(key)
    if e is not None and e[0]() is x:
        return
    try:
        ref = weakref.ref(x, lambda r, key=key: _ready.pop(key, None) if _ready.get(key, (None,))[0] is r else None)
    except TypeError:
        return
    _ready[key] = (ref, ptr, x.size)


_PLANS_PER_SHAPE = 8
_STRUCT = {"i1": "b", "i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I", "i64": "q", "u64": "Q",
           "fp32": "f", "fp64": "d"}
_INT_RANGE = {"i32": (-2**31, 2**31 - 1), "i64": (-2**63, -2**31 - 1, 2**31, 2**63 - 1), "u64": (2**63, 2**64 - 1)}
_grids = {}  # a grid's tuple -> its (c_uint * 3), or None when empty
_tls = threading.local()


def _grid_array(g):
    """The C grid of a grid tuple (or list, or int); None when empty. Kept per tuple."""
    c = _grids.get(g, False) if type(g) is tuple else False
    if c is False:
        t = _grid3(g)
        c = None if t is None else (ctypes.c_uint * 3)(*t)
        if type(g) is tuple:
            if len(_grids) > 4096:
                _grids.clear()
            _grids[g] = c
    return c


def _report():
    """This thread's char * for a launch's message."""
    try:
        return _tls.report
    except AttributeError:
        m = ctypes.c_void_p()
        _tls.report = (m, ctypes.pointer(m))
        return _tls.report


def _launch_failed(status, report):
    _lib.check(status, report[0], _lib.LaunchError)


class _Launcher:
    """kernel[grid]: called with the kernel's arguments, launches it. A call
    like one before (as many positional arguments) tries the plans of those:
    each checks what its specialization assumed (the keywords, the arrays'
    dtypes, the ints' widths, the constexprs' values) and launches, or
    declines; else the full path binds, specializes and makes a plan."""

    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, num_warps=None, num_stages=None, **kwargs):
        plans = self.kernel._plans.get(len(args))
        if plans:
            for plan in plans:
                if plan(args, kwargs, self.grid, num_warps, num_stages):
                    return
        self.kernel._run_slow(args, kwargs, self.grid, num_warps, num_stages)


def _grid_of(user, config, args, out):
    """tilec_jit_options.grid_fn of tuned kernels: the grid of config for
    the launch in flight on this thread (_tls.grid: the kernel, Triton's
    grid, the call's meta dict), as Triton's autotuner calls the grid with
    each config's meta-parameters."""
    try:
        kernel, grid, meta = _tls.grid
        if callable(grid):
            grid = grid({**meta, **kernel._config_meta[config]})
        g = _grid3(grid) or (0, 0, 0)
        out[0], out[1], out[2] = g
        return 0
    except BaseException as e:  # raised again after the launch (_grid_error)
        _tls.grid_error = e
        return 1


_grid_fn = _lib.GRID_FN(_grid_of)


def _grid_error():
    """Raises what the grid callable raised during the launch that just failed, if anything."""
    e = getattr(_tls, "grid_error", None)
    if e is not None:
        _tls.grid_error = None
        raise e


def _is_torch(v):
    return hasattr(v, "data_ptr") and hasattr(v, "untyped_storage")


def _torch_stream():
    """PyTorch's current stream of a device index, as a CUstream's address."""
    import torch
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # what Triton's launcher calls: no Stream object
    return raw if raw is not None else lambda i: torch.cuda.current_stream(i).cuda_stream


def _plan(kernel, args, kwargs, num_warps, num_stages, bound, runtime, sig, values, meta, k, tune=False):
    """A function that launches a call of this one's shape, with the same
    dtypes, int widths and constexpr values, on ready NumPy arrays: it checks
    those, packs the runtime arguments into one block (struct, native
    layout: what tilec_kernel_launch_packed reads) and makes one foreign
    call; it returns False to decline. None where a call of this kind takes
    the full path every time (a NumPy scalar, an array not ready, a
    constexpr that is not a plain value)."""
    slot_of = {name: i for i, name in enumerate(kernel.params[: len(args)])}
    slot_of.update({name: len(args) + j for j, name in enumerate(kwargs)})
    vals = args + tuple(kwargs.values())
    env = {"_ready_get": _ready.get, "_grid_array": _grid_array, "_report": _report, "_failed": _launch_failed,
           "_launch": lib.tilec_kernel_launch_packed, "_K": k}
    guards, fmt, packed, stream = [], "@", [], None
    for name in kernel.params:  # the constexprs given: their types and values
        i = slot_of.get(name)
        if i is None or not kernel._constexpr[name]:
            continue
        v = vals[i]
        if type(v) not in (int, float, bool, str, type(None)):
            return None
        env[f"_C{i}"] = v
        guards.append(f"a{i} is None" if v is None else f"type(a{i}) is {type(v).__name__} and a{i} == _C{i}")
    for name in kernel.params:  # the runtime parameters given None
        i = slot_of.get(name)
        if i is not None and not kernel._constexpr[name] and vals[i] is None:
            guards.append(f"a{i} is None")
    for name, t, cval in zip(runtime, sig, values):
        i = slot_of.get(name)
        if i is None:  # a default: the same every time
            fmt += _STRUCT.get(t, "")
            env[f"_V{len(packed)}"] = cval.value
            packed.append(f"_V{len(packed)}")
            continue
        v = vals[i]
        if t.startswith("*"):
            env[f"_T{i}"] = type(v)
            fmt += "Q"
            if _ndarray is not None and type(v) is _ndarray:  # on the CPU: memory registered while it lives
                e = _ready.get(id(v))
                if e is None or e[0]() is not v:
                    return None
                env[f"_D{i}"] = v.dtype
                guards.append(f"type(a{i}) is _T{i} and (e{i} := _ready_get(id(a{i}))) is not None"
                              f" and e{i}[0]() is a{i} and a{i}.dtype is _D{i} and a{i}.size == e{i}[2]")
                packed.append(f"e{i}[1]")
            elif _is_torch(v) and v.is_cuda:  # on CUDA, on PyTorch's current stream
                env[f"_D{i}"] = v.dtype
                guards.append(f"type(a{i}) is _T{i} and a{i}.is_cuda and a{i}.dtype is _D{i}")
                packed.append(f"a{i}.data_ptr()")
                if stream is None:
                    env["_torch_stream"] = _torch_stream()
                    stream = f"_torch_stream(a{i}.get_device())"
            elif not _is_torch(v) and getattr(v, "__cuda_array_interface__", None) is not None:  # on CUDA, on its stream
                env[f"_D{i}"] = v.__cuda_array_interface__["typestr"]
                guards.append(f"type(a{i}) is _T{i} and (c{i} := a{i}.__cuda_array_interface__)['typestr'] == _D{i}")
                packed.append(f"c{i}['data'][0]")
                if stream is None:
                    stream = f"c{i}.get('stream')"
            else:
                return None
        elif type(v) is int and t in _INT_RANGE:
            r = _INT_RANGE[t]
            cond = " or ".join(f"{r[j]} <= a{i} <= {r[j + 1]}" for j in range(0, len(r), 2))
            guards.append(f"type(a{i}) is int and ({cond})")
            fmt += _STRUCT[t]
            packed.append(f"a{i}")
        elif type(v) in (float, bool) and t in ("fp32", "i1"):
            guards.append(f"type(a{i}) is {type(v).__name__}")
            fmt += _STRUCT[t]
            packed.append(f"a{i}")
        else:
            return None
    packer = struct.Struct(fmt)
    env["_pack"], env["_S"] = packer.pack, packer.size
    # the grid: a constant tuple, or Triton's meta dict passed to a callable
    env["_META"] = {n: v for n, v in meta.items() if n not in slot_of}
    entries = ", ".join(f"{n!r}: a{i}" for n, i in slot_of.items())
    env["_W"], env["_ST"], env["_MISSING"] = num_warps, num_stages, object()
    src = ["def plan(args, kwargs, grid, num_warps, num_stages):",
           f"    if len(args) != {len(args)} or len(kwargs) != {len(kwargs)} or num_warps != _W or num_stages != _ST:",
           "        return False"]
    if args:
        src.append(f"    {', '.join(f'a{i}' for i in range(len(args)))}, = args")
    for j, name in enumerate(kwargs):  # absent: _MISSING, which no guard lets through
        src.append(f"    a{len(args) + j} = kwargs.get({name!r}, _MISSING)")
    if guards:
        src += [f"    if not ({' and '.join(f'({g})' for g in guards)}):", "        return False"]
    call_meta = f"{{**_META, {entries}}}" if entries else "dict(_META)"
    if tune:  # the grid of each config comes from _grid_of, during the launch
        env["_tls"], env["_KERNEL"], env["_grid_error"] = _tls, kernel, _grid_error
        src += [f"    _tls.grid = (_KERNEL, grid, {call_meta} if callable(grid) else None)",
                "    g = None"]
    else:
        src += ["    if callable(grid):",
                f"        g = _grid_array(grid({call_meta}))",
                "    else:",
                "        g = _grid_array(grid)",
                "    if g is None:",
                "        return True"]
    src += ["    report = _report()",
            f"    st = _launch(_K, g, _pack({', '.join(packed)}), _S, {stream}, report[1])",
            "    if st:",
            *(["        _grid_error()"] if tune else []),
            "        _failed(st, report)",
            "    return True"]
    exec(compile("\n".join(src), f"<tilec plan of {kernel.name}>", "exec"), env)
    return env["plan"]


def _grid3(g):
    """A grid as three positive ints; None for an empty one (nothing to launch, as in Triton)."""
    g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))
    if not 1 <= len(g) <= 3:
        raise ValueError(f"tilec: a grid of {len(g)} dimensions; give 1 to 3")
    if any(x <= 0 for x in g):
        return None
    return g + (1,) * (3 - len(g))


# NumPy arrays' memory stays registered with the CPU device from their first
# launch until the array goes (a weak reference's callback unregisters it),
# so that a launch on arrays seen before registers nothing:
# base -> (bytes, id of the owning array)
_kept = {}
_refs = {}


def _keep_registered(dev, a):
    """Keeps a's memory registered while its owner lives; False when it cannot be watched."""
    try:
        ref = weakref.ref(a.owner, lambda _r, base=a.base, dev=dev: _forget(dev, base))
    except TypeError:
        return False
    _kept[a.base] = (a.nbytes, id(a.owner))
    _refs[a.base] = ref
    return True


def _forget(dev, base):
    with _cpu_lock:
        if _kept.pop(base, None) is not None:
            _refs.pop(base, None)
            lib.tilec_device_unregister_host(dev, ctypes.c_void_p(base), None)


def jit(fn=None, *, kernel=None, include_dirs=(), device=None):
    """A tilec kernel: from a file's path and the kernel's name, or from the
    @triton.jit function object of an imported module (read from its file)."""
    if isinstance(fn, (str, os.PathLike)):
        return Kernel(fn, kernel=kernel, include_dirs=include_dirs, device=device)
    inner = getattr(fn, "fn", fn)  # triton's JITFunction / Autotuner wrap the function
    while hasattr(inner, "fn"):
        inner = inner.fn
    code = getattr(inner, "__code__", None)
    if code is None:
        raise TypeError("tilec.jit: give a kernel file's path, or a @triton.jit function of a module")
    return Kernel(code.co_filename, kernel=kernel or inner.__name__, include_dirs=include_dirs, device=device)
