# The typed AST of window_sum_kernel in examples/static_range.py.
# RUN: %tilec compile %examples/static_range.py -k window_sum_kernel -s "*fp32:16, *fp32:16, i32, 8, 512" --emit=ast | FileCheck %s
# CHECK: kernel window_sum_kernel(x_ptr: *fp32 :16, out_ptr: *fp32 :16, n_elements: i32)
# CHECK-NEXT:   constexpr WINDOW = 8
# CHECK-NEXT:   constexpr BLOCK_SIZE = 512
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @28:5
# CHECK-NEXT:   offs = (add (splat (mul pid:i32 512:i32 : i32) : <512xi32>) (arange [start=0 end=512] : <512xi32>) : <512xi32>)  @29:5
# CHECK-NEXT:   acc = 0.0:<512xfp32>  @30:5
# CHECK-NEXT:   shifted = (add offs:<512xi32> 0:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 1:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 2:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 3:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 4:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 5:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 6:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   shifted = (add offs:<512xi32> 7:<512xi32> : <512xi32>)  @32:9
# CHECK-NEXT:   acc = (add acc:<512xfp32> (load (addptr (splat x_ptr:*fp32 : <512x*fp32>) shifted:<512xi32> : <512x*fp32>) (lt shifted:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) 0.0:<512xfp32> : <512xfp32>) : <512xfp32>)  @33:9
# CHECK-NEXT:   (store (addptr (splat out_ptr:*fp32 : <512x*fp32>) offs:<512xi32> : <512x*fp32>) acc:<512xfp32> (lt offs:<512xi32> (splat n_elements:i32 : <512xi32>) : <512xi1>) : void)  @34:5
