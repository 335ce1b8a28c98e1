# The typed AST of poly_kernel in examples/static_range.py.
# RUN: %tilec compile %examples/static_range.py -k poly_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 4, 1024" --emit=ast | FileCheck %s
# CHECK: kernel poly_kernel(x_ptr: *fp32 :16, coeff_ptr: *fp32 :16, out_ptr: *fp32 :16, n_elements: i32)
# CHECK-NEXT:   constexpr DEGREE = 4
# CHECK-NEXT:   constexpr BLOCK_SIZE = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @14:5
# CHECK-NEXT:   offs = (add (splat (mul pid:i32 1024:i32 : i32) : <1024xi32>) (arange [start=0 end=1024] : <1024xi32>) : <1024xi32>)  @15:5
# CHECK-NEXT:   mask = (lt offs:<1024xi32> (splat n_elements:i32 : <1024xi32>) : <1024xi1>)  @16:5
# CHECK-NEXT:   x = (load (addptr (splat x_ptr:*fp32 : <1024x*fp32>) offs:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @17:5
# CHECK-NEXT:   acc = 0.0:<1024xfp32>  @18:5
# CHECK-NEXT:   c = (load (addptr coeff_ptr:*fp32 4:i32 : *fp32) _ _ : fp32)  @21:9
# CHECK-NEXT:   acc = (add (mul acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>) (splat c:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:   c = (load (addptr coeff_ptr:*fp32 3:i32 : *fp32) _ _ : fp32)  @21:9
# CHECK-NEXT:   acc = (add (mul acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>) (splat c:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:   c = (load (addptr coeff_ptr:*fp32 2:i32 : *fp32) _ _ : fp32)  @21:9
# CHECK-NEXT:   acc = (add (mul acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>) (splat c:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:   c = (load (addptr coeff_ptr:*fp32 1:i32 : *fp32) _ _ : fp32)  @21:9
# CHECK-NEXT:   acc = (add (mul acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>) (splat c:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:   c = (load (addptr coeff_ptr:*fp32 0:i32 : *fp32) _ _ : fp32)  @21:9
# CHECK-NEXT:   acc = (add (mul acc:<1024xfp32> x:<1024xfp32> : <1024xfp32>) (splat c:fp32 : <1024xfp32>) : <1024xfp32>)  @22:9
# CHECK-NEXT:   (store (addptr (splat out_ptr:*fp32 : <1024x*fp32>) offs:<1024xi32> : <1024x*fp32>) acc:<1024xfp32> mask:<1024xi1> : void)  @23:5
