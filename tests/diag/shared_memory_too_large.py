# A 128x256 fp32 transpose goes through 131584 bytes of shared memory: sm_80
# has room for it (163 KiB a block), sm_86 not (99 KiB).
# ARGS: -s "*fp32:16, *fp32:16, 128, 256" -w 8 --arch sm_86 --emit=ptx -o /dev/null
import triton
import triton.language as tl


@triton.jit
def transpose(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + c[:, None] * M + r[None, :], tl.trans(x))
