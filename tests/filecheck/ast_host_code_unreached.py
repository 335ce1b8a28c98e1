# Host code that no kernel reaches is never evaluated, whatever it does: a
# host function that loops and launches kernels, called at module level
# (Triton's tutorial 08), a chain of 80 host values that refer to each
# other (deeper than the 64 levels allowed to what a kernel reaches), a @jit
# function called outside a kernel. Only what the kernel reads is evaluated.
# RUN: %tilec compile %s -k copy_kernel -s "*fp32, *fp32, i32, 128" --emit=ast | FileCheck %s
# RUN: %tilec compile %s -s "*fp32, *fp32, i32, 128" --emit=ast | FileCheck %s
# CHECK: kernel copy_kernel(
# CHECK: (load
# CHECK: (store
import torch
import triton
import triton.language as tl

SCALE: tl.constexpr = 2.0


@triton.jit
def twice(x):
    return x * SCALE


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, twice(tl.load(src + offs, mask=mask)), mask=mask)


def launch_all(xs):
    outs = []
    for i in range(len(xs)):
        y = torch.empty_like(xs[i])
        copy_kernel[(triton.cdiv(xs[i].numel(), 128),)](xs[i], y, xs[i].numel(), BLOCK=128)
        outs.append(y)
    return outs


DEVICE = triton.runtime.driver.active.get_active_torch_device()
v0 = torch.randn((512, 512), device=DEVICE)
v1 = torch.matmul(v0, v0)
v2 = torch.matmul(v1, v1)
v3 = torch.matmul(v2, v2)
v4 = torch.matmul(v3, v3)
v5 = torch.matmul(v4, v4)
v6 = torch.matmul(v5, v5)
v7 = torch.matmul(v6, v6)
v8 = torch.matmul(v7, v7)
v9 = torch.matmul(v8, v8)
v10 = torch.matmul(v9, v9)
v11 = torch.matmul(v10, v10)
v12 = torch.matmul(v11, v11)
v13 = torch.matmul(v12, v12)
v14 = torch.matmul(v13, v13)
v15 = torch.matmul(v14, v14)
v16 = torch.matmul(v15, v15)
v17 = torch.matmul(v16, v16)
v18 = torch.matmul(v17, v17)
v19 = torch.matmul(v18, v18)
v20 = torch.matmul(v19, v19)
v21 = torch.matmul(v20, v20)
v22 = torch.matmul(v21, v21)
v23 = torch.matmul(v22, v22)
v24 = torch.matmul(v23, v23)
v25 = torch.matmul(v24, v24)
v26 = torch.matmul(v25, v25)
v27 = torch.matmul(v26, v26)
v28 = torch.matmul(v27, v27)
v29 = torch.matmul(v28, v28)
v30 = torch.matmul(v29, v29)
v31 = torch.matmul(v30, v30)
v32 = torch.matmul(v31, v31)
v33 = torch.matmul(v32, v32)
v34 = torch.matmul(v33, v33)
v35 = torch.matmul(v34, v34)
v36 = torch.matmul(v35, v35)
v37 = torch.matmul(v36, v36)
v38 = torch.matmul(v37, v37)
v39 = torch.matmul(v38, v38)
v40 = torch.matmul(v39, v39)
v41 = torch.matmul(v40, v40)
v42 = torch.matmul(v41, v41)
v43 = torch.matmul(v42, v42)
v44 = torch.matmul(v43, v43)
v45 = torch.matmul(v44, v44)
v46 = torch.matmul(v45, v45)
v47 = torch.matmul(v46, v46)
v48 = torch.matmul(v47, v47)
v49 = torch.matmul(v48, v48)
v50 = torch.matmul(v49, v49)
v51 = torch.matmul(v50, v50)
v52 = torch.matmul(v51, v51)
v53 = torch.matmul(v52, v52)
v54 = torch.matmul(v53, v53)
v55 = torch.matmul(v54, v54)
v56 = torch.matmul(v55, v55)
v57 = torch.matmul(v56, v56)
v58 = torch.matmul(v57, v57)
v59 = torch.matmul(v58, v58)
v60 = torch.matmul(v59, v59)
v61 = torch.matmul(v60, v60)
v62 = torch.matmul(v61, v61)
v63 = torch.matmul(v62, v62)
v64 = torch.matmul(v63, v63)
v65 = torch.matmul(v64, v64)
v66 = torch.matmul(v65, v65)
v67 = torch.matmul(v66, v66)
v68 = torch.matmul(v67, v67)
v69 = torch.matmul(v68, v68)
v70 = torch.matmul(v69, v69)
v71 = torch.matmul(v70, v70)
v72 = torch.matmul(v71, v71)
v73 = torch.matmul(v72, v72)
v74 = torch.matmul(v73, v73)
v75 = torch.matmul(v74, v74)
v76 = torch.matmul(v75, v75)
v77 = torch.matmul(v76, v76)
v78 = torch.matmul(v77, v77)
v79 = torch.matmul(v78, v78)

outs = launch_all([v0, v79])
wrong = twice(3.0)
if outs and wrong:
    result = launch_all(outs)
