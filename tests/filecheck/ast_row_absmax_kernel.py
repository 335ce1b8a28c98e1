# The typed AST of row_absmax_kernel in examples/reduce_combine.py.
# RUN: %tilec compile %examples/reduce_combine.py -k row_absmax_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel row_absmax_kernel(x_ptr: *fp32 :16, absmax_ptr: *fp32 :16, index_ptr: *i32 :16, n_cols: i32, row_stride: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row = (program_id [axis=0] : i32)  @37:5
# CHECK-NEXT:   cols = (arange [start=0 end=1024] : <1024xi32>)  @38:5
# CHECK-NEXT:   mask = (lt cols:<1024xi32> (splat n_cols:i32 : <1024xi32>) : <1024xi1>)  @39:5
# CHECK-NEXT:   x = (load (addptr (splat (addptr x_ptr:*fp32 (mul row:i32 row_stride:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @40:5
# CHECK-NEXT:   values = (where mask:<1024xi1> (abs x:<1024xfp32> : <1024xfp32>) -inf:<1024xfp32> : <1024xfp32>)  @41:5
# CHECK-NEXT:   reduce.19, reduce.20 = (reduce values:<1024xfp32> cols:<1024xi32> [kind=combine axis=0] combine(_absmax_index_combine.arg0: fp32, _absmax_index_combine.arg1: i32, _absmax_index_combine.arg2: fp32, _absmax_index_combine.arg3: i32) {
# CHECK-NEXT:     value_a = _absmax_index_combine.arg0:fp32  @18:27 in _absmax_index_combine
# CHECK-NEXT:     index_a = _absmax_index_combine.arg1:i32  @18:36 in _absmax_index_combine
# CHECK-NEXT:     value_b = _absmax_index_combine.arg2:fp32  @18:45 in _absmax_index_combine
# CHECK-NEXT:     index_b = _absmax_index_combine.arg3:i32  @18:54 in _absmax_index_combine
# CHECK-NEXT:     take_a = (or (gt value_a:fp32 value_b:fp32 : i1) (and (eq value_a:fp32 value_b:fp32 : i1) (lt index_a:i32 index_b:i32 : i1) : i1) : i1)  @20:5 in _absmax_index_combine
# CHECK-NEXT:     yield (where take_a:i1 value_a:fp32 value_b:fp32 : fp32), (where take_a:i1 index_a:i32 index_b:i32 : i32)
# CHECK-NEXT:   } : (fp32, i32))  @42:30
# CHECK-NEXT:   best_value = reduce.19:fp32  @42:5
# CHECK-NEXT:   best_index = reduce.20:i32  @42:17
# CHECK-NEXT:   (store (addptr absmax_ptr:*fp32 row:i32 : *fp32) best_value:fp32 _ : void)  @43:5
# CHECK-NEXT:   (store (addptr index_ptr:*i32 row:i32 : *i32) best_index:i32 _ : void)  @44:5
