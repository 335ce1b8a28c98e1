# The typed AST of layer_norm_bwd_dx_kernel in examples/layer_norm.py.
# RUN: %tilec compile %examples/layer_norm.py -k layer_norm_bwd_dx_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, *i32:16, i32, i32, 64, 1024" --emit=ast | FileCheck %s
# CHECK: kernel layer_norm_bwd_dx_kernel(DX: *fp32 :16, DY: *fp32 :16, DW: *fp32 :16, DB: *fp32 :16, X: *fp32 :16, W: *fp32 :16, Mean: *fp32 :16, Rstd: *fp32 :16, Lock: *i32 :16, Count: *i32 :16, stride: i32, N: i32)
# CHECK-NEXT:   constexpr GROUP_SIZE_M = 64
# CHECK-NEXT:   constexpr BLOCK_SIZE_N = 1024
# CHECK-NEXT:   num_warps = 4, num_stages = 3
# CHECK-NEXT: body
# CHECK-NEXT:   row = (program_id [axis=0] : i32)  @82:5
# CHECK-NEXT:   cols = (arange [start=0 end=1024] : <1024xi32>)  @83:5
# CHECK-NEXT:   mask = (lt cols:<1024xi32> (splat N:i32 : <1024xi32>) : <1024xi1>)  @84:5
# CHECK-NEXT:   x = (load (addptr (splat (addptr X:*fp32 (mul row:i32 stride:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @86:5
# CHECK-NEXT:   dy = (load (addptr (splat (addptr DY:*fp32 (mul row:i32 stride:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @87:5
# CHECK-NEXT:   w = (load (addptr (splat W:*fp32 : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>)  @88:5
# CHECK-NEXT:   mean = (load (addptr Mean:*fp32 row:i32 : *fp32) _ _ : fp32)  @89:5
# CHECK-NEXT:   rstd = (load (addptr Rstd:*fp32 row:i32 : *fp32) _ _ : fp32)  @90:5
# CHECK-NEXT:   xhat = (where mask:<1024xi1> (mul (sub x:<1024xfp32> (splat mean:fp32 : <1024xfp32>) : <1024xfp32>) (splat rstd:fp32 : <1024xfp32>) : <1024xfp32>) 0.0:<1024xfp32> : <1024xfp32>)  @92:5
# CHECK-NEXT:   wdy = (where mask:<1024xi1> (mul w:<1024xfp32> dy:<1024xfp32> : <1024xfp32>) 0.0:<1024xfp32> : <1024xfp32>)  @93:5
# CHECK-NEXT:   c1 = (div (reduce (mul xhat:<1024xfp32> wdy:<1024xfp32> : <1024xfp32>) [kind=sum axis=0] : fp32) (cast N:i32 : fp32) : fp32)  @94:5
# CHECK-NEXT:   c2 = (div (reduce wdy:<1024xfp32> [kind=sum axis=0] : fp32) (cast N:i32 : fp32) : fp32)  @95:5
# CHECK-NEXT:   dx = (mul (sub wdy:<1024xfp32> (add (mul xhat:<1024xfp32> (splat c1:fp32 : <1024xfp32>) : <1024xfp32>) (splat c2:fp32 : <1024xfp32>) : <1024xfp32>) : <1024xfp32>) (splat rstd:fp32 : <1024xfp32>) : <1024xfp32>)  @96:5
# CHECK-NEXT:   (store (addptr (splat (addptr DX:*fp32 (mul row:i32 stride:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>) dx:<1024xfp32> mask:<1024xi1> : void)  @97:5
# CHECK-NEXT:   group = (mod row:i32 64:i32 : i32)  @100:5
# CHECK-NEXT:   lock = (addptr Lock:*i32 group:i32 : *i32)  @101:5
# CHECK-NEXT:   count = (addptr Count:*i32 group:i32 : *i32)  @102:5
# CHECK-NEXT:   dw_ptrs = (addptr (splat (addptr DW:*fp32 (mul group:i32 N:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>)  @103:5
# CHECK-NEXT:   db_ptrs = (addptr (splat (addptr DB:*fp32 (mul group:i32 N:i32 : i32) : *fp32) : <1024x*fp32>) cols:<1024xi32> : <1024x*fp32>)  @104:5
# CHECK-NEXT:   partial_dw = (mul dy:<1024xfp32> xhat:<1024xfp32> : <1024xfp32>)  @105:5
# CHECK-NEXT:   partial_db = dy:<1024xfp32>  @106:5
# CHECK-NEXT:   while  @108:5
# CHECK-NEXT:     condition (eq (atomic_cas lock:*i32 0:i32 1:i32 [sem=acq_rel scope=gpu] : i32) 1:i32 : i1)
# CHECK-NEXT:     do
# CHECK-NEXT:   first = (eq (load count:*i32 _ _ : i32) 0:i32 : i1)  @110:5
# CHECK-NEXT:   (debug_barrier : void)  @113:5
# CHECK-NEXT:   if first:i1 -> partial_dw, partial_db  @114:5
# CHECK-NEXT:     (atomic_rmw count:*i32 1:i32 _ [op=xchg sem=acq_rel scope=gpu] : i32)  @116:9
# CHECK-NEXT:   else
# CHECK-NEXT:     partial_dw = (add partial_dw:<1024xfp32> (load dw_ptrs:<1024x*fp32> mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>) : <1024xfp32>)  @118:9
# CHECK-NEXT:     partial_db = (add partial_db:<1024xfp32> (load db_ptrs:<1024x*fp32> mask:<1024xi1> 0.0:<1024xfp32> : <1024xfp32>) : <1024xfp32>)  @119:9
# CHECK-NEXT:   (store dw_ptrs:<1024x*fp32> partial_dw:<1024xfp32> mask:<1024xi1> : void)  @120:5
# CHECK-NEXT:   (store db_ptrs:<1024x*fp32> partial_db:<1024xfp32> mask:<1024xi1> : void)  @121:5
# CHECK-NEXT:   (atomic_rmw lock:*i32 0:i32 _ [op=xchg sem=acq_rel scope=gpu] : i32)  @122:5
