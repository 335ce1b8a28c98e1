# Races between the threads of one program on global memory: a thread
# reads or writes a byte that another thread of the program wrote, or
# writes one another read, with no barrier between them. A layout wider
# than its tile gives each element to several threads; all of them load
# it and the first stores it: those loads are copies, not races.
#
# A store, then a load of the neighbour's element, without a barrier: thread
# 0 reads element 1 before thread 1 writes it, thread 127 reads element 128,
# which thread 0 wrote (256 elements on 128 threads: thread t has t, t + 128).
# CASE: -k shift -s "*i32, *i32, 256" -g 1 rand:i32:256 empty:i32:256
# REPORT: race_within.py:50:5: data race on global memory in kernel 'shift', block (0, 0, 0): thread 1 writes 4 bytes at offset 4 of 'p', which thread 0 read at race_within.py:51:9, with no barrier between them (tl.debug_barrier)
# REPORT: race_within.py:51:9: data race on global memory in kernel 'shift', block (0, 0, 0): thread 127 reads 4 bytes at offset 512 of 'p', which thread 0 wrote at race_within.py:50:5, with no barrier between them (tl.debug_barrier)
# --no-racecheck leaves the race check out.
# CASE: -k shift -s "*i32, *i32, 256" -g 1 --no-racecheck rand:i32:256 empty:i32:256
# The same with the barrier: silent, in order and in the orders of two seeds.
# CASE: -k shift_barrier -s "*i32, *i32, 256" -g 1 rand:i32:256 empty:i32:256
# CASE: -k shift_barrier -s "*i32, *i32, 256" -g 1 --seed 7 rand:i32:256 empty:i32:256
# CASE: -k shift_barrier -s "*i32, *i32, 256" -g 3 --seed 12345 rand:i32:768 empty:i32:768
# After a reduction's barriers the threads are fibers; the store and the load
# still have none between them, whatever order the seed draws.
# CASE: -k shift_after_sum -s "*i32, *i32, 256" -g 1 rand:i32:256 empty:i32:256
# REPORT: data race on global memory in kernel 'shift_after_sum', block (0, 0, 0): thread
# REPORT: which thread
# REPORT: at race_within.py:70:5, with no barrier between them
# CASE: -k shift_after_sum -s "*i32, *i32, 256" -g 1 --seed 3 rand:i32:256 empty:i32:256
# REPORT: data race on global memory in kernel 'shift_after_sum', block (0, 0, 0): thread
# REPORT: race_within.py:71:9
# Two threads store to one element (offs // 2): the second store races the first.
# CASE: -k scatter_pairs -s "*i32, 256" -g 1 zeros:i32:128
# REPORT: race_within.py:78:5: data race on global memory in kernel 'scatter_pairs', block (0, 0, 0): thread 1 writes 4 bytes at offset 0 of 'p', which thread 0 wrote at race_within.py:78:5
# In place, with copies: 64 or 16 elements on 128 or 256 threads, more
# elements than threads, and a scalar updated in a loop; a row's sum added
# to its elements, whose reduction makes the threads fibers, in order and in
# a seed's order.
# CASE: -k in_place -s "*fp32, i32, 64" -g 3 rand:fp32:150 150
# CASE: -k in_place -s "*fp32, i32, 16" -g 2 -w 8 rand:fp32:20 20
# CASE: -k in_place -s "*fp32, i32, 512" -g 2 -w 1 rand:fp32:1000 1000
# CASE: -k bump -s "*i32, i32" -g 1 zeros:i32:1 5
# CASE: -k add_sum -s "*fp32, 64" -g 4 rand:fp32:256
# CASE: -k add_sum -s "*fp32, 64" -g 4 --seed 9 rand:fp32:256
# Bytes of one 4-byte word written and read back by different threads.
# CASE: -k bytes_in_place -s "*i8, *fp16, 256" -g 1 rand:i8:256 rand:fp16:256
import triton
import triton.language as tl


@triton.jit
def shift(p, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, offs)
    x = tl.load(p + (offs + 1) % BLOCK)
    tl.store(out + offs, x)


@triton.jit
def shift_barrier(p, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    base = BLOCK * tl.program_id(0)
    tl.store(p + base + offs, offs)
    tl.debug_barrier()
    x = tl.load(p + base + (offs + 1) % BLOCK)
    tl.store(out + base + offs, x)


@triton.jit
def shift_after_sum(p, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    base = BLOCK * tl.program_id(0)
    s = tl.sum(tl.load(p + base + offs), axis=0)
    tl.store(p + base + offs, offs + s)
    x = tl.load(p + base + (offs + 1) % BLOCK)
    tl.store(out + base + offs, x)


@triton.jit
def scatter_pairs(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs // 2, offs)


@triton.jit
def in_place(p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(p + offs, mask=m)
    tl.store(p + offs, x * 2 + 1, mask=m)


@triton.jit
def bump(counter, times):
    for _ in range(times):
        c = tl.load(counter)
        tl.store(counter, c + 1)


@triton.jit
def add_sum(x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs)
    tl.store(x + offs, v + tl.sum(v, axis=0))


@triton.jit
def bytes_in_place(b, h, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(b + offs, tl.load(b + offs) + 1)
    tl.store(h + offs, tl.load(h + offs) * 2)
    tl.store(b + offs, (tl.load(b + offs) > 0).to(tl.int8))
