# The typed AST of layer_norm_bwd_dwdb_kernel in examples/layer_norm.py.
# RUN: %tilec compile %examples/layer_norm.py -k layer_norm_bwd_dwdb_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128" --emit=ast | FileCheck %s
# CHECK: kernel layer_norm_bwd_dwdb_kernel(DW: *fp32 :16, DB: *fp32 :16, FINAL_DW: *fp32 :16, FINAL_DB: *fp32 :16, M: i32, N: i32)
# CHECK-NEXT:   constexpr BLOCK_SIZE_M = 32
# CHECK-NEXT:   constexpr BLOCK_SIZE_N = 128
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   pid = (program_id [axis=0] : i32)  @136:5
# CHECK-NEXT:   cols = (add (splat (mul pid:i32 128:i32 : i32) : <128xi32>) (arange [start=0 end=128] : <128xi32>) : <128xi32>)  @137:5
# CHECK-NEXT:   dw = 0.0:<32x128xfp32>  @138:5
# CHECK-NEXT:   db = 0.0:<32x128xfp32>  @139:5
# CHECK-NEXT:   for start in range(0:i32, M:i32, 32:i32) -> dw, db  @140:5
# CHECK-NEXT:     rows = (add (splat start:i32 : <32xi32>) (arange [start=0 end=32] : <32xi32>) : <32xi32>)  @141:9
# CHECK-NEXT:     mask = (and (broadcast (lt (expand_dims rows:<32xi32> axis=1 : <32x1xi32>) (splat M:i32 : <32x1xi32>) : <32x1xi1>) : <32x128xi1>) (broadcast (lt (expand_dims cols:<128xi32> axis=0 : <1x128xi32>) (splat N:i32 : <1x128xi32>) : <1x128xi1>) : <32x128xi1>) : <32x128xi1>)  @142:9
# CHECK-NEXT:     offs = (add (broadcast (mul (expand_dims rows:<32xi32> axis=1 : <32x1xi32>) (splat N:i32 : <32x1xi32>) : <32x1xi32>) : <32x128xi32>) (broadcast (expand_dims cols:<128xi32> axis=0 : <1x128xi32>) : <32x128xi32>) : <32x128xi32>)  @143:9
# CHECK-NEXT:     dw = (add dw:<32x128xfp32> (load (addptr (splat DW:*fp32 : <32x128x*fp32>) offs:<32x128xi32> : <32x128x*fp32>) mask:<32x128xi1> 0.0:<32x128xfp32> : <32x128xfp32>) : <32x128xfp32>)  @144:9
# CHECK-NEXT:     db = (add db:<32x128xfp32> (load (addptr (splat DB:*fp32 : <32x128x*fp32>) offs:<32x128xi32> : <32x128x*fp32>) mask:<32x128xi1> 0.0:<32x128xfp32> : <32x128xfp32>) : <32x128xfp32>)  @145:9
# CHECK-NEXT:   (store (addptr (splat FINAL_DW:*fp32 : <128x*fp32>) cols:<128xi32> : <128x*fp32>) (reduce dw:<32x128xfp32> [kind=sum axis=0] : <128xfp32>) (lt cols:<128xi32> (splat N:i32 : <128xi32>) : <128xi1>) : void)  @146:5
# CHECK-NEXT:   (store (addptr (splat FINAL_DB:*fp32 : <128x*fp32>) cols:<128xi32> : <128x*fp32>) (reduce db:<32x128xfp32> [kind=sum axis=0] : <128xfp32>) (lt cols:<128xi32> (splat N:i32 : <128xi32>) : <128xi1>) : void)  @147:5
