# The typed AST of layer_norm_fwd_kernel in examples/layer_norm.py.
# RUN: %tilec compile %examples/layer_norm.py -k layer_norm_fwd_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel layer_norm_fwd_kernel(X: *fp32 :16, Y: *fp32 :16, W: *fp32 :16, B: *fp32 :16, Mean: *fp32 :16, Rstd: *fp32 :16, stride: i32, N: i32, eps: fp32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row = (program_id [axis=0] : i32)  @29:5
# CHECK-NEXT:   X = (addptr X:*fp32 (mul row:i32 stride:i32 : i32) : *fp32)  @30:5
# CHECK-NEXT:   Y = (addptr Y:*fp32 (mul row:i32 stride:i32 : i32) : *fp32)  @31:5
# CHECK-NEXT:   acc = 0.0:<1024xfp32>  @34:5
# CHECK-NEXT:   for off in range(0:i32, N:i32, 1024:i32) -> acc  @35:5
# CHECK-NEXT:     cols = (add (splat off:i32 : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @36:9
# CHECK-NEXT:     x = (load (addptr (splat X:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) (lt cols:<1024xi32> (splat N:i32 : <1024xi32>) : <1024xi1>) 0.0:<1024xfp32> : <1024xfp32>)  @37:9
# CHECK-NEXT:     acc = (add acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>)  @38:9
# CHECK-NEXT:   mean = (div (reduce acc:<1024xfp32> [kind=sum axis=0] : fp32) (cast N:i32 : fp32) : fp32)  @39:5
# CHECK-NEXT:   acc2 = 0.0:<1024xfp32>  @42:5
# CHECK-NEXT:   for off in range(0:i32, N:i32, 1024:i32) -> acc2  @43:5
# CHECK-NEXT:     cols = (add (splat off:i32 : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @44:9
# CHECK-NEXT:     x = (load (addptr (splat X:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) (lt cols:<1024xi32> (splat N:i32 : <1024xi32>) : <1024xi1>) 0.0:<1024xfp32> : <1024xfp32>)  @45:9
# CHECK-NEXT:     diff = (where (lt cols:<1024xi32> (splat N:i32 : <1024xi32>) : <1024xi1>) (sub x:<1024xfp32> (splat mean:fp32 : <1024xfp32>) : <1024xfp32>) 0.0:<1024xfp32> : <1024xfp32>)  @46:9
# CHECK-NEXT:     acc2 = (add acc2:<1024xfp32> (mul diff:<1024xfp32> diff:<1024xfp32> : <1024xfp32>) : <1024xfp32>)  @47:9
# CHECK-NEXT:   var = (div (reduce acc2:<1024xfp32> [kind=sum axis=0] : fp32) (cast N:i32 : fp32) : fp32)  @48:5
# CHECK-NEXT:   rstd = (div 1.0:fp32 (sqrt (add var:fp32 eps:fp32 : fp32) : fp32) : fp32)  @49:5
# CHECK-NEXT:   (store (addptr Mean:*fp32 row:i32 : *fp32) mean:fp32 _ : void)  @51:5
# CHECK-NEXT:   (store (addptr Rstd:*fp32 row:i32 : *fp32) rstd:fp32 _ : void)  @52:5
# CHECK-NEXT:   for off in range(0:i32, N:i32, 1024:i32)  @55:5
# CHECK-NEXT:     cols = (add (splat off:i32 : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @56:9
# CHECK-NEXT:     mask = (lt cols:<1024xi32> (splat N:i32 : <1024xi32>) : <1024xi1>)  @57:9
# CHECK-NEXT:     w = (load (addptr (splat W:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @58:9
# CHECK-NEXT:     b = (load (addptr (splat B:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @59:9
# CHECK-NEXT:     x = (load (addptr (splat X:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @60:9
# CHECK-NEXT:     y = (add (mul (mul (sub x:<1024xfp32> (splat mean:fp32 : <1024xfp32>) : <1024xfp32>) (splat rstd:fp32 : <1024xfp32>) : <1024xfp32>) w:<1024xfp32> : <1024xfp32>) b:<1024xfp32> : <1024xfp32>)  @61:9
# CHECK-NEXT:     (store (addptr (splat Y:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) y:<1024xfp32> mask:<1024xi1> : void)  @62:9
