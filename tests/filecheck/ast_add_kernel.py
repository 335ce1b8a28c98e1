# The typed AST of add_kernel in examples/vector_add.py.
# RUN: %tilec compile %examples/vector_add.py -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --emit=ast | FileCheck %s
# CHECK: kernel add_kernel(x_ptr: *fp32 :16, y_ptr: *fp32 :16, out_ptr: *fp32 :16, n_elements: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @12:5
# CHECK-NEXT:   offsets = (add (splat (mul pid:i32 1024:i32 : i32) : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @13:5
# CHECK-NEXT:   mask = (lt offsets:<1024xi32> (splat n_elements:i32 : <1024xi32>) : <1024xi1>)  @14:5
# CHECK-NEXT:   x = (load (addptr (splat x_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @15:5
# CHECK-NEXT:   y = (load (addptr (splat y_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @16:5
# CHECK-NEXT:   (store (addptr (splat out_ptr:*fp32 : <1024x*fp32>) offsets:<1024xi32> : <1024x*fp32>) (add x:<1024xfp32> y:<1024xfp32> : <1024xfp32>) mask:<1024xi1> : void)  @17:5
