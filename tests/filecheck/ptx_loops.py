# Loops and a runtime if, lowered with every thread's values carried through
# the loop: the PTX has the loop's branch back and ptxas accepts it.
# RUN: %tilec compile %s -k column_sums -s "*fp32:16, *fp32:16, i32, i32:16, 256" --emit=ptx | FileCheck %s --check-prefix=FOR
# RUN: %tilec compile %s -k column_sums -s "*fp32:16, *fp32:16, i32, i32:16, 256" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k clamp_rows -s "*fp32, i32, fp32, 128" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k halve_until -s "*i32, i32" --emit=ptx | %ptxas_check
import triton
import triton.language as tl


@triton.jit
def column_sums(x_ptr, out_ptr, n_rows, row_stride, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(n_rows):
        acc += tl.load(x_ptr + r * row_stride + cols)
    tl.store(out_ptr + cols, acc)


@triton.jit
def clamp_rows(x_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if limit > 0:
        x = tl.minimum(x, limit)
    else:
        x = x * 0.5
    tl.store(x_ptr + offs, x, mask=offs < n)


@triton.jit
def halve_until(p, n):
    v = tl.load(p)
    while v > n:
        v = v // 2
    tl.store(p, v)

# FOR: .visible .entry column_sums(
# FOR: ld.global.v2.b32
# FOR: bra
# FOR: st.global.v2.b32
