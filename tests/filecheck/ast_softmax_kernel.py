# The typed AST of softmax_kernel in examples/softmax.py.
# RUN: %tilec compile %examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel softmax_kernel(out_ptr: *fp32 :16, in_ptr: *fp32 :16, in_row_stride: i32, out_row_stride: i32, n_rows: i32, n_cols: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row_start = (program_id [axis=0] : i32)  @12:5
# CHECK-NEXT:   row_step = (num_programs [axis=0] : i32)  @13:5
# CHECK-NEXT:   col_offsets = (arange [start=0 end=1024] : <1024xi32>)  @14:5
# CHECK-NEXT:   mask = (lt col_offsets:<1024xi32> (splat n_cols:i32 : <1024xi32>) : <1024xi1>)  @15:5
# CHECK-NEXT:   for row_idx in range(row_start:i32, n_rows:i32, row_step:i32) num_stages=2  @16:5
# CHECK-NEXT:     in_ptrs = (addptr (splat (addptr in_ptr:*fp32 (mul row_idx:i32 in_row_stride:i32 : i32) : *fp32) : <1024x*fp32>) col_offsets:<1024xi32> : <1024x*fp32>)  @17:9
# CHECK-NEXT:     row = (load in_ptrs:<1024x*fp32> mask:<1024xi1> -inf:<1024xfp32> : <1024xfp32>)  @18:9
# CHECK-NEXT:     row_max = (reduce row:<1024xfp32> [kind=max axis=0] : fp32)  @19:9
# CHECK-NEXT:     numerator = (exp (sub row:<1024xfp32> (splat row_max:fp32 : <1024xfp32>) : <1024xfp32>) : <1024xfp32>)  @20:9
# CHECK-NEXT:     denominator = (reduce numerator:<1024xfp32> [kind=sum axis=0] : fp32)  @21:9
# CHECK-NEXT:     result = (div numerator:<1024xfp32> (splat denominator:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:     out_ptrs = (addptr (splat (addptr out_ptr:*fp32 (mul row_idx:i32 out_row_stride:i32 : i32) : *fp32) : <1024x*fp32>) col_offsets:<1024xi32> : <1024x*fp32>)  @23:9
# CHECK-NEXT:     (store out_ptrs:<1024x*fp32> result:<1024xfp32> mask:<1024xi1> : void)  @24:9
