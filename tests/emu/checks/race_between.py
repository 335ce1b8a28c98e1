# Races between the programs of a launch on global memory: two programs
# touch the same byte, at least one writes, and neither access is atomic
# (tl.atomic_* with locks: race_locks.py). Blocks run on several host
# threads at once, or one after another: the finding is the same.
#
# A counter read and written back by every program (the count comes out short).
# CASE: -k counter -s "*i32" -g 1000 zeros:i32:1
# REPORT: race_between.py:33:9: data race on global memory between programs of kernel 'counter': block (
# REPORT: reads 4 bytes at offset 0 of 'p', which block (
# REPORT: wrote at race_between.py:34:5; neither access is atomic and no lock is held by both
# CASE: -k counter_atomic -s "*i32" -g 1000 zeros:i32:1
# A tile of sums that every program adds its row to, and the same with atomics.
# CASE: -k accumulate -s "*fp32, *fp32, 128" -g 20 rand:fp32:2560 zeros:fp32:128
# REPORT: race_between.py:46:9: data race on global memory between programs of kernel 'accumulate': block (
# REPORT: wrote at race_between.py:47:5; neither access is atomic
# CASE: -k accumulate_atomic -s "*fp32, *fp32, 128" -g 20 rand:fp32:2560 zeros:fp32:128
# Each program reads its neighbour's element, which the neighbour writes.
# CASE: -k read_neighbour -s "*i32, *i32, 64" -g 8 zeros:i32:512 empty:i32:512
# REPORT: data race on global memory between programs of kernel 'read_neighbour': block (
# Masked-off lanes make no access: every program updates its elements in
# place through a window twice their size, whose second half (its
# neighbour's elements) is masked off.
# CASE: -k masked_window -s "*i32, i32, 128" -g 10 rand:i32:1280 1280
# Neighbouring programs write neighbouring bytes of one 4-byte word, and read
# them back after a barrier; all programs read one table.
# CASE: -k per_program_scalars -s "*fp16, *i8, *fp32, *fp32, 32" -g 50 empty:fp16:50 empty:i8:50 rand:fp32:32 empty:fp32:50
import triton
import triton.language as tl


@triton.jit
def counter(p):
    c = tl.load(p)
    tl.store(p, c + 1)


@triton.jit
def counter_atomic(p):
    tl.atomic_add(p, 1)


@triton.jit
def accumulate(x, acc, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    a = tl.load(acc + offs)
    tl.store(acc + offs, a + v)


@triton.jit
def accumulate_atomic(x, acc, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    tl.atomic_add(acc + offs, v)


@triton.jit
def read_neighbour(p, out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(p + offs, offs)
    x = tl.load(p + (offs + BLOCK) % (BLOCK * tl.num_programs(0)))
    tl.store(out + offs, x)


@triton.jit
def masked_window(x, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, 2 * BLOCK)
    m = (offs < (pid + 1) * BLOCK) & (offs < n)
    v = tl.load(x + offs, mask=m, other=0)
    tl.store(x + offs, v + 1, mask=m)


@triton.jit
def per_program_scalars(h, b, table, out, N: tl.constexpr):
    pid = tl.program_id(0)
    t = tl.load(table + tl.arange(0, N))
    s = tl.sum(t, axis=0) + pid
    tl.store(h + pid, s.to(tl.float16))
    tl.store(b + pid, (s > 0).to(tl.int8))
    tl.debug_barrier()
    back = tl.load(h + pid).to(tl.float32) + tl.load(b + pid).to(tl.float32)
    tl.store(out + pid, back)
