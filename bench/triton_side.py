"""Triton's half of bench/vs-triton, run by a Python that has triton installed.

Reads jobs (JSON, one per line) on standard input: an example kernel (file, kernel, the tilec
signature, the autotune config), a target and a number of timed compiles. For each it compiles
the kernel with Triton for that target, without a GPU, writes the PTX and the cubin, and prints
one JSON line: the files, the shared memory, and the wall times of the compiles (the first in
this process apart: it pays for Triton's lazy set-up). The ptxas Triton takes for each target is
reported too, so that both compilers' PTX go through the same one.

The example files may import torch, which the kernels do not need: a module of that name with
nothing in it stands in for it.
"""
import importlib.util
import json
import os
import sys
import tempfile
import time


STAND_IN = """# a stand-in: the example files use torch in their host code only
class _Anything:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything  # a class: it can be called, subclassed (torch.autograd.Function) or read further


def __getattr__(name):
    return _Anything()
"""


def torch_stand_in():
    d = tempfile.mkdtemp(prefix="vs-triton-torch-")
    for pkg in ("torch", "torch/nn", "torch/nn/functional", "torch/autograd", "torch/cuda"):
        os.makedirs(os.path.join(d, pkg), exist_ok=True)
        with open(os.path.join(d, pkg, "__init__.py"), "w") as f:
            f.write(STAND_IN)
    sys.path.insert(0, d)


def split_entries(sig):
    """The entries of a signature, split at commas outside quotes and a descriptor's <...>."""
    out, cur, quote, depth = [], "", None, 0
    for ch in sig:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch in "<>":  # tensordesc<fp16[64, 64]> holds commas
            depth += 1 if ch == "<" else -1
            cur += ch
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def constant(text):
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    if text[:1] in "'\"":
        return text[1:-1]
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


TYPES = {"fp16", "bf16", "fp32", "fp64", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp8e4nv",
         "fp8e5"}
# a type name given to a tl.constexpr parameter is a dtype (sglang's compute_type: tl.constexpr): triton.language's
DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "i1": "int1", "i8": "int8",
          "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
          "fp8e4nv": "float8e4nv", "fp8e5": "float8e5"}


def to_triton(params, sig, meta):
    """tilec's signature (Triton's AOT form: "*fp32:16, i32, 1024") and the config's
    meta-parameters -> ASTSource's signature, constexprs and attrs. params: the JITFunction's
    (name, is_constexpr, has_default, default); a parameter past the signature's end takes its
    default, as a launch that leaves it out does."""
    import triton.language as tl
    entries = split_entries(sig)
    signature, constexprs, attrs = {}, {}, {}
    i = 0
    # a signature with an entry for every parameter gives the config's meta-parameters too, and its
    # values win, as tilec's do (examples/matmul.py's 128x128x32 under its config 0 of 128x256x64)
    full = len(entries) >= len(params)
    for idx, (name, is_constexpr, has_default, default) in enumerate(params):
        if name in meta and not full:
            signature[name] = "constexpr"
            constexprs[name] = meta[name]
            continue
        if i >= len(entries):
            if not has_default:
                raise ValueError(f"the signature has {len(entries)} entries; parameter {name} has none")
            signature[name] = "constexpr"
            constexprs[name] = default
            continue
        e = entries[i]
        i += 1
        base, _, hint = e.partition(":")
        if base.startswith("tensordesc<"):
            signature[name] = base  # a host TensorDescriptor, as Triton's signatures spell it
        elif is_constexpr and base in DTYPES:
            signature[name] = "constexpr"
            constexprs[name] = getattr(tl, DTYPES[base])
        elif base.startswith("*") or base in TYPES:
            if hint == "1" and not base.startswith("*"):
                signature[name] = "constexpr"  # Triton specializes an integer equal to 1
                constexprs[name] = 1
                continue
            signature[name] = base
            if hint == "16":
                attrs[(idx, )] = [["tt.divisibility", 16]]
        else:
            signature[name] = "constexpr"
            constexprs[name] = constant(e)
    return signature, constexprs, attrs


def _find_module(base, parts):
    """The file of module parts under base (a .py file or a package's __init__.py), or None."""
    p = os.path.join(base, *parts)
    for f in (p + ".py", os.path.join(p, "__init__.py")):
        if os.path.isfile(f):
            return f
    return None


def module_file(path, module, level):
    """The file an import in path names, inside the package path lies in: relative imports from
    path's folder, absolute ones from the nearest folder above path that holds them (the wheel's
    root for `from sglang.kernels.ops.x import y`). None for a module outside (a third party's)."""
    parts = module.split(".") if module else []
    d = os.path.dirname(os.path.abspath(path))
    if level:
        for _ in range(level - 1):
            d = os.path.dirname(d)
        return _find_module(d, parts)
    while parts:
        f = _find_module(d, parts)
        if f:
            return f
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up
    return None


def plain_import(module):
    """Whether the extracted text imports a module as it is without looking for it in the package:
    Triton, torch (the stand-in), and Python's own library."""
    root = (module or "").split(".")[0]
    return root in ("triton", "torch", "__future__") or root in sys.stdlib_module_names


_deps = {}  # (file, name or None for the whole module) -> the module extracted from it, for the imports of extracted texts
_deps_dir = None


def jit_extract(path, names=None, out=None):
    """The @triton.jit functions of a file that the kernels named use, with the module-level values
    and imports they read, without the file's host code: Triton's tutorials run tests and ask the
    driver for a GPU at import, and third-party packages (sglang, Liger-Kernel) import torch, CUDA
    extensions and their own host modules. From the kernels named (names None: every @triton.jit
    function and module-level value of the file) it follows the names they read to the file's
    top-level statements that bind them:
      - @triton.jit and @triton.constexpr_function functions; other decorators (the autotuners and
        heuristics, whose configs are host code: the job gives warps, stages and every constexpr)
        are dropped, and so is launch_metadata (a host function, 09's);
      - assignments (constants, `X: tl.constexpr = 64`), each in a try: one that calls host code
        (`_is_hip = is_hip()`) is left undefined, and Triton says so if a kernel reads it;
      - imports from the package itself (`from sglang.kernels.ops.x import helper`, relative
        ones) are extracted the same way, recursively, into modules of their own beside this one
        (each keeps its own globals); other imports (Triton, torch, Python's library, a third
        party's) as they are, each in a try;
      - the if and try blocks at the top level that hold any of these (`if TRITON3:` around a
        helper), with the statements of theirs that are kept.
    Writes the text to OUT (default: a new temporary folder, under the file's name) and returns
    its path."""
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())

    def kernel_decorator(d):
        return "jit" in ast.unparse(d) or "constexpr_function" in ast.unparse(d)

    def is_kernel(n):
        return isinstance(n, ast.FunctionDef) and any(kernel_decorator(d) for d in n.decorator_list)


    def binds(n):
        if isinstance(n, ast.FunctionDef):
            return [n.name]
        if isinstance(n, ast.Assign):
            return [e.id for t in n.targets for e in ast.walk(t) if isinstance(e, ast.Name)]
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            return [n.target.id]
        if isinstance(n, ast.Import):
            return [a.asname or a.name.split(".")[0] for a in n.names]
        if isinstance(n, ast.ImportFrom):
            return [a.asname or a.name for a in n.names if a.name != "*"]
        return []

    def top_level(stmts, blocks):
        """The statements of a module with the if and try blocks they lie in (softplus under
        `if TRITON3:`, an optional import under `try:`), the blocks' bodies read as top-level."""
        for n in stmts:
            if isinstance(n, ast.If):
                yield from top_level(n.body + n.orelse, blocks + [n])
            elif isinstance(n, ast.Try):
                yield from top_level(n.body + [x for h in n.handlers for x in h.body] + n.orelse + n.finalbody,
                                     blocks + [n])
            else:
                yield n, blocks

    for n, _ in top_level(tree.body, []):  # the decorators kept, before the names they read are followed
        if is_kernel(n):
            n.decorator_list = [d for d in n.decorator_list if kernel_decorator(d)]
            for d in n.decorator_list:
                if isinstance(d, ast.Call):
                    d.keywords = [k for k in d.keywords if k.arg != "launch_metadata"]
    bound = {}
    for n, blocks in top_level(tree.body, []):
        for name in binds(n):
            bound.setdefault(name, []).append((n, blocks))
    if names is None:
        names = [b for n, _ in top_level(tree.body, []) if is_kernel(n) or isinstance(n, (ast.Assign, ast.AnnAssign))
                 for b in binds(n)]
    # the closure over the names read: statements kept (and the blocks they lie in, with the names
    # their conditions read), and of each import the names wanted from it
    kept, wanted, todo = set(), {}, list(names)
    while todo:
        name = todo.pop()
        for n, blocks in bound.get(name, []):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                wanted.setdefault(id(n), set()).add(name)
            elif not is_kernel(n) and not isinstance(n, (ast.Assign, ast.AnnAssign)) or id(n) in kept:
                continue  # a host function (not a kernel) is never called by one: left out
            else:
                todo += [e.id for e in ast.walk(n) if isinstance(e, ast.Name)]
            kept.add(id(n))
            for blk in blocks:
                if id(blk) not in kept:
                    kept.add(id(blk))
                    todo += [e.id for e in ast.walk(blk.test) if isinstance(e, ast.Name)] if isinstance(blk, ast.If) else []

    def guarded(stmts):
        return ast.Try(body=stmts, handlers=[ast.ExceptHandler(type=ast.Name("Exception"), name=None, body=[ast.Pass()])],
                       orelse=[], finalbody=[])

    def emit(stmts):
        """The statements kept of stmts, as the extracted text has them."""
        global _deps_dir
        body = []
        for n in stmts:
            if id(n) not in kept:
                continue
            elif isinstance(n, ast.If):  # guarded: its condition may call host code
                body.append(guarded([ast.If(test=n.test, body=emit(n.body) or [ast.Pass()], orelse=emit(n.orelse))]))
            elif isinstance(n, ast.Try):
                body.append(ast.Try(body=emit(n.body) or [ast.Pass()],
                                    handlers=[ast.ExceptHandler(type=h.type, name=h.name, body=emit(h.body) or [ast.Pass()])
                                              for h in n.handlers],
                                    orelse=emit(n.orelse), finalbody=emit(n.finalbody)))
            elif isinstance(n, ast.FunctionDef):
                body.append(n)
            elif isinstance(n, (ast.Assign, ast.AnnAssign)):
                body.append(guarded([n]))
            elif isinstance(n, ast.Import) and all(plain_import(a.name) for a in n.names) or \
                    isinstance(n, ast.ImportFrom) and not n.level and plain_import(n.module):
                body.append(guarded([n]))
            else:  # an import from the package: each name wanted from an extracted copy of its module
                if _deps_dir is None:
                    _deps_dir = tempfile.mkdtemp(prefix="vs-triton-deps-")
                    sys.path.insert(0, _deps_dir)
                for a in n.names:
                    name = a.asname or a.name.split(".")[0]
                    if name not in wanted[id(n)]:
                        continue
                    if isinstance(n, ast.Import):
                        src, attr = (module_file(path, a.name, 0) if a.asname else None), None
                    else:
                        src, attr = module_file(path, n.module, n.level), a.name
                        sub = src and os.path.basename(src) == "__init__.py" and _find_module(os.path.dirname(src), [a.name])
                        if sub:  # `from package import module`
                            src, attr = sub, None
                    if not src:  # outside the package (packaging's version): as it is, where this Python has it
                        if not getattr(n, "level", 0):
                            body.append(guarded([type(n)(**{**n.__dict__, "names": [a]})]))
                        continue
                    key = (os.path.abspath(src), attr)
                    if key not in _deps:
                        _deps[key] = f"vs_triton_dep{len(_deps)}_{os.path.splitext(os.path.basename(src))[0]}"
                        jit_extract(src, [attr] if attr else None, os.path.join(_deps_dir, _deps[key] + ".py"))
                    # guarded: a host function of the module is not in its extracted copy
                    body.append(guarded(ast.parse(f"import {_deps[key]} as {name}" if attr is None else
                                                  f"from {_deps[key]} import {attr} as {name}").body))
        return body

    # annotations as strings (from __future__, first) whatever is read
    body = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"] + emit(tree.body)
    if out is None:
        out = os.path.join(tempfile.mkdtemp(prefix="vs-triton-src-"), os.path.basename(path))
    with open(out, "w", encoding="utf-8") as f:
        f.write(ast.unparse(ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))) + "\n")
    return out


def load(path, kernel, extract=False):
    if extract:
        path = jit_extract(path, [kernel])
    name = "vs_triton_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(mod)
    return getattr(mod, kernel)


def main():
    torch_stand_in()
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    # Triton's own choice of ptxas: the older one below sm_90, the newer from sm_90 on
    from triton.backends.nvidia.compiler import get_ptxas
    ptxas = {arch: get_ptxas(int(arch[3:5])).path for arch in ("sm_80", "sm_89", "sm_90a")}
    print(json.dumps({"triton": triton.__version__, "ptxas": ptxas}), flush=True)
    first = True
    for line in sys.stdin:
        job = json.loads(line)
        out = {"id": job["id"]}
        try:
            obj = load(job["file"], job["kernel"], job.get("extract", False))
            meta, warps, stages = {}, 4, 3
            configs = getattr(obj, "configs", None)
            if configs and "warps" not in job:
                cfg = configs[job["config"]]
                meta, warps, stages = dict(cfg.kwargs), cfg.num_warps, cfg.num_stages
            if "warps" in job:  # the signature holds the meta-parameters (the tutorials' configs are host code)
                warps, stages = job["warps"], job["stages"]
            while not isinstance(obj, JITFunction):
                obj = obj.fn
            params = [(p.name, p.is_constexpr, p.has_default, p.default) for p in obj.params]
            signature, constexprs, attrs = to_triton(params, job["sig"], meta)
            cc = int(job["arch"][3:5])
            times = []
            for r in range(1 + job["runs"]):
                src = ASTSource(fn=obj, signature=signature, constexprs=constexprs, attrs=attrs)
                t0 = time.perf_counter()
                ck = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                                    options={"num_warps": warps, "num_stages": stages})
                dt = (time.perf_counter() - t0) * 1e3
                if r == 0 and first:
                    out["cold_ms"] = dt
                else:
                    times.append(dt)
                first = False
            out["warm_ms"] = times
            base = os.path.join(job["out"], "triton")
            with open(base + ".ptx", "w") as f:
                f.write(ck.asm["ptx"])
            with open(base + ".cubin", "wb") as f:
                f.write(ck.asm["cubin"])
            if "ttgir" in ck.asm:  # Triton's layouts and shared buffers, beside tilec's --emit=tile-gpu
                with open(base + ".ttgir", "w") as f:
                    f.write(ck.asm["ttgir"])
            out["ptx"], out["cubin"] = base + ".ptx", base + ".cubin"
            out["shared_bytes"] = ck.metadata.shared
        except Exception as e:  # a kernel Triton cannot compile is a row without Triton's numbers
            out["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"[:300]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
