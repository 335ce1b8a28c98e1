# Loops without a dot whose stages are their own (tl.range(..., num_stages=S))
# prefetch their loads by cp.async, S - 1 iterations ahead, into a buffer in
# shared memory where each thread keeps its own elements: no barrier orders
# a thread's copies and its reads, only its own wait.
#
# rows: a grid-stride loop; the row's offsets serve the load and the store
# (the store's are computed again in the last stage), `other` is 1.0 (a
# select after the zero-filled copy).
# RUN: %tilec compile %s -k rows -s "*fp32:16, *fp32:16, i32, i32, i32:16, 256, 2" --emit=ptx | FileCheck %s --check-prefix=ROWS
# RUN: %tilec compile %s -k rows -s "*fp32:16, *fp32:16, i32, i32, i32:16, 256, 3" --emit=ptx | %ptxas_check
# ROWS: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, n;
# ROWS: cp.async.commit_group;
# ROWS: cp.async.wait_group 0;
# ROWS-NOT: bar.sync
# ROWS: ld.shared.b32
# ROWS: shfl.sync.bfly
# ROWS: st.global
#
# cols: a pointer the loop advances (carried, the first stage's alone), an
# accumulator, 3 stages: wait until one group is left in flight.
# RUN: %tilec compile %s -k cols -s "*fp32:16, *fp32:16, i32, 128, 3" --emit=ptx | FileCheck %s --check-prefix=COLS
# RUN: %tilec compile %s -k cols -s "*fp32:16, *fp32:16, i32, 128, 3" --emit=ptx | %ptxas_check
# COLS: cp.async.ca.shared.global
# COLS: cp.async.commit_group;
# COLS: cp.async.ca.shared.global
# COLS: cp.async.commit_group;
# COLS: cp.async.wait_group 1;
#
# gather: a load whose address is another load's value stays in the loop.
# RUN: %tilec compile %s -k gather -s "*fp32:16, *i32:16, *fp32:16, i32, 128" --emit=ptx | FileCheck %s --check-prefix=GATHER
# GATHER-NOT: cp.async
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=STAGES):
        offs = row * stride + cols
        x = tl.load(x_ptr + offs, mask=cols < n_cols, other=1.0)
        tl.store(y_ptr + offs, x * 2.0 + tl.sum(x, axis=0), mask=cols < n_cols)


@triton.jit
def cols(x_ptr, y_ptr, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    p = x_ptr + tl.program_id(0) * n + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in tl.range(0, n, BLOCK, num_stages=STAGES):
        acc += tl.load(p, mask=off + tl.arange(0, BLOCK) < n, other=0.0)
        p += BLOCK
    tl.store(y_ptr + tl.program_id(0), tl.sum(acc, axis=0))


@triton.jit
def gather(x_ptr, idx_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in tl.range(0, n, BLOCK, num_stages=2):
        o = off + tl.arange(0, BLOCK)
        i = tl.load(idx_ptr + o, mask=o < n, other=0)
        acc += tl.load(x_ptr + i, mask=o < n, other=0.0)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)
