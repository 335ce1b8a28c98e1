#!/usr/bin/env python3
"""kloop_sass.py: the K loop of a matmul kernel in SASS, counted.

  kloop_sass.py FILE.sass [--k-steps N]

FILE.sass is `cuobjdump -sass` of a cubin. A loop is the range from a
backward branch's target to the branch; the K loop is the outermost loop
that holds tensor-core instructions (HMMA), and an inner loop inside it (a
loop over the instruction's K steps that was not unrolled) is counted on
its own. Prints, for the K loop: its static instruction count, the count
executed per iteration when the inner loop runs N times (--k-steps, the
tile's BLOCK_K over the instruction's K), and the counts of HMMA, LDSM
(ldmatrix), LDGSTS (cp.async), LDS, STS, LDG, BAR in it, as JSON.
"""
import json
import re
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
KINDS = ("HMMA", "LDSM", "LDGSTS", "LDS", "STS", "LDG", "BAR")


def parse_text(text):
    """(address, opcode, operands) of each instruction; nvdisasm's branch labels
    (`(.L_x_3)`) become the addresses they name, as cuobjdump prints them."""
    out, labels, pending = [], {}, []
    for line in text.splitlines():
        lab = re.match(r"\s*(\.L_x_\d+):", line)
        if lab:
            pending.append(lab.group(1))
            continue
        m = LINE.search(line)
        if m:
            addr = int(m.group(1), 16)
            for p in pending:
                labels[p] = addr
            pending = []
            out.append((addr, m.group(3), m.group(4)))
    sub = lambda m: f"0x{labels[m.group(1)]:x}" if m.group(1) in labels else m.group(0)
    return [(a, op, re.sub(r"`\((\.L_x_\d+)\)", sub, rest)) for a, op, rest in out]


def parse(path):
    with open(path) as f:
        return parse_text(f.read())


def tensor_core(op):
    return op.split(".")[0] in ("HMMA", "QMMA", "IMMA", "HGMMA", "QGMMA", "IGMMA")


def k_loop(ins):
    """The K loop's (the outermost loop with tensor-core instructions, the longest) static
    instruction count, or None when no loop has them."""
    with_mma = [(lo, hi) for lo, hi in loops(ins) if any(tensor_core(op) for a, op, _ in ins if lo <= a <= hi)]
    if not with_mma:
        return None
    lo, hi = max(with_mma, key=lambda r: r[1] - r[0])
    return count(ins, lo, hi)[0]


def loops(ins):
    found = []
    for addr, op, rest in ins:
        if op.startswith("BRA"):
            t = re.search(r"0x([0-9a-f]+)", rest)
            if t and int(t.group(1), 16) <= addr:
                found.append((int(t.group(1), 16), addr))
    return found


def count(ins, lo, hi):
    sel = [op for a, op, _ in ins if lo <= a <= hi]
    kinds = {k: sum(1 for op in sel if op.split(".")[0] == k) for k in KINDS}
    return len(sel), kinds


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    steps = int(sys.argv[sys.argv.index("--k-steps") + 1]) if "--k-steps" in sys.argv else 1
    ins = parse(sys.argv[1])
    with_mma = [(lo, hi) for lo, hi in loops(ins) if count(ins, lo, hi)[1]["HMMA"]]
    if not with_mma:
        print(json.dumps({"error": "no loop with HMMA"}))
        return 1
    lo, hi = max(with_mma, key=lambda r: r[1] - r[0])
    n, kinds = count(ins, lo, hi)
    inner = [(a, b) for a, b in with_mma if (a, b) != (lo, hi) and lo <= a and b <= hi]
    per_iter = n
    inner_n = 0
    if inner:
        a, b = max(inner, key=lambda r: r[1] - r[0])
        inner_n = count(ins, a, b)[0]
        per_iter = n + (steps - 1) * inner_n
    print(json.dumps({"static": n, "inner_loop": inner_n, "per_iteration": per_iter, **kinds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
