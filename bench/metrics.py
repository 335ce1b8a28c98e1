"""Static code metrics of compiled kernels, for bench/compare and bench/vs-triton.

A kernel's PTX is counted here (instructions, by kind); ptxas -v gives its
registers, spills and barriers; the cubin, disassembled by nvdisasm, gives
its SASS instructions, by kind. Every number is exact: the same files and
tools give the same counts on every run.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kloop_sass  # noqa: E402 (beside this file)

ARCHS = ("sm_80", "sm_90a")

# nvdisasm, where the machine has none: NVIDIA's wheel on PyPI, pinned by hash
NVDISASM_WHEEL = "nvidia_cuda_nvdisasm-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
NVDISASM_REQ = ("nvidia-cuda-nvdisasm==13.5.37 "
                "--hash=sha256:d3fdbdd49fa53e2e4aacd3db8259d052bd2b049ececdcb69e92e083c6728e7ca\n")


class ToolError(Exception):
    pass


def example_kernels(examples_dir):
    """The example kernels: each "# tilec: -k NAME -s SIG [--config N]" line of examples/*.py,
    as dicts with file, kernel, sig, config and key (unique: file:kernel, and [config N] where
    the file lists the kernel more than once)."""
    out = []
    for name in sorted(os.listdir(examples_dir)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(examples_dir, name)
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("# tilec: "):
                    continue
                args = shlex.split(line[len("# tilec: "):])
                k = {"file": path, "kernel": None, "sig": None, "config": 0}
                i = 0
                while i < len(args):
                    a = args[i]
                    if a in ("-k", "-s", "--config") and i + 1 < len(args):
                        k[{"-k": "kernel", "-s": "sig", "--config": "config"}[a]] = args[i + 1]
                        i += 2
                    else:
                        raise ToolError(f"{path}: a '# tilec:' line with an option bench/metrics.py does not take: {a}")
                if not k["kernel"] or not k["sig"]:
                    raise ToolError(f"{path}: a '# tilec:' line without -k and -s")
                k["config"] = int(k["config"])
                out.append(k)
    seen = {}
    for k in out:
        seen[(k["file"], k["kernel"])] = seen.get((k["file"], k["kernel"]), 0) + 1
    nth = {}
    for k in out:
        base = f"{os.path.basename(k['file'])}:{k['kernel']}"
        k["key"] = base + (f"[config {k['config']}]" if seen[(k["file"], k["kernel"])] > 1 else "")
        # lines of one config that differ in their signature (a constexpr flag): numbered from the second
        n = nth[k["key"]] = nth.get(k["key"], 0) + 1
        if n > 1:
            k["key"] += f"#{n}"
    return out


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return p.returncode, p.stdout, p.stderr


def ptx_ops(ptx, drop_lines=()):
    """The opcodes of a PTX text's statements in the kernel bodies (inline assembly's too), in
    order, with their modifiers (ex2.approx.ftz.f32) and without state spaces' sub-qualifiers
    (st.shared::cta.b32 is a st.shared.b32). Lines holding any of drop_lines are left out."""
    ops = []
    body = False
    for raw in ptx.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line or any(d in line for d in drop_lines):
            continue
        if line.startswith(".entry") or line.startswith(".visible .entry") or line.startswith(".func"):
            body = True
            continue
        if not body or line.startswith(".") or line.startswith("$"):
            continue
        # statements end at ';'; braces open and close scopes (inline assembly's) or hold a
        # vector's registers ({%r1, %r2}), which stay inside their statement
        for stmt in line.split(";"):
            s = stmt.strip().lstrip("{}").strip()
            if not s or s.startswith("."):
                continue
            if s.startswith("@"):
                s = s.split(None, 1)[1] if " " in s else ""
            op = s.split(None, 1)[0] if s else ""
            if not op or op.endswith(":") or op in ("(", ")"):
                continue
            ops.append(re.sub(r"::\w+", "", op))
    return ops


def ptx_counts(ptx):
    """Instructions of a PTX text (ptx_ops), and by kind."""
    kinds = {"mma": 0, "wgmma": 0, "ldmatrix": 0, "cp.async": 0, "shfl": 0, "bar": 0, "ld.global": 0, "st.global": 0,
             "ld.shared": 0, "st.shared": 0, "fma": 0}
    ops = ptx_ops(ptx)
    for op in ops:
        for k in kinds:
            if op == k or op.startswith(k + "."):
                kinds[k] += 1
    kinds["instrs"] = len(ops)
    return kinds


def ptxas_path():
    for p in (os.environ.get("PTXAS"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")):
        if p and os.access(p, os.X_OK):
            return p
    p = shutil.which("ptxas")
    if p:
        return p
    raise ToolError("no ptxas: set PTXAS or CUDA_HOME (the CUDA toolkit's bin/ptxas)")


def tool_version(path):
    rc, out, err = run([path, "--version"])
    lines = [l for l in (out + err).splitlines() if l.strip()]
    return lines[-2].strip() if len(lines) >= 2 and "Build" in lines[-1] else (lines[-1].strip() if lines else "?")


def nvdisasm_path(cache_dir):
    """nvdisasm: $NVDISASM, PATH, the CUDA toolkit's, or NVIDIA's wheel from PyPI (pinned by
    hash) unpacked under cache_dir."""
    for p in (os.environ.get("NVDISASM"), shutil.which("nvdisasm"),
              os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvdisasm")):
        if p and os.access(p, os.X_OK):
            return p
    unpacked = os.path.join(cache_dir, "nvdisasm", "nvidia", "cu13", "bin", "nvdisasm")
    if os.access(unpacked, os.X_OK):
        return unpacked
    os.makedirs(cache_dir, exist_ok=True)
    req = os.path.join(cache_dir, "nvdisasm-req.txt")
    with open(req, "w") as f:
        f.write(NVDISASM_REQ)
    print(f"bench: downloading nvdisasm ({NVDISASM_WHEEL.split('-py3')[0]}) from PyPI into {cache_dir}", file=sys.stderr)
    rc, out, err = run([sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "-r", req, "-d",
                        cache_dir, "--disable-pip-version-check", "-q", "--timeout", "30"])
    wheel = os.path.join(cache_dir, NVDISASM_WHEEL)
    if rc != 0 or not os.path.exists(wheel):
        raise ToolError("no nvdisasm: none on this machine, and the download from PyPI failed "
                        f"(python3 -m pip download nvidia-cuda-nvdisasm):\n{err.strip()}")
    with zipfile.ZipFile(wheel) as z:
        z.extract("nvidia/cu13/bin/nvdisasm", os.path.join(cache_dir, "nvdisasm"))
    os.chmod(unpacked, 0o755)
    return unpacked


# tensor-core instructions: HMMA (mma.sync, fp16/bf16/tf32), IMMA (int8), QMMA (mma.sync, fp8 on sm_89),
# HGMMA (wgmma, fp16/bf16), QGMMA (wgmma, fp8); TMA's tiled copies: UTMALDG (loads), UTMASTG (stores)
SASS_KINDS = ("HMMA", "IMMA", "QMMA", "HGMMA", "QGMMA", "LDSM", "LDGSTS", "SHFL", "BAR", "LDG", "STG", "LDS", "STS", "LDL", "STL", "FFMA", "MUFU",
              "UTMALDG", "UTMASTG")


def sass_counts(text):
    """SASS instructions of nvdisasm's listing (padding NOPs after the end left out), and by kind."""
    ops = []
    for line in text.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if not m:
            continue
        ins = m.group(1)
        if ins.startswith("@"):
            ins = ins.split(None, 1)[1] if " " in ins else ""
        ops.append(ins.split(None, 1)[0] if ins else "")
    while ops and ops[-1] == "NOP":
        ops.pop()
    c = {"instrs": len(ops)}
    for k in SASS_KINDS:
        c[k] = sum(1 for o in ops if o == k or o.startswith(k + "."))
    return c


def cubin_metrics(ptx_file, arch, ptxas, nvdisasm, cubin):
    """ptxas -v of a PTX file (registers, spills, barriers) and the SASS of its cubin."""
    rc, out, err = run([ptxas, "-v", f"-arch={arch}", ptx_file, "-o", cubin])
    if rc != 0:
        raise ToolError(f"ptxas rejects {ptx_file}:\n{err.strip()}")
    m = {}
    regs = re.search(r"Used (\d+) registers", err)
    m["regs"] = int(regs.group(1)) if regs else 0
    sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)
    m["spill_bytes"] = int(sp.group(1)) + int(sp.group(2)) if sp else 0
    st = re.search(r"(\d+) bytes stack frame", err)
    m["stack_bytes"] = int(st.group(1)) if st else 0
    rc, out, err = run([nvdisasm, "-c", cubin])
    if rc != 0:
        raise ToolError(f"nvdisasm cannot read {cubin}:\n{err.strip()}")
    s = sass_counts(out)
    m["sass_instrs"] = s.pop("instrs")
    m["kloop"] = kloop_sass.k_loop(kloop_sass.parse_text(out))
    for k, v in s.items():
        m["sass_" + k] = v
    return m
