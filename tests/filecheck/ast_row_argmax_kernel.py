# The typed AST of row_argmax_kernel in examples/reduce_combine.py.
# RUN: %tilec compile %examples/reduce_combine.py -k row_argmax_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel row_argmax_kernel(x_ptr: *fp32 :16, max_ptr: *fp32 :16, index_ptr: *i32 :16, n_cols: i32, row_stride: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row = (program_id [axis=0] : i32)  @49:5
# CHECK-NEXT:   cols = (arange [start=0 end=1024] : <1024xi32>)  @50:5
# CHECK-NEXT:   x = (load (addptr (splat (addptr x_ptr:*fp32 (mul row:i32 row_stride:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) (lt cols:<1024xi32> (splat n_cols:i32 : <1024xi32>) : <1024xi1>) -inf:<1024xfp32> : <1024xfp32>)  @51:5
# CHECK-NEXT:   row_max = (reduce x:<1024xfp32> [kind=combine axis=0] combine(_max_combine.arg0: fp32, _max_combine.arg1: fp32) {
# CHECK-NEXT:     a = _max_combine.arg0:fp32  @25:18 in _max_combine
# CHECK-NEXT:     b = _max_combine.arg1:fp32  @25:21 in _max_combine
# CHECK-NEXT:     ret = (maximum a:fp32 b:fp32 : fp32)  @26:5 in _max_combine
# CHECK-NEXT:     yield ret:fp32
# CHECK-NEXT:   } : fp32)  @52:5
# CHECK-NEXT:   row_argmax = (reduce x:<1024xfp32> [kind=argmax axis=0 tie_break_left] : i32)  @53:5
# CHECK-NEXT:   (store (addptr max_ptr:*fp32 row:i32 : *fp32) row_max:fp32 _ : void)  @54:5
# CHECK-NEXT:   (store (addptr index_ptr:*i32 row:i32 : *i32) row_argmax:i32 _ : void)  @55:5
