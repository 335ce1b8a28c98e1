"""tilec kernels as PyTorch operators (torch.library).

    add = tilec.jit("vector_add.py", kernel="add_kernel")
    op = tilec.torch.custom_op("mylib::add", add, grid=lambda meta: (tilec.cdiv(meta["n_elements"], 1024),),
                               outputs={"out_ptr": lambda meta: torch.empty_like(meta["x_ptr"])},
                               scalars={"n_elements": int}, BLOCK_SIZE=1024)
    out = op(x, y, x.numel())          # torch.ops.mylib.add.default

The operator takes the kernel's parameters other than the outputs, in
order: a parameter is a Tensor unless `scalars` gives its type (int, float
or bool) or it is a tl.constexpr (its type from its default, or from
`scalars`; int without either). Keyword arguments to custom_op fix
constexprs for every call. Each output's callable gets Triton's meta dict
(every other argument by name) and allocates the output; it is also the
operator's fake implementation, so torch.compile(fullgraph=True) keeps the
kernel in its graph. CPU tensors run on the CPU emulator in place, CUDA
tensors on the GPU on the current stream.
"""
import ast

import torch

_TYPES = {int: "int", float: "float", bool: "bool", str: "str"}


def custom_op(name, kernel, *, grid, outputs, mutates_args=(), scalars=None, num_warps=None, num_stages=None,
              **fixed):
    scalars = dict(scalars or {})
    ns, _, opname = name.partition("::")
    if not ns or not opname:
        raise ValueError(f"tilec.torch.custom_op: name '{name}' is not 'namespace::name'")
    for o in outputs:
        if o not in kernel.params:
            raise ValueError(f"tilec.torch.custom_op: output '{o}' is not a parameter of {kernel.name}")
    for f in fixed:
        if f not in kernel.params:
            raise ValueError(f"tilec.torch.custom_op: '{f}' is not a parameter of {kernel.name}")
    # the meta-parameters an autotune config or a heuristic sets are not the operator's
    params = [p for p in kernel.params if p not in outputs and p not in fixed and p not in kernel.decorated]
    info = {p["name"]: p for p in kernel.info["params"]}
    decls = []
    for p in params:
        d = info[p]
        if p in scalars:
            t = _TYPES.get(scalars[p])
            if t is None:
                raise TypeError(f"tilec.torch.custom_op: scalars['{p}'] is {scalars[p]!r}; give int, float, bool or str")
        elif d["constexpr"]:
            t = _TYPES.get(type(ast.literal_eval(d["default"])), "int") if d["has_default"] and d["default"] else "int"
        else:
            t = "Tensor"
        if t == "Tensor" and p in mutates_args:
            decl = f"Tensor({'abcdefghijklmnopqrstuvwxyz'[sum(1 for x in decls if '!)' in x)]}!) {p}"
        else:
            decl = f"{t} {p}"
        if d["constexpr"] and d["has_default"] and d["default"] is not None:
            decl += "=" + _schema_literal(ast.literal_eval(d["default"]))
        decls.append(decl)
    # defaults must trail: one before a parameter without a default is dropped
    trailing = True
    for i in reversed(range(len(decls))):
        if "=" not in decls[i]:
            trailing = False
        elif not trailing:
            decls[i] = decls[i].split("=")[0]
    rets = ", ".join("Tensor" for _ in outputs)
    schema = f"({', '.join(decls)}) -> " + (rets if len(outputs) == 1 else f"({rets})")
    lib = torch.library.Library(ns, "FRAGMENT")
    lib.define(opname + schema)
    names = list(outputs)

    def _meta(args, kwargs):
        meta = dict(zip(params, args))
        meta.update(kwargs)
        return meta

    def _allocate(meta):
        return {o: outputs[o](meta) for o in names}

    def impl(*args, **kwargs):
        meta = _meta(args, kwargs)
        outs = _allocate(meta)
        call = {**meta, **outs, **fixed}
        kernel.run(grid=grid, num_warps=num_warps, num_stages=num_stages, **call)
        return outs[names[0]] if len(names) == 1 else tuple(outs[o] for o in names)

    def fake(*args, **kwargs):
        outs = _allocate(_meta(args, kwargs))
        return outs[names[0]] if len(names) == 1 else tuple(outs[o] for o in names)

    lib.impl(opname, impl, "CPU")
    lib.impl(opname, impl, "CUDA")
    torch.library.register_fake(name, fake, lib=lib)
    op = getattr(getattr(torch.ops, ns), opname).default
    op._tilec_library = lib  # the registration lives as long as the operator is referenced
    _keep.append(lib)
    return op


_keep = []


def _schema_literal(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)
