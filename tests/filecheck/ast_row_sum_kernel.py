# The typed AST of row_sum_kernel in examples/block_ptr.py.
# RUN: %tilec compile %examples/block_ptr.py -k row_sum_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 64, 128" --emit=ast | FileCheck %s
# CHECK: kernel row_sum_kernel(x_ptr: *fp32 :16, out_ptr: *fp32 :16, M: i32, N: i32, stride_m: i32, stride_n: i32)
# CHECK-NEXT:   constexpr BLOCK_M = 64
# CHECK-NEXT:   constexpr BLOCK_N = 128
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @16:5
# CHECK-NEXT:   x_block = (make_block_ptr x_ptr:*fp32 (cast M:i32 : i64) (cast N:i32 : i64) (cast stride_m:i32 : i64) (cast stride_n:i32 : i64) (mul pid:i32 64:i32 : i32) 0:i32 [order=1,0] : *<64x128xfp32>)  @17:5
# CHECK-NEXT:   acc = 0.0:<64xfp32>  @25:5
# CHECK-NEXT:   for _ in range(0:i32, (cdiv N:i32 128:i32 : i32), 1:i32) -> acc, x_block  @26:5
# CHECK-NEXT:     tile = (load x_block:*<64x128xfp32> _ _ [boundary_check=0,1 padding=zero] : <64x128xfp32>)  @27:9
# CHECK-NEXT:     acc = (add acc:<64xfp32> (reduce tile:<64x128xfp32> [kind=sum axis=1] : <64xfp32>) : <64xfp32>)  @28:9
# CHECK-NEXT:     x_block = (advance x_block:*<64x128xfp32> 0:i32 128:i32 : *<64x128xfp32>)  @29:9
# CHECK-NEXT:   out_block = (make_block_ptr out_ptr:*fp32 (cast M:i32 : i64) 1:i64 (mul pid:i32 64:i32 : i32) [order=0] : *<64xfp32>)  @30:5
# CHECK-NEXT:   (store out_block:*<64xfp32> acc:<64xfp32> _ [boundary_check=0] : void)  @32:5
