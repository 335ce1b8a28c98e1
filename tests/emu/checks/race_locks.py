# Programs that share memory under a lock made of tl.atomic_* (Triton's
# tutorial 05, the layer norm's backward pass, works this way): the
# accesses between a thread's acquire (an atomic_cas or atomic_xchg that
# changes the word) and its release (its next atomic, or plain store, on the
# word) hold the lock; two programs' accesses that both hold it do not race.
# A scalar atomic is made by one thread; the others pass it masked off and
# hold the lock from there all the same, as the warps of the program do.
#
# The lock taken and given back around a read-modify-write of a shared tile:
# silent, in order and in seeds' orders, with or without a barrier before
# the release, a test-and-set lock, a release by a plain store.
# CASE: -k locked -s "*fp32, *fp32, *i32, 128" -g 40 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# CASE: -k locked -s "*fp32, *fp32, *i32, 128" -g 40 --seed 5 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# CASE: -k locked -s "*fp32, *fp32, *i32, 64" -g 40 -w 4 rand:fp32:2560 zeros:fp32:64 zeros:i32:1
# CASE: -k locked_barrier -s "*fp32, *fp32, *i32, 128" -g 40 --seed 2 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# CASE: -k test_and_set -s "*fp32, *fp32, *i32, 128" -g 40 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# CASE: -k store_release -s "*fp32, *fp32, *i32, 128" -g 40 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# Groups of programs, a lock each, and a flag the first of each group sets
# with an atomic that the others read plainly (the tutorial's Count).
# CASE: -k grouped -s "*fp32, *fp32, *i32, *i32, 4, 128" -g 40 --seed 1 rand:fp32:5120 zeros:fp32:512 zeros:i32:4 zeros:i32:4
# The lock given back before the update: every program's update races.
# CASE: -k early_release -s "*fp32, *fp32, *i32, 128" -g 40 rand:fp32:5120 zeros:fp32:128 zeros:i32:1
# REPORT: race_locks.py:82:9: data race on global memory between programs of kernel 'early_release': block (
# REPORT: wrote at race_locks.py:83:5; neither access is atomic and no lock is held by both
# Each program takes a lock of its own: nothing excludes the others.
# CASE: -k own_lock -s "*fp32, *fp32, *i32, 128" -g 40 rand:fp32:5120 zeros:fp32:128 zeros:i32:40
# REPORT: data race on global memory between programs of kernel 'own_lock': block (
# REPORT: neither access is atomic and no lock is held by both
import triton
import triton.language as tl


@triton.jit
def locked(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(acc + offs, tl.load(acc + offs) + v)
    tl.atomic_xchg(lock, 0)


@triton.jit
def locked_barrier(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(acc + offs, tl.load(acc + offs) + v)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def test_and_set(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_xchg(lock, 1) == 1:
        pass
    tl.store(acc + offs, tl.load(acc + offs) + v)
    tl.atomic_xchg(lock, 0)


@triton.jit
def store_release(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(acc + offs, tl.load(acc + offs) + v)
    tl.debug_barrier()
    tl.store(lock, 0)


@triton.jit
def early_release(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.atomic_xchg(lock, 0)
    a = tl.load(acc + offs)
    tl.store(acc + offs, a + v)


@triton.jit
def own_lock(x, acc, lock, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock + tl.program_id(0), 0, 1) == 1:
        pass
    tl.store(acc + offs, tl.load(acc + offs) + v)
    tl.atomic_xchg(lock + tl.program_id(0), 0)


@triton.jit
def grouped(x, acc, lock, count, G: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    g = tl.program_id(0) % G
    v = tl.load(x + tl.program_id(0) * N + offs)
    while tl.atomic_cas(lock + g, 0, 1) == 1:
        pass
    if tl.load(count + g) == 0:
        tl.atomic_xchg(count + g, 1)
    else:
        v += tl.load(acc + g * N + offs)
    tl.store(acc + g * N + offs, v)
    tl.atomic_xchg(lock + g, 0)
