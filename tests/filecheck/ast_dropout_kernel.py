# The typed AST of dropout_kernel in examples/dropout.py.
# RUN: %tilec compile %examples/dropout.py -k dropout_kernel -s "*fp32:16, *fp32:16, i32, fp32, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel dropout_kernel(x_ptr: *fp32 :16, output_ptr: *fp32 :16, n_elements: i32, p: fp32, seed: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @12:5
# CHECK-NEXT:   offsets = (add (splat (mul pid:i32 1024:i32 : i32) : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @13:5
# CHECK-NEXT:   mask = (lt offsets:<1024xi32> (splat n_elements:i32 : <1024xi32>) : <1024xi1>)  @14:5
# CHECK-NEXT:   x = (load (addptr (splat x_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @15:5
# CHECK-NEXT:   random = (random seed:i32 offsets:<1024xi32> [kind=rand n_rounds=10] : <1024xfp32>)  @16:5
# CHECK-NEXT:   keep = (gt random:<1024xfp32> (splat p:fp32 : <1024xfp32>) : <1024xi1>)  @17:5
# CHECK-NEXT:   output = (where keep:<1024xi1> (div x:<1024xfp32> (splat (sub 1.0:fp32 p:fp32 : fp32) : <1024xfp32>) : <1024xfp32>) 0.0:<1024xfp32> : <1024xfp32>)  @18:5
# CHECK-NEXT:   (store (addptr (splat output_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) output:<1024xfp32> mask:<1024xi1> : void)  @19:5
