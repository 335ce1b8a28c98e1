# Module-level values computed by plain Python over literals fold as Python
# computes them: int() of strings, str/repr/format/round/sum, string methods,
# slices and repetition of tuples and strings. os.environ.get and os.getenv
# take their default (the environment is not read; --emit=ast says so).
# The expected values are what Python prints for the same expressions.
# RUN: %tilec compile %s -s "*fp32" --emit=ast 2>&1 | FileCheck %s
# CHECK: note: static_print: BLOCK = 128
# CHECK: note: static_print: SPLIT = True
# CHECK: note: static_print: FLAG = False
# CHECK: note: static_print: HEX = 255
# CHECK: note: static_print: BIN = -5
# CHECK: note: static_print: UND = 1000
# CHECK: note: static_print: REP = (64, 64, 1, 1)
# CHECK: note: static_print: STREP = ababab
# CHECK: note: static_print: SL = (11, 12, 13)
# CHECK: note: static_print: REV = (14, 12, 10)
# CHECK: note: static_print: NEG = def
# CHECK: note: static_print: CH = f
# CHECK: note: static_print: STR = 32.5TrueNone
# CHECK: note: static_print: REPR = "it's"1e-05
# CHECK: note: static_print: FMT = 0x00ff3.14
# CHECK: note: static_print: RND = (2, 4, 0, 1200, 1200, 2.67, 0.12)
# CHECK: note: static_print: SUM = 16
# CHECK: note: static_print: UP = FP16bf16
# CHECK: note: static_print: STRIP = x y|hixx|--a
# CHECK: note: static_print: STARTS = (True, True, False)
# CHECK: note: static_print: REPL = a_b_c|bba|-a-b-
# CHECK: note: static_print: SPLITS = ('1', ' 2', '3', 'a', 'b', 'a', 'b-c')
# CHECK: note: static_print: JOIN = axbxc
# CHECK: note: static_print: DTYPE = uint32
# CHECK: # {{.*}}ast_module_values.py:{{[0-9]+}}: environment variable TILEC_DOC_BLOCK is not read: its default, '128', is taken (-D NAME=VALUE sets the global)
# CHECK: # {{.*}}ast_module_values.py:{{[0-9]+}}: environment variable TILEC_DOC_SPLIT is not read: its default, None, is taken
# CHECK: # {{.*}}ast_module_values.py:{{[0-9]+}}: environment variable TILEC_DOC_FLAG is not read: its default, '0', is taken
import os
from os import environ

import triton
import triton.language as tl

BLOCK = tl.constexpr(int(os.environ.get("TILEC_DOC_BLOCK", "128")))
SPLIT = tl.constexpr(os.getenv("TILEC_DOC_SPLIT") is None)
FLAG = tl.constexpr(environ.get("TILEC_DOC_FLAG", "0") == "1")
HEX = tl.constexpr(int("0x_ff", 0))
BIN = tl.constexpr(int(" -101 ", 2))
UND = tl.constexpr(int("1_000"))
REP = tl.constexpr((64,) * 2 + 2 * (1,))
STREP = tl.constexpr("ab" * 3)
SL = tl.constexpr((10, 11, 12, 13, 14)[1:4])
REV = tl.constexpr((10, 11, 12, 13, 14)[::-2])
NEG = tl.constexpr("abcdef"[-3:])
CH = tl.constexpr("abcdef"[-1])
STR = tl.constexpr(str(3) + str(2.5) + str(True) + str(None))
REPR = tl.constexpr(repr("it's") + repr(1e-05))
FMT = tl.constexpr(format(255, "#06x") + format(3.14159, ".2f"))
RND = tl.constexpr((round(2.5), round(3.5), round(-0.5), round(1234, -2), round(1250, -2), round(2.675, 2), round(0.125, 2)))
SUM = tl.constexpr(sum((1, 2, 3), 10))
UP = tl.constexpr("fp16".upper() + "BF16".lower())
STRIP = tl.constexpr("  x y  ".strip() + "|" + "xxhixx".lstrip("x") + "|" + "--a--".rstrip("-"))
STARTS = tl.constexpr(("float16".startswith("float"), "float16".endswith(("32", "16")), "ab".startswith("abc")))
REPL = tl.constexpr("a.b.c".replace(".", "_") + "|" + "aaa".replace("a", "b", 2) + "|" + "ab".replace("", "-"))
SPLITS = tl.constexpr("1, 2,3".split(",") + "  a  b ".split() + "a-b-c".split("-", 1))
JOIN = tl.constexpr("x".join(("a", "b", "c")))
DTYPE = tl.constexpr("uint" + str(8 * 4))


@triton.jit
def show(x_ptr):
    tl.static_print("BLOCK =", BLOCK)
    tl.static_print("SPLIT =", SPLIT)
    tl.static_print("FLAG =", FLAG)
    tl.static_print("HEX =", HEX)
    tl.static_print("BIN =", BIN)
    tl.static_print("UND =", UND)
    tl.static_print("REP =", REP)
    tl.static_print("STREP =", STREP)
    tl.static_print("SL =", SL)
    tl.static_print("REV =", REV)
    tl.static_print("NEG =", NEG)
    tl.static_print("CH =", CH)
    tl.static_print("STR =", STR)
    tl.static_print("REPR =", REPR)
    tl.static_print("FMT =", FMT)
    tl.static_print("RND =", RND)
    tl.static_print("SUM =", SUM)
    tl.static_print("UP =", UP)
    tl.static_print("STRIP =", STRIP)
    tl.static_print("STARTS =", STARTS)
    tl.static_print("REPL =", REPL)
    tl.static_print("SPLITS =", SPLITS)
    tl.static_print("JOIN =", JOIN)
    tl.static_print("DTYPE =", DTYPE)
