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
import threading
import weakref

try:
    from numpy import ndarray as _ndarray
except ImportError:  # the package works without NumPy (PyTorch, CUDA arrays)
    _ndarray = None

from . import _lib
from ._lib import Error, lib

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

    __slots__ = ("ptr", "dtype", "device", "base", "nbytes", "stream", "owner")

    def __init__(self, ptr, dtype, device, base=None, nbytes=0, stream=None, owner=None):
        self.ptr, self.dtype, self.device, self.base, self.nbytes, self.stream = ptr, dtype, device, base, nbytes, stream
        self.owner = owner  # the NumPy array that owns the memory: registered while it lives


def _dtype_name(dt):
    s = str(dt)
    return s[len("torch."):] if s.startswith("torch.") else s


_np_dtypes = {}  # a NumPy dtype -> Triton's name (None: none)
_seen = {}  # id of a NumPy array met -> (a weak reference to it, its _Array)


def _as_array(x):
    """An _Array for an array argument, or None for anything else."""
    if _ndarray is not None and type(x) is _ndarray:  # the common case, without the array interface's dict
        seen = _seen.get(id(x))
        if seen is not None and seen[0]() is x:  # an array met before: its address and extent do not change
            if not x.flags.writeable:
                raise TypeError("tilec: a read-only array: kernels may write their pointer arguments; pass a writable copy")
            _, ptr, name, base, nbytes, own = seen
            owner = x if own == 1 else _root(x) if own == 2 else None
            return _Array(ptr, name, CPU, base=base, nbytes=nbytes, owner=owner)
        a = _numpy_array(x)
        own = 1 if a.owner is x else 2 if a.owner is not None else 0
        try:  # no strong reference: the entry goes with the array
            _seen[id(x)] = (weakref.ref(x, lambda _r, k=id(x): _seen.pop(k, None)), a.ptr, a.dtype, a.base, a.nbytes, own)
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
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        kind, size = cai["typestr"][1], int(cai["typestr"][2:])
        name = _dtype_name(getattr(x, "dtype", "")) if hasattr(x, "dtype") else ""
        dtype = _DTYPES.get(name) or _DTYPES.get(_TYPESTR.get((kind, size), ""))
        return _Array(cai["data"][0], dtype, CUDA, stream=cai.get("stream"))
    if hasattr(x, "data_ptr") and hasattr(x, "untyped_storage"):  # a PyTorch tensor
        dtype = _DTYPES.get(_dtype_name(x.dtype))
        if x.device.type == "cuda":
            import torch
            return _Array(x.data_ptr(), dtype, CUDA, stream=torch.cuda.current_stream(x.device).cuda_stream)
        if x.device.type != "cpu":
            raise TypeError(f"tilec: a tensor on device '{x.device}': tilec runs on 'cpu' (the emulator) and 'cuda'")
        st = x.untyped_storage()
        return _Array(x.data_ptr(), dtype, CPU, base=st.data_ptr(), nbytes=st.nbytes())
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
    return None


def _extent(x, ptr, itemsize):
    """The host memory a NumPy array views: from its base array's start to its end."""
    root = x
    while getattr(root, "base", None) is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    rai = root.__array_interface__
    if getattr(root, "flags", None) is not None and root.flags["C_CONTIGUOUS"] or root.flags["F_CONTIGUOUS"]:
        return rai["data"][0], root.nbytes
    # a strided view with no contiguous base: the span its elements cover
    shape, strides = x.shape, x.strides
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
        self._plans = {}  # a call's pattern -> what its launch needs (_Plan)
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

    def __repr__(self):
        return f"<tilec kernel {self.name} of {self.path}>"

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

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
        # a launch whose arguments have the pattern of one before (the same
        # names, kinds, dtypes and constexpr values) takes its plan: only the
        # arrays' addresses and the scalars' values are read
        vals = args + tuple(kwargs.values()) if kwargs else args
        try:
            ce, params = self._constexpr, self.params
            pattern = (len(args), tuple(kwargs), num_warps, num_stages,
                       *[(type(v), v) if i < len(params) and ce[params[i]] else _kind(v) for i, v in enumerate(args)],
                       *[(type(v), v) if ce.get(k) else _kind(v) for k, v in kwargs.items()])
            plan = self._plans.get(pattern)
        except TypeError:  # an unhashable constexpr: the slow path
            pattern = plan = None
        if plan is not None:
            arrays = [_as_array(vals[i]) for i in plan.array_slots]
            it = iter(arrays)
            values = [ctypes.c_uint64(next(it).ptr) if c is None else c(vals[i]) if i >= 0 else c
                      for i, c in zip(plan.slots, plan.convert)]
            if callable(grid):
                meta = dict(plan.meta)
                meta.update(zip(plan.names, (vals[i] for i in plan.named)))
                g = grid(meta)
            else:
                g = grid
            g = _grid3(g)
            if g is None:
                return
            self._launch(plan.kernel, plan.device, g, values, arrays, None)
            return
        self._run_slow(args, kwargs, vals, pattern, grid, num_warps, num_stages)

    def _run_slow(self, args, kwargs, vals, pattern, grid, num_warps, num_stages):
        bound = self._bind(args, kwargs)
        sig, defines, values, arrays, meta = [], [], [], [], dict(self._meta)
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
            a = _as_array(v)
            if a is not None:
                if a.dtype is None:
                    raise TypeError(f"tilec: argument '{name}' has dtype {getattr(v, 'dtype', '?')}, which tilec has no type for")
                sig.append("*" + a.dtype)
                arrays.append(a)
                values.append(ctypes.c_uint64(a.ptr))
            else:
                t = _scalar_type(v, name)
                sig.append(t)
                values.append(_CTYPES[t](int(v) if t not in ("fp32", "fp64") else float(v)))
        devices = {a.device for a in arrays}
        if len(devices) > 1:
            raise ValueError(f"tilec: {self.name}(): arrays on the CPU and on CUDA in one launch")
        device = devices.pop() if devices else (self._device or CPU)
        g = _grid3(grid(meta) if callable(grid) else grid)
        key = (device, ", ".join(sig), tuple(defines), num_warps or 0, num_stages or 0)
        k = self._kernels.get(key)
        if k is None:
            k = self._create(device, key)
        stream = next((a.stream for a in arrays if a.stream), None)
        if pattern is not None and device == CPU and all(a.owner is not None for a in arrays):
            plan = self._plan(vals, args, kwargs, k, device, values, meta)
            if plan is not None:
                self._plans[pattern] = plan
        if g is not None:
            self._launch(k, device, g, values, arrays, stream)

    def _plan(self, vals, args, kwargs, k, device, values, meta):
        """What a launch with this call's pattern needs: for each runtime
        value in parameter order, its slot among the call's values and its
        conversion; the meta dict's constant part and where its other
        entries come from. NumPy arrays on the CPU only (the other kinds
        keep the full path)."""
        slot_of = {name: i for i, name in enumerate(self.params[: len(args)])}
        slot_of.update({name: len(args) + j for j, name in enumerate(kwargs)})
        plan = _Plan()
        plan.kernel, plan.device = k, device
        plan.slots, plan.convert, plan.array_slots = [], [], []
        plan.names, plan.named = [], []
        runtime = [n for n in self.params if not self._constexpr[n] and n in meta and meta[n] is not None]
        for name, v in zip(runtime, values):
            i = slot_of.get(name)
            if i is None:  # a default: the same value every time
                plan.slots.append(-1)
                plan.convert.append(v)
                continue
            array = _ndarray is not None and type(vals[i]) is _ndarray
            if not array and type(vals[i]) not in (int, float, bool):
                return None  # a NumPy scalar, say: the full path converts it
            plan.slots.append(i)
            plan.convert.append(None if array else type(v))
            if array:
                plan.array_slots.append(i)
        plan.meta = {n: v for n, v in meta.items() if n not in slot_of}
        for name, i in slot_of.items():
            plan.names.append(name)
            plan.named.append(i)
        return plan

    def _create(self, device, key):
        with self._lock:
            k = self._kernels.get(key)
            if k is not None:
                return k
            _, signature, defines, warps, stages = key
            opts = _lib._JitOptions()
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
        dev = _Device.get(device)
        argv = (ctypes.c_void_p * max(len(values), 1))(*map(ctypes.addressof, values))
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
            st = lib.tilec_kernel_launch(k, g, argv, len(values), ctypes.c_void_p(stream or 0), ctypes.byref(msg))
            _lib.check(st, msg, _lib.LaunchError)
        finally:
            for base, _ in registered:
                lib.tilec_device_unregister_host(dev, ctypes.c_void_p(base), None)
            if held:
                _cpu_lock.release()


class _Plan:
    # slots[j]: where runtime value j is among the call's values (-1: a
    # default, convert[j] its ctypes value); convert[j]: its ctypes type,
    # None for an array
    __slots__ = ("kernel", "device", "slots", "convert", "array_slots", "meta", "names", "named")


def _kind(v):
    """What of a runtime argument a launch's plan depends on: a NumPy array's
    dtype and writability, a scalar's type (an int's width), any other value
    itself (a constexpr's value and type are the pattern's as they are)."""
    t = type(v)
    if t is _ndarray:
        return (v.dtype, v.flags.writeable)
    if t is int:
        return ("int", -2**31 <= v < 2**31, -2**63 <= v < 2**63)
    if t is float:
        return float
    return (t, v)


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
