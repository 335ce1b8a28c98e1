# The typed AST of linear_recurrence_kernel in examples/reduce_combine.py.
# RUN: %tilec compile %examples/reduce_combine.py -k linear_recurrence_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel linear_recurrence_kernel(a_ptr: *fp32 :16, x_ptr: *fp32 :16, h_ptr: *fp32 :16, seq_len: i32, row_stride: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row = (program_id [axis=0] : i32)  @60:5
# CHECK-NEXT:   t = (arange [start=0 end=1024] : <1024xi32>)  @61:5
# CHECK-NEXT:   mask = (lt t:<1024xi32> (splat seq_len:i32 : <1024xi32>) : <1024xi1>)  @62:5
# CHECK-NEXT:   a = (load (addptr (splat (addptr a_ptr:*fp32 (mul row:i32 row_stride:i32 : i32) : *fp32) : <1024x*fp32>) t:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 1.0:<1024xfp32> : <1024xfp32>)  @63:5
# CHECK-NEXT:   x = (load (addptr (splat (addptr x_ptr:*fp32 (mul row:i32 row_stride:i32 : i32) : *fp32) : <1024x*fp32>) t:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @64:5
# CHECK-NEXT:   scan.18, scan.19 = (scan a:<1024xfp32> x:<1024xfp32> [kind=combine axis=0] combine(_linear_recurrence_combine.arg0: fp32, _linear_recurrence_combine.arg1: fp32, _linear_recurrence_combine.arg2: fp32, _linear_recurrence_combine.arg3: fp32) {
# CHECK-NEXT:     a_left = _linear_recurrence_combine.arg0:fp32  @30:32 in _linear_recurrence_combine
# CHECK-NEXT:     x_left = _linear_recurrence_combine.arg1:fp32  @30:40 in _linear_recurrence_combine
# CHECK-NEXT:     a_right = _linear_recurrence_combine.arg2:fp32  @30:48 in _linear_recurrence_combine
# CHECK-NEXT:     x_right = _linear_recurrence_combine.arg3:fp32  @30:57 in _linear_recurrence_combine
# CHECK-NEXT:     yield (mul a_left:fp32 a_right:fp32 : fp32), (add (mul a_right:fp32 x_left:fp32 : fp32) x_right:fp32 : fp32)
# CHECK-NEXT:   } : (<1024xfp32>, <1024xfp32>))  @65:12
# CHECK-NEXT:   _ = scan.18:<1024xfp32>  @65:5
# CHECK-NEXT:   h = scan.19:<1024xfp32>  @65:8
# CHECK-NEXT:   (store (addptr (splat (addptr h_ptr:*fp32 (mul row:i32 row_stride:i32 : i32) : *fp32) : <1024x*fp32>) t:<1024xi32> : <1024x*fp32>) h:<1024xfp32> mask:<1024xi1> : void)  @66:5
