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
    """The entries of a signature, split at commas outside quotes."""
    out, cur, quote = [], "", None
    for ch in sig:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == ",":
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
    if text[:1] in "'\"":
        return text[1:-1]
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


TYPES = {"fp16", "bf16", "fp32", "fp64", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp8e4nv",
         "fp8e5"}


def to_triton(params, sig, meta):
    """tilec's signature (Triton's AOT form: "*fp32:16, i32, 1024") and the config's
    meta-parameters -> ASTSource's signature, constexprs and attrs."""
    entries = split_entries(sig)
    signature, constexprs, attrs = {}, {}, {}
    i = 0
    for idx, name in enumerate(params):
        if name in meta:
            signature[name] = "constexpr"
            constexprs[name] = meta[name]
            continue
        if i >= len(entries):
            raise ValueError(f"the signature has {len(entries)} entries; parameter {name} has none")
        e = entries[i]
        i += 1
        base, _, hint = e.partition(":")
        if base.startswith("*") or base in TYPES:
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


def jit_extract(path):
    """The @triton.jit functions of a file with the imports they can use, without its host code:
    Triton's tutorials run tests and ask the driver for a GPU at import. Other decorators (the
    autotuners, whose configs are host code) are dropped: the job gives warps and stages."""
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    keep = []
    for n in tree.body:
        if isinstance(n, ast.Import) and all(a.name.split(".")[0] in ("triton", "math") for a in n.names):
            keep.append(n)
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in ("triton", "typing", "math"):
            keep.append(n)
        elif isinstance(n, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in n.decorator_list):
            n.decorator_list = [d for d in n.decorator_list if "jit" in ast.unparse(d)]
            for d in n.decorator_list:  # launch_metadata names a host function (09's): left out with it
                if isinstance(d, ast.Call):
                    d.keywords = [k for k in d.keywords if k.arg != "launch_metadata"]
            keep.append(n)
    out = os.path.join(tempfile.mkdtemp(prefix="vs-triton-src-"), os.path.basename(path))
    with open(out, "w", encoding="utf-8") as f:
        f.write(ast.unparse(ast.Module(body=keep, type_ignores=[])) + "\n")
    return out


def load(path, kernel, extract=False):
    if extract:
        path = jit_extract(path)
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
            signature, constexprs, attrs = to_triton(obj.arg_names, job["sig"], meta)
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
            out["ptx"], out["cubin"] = base + ".ptx", base + ".cubin"
            out["shared_bytes"] = ck.metadata.shared
        except Exception as e:  # a kernel Triton cannot compile is a row without Triton's numbers
            out["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"[:300]
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
