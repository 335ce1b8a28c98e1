# prune_configs_by names host functions that tilec does not run: it times
# every config instead, and says so with a warning.
# ARGS: -s "*fp32, i32"
# EXIT: 0
import triton
import triton.language as tl


def keep_small(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs['BLOCK'] <= 64]


@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})], key=['n'],
                 prune_configs_by={'early_config_prune': keep_small}, warmup=5, rep=20, use_cuda_graph=True)
@triton.jit
def fill(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1.0, mask=offs < n)
