# Reads of global memory that nothing wrote: an empty: buffer of tilec run
# (0xCD poison, no values) read before the kernel wrote it is an error; a
# zeros:, rand: or .npy buffer holds values, and so does what the launch
# itself wrote first. Plain loads and atomics alike read.
#
# Accumulating into an output that was never filled.
# CASE: -k accumulate -s "*fp32, *fp32, i32, 128" -g 2 rand:fp32:256 empty:fp32:256 256
# REPORT: initcheck.py:30:9: read of uninitialized global memory: 4 bytes at offset 0 of 'acc' in kernel 'accumulate', block (0, 0, 0), thread 0; no thread wrote them and the host did not fill them
# CASE: -k accumulate -s "*fp32, *fp32, i32, 128" -g 2 rand:fp32:256 zeros:fp32:256 256
# CASE: -k accumulate -s "*fp32, *fp32, i32, 128" -g 2 rand:fp32:256 rand:fp32:256 256
# Written, then read back by the thread that wrote it: silent, also when only
# the first n of a longer buffer are touched.
# CASE: -k write_then_read -s "*i8, *fp16, i32, 256" -g 1 empty:i8:300 empty:fp16:300 200
# Reading one element past what the kernel wrote (a mask off by one).
# CASE: -k off_by_one -s "*i32, i32, 64" -g 1 empty:i32:64 40
# REPORT: initcheck.py:48:9: read of uninitialized global memory: 4 bytes at offset 160 of 'p' in kernel 'off_by_one', block (0, 0, 0), thread 40
# An atomic add into a never-filled histogram reads its garbage.
# CASE: -k histogram -s "*i32, *i32, 128" -g 1 rand:i32:128 empty:i32:200
# REPORT: initcheck.py:55:5: read of uninitialized global memory: 4 bytes at offset
# REPORT: of 'h' in kernel 'histogram', block (0, 0, 0)
# CASE: -k histogram -s "*i32, *i32, 128" -g 1 rand:i32:128 zeros:i32:200
import triton
import triton.language as tl


@triton.jit
def accumulate(x, acc, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(acc + offs, mask=m)
    tl.store(acc + offs, a + tl.load(x + offs, mask=m), mask=m)


@triton.jit
def write_then_read(b, h, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(b + offs, offs.to(tl.int8), mask=m)
    tl.store(h + offs, offs.to(tl.float16), mask=m)
    v = tl.load(b + offs, mask=m).to(tl.float16) + tl.load(h + offs, mask=m)
    tl.store(h + offs, v, mask=m)


@triton.jit
def off_by_one(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, offs, mask=offs < n)
    v = tl.load(p + offs, mask=offs <= n)
    tl.store(p + offs, v + 1, mask=offs < n)


@triton.jit
def histogram(x, h, N: tl.constexpr):
    v = tl.load(x + tl.arange(0, N))
    tl.atomic_add(h + (v + 100), 1)
