# LayerNorm over the last dimension of an fp32 matrix, forward and backward.
#  - layer_norm_fwd_kernel: y = (x - mean) * rstd * w + b per row, also saving mean and
#    rstd = 1 / sqrt(var + eps); loops over the columns in BLOCK_SIZE chunks.
#  - layer_norm_bwd_dx_kernel: dx per row, and partial dw/db sums accumulated into
#    GROUP_SIZE_M buffers guarded by an atomic_cas spin lock (Count marks first writer).
#  - layer_norm_bwd_dwdb_kernel: reduces the GROUP_SIZE_M partial buffers into dw/db.
# tilec: -k layer_norm_fwd_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024"
# tilec: -k layer_norm_bwd_dx_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, *i32:16, i32, i32, 64, 1024"
# tilec: -k layer_norm_bwd_dwdb_kernel -s "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128"
import torch

import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(
    X,  # input, [M, N]
    Y,  # output, [M, N]
    W,  # weight, [N]
    B,  # bias, [N]
    Mean,  # per-row mean, [M]
    Rstd,  # per-row 1/std, [M]
    stride,  # row stride of X and Y
    N,  # number of columns
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride

    # mean
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / N

    # variance (second pass, centred)
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        diff = tl.where(cols < N, x - mean, 0.0)
        acc2 += diff * diff
    var = tl.sum(acc2, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)

    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)

    # normalise and apply the affine transform
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask, other=0.0)
        b = tl.load(B + cols, mask=mask, other=0.0)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx_kernel(
    DX,  # input gradient, [M, N]
    DY,  # output gradient, [M, N]
    DW,  # partial weight gradients, [GROUP_SIZE_M, N]
    DB,  # partial bias gradients, [GROUP_SIZE_M, N]
    X,  # input, [M, N]
    W,  # weight, [N]
    Mean,  # [M]
    Rstd,  # [M]
    Lock,  # one int32 spin lock per group, [GROUP_SIZE_M]
    Count,  # one int32 "already written" flag per group, [GROUP_SIZE_M]
    stride,
    N,
    GROUP_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N

    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)

    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx, mask=mask)

    # Rows sharing a group accumulate into the same partial buffer.
    group = row % GROUP_SIZE_M
    lock = Lock + group
    count = Count + group
    dw_ptrs = DW + group * N + cols
    db_ptrs = DB + group * N + cols
    partial_dw = dy * xhat
    partial_db = dy

    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    first = tl.load(count) == 0
    # every thread reads the flag before the first writer's thread sets it:
    # without the barrier, threads of one program could disagree
    tl.debug_barrier()
    if first:
        # first writer of this group: nothing to accumulate with yet
        tl.atomic_xchg(count, 1)
    else:
        partial_dw += tl.load(dw_ptrs, mask=mask, other=0.0)
        partial_db += tl.load(db_ptrs, mask=mask, other=0.0)
    tl.store(dw_ptrs, partial_dw, mask=mask)
    tl.store(db_ptrs, partial_db, mask=mask)
    tl.atomic_xchg(lock, 0)


@triton.jit
def layer_norm_bwd_dwdb_kernel(
    DW,  # partial weight gradients, [M, N]
    DB,  # partial bias gradients, [M, N]
    FINAL_DW,  # [N]
    FINAL_DB,  # [N]
    M,  # number of partial rows (the group count)
    N,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for start in range(0, M, BLOCK_SIZE_M):
        rows = start + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


class TritonLayerNorm(torch.autograd.Function):

    @staticmethod
    def forward(ctx, x, weight, bias, eps=1e-5):
        x2d = x.reshape(-1, x.shape[-1])
        M, N = x2d.shape
        y = torch.empty_like(x2d)
        mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
        block = min(4096, triton.next_power_of_2(N))
        layer_norm_fwd_kernel[(M, )](x2d, y, weight, bias, mean, rstd, x2d.stride(0), N, eps, BLOCK_SIZE=block,
                                     num_warps=min(max(block // 256, 1), 8))
        ctx.save_for_backward(x2d, weight, mean, rstd)
        ctx.orig_shape = x.shape
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, dy):
        x2d, weight, mean, rstd = ctx.saved_tensors
        M, N = x2d.shape
        block_n = triton.next_power_of_2(N)
        if block_n > 8192:
            raise RuntimeError(f"feature dim {N} too large for the fused backward kernel")
        group_size_m = 64 if N > 4096 else 128 if N > 1024 else 256
        locks = torch.zeros(group_size_m, dtype=torch.int32, device=x2d.device)
        counts = torch.zeros(group_size_m, dtype=torch.int32, device=x2d.device)
        partial_dw = torch.zeros((group_size_m, N), dtype=torch.float32, device=x2d.device)
        partial_db = torch.zeros((group_size_m, N), dtype=torch.float32, device=x2d.device)
        dy2d = dy.reshape(-1, N).contiguous()
        dx = torch.empty_like(x2d)
        layer_norm_bwd_dx_kernel[(M, )](dx, dy2d, partial_dw, partial_db, x2d, weight, mean, rstd, locks, counts,
                                        x2d.stride(0), N, GROUP_SIZE_M=group_size_m, BLOCK_SIZE_N=block_n)
        dw = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
        db = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]), )
        layer_norm_bwd_dwdb_kernel[grid](partial_dw, partial_db, dw, db, min(group_size_m, M), N, BLOCK_SIZE_M=32,
                                         BLOCK_SIZE_N=128)
        return dx.reshape(ctx.orig_shape), dw, db, None


def layer_norm(x, weight, bias, eps=1e-5):
    return TritonLayerNorm.apply(x, weight, bias, eps)


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 1151, 1000
    x = (-2.3 + 0.5 * torch.randn(M, N, device="cuda")).requires_grad_(True)
    w = torch.rand(N, device="cuda", requires_grad=True)
    b = torch.rand(N, device="cuda", requires_grad=True)
    dy = 0.1 * torch.randn_like(x)
    y_tri = layer_norm(x, w, b)
    y_tri.backward(dy)
    grads_tri = [t.grad.clone() for t in (x, w, b)]
    for t in (x, w, b):
        t.grad = None
    y_ref = torch.nn.functional.layer_norm(x, (N, ), w, b, 1e-5)
    y_ref.backward(dy)
    names = ("dx", "dw", "db")
    print(f"y: max err {(y_tri - y_ref).abs().max().item():.2e}")
    for name, g_tri, t in zip(names, grads_tri, (x, w, b)):
        print(f"{name}: max err {(g_tri - t.grad).abs().max().item():.2e}")
