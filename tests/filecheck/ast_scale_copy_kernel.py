# The typed AST of scale_copy_kernel in examples/block_ptr.py.
# RUN: %tilec compile %examples/block_ptr.py -k scale_copy_kernel -s "*fp32:16, *fp16:16, i32, i32, i32, i32, i32, i32, fp32, 32, 64" --emit=ast | FileCheck %s
# CHECK: kernel scale_copy_kernel(src_ptr: *fp32 :16, dst_ptr: *fp16 :16, M: i32, N: i32, stride_sm: i32, stride_sn: i32, stride_dm: i32, stride_dn: i32, scale: fp32)
# CHECK-NEXT:   constexpr BLOCK_M = 32
# CHECK-NEXT:   constexpr BLOCK_N = 64
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid_m = (program_id [axis=0] : i32)  @38:5
# CHECK-NEXT:   pid_n = (program_id [axis=1] : i32)  @39:5
# CHECK-NEXT:   src = (make_block_ptr src_ptr:*fp32 (cast M:i32 : i64) (cast N:i32 : i64) (cast stride_sm:i32 : i64) (cast stride_sn:i32 : i64) (mul pid_m:i32 32:i32 : i32) (mul pid_n:i32 64:i32 : i32) [order=1,0] : *<32x64xfp32>)  @40:5
# CHECK-NEXT:   dst = (make_block_ptr dst_ptr:*fp16 (cast M:i32 : i64) (cast N:i32 : i64) (cast stride_dm:i32 : i64) (cast stride_dn:i32 : i64) (mul pid_m:i32 32:i32 : i32) (mul pid_n:i32 64:i32 : i32) [order=1,0] : *<32x64xfp16>)  @42:5
# CHECK-NEXT:   tile = (load src:*<32x64xfp32> _ _ [boundary_check=0,1 padding=zero] : <32x64xfp32>)  @44:5
# CHECK-NEXT:   (store dst:*<32x64xfp16> (cast (mul tile:<32x64xfp32> (splat scale:fp32 : <32x64xfp32>) : <32x64xfp32>) : <32x64xfp16>) _ [boundary_check=0,1] : void)  @45:5
