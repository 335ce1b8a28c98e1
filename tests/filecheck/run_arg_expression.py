# tilec run and bench take a scalar argument written as an expression of
# integers, as -g, --bytes and --flops are (a sweep's "{T}*{T}" once its
# value is in): 3*100+(7-2)%4 is 301.
# RUN: %tilec run %s -s "*i32, i32" -g 1 zeros:i32:1 "3*100+(7-2)%4" --print 0 | FileCheck %s
# RUN: %tilec bench %s -s "*i32, i32" -g 1 zeros:i32:1 "{T}*{T}" --sweep T=2:4:x2 --rep 1 --warmup 1 --csv 2>/dev/null | FileCheck %s --check-prefix=BENCH
# CHECK: out_ptr[0:1] = 301
# BENCH: 2,
# BENCH: 4,
import triton
import triton.language as tl


@triton.jit
def store_n(out_ptr, n):
    tl.store(out_ptr, n)
