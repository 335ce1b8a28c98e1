# The typed AST of matmul_kernel in examples/matmul.py.
# RUN: %tilec compile %examples/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 128, 32, 8, 'leaky_relu'" --emit=ast | FileCheck %s
# CHECK: kernel matmul_kernel(a_ptr: *fp16 :16, b_ptr: *fp16 :16, c_ptr: *fp16 :16, M: i32, N: i32, K: i32, stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32, stride_cm: i32, stride_cn: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE_M = 128
# CHECK-NEXT:   constexpr BLOCK_SIZE_N = 128
# CHECK-NEXT:   constexpr BLOCK_SIZE_K = 32
# CHECK-NEXT:   constexpr GROUP_SIZE_M = 8
# CHECK-NEXT:   constexpr ACTIVATION = 'leaky_relu'
# CHECK-NEXT:   num_warps = 8, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @44:5
# CHECK-NEXT:   num_pid_m = (cdiv M:i32 128:i32 : i32)  @45:5
# CHECK-NEXT:   num_pid_n = (cdiv N:i32 128:i32 : i32)  @46:5
# CHECK-NEXT:   num_pid_in_group = (mul 8:i32 num_pid_n:i32 : i32)  @47:5
# CHECK-NEXT:   group_id = (floordiv pid:i32 num_pid_in_group:i32 : i32)  @48:5
# CHECK-NEXT:   first_pid_m = (mul group_id:i32 8:i32 : i32)  @49:5
# CHECK-NEXT:   group_size_m = (minimum (sub num_pid_m:i32 first_pid_m:i32 : i32) 8:i32 : i32)  @50:5
# CHECK-NEXT:   pid_m = (add first_pid_m:i32 (mod (mod pid:i32 num_pid_in_group:i32 : i32) group_size_m:i32 : i32) : i32)  @51:5
# CHECK-NEXT:   pid_n = (floordiv (mod pid:i32 num_pid_in_group:i32 : i32) group_size_m:i32 : i32)  @52:5
# CHECK-NEXT:   offs_m = (add (splat (mul pid_m:i32 128:i32 : i32) : <128xi32>) (arange [start=0 end=128] : <128xi32>) : <128xi32>)  @54:5
# CHECK-NEXT:   offs_n = (add (splat (mul pid_n:i32 128:i32 : i32) : <128xi32>) (arange [start=0 end=128] : <128xi32>) : <128xi32>)  @55:5
# CHECK-NEXT:   offs_k = (arange [start=0 end=32] : <32xi32>)  @56:5
# CHECK-NEXT:   a_ptrs = (addptr (broadcast (addptr (splat a_ptr:*fp16 : <128x1x*fp16>) (mul (expand_dims offs_m:<128xi32> axis=1 : <128x1xi32>) (splat stride_am:i32 : <128x1xi32>) : <128x1xi32>) : <128x1x*fp16>) : <128x32x*fp16>) (broadcast (mul (expand_dims offs_k:<32xi32> axis=0 : <1x32xi32>) (splat stride_ak:i32 : <1x32xi32>) : <1x32xi32>) : <128x32xi32>) : <128x32x*fp16>)  @57:5
# CHECK-NEXT:   b_ptrs = (addptr (broadcast (addptr (splat b_ptr:*fp16 : <32x1x*fp16>) (mul (expand_dims offs_k:<32xi32> axis=1 : <32x1xi32>) (splat stride_bk:i32 : <32x1xi32>) : <32x1xi32>) : <32x1x*fp16>) : <32x128x*fp16>) (broadcast (mul (expand_dims offs_n:<128xi32> axis=0 : <1x128xi32>) (splat stride_bn:i32 : <1x128xi32>) : <1x128xi32>) : <32x128xi32>) : <32x128x*fp16>)  @58:5
# CHECK-NEXT:   a_row_mask = (lt (expand_dims offs_m:<128xi32> axis=1 : <128x1xi32>) (splat M:i32 : <128x1xi32>) : <128x1xi1>)  @59:5
# CHECK-NEXT:   b_col_mask = (lt (expand_dims offs_n:<128xi32> axis=0 : <1x128xi32>) (splat N:i32 : <1x128xi32>) : <1x128xi1>)  @60:5
# CHECK-NEXT:   accumulator = 0.0:<128x128xfp32>  @62:5
# CHECK-NEXT:   for k in range(0:i32, K:i32, 32:i32) -> accumulator, a_ptrs, b_ptrs  @63:5
# CHECK-NEXT:     a = (load a_ptrs:<128x32x*fp16> (and (broadcast a_row_mask:<128x1xi1> : <128x32xi1>) (broadcast (lt (add (expand_dims offs_k:<32xi32> axis=0 : <1x32xi32>) (splat k:i32 : <1x32xi32>) : <1x32xi32>) (splat K:i32 : <1x32xi32>) : <1x32xi1>) : <128x32xi1>) : <128x32xi1>) 0.0:<128x32xfp16> : <128x32xfp16>)  @64:9
# CHECK-NEXT:     b = (load b_ptrs:<32x128x*fp16> (and (broadcast (lt (add (expand_dims offs_k:<32xi32> axis=1 : <32x1xi32>) (splat k:i32 : <32x1xi32>) : <32x1xi32>) (splat K:i32 : <32x1xi32>) : <32x1xi1>) : <32x128xi1>) (broadcast b_col_mask:<1x128xi1> : <32x128xi1>) : <32x128xi1>) 0.0:<32x128xfp16> : <32x128xfp16>)  @65:9
# CHECK-NEXT:     accumulator = (dot a:<128x32xfp16> b:<32x128xfp16> accumulator:<128x128xfp32> : <128x128xfp32>)  @66:9
# CHECK-NEXT:     a_ptrs = (addptr a_ptrs:<128x32x*fp16> (splat (mul 32:i32 stride_ak:i32 : i32) : <128x32xi32>) : <128x32x*fp16>)  @67:9
# CHECK-NEXT:     b_ptrs = (addptr b_ptrs:<32x128x*fp16> (splat (mul 32:i32 stride_bk:i32 : i32) : <32x128xi32>) : <32x128x*fp16>)  @68:9
# CHECK-NEXT:   x = accumulator:<128x128xfp32>  @12:16 in leaky_relu
# CHECK-NEXT:   ret = (where (ge x:<128x128xfp32> 0.0:<128x128xfp32> : <128x128xi1>) x:<128x128xfp32> (mul 0.01:<128x128xfp32> x:<128x128xfp32> : <128x128xfp32>) : <128x128xfp32>)  @13:5 in leaky_relu
# CHECK-NEXT:   accumulator = ret:<128x128xfp32>  @71:9
# CHECK-NEXT:   c = (cast accumulator:<128x128xfp32> : <128x128xfp16>)  @72:5
# CHECK-NEXT:   c_ptrs = (addptr (broadcast (addptr (splat c_ptr:*fp16 : <128x1x*fp16>) (mul (splat stride_cm:i32 : <128x1xi32>) (expand_dims offs_m:<128xi32> axis=1 : <128x1xi32>) : <128x1xi32>) : <128x1x*fp16>) : <128x128x*fp16>) (broadcast (mul (splat stride_cn:i32 : <1x128xi32>) (expand_dims offs_n:<128xi32> axis=0 : <1x128xi32>) : <1x128xi32>) : <128x128xi32>) : <128x128x*fp16>)  @74:5
# CHECK-NEXT:   c_mask = (and (broadcast (lt (expand_dims offs_m:<128xi32> axis=1 : <128x1xi32>) (splat M:i32 : <128x1xi32>) : <128x1xi1>) : <128x128xi1>) (broadcast (lt (expand_dims offs_n:<128xi32> axis=0 : <1x128xi32>) (splat N:i32 : <1x128xi32>) : <1x128xi1>) : <128x128xi1>) : <128x128xi1>)  @75:5
# CHECK-NEXT:   (store c_ptrs:<128x128x*fp16> c:<128x128xfp16> c_mask:<128x128xi1> : void)  @76:5
