"""The tl.* math functions, tilec's PTX against Triton's: bench/vs-triton --math.

Each function gets a kernel of its own (one element per thread: 128 elements, 4 warps), written
to a temporary file that both compilers read. What a function costs is what its kernel has
beyond the copy kernel of the same element type (y = x) compiled by the same compiler: the PTX
opcodes left after taking away the copy's, and the loads, stores and address arithmetic of the
other operands. The SASS of the whole kernel is counted too.
"""
import collections
import os

# (name, expression of x, y, z, arity, element types); the copy kernels come first. fp16 where
# Triton 3.9 takes it: its math functions (tl.exp ... tl.erf, and tl.sigmoid through tl.exp) take
# fp32 and fp64 only
FUNCS = [
    ("copy", "x", 1, ("fp32", "fp16")),
    ("exp", "tl.exp(x)", 1, ("fp32",)),
    ("exp2", "tl.exp2(x)", 1, ("fp32",)),
    ("log", "tl.log(x)", 1, ("fp32",)),
    ("log2", "tl.log2(x)", 1, ("fp32",)),
    ("sin", "tl.sin(x)", 1, ("fp32",)),
    ("cos", "tl.cos(x)", 1, ("fp32",)),
    ("sqrt", "tl.sqrt(x)", 1, ("fp32",)),
    ("sqrt_rn", "tl.sqrt_rn(x)", 1, ("fp32",)),
    ("rsqrt", "tl.rsqrt(x)", 1, ("fp32",)),
    ("abs", "tl.abs(x)", 1, ("fp32", "fp16")),
    ("erf", "tl.erf(x)", 1, ("fp32",)),
    ("floor", "tl.floor(x)", 1, ("fp32",)),
    ("ceil", "tl.ceil(x)", 1, ("fp32",)),
    ("sigmoid", "tl.sigmoid(x)", 1, ("fp32",)),
    ("x / y", "x / y", 2, ("fp32", "fp16")),
    ("x % y", "x % y", 2, ("fp32",)),
    ("fdiv", "tl.fdiv(x, y)", 2, ("fp32",)),
    ("fdiv ieee", "tl.fdiv(x, y, ieee_rounding=True)", 2, ("fp32",)),
    ("fdiv approx", "tl.fdiv(x, y, approx=True)", 2, ("fp32",)),
    ("div_rn", "tl.div_rn(x, y)", 2, ("fp32",)),
    ("maximum", "tl.maximum(x, y)", 2, ("fp32", "fp16")),
    ("minimum", "tl.minimum(x, y)", 2, ("fp32", "fp16")),
    ("fma", "tl.fma(x, y, z)", 3, ("fp32", "fp16")),
    ("clamp", "tl.clamp(x, y, z)", 3, ("fp32",)),
    ("copy", "x", 1, ("i32", "u32")),
    ("umulhi", "tl.umulhi(x, y)", 2, ("i32", "u32")),
    ("cdiv", "tl.cdiv(x, y)", 2, ("i32",)),
    ("x // y", "x // y", 2, ("i32",)),
    ("x % y", "x % y", 2, ("i32",)),
]

KERNEL = '''
@triton.jit
def {kernel}(X, Y, Z, OUT, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
{loads}    tl.store(OUT + offs, {expr}, mask=m)
'''

# what the operands cost rather than the function: the lines of the loads and stores (with the
# predicates inline assembly sets up for them), moves and address arithmetic
MEMORY_LINES = ("ld.global", "st.global")
OPERAND_OPS = ("ld.", "st.", "mov.", "cvta.", "mul.wide.", "mad.wide.", "add.s64", "ret")


def source(path):
    """Writes the kernels to path; returns the rows: label, kernel, type, signature."""
    text = ["import triton", "import triton.language as tl", ""]
    rows = []
    for i, (name, expr, arity, dtypes) in enumerate(FUNCS):
        kernel = f"f{i:02d}"
        loads = "".join(f"    {v} = tl.load({v.upper()} + offs, mask=m)\n" for v in "yz"[:arity - 1])
        text.append(KERNEL.format(kernel=kernel, expr=expr, loads=loads))
        for t in dtypes:
            rows.append({"name": name, "kernel": kernel, "dtype": t,
                         "sig": f"*{t}:16, *{t}:16, *{t}:16, *{t}:16, i32, 128"})
    with open(path, "w") as f:
        f.write("\n".join(text))
    return rows


def cost(ops, copy_ops):
    """The opcodes of a function's kernel beyond its copy kernel's, in order of first use."""
    left = collections.Counter(ops) - collections.Counter(copy_ops)
    out = collections.OrderedDict()
    for op in ops:
        if left.get(op) and not op.startswith(OPERAND_OPS):
            out[op] = left[op]
    return out


def fmt_cost(c, most=10):
    """The opcodes with their counts; a long sequence (a libdevice function's) as its length and first few."""
    if c is None:
        return "—"
    if not c:
        return "(none)"
    parts = [op if n == 1 else f"{op} ×{n}" for op, n in c.items()]
    if len(parts) <= most:
        return ", ".join(parts)
    return f"{sum(c.values())} instructions: " + ", ".join(parts[:4]) + ", …"


def table(rows):
    """Markdown lines; rows carry tilec and triton costs and SASS counts."""
    out = ["| function | type | tilec's PTX | Triton's PTX | same | SASS tilec / Triton |", "|---|---|---|---|---|---|"]
    for r in rows:
        if r["name"] == "copy":
            continue
        t, T = r.get("tilec"), r.get("triton")
        same = "—" if t is None or T is None else ("yes" if t == T else "**no**")
        sass = f"{r.get('tilec_sass', '—')} / {r.get('triton_sass', '—')}"
        out.append(f"| {r['name']} | {r['dtype']} | {fmt_cost(t)} | {fmt_cost(T)} | {same} | {sass} |")
    return out


def kernel_dir(tmp, r, arch):
    d = os.path.join(tmp, f"{r['kernel']}-{r['dtype']}-{arch}")
    os.makedirs(d, exist_ok=True)
    return d
