# COMMAND: run
# ARGS: -s "*fp32:16, *fp32:16, i32, 256" -g "cdiv(n, BLOCK)" --device=cpu rand:fp32:1000 empty:fp32:1000 1000
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("neg.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=False, pack=1)
    tl.store(y_ptr + offs, y, mask=mask)
