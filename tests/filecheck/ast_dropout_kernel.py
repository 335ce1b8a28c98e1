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
# tl.rand as Triton's random.py makes it: the seed's words as the key, the
# offsets as the counter, Philox's ten rounds, the first word to a float
# CHECK-NEXT:   $philox0 = (cast seed:i32 : u64)  @16:14
# CHECK-NEXT:   philox.10, philox.11, philox.12, philox.13 = (philox (cast offsets:<1024xi32> : <1024xu32>) 0:<1024xu32> 0:<1024xu32> 0:<1024xu32> (splat (cast $philox0:u64 : u32) : <1024xu32>) (splat (cast (shr $philox0:u64 32:u64 : u64) : u32) : <1024xu32>) [n_rounds=10] : (<1024xu32>, <1024xu32>, <1024xu32>, <1024xu32>))  @16:14
# CHECK-NEXT:   $uniform1 = (bitcast philox.10:<1024xu32> : <1024xi32>)  @16:14
# CHECK-NEXT:   random = (mul (cast (where (lt $uniform1:<1024xi32> 0:<1024xi32> : <1024xi1>) (invert $uniform1:<1024xi32> : <1024xi32>) $uniform1:<1024xi32> : <1024xi32>) : <1024xfp32>) 4.6566127342e-10:<1024xfp32> : <1024xfp32>)  @16:5
# CHECK-NEXT:   keep = (gt random:<1024xfp32> (splat p:fp32 : <1024xfp32>) : <1024xi1>)  @17:5
# CHECK-NEXT:   output = (where keep:<1024xi1> (div x:<1024xfp32> (splat (sub 1.0:fp32 p:fp32 : fp32) : <1024xfp32>) : <1024xfp32>) 0.0:<1024xfp32> : <1024xfp32>)  @18:5
# CHECK-NEXT:   (store (addptr (splat output_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) output:<1024xfp32> mask:<1024xi1> : void)  @19:5
