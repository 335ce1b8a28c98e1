"""Writes random_ref.h: what Triton's own random numbers are for the kernels
of ../filecheck/ptx_random.py, which test_random.c compares tilec's with.

Needs Triton and NumPy from PyPI (the numbers in random_ref.h came from
triton==3.9.0), and no GPU: the kernels run in Triton's interpreter
(TRITON_INTERPRET=1), which executes triton/language/random.py as written,
on NumPy. The tests do not need this script or Triton; run it only to
remake the tables:

    python -m venv venv && venv/bin/pip install triton==3.9.0 numpy
    venv/bin/python tests/emu/gen_random_ref.py > tests/emu/random_ref.h

The words of randint are also checked here against a Philox written from
its definition, so that the tables do not hold an interpreter's mistake.
"""
import importlib.util
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import triton  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = 16
SIDE = 8

spec = importlib.util.spec_from_file_location("ptx_random", os.path.join(HERE, "..", "filecheck", "ptx_random.py"))
kernels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernels)


class Buf:
    """A NumPy array where the interpreter expects a torch tensor: it reads
    and writes the memory at data_ptr() in place."""

    def __init__(self, a):
        self.a = a
        self.dtype = {np.uint32: "uint32", np.uint64: "uint64", np.float32: "float32"}[a.dtype.type]

    def data_ptr(self):
        return self.a.ctypes.data

    def untyped_storage(self):
        return self

    def cpu(self):
        return self

    def new_empty(self, *args, **kwargs):
        return Buf(self.a)

    def set_(self, storage, *args):
        self.a = storage.a

    def storage_offset(self):
        return 0

    def size(self):
        return self.a.shape

    def stride(self):
        return self.a.strides

    def copy_(self, other):
        pass


def sig_type(v):
    """The dtype Triton gives a Python int argument, as tilec's signature spells it."""
    if -2**31 <= v < 2**31:
        return "i32"
    if 0 <= v < 2**32:
        return "u32"
    if -2**63 <= v < 2**63:
        return "i64"
    return "u64"


def philox_words(seed, offset, rounds, wide):
    """Philox 4x32 from its definition: the key the seed's two words, the
    counter the offset's low word, its high word when wide (else 0), two
    zeros; the four words."""
    m = 0xFFFFFFFF
    seed &= 2**64 - 1
    k0, k1 = seed & m, seed >> 32
    c = [offset & m, (offset >> 32) & m if wide else 0, 0, 0]
    for _ in range(rounds):
        p0, p2 = c[0], c[2]
        c = [((0xCD9E8D57 * p2) >> 32) ^ c[1] ^ k0, (0xCD9E8D57 * p2) & m, ((0xD2511F53 * p0) >> 32) ^ c[3] ^ k1,
             (0xD2511F53 * p0) & m]
        k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
    return c


# seed, base of the offsets (its dtype theirs), rounds: seeds of every
# width and sign, offsets negative, unsigned, near 2^31, and 64-bit ones across a
# change of their high word
RAND_CASES = [
    (42, 0, 10),
    (-7, -40, 10),
    (3000000000, 2147483600, 10),
    (2**40 + 5, 2**33 - 16, 10),
    (-(2**35) - 3, -(2**40) - 20, 10),
    (2**63 + 12345, 2**62 + 7, 10),
    (1234, 100, 7),
    (2**33 + 1, 2**31 + 5, 3),
]
# seed (64-bit), base (int32), base64 (int64)
PHILOX_CASES = [
    (2**40 + 77, 5, 2**40 + 3),
    (-(2**50) + 9, -100, -(2**45)),
    (2**32 + 1, 2**30, 2**63 - 100),
]


def run_rand(seed, base, rounds):
    words = np.zeros(5 * BLOCK, np.uint32)
    floats = np.zeros(10 * BLOCK, np.float32)
    kernels.rand_forms[(1, )](Buf(words), Buf(floats), seed, base, BLOCK=BLOCK, ROUNDS=rounds)
    for j in range(BLOCK):
        ref = philox_words(seed, base + j, rounds, sig_type(base)[1:] == "64")
        assert words[j] == ref[0], (seed, base, j)
        assert [words[(k + 1) * BLOCK + j] for k in range(4)] == ref, (seed, base, j)
    return words, floats


def run_philox(seed, base, base64):
    w32 = np.zeros(9 * BLOCK + 4 + SIDE * SIDE + 3 * SIDE, np.uint32)
    w64 = np.zeros(6 * BLOCK + 2, np.uint64)
    f = np.zeros(5 * BLOCK, np.float32)
    kernels.philox_forms[(1, )](Buf(w32), Buf(w64), Buf(f), seed, base, base64, BLOCK=BLOCK, SIDE=SIDE)
    for j in range(BLOCK):
        assert w32[8 * BLOCK + j] == philox_words(seed + j * 0x100000001, base + j, 10, False)[0]
    return w32, w64, f


def table(name, ctype, values, fmt):
    lines = []
    for k in range(0, len(values), 8):
        lines.append("    " + " ".join(fmt % v + "," for v in values[k:k + 8]))
    return "static const %s %s[%d] = {\n%s\n};\n" % (ctype, name, len(values), "\n".join(lines))


def main():
    out = [
        "/* random_ref.h: the random numbers Triton %s gave for the kernels of" % triton.__version__,
        " * filecheck/ptx_random.py in its interpreter (TRITON_INTERPRET=1), made by",
        " * gen_random_ref.py: do not edit. Floats are their bits. */",
        "#ifndef TILEC_TEST_RANDOM_REF_H",
        "#define TILEC_TEST_RANDOM_REF_H",
        "",
        "#include <stdint.h>",
        "",
        "enum { RAND_BLOCK = %d, PHILOX_SIDE = %d };" % (BLOCK, SIDE),
        "",
    ]
    rows = []
    for n, (seed, base, rounds) in enumerate(RAND_CASES):
        words, floats = run_rand(seed, base, rounds)
        out.append(table("rand_words%d" % n, "uint32_t", words.tolist(), "0x%08x"))
        out.append(table("rand_floats%d" % n, "uint32_t", floats.view(np.uint32).tolist(), "0x%08x"))
        rows.append('    {"%s", 0x%016xu, "%s", %d, %d, rand_words%d, rand_floats%d},' %
                    (sig_type(seed), seed & (2**64 - 1), sig_type(base), base, rounds, n, n))
    out.append("/* rand_forms(words, floats, seed, base, RAND_BLOCK, rounds) */")
    out.append("static const struct RandCase {\n  const char *seed_type;\n  uint64_t seed;\n  const char *base_type;\n"
               "  int64_t base;\n  int rounds;\n  const uint32_t *words, *floats;\n} rand_cases[] = {\n%s\n};\n" %
               "\n".join(rows))
    rows = []
    for n, (seed, base, base64) in enumerate(PHILOX_CASES):
        assert sig_type(seed) == "i64" and sig_type(base) == "i32" and sig_type(base64) == "i64"
        w32, w64, f = run_philox(seed, base, base64)
        out.append(table("philox_w32_%d" % n, "uint32_t", w32.tolist(), "0x%08x"))
        out.append(table("philox_w64_%d" % n, "uint64_t", w64.tolist(), "0x%016xu"))
        out.append(table("philox_floats%d" % n, "uint32_t", f.view(np.uint32).tolist(), "0x%08x"))
        rows.append("    {%d, %d, %d, philox_w32_%d, philox_w64_%d, philox_floats%d}," % (seed, base, base64, n, n, n))
    out.append("/* philox_forms(w32, w64, floats, seed: i64, base: i32, base64: i64, RAND_BLOCK, PHILOX_SIDE) */")
    out.append("static const struct PhiloxCase {\n  int64_t seed;\n  int32_t base;\n  int64_t base64;\n"
               "  const uint32_t *w32;\n  const uint64_t *w64;\n  const uint32_t *floats;\n} philox_cases[] = {\n%s\n};\n" %
               "\n".join(rows))
    out.append("#endif")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
