# num_stages=0 asks for no pipelining, as in Triton (sglang's act_quant launches with
# num_stages=0): from the command line, a config, or tl.range, it is 1, never the
# default of 3 that a 0 in tilec's options stands for.
# RUN: %tilec compile %s -s "*fp32, i32" --emit=ast | FileCheck %s --check-prefix=CONFIG
# RUN: %tilec compile %s -s "*fp32, i32" --num-stages 0 --emit=ast | FileCheck %s --check-prefix=CONFIG
# RUN: %tilec compile %s -s "*fp32, i32" --num-stages 4 --emit=tile | FileCheck %s --check-prefix=RANGE
# CONFIG: num_stages = 1
# RANGE: attributes {tile.num_stages = 4
# RANGE: scf.for
# RANGE: } {tile.num_stages = 1 : i32}
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_stages=0)], key=["n"])
@triton.jit
def zero_stages(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(0, n, num_stages=0):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(x_ptr + offs, acc)
