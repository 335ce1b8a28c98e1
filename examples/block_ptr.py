# Block-pointer kernels (tl.make_block_ptr / tl.advance / boundary_check):
#  - row_sum_kernel: out[m] = sum_n x[m, n] for an fp32 [M, N] matrix; each program owns
#    BLOCK_M rows and walks the columns BLOCK_N at a time, out-of-range reads padded with 0.
#  - scale_copy_kernel: dst[m, n] = fp16(src[m, n] * scale), one 2-D tile per program,
#    loaded and stored through block pointers with boundary checks on both dimensions.
# tilec: -k row_sum_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 64, 128"
# tilec: -k scale_copy_kernel -s "*fp32:16, *fp16:16, i32, i32, i32, i32, i32, i32, fp32, 32, 64"
import torch

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_block = tl.make_block_ptr(
        base=x_ptr,
        shape=(M, N),
        strides=(stride_m, stride_n),
        offsets=(pid * BLOCK_M, 0),
        block_shape=(BLOCK_M, BLOCK_N),
        order=(1, 0),
    )
    acc = tl.zeros((BLOCK_M, ), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BLOCK_N)):
        tile = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
        acc += tl.sum(tile, axis=1)
        x_block = tl.advance(x_block, (0, BLOCK_N))
    out_block = tl.make_block_ptr(base=out_ptr, shape=(M, ), strides=(1, ), offsets=(pid * BLOCK_M, ),
                                  block_shape=(BLOCK_M, ), order=(0, ))
    tl.store(out_block, acc, boundary_check=(0, ))


@triton.jit
def scale_copy_kernel(src_ptr, dst_ptr, M, N, stride_sm, stride_sn, stride_dm, stride_dn, scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    src = tl.make_block_ptr(base=src_ptr, shape=(M, N), strides=(stride_sm, stride_sn),
                            offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    dst = tl.make_block_ptr(base=dst_ptr, shape=(M, N), strides=(stride_dm, stride_dn),
                            offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst, (tile * scale).to(tl.float16), boundary_check=(0, 1))


def row_sum(x: torch.Tensor, block_m: int = 64, block_n: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(triton.cdiv(M, block_m), )](x, out, M, N, x.stride(0), x.stride(1), BLOCK_M=block_m,
                                                BLOCK_N=block_n)
    return out


def scale_copy(src: torch.Tensor, scale: float) -> torch.Tensor:
    M, N = src.shape
    dst = torch.empty((M, N), device=src.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    scale_copy_kernel[grid](src, dst, M, N, *src.stride(), *dst.stride(), scale, BLOCK_M=32, BLOCK_N=64)
    return dst


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(1000, 777, device="cuda")
    print(f"row_sum max err: {(row_sum(x) - x.sum(dim=1)).abs().max().item():.3e}")
    xt = x.t()  # non-contiguous source exercises the strides
    y = scale_copy(xt, 0.5)
    print(f"scale_copy max err: {(y.float() - (xt * 0.5).half().float()).abs().max().item():.3e}")
