# tilec run --config 1 takes the second autotune config, whose BLOCK is 128:
# an assertion that holds for the first one is false when it compiles.
# COMMAND: run
# ARGS: -s "*fp32, i32" --config 1 -g "cdiv(n, BLOCK)" empty:fp32:300 300 --device cpu
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128}, num_warps=2)], key=['n'])
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.device_assert(BLOCK == 64, "a block of 64")
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
