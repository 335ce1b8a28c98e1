# Triton's random numbers (triton.language.random): the kernels whose
# outputs tests/emu/test_random.c compares, on the emulator, with the numbers
# Triton 3.9's interpreter gave for them (tests/emu/gen_random_ref.py made
# tests/emu/random_ref.h), here checked in their typed AST and in PTX that
# ptxas accepts.
# RUN: %tilec compile %s -k rand_forms -s "*u32, *fp32, i32, i32, 16, 10" --emit=ast | FileCheck %s --check-prefix=NARROW
# RUN: %tilec compile %s -k rand_forms -s "*u32, *fp32, i64, i64, 16, 10" --emit=ast | FileCheck %s --check-prefix=WIDE
# RUN: %tilec compile %s -k rand_forms -s "*u32, *fp32, i32, i32, 16, 10" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k rand_forms -s "*u32, *fp32, u64, i64, 16, 7" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k rand_forms -s "*u32, *fp32, i64, i64, 16, 10" --arch=sm_90 --emit=ptx | %ptxas_check_sm90
# RUN: %tilec compile %s -k philox_forms -s "*u32, *u64, *fp32, i64, i32, i64, 16, 8" --emit=ast | FileCheck %s --check-prefix=PHILOX
# RUN: %tilec compile %s -k philox_forms -s "*u32, *u64, *fp32, i64, i32, i64, 16, 8" --emit=ptx | %ptxas_check
# RUN: %tilec compile %s -k philox_forms -s "*u32, *u64, *fp32, i64, i32, i64, 16, 8" --arch=sm_90 --emit=ptx | %ptxas_check_sm90
import triton
import triton.language as tl

# 32-bit offsets: the key is the seed's two words, the counter the offset
# and three zeros; ten rounds by default, in one op
# NARROW: $philox0 = (cast seed:i32 : u64)
# NARROW-NEXT: philox.{{[0-9]+}}, philox.{{[0-9]+}}, philox.{{[0-9]+}}, philox.{{[0-9]+}} = (philox (cast offs:<16xi32> : <16xu32>) 0:<16xu32> 0:<16xu32> 0:<16xu32> (splat (cast $philox0:u64 : u32) : <16xu32>) (splat (cast (shr $philox0:u64 32:u64 : u64) : u32) : <16xu32>) [n_rounds=10] : (<16xu32>, <16xu32>, <16xu32>, <16xu32>))
# NARROW-NEXT: (store w:<16x*u32> philox.{{[0-9]+}}:<16xu32> _ : void)
# uint_to_uniform_float: ~ folds the negative words, then one multiply
# NARROW: (store f:<16x*fp32> (mul (cast (where (lt $uniform{{[0-9]+}}:<16xi32> 0:<16xi32> : <16xi1>) (invert $uniform{{[0-9]+}}:<16xi32> : <16xi32>) $uniform{{[0-9]+}}:<16xi32> : <16xi32>) : <16xfp32>) 4.6566127342e-10:<16xfp32> : <16xfp32>) _ : void)
# Box-Muller with tl.maximum, tl.log, tl.sqrt and tl.cos
# NARROW: $normal{{[0-9]+}} = (mul 6.283185307179586:<16xfp32>
# NARROW-NEXT: $normal{{[0-9]+}} = (sqrt (mul -2.0:<16xfp32> (log (maximum 1e-07:<16xfp32>
# NARROW-NEXT: (store (addptr f:<16x*fp32> 80:<16xi32> : <16x*fp32>) (mul $normal{{[0-9]+}}:<16xfp32> (cos $normal{{[0-9]+}}:<16xfp32> : <16xfp32>) : <16xfp32>) _ : void)
# 64-bit offsets: the high word is the second counter word, by an
# arithmetic shift of the signed offsets; the words are uint32 all the same
# WIDE: (philox (cast offs:<16xi64> : <16xu32>) (cast (shr offs:<16xi64> 32:<16xi64> : <16xi64>) : <16xu32>) 0:<16xu32> 0:<16xu32> (splat (cast $philox0:u64 : u32) : <16xu32>) (splat (cast (shr $philox0:u64 32:u64 : u64) : u32) : <16xu32>) [n_rounds=10] : (<16xu32>, <16xu32>, <16xu32>, <16xu32>))


@triton.jit
def rand_forms(words_ptr, floats_ptr, seed, base, BLOCK: tl.constexpr, ROUNDS: tl.constexpr):
    """Every offset-based form at offsets base + i, base's dtype theirs."""
    i = tl.arange(0, BLOCK)
    offs = base + i
    w = words_ptr + i
    tl.store(w, tl.randint(seed, offs, ROUNDS))
    a, b, c, d = tl.randint4x(seed, offs, n_rounds=ROUNDS)
    tl.store(w + BLOCK, a)
    tl.store(w + 2 * BLOCK, b)
    tl.store(w + 3 * BLOCK, c)
    tl.store(w + 4 * BLOCK, d)
    f = floats_ptr + i
    tl.store(f, tl.rand(seed, offs, ROUNDS))
    a, b, c, d = tl.rand4x(seed, offs, ROUNDS)
    tl.store(f + BLOCK, a)
    tl.store(f + 2 * BLOCK, b)
    tl.store(f + 3 * BLOCK, c)
    tl.store(f + 4 * BLOCK, d)
    tl.store(f + 5 * BLOCK, tl.randn(seed, offs, ROUNDS))
    a, b, c, d = tl.randn4x(seed, offs, ROUNDS)
    tl.store(f + 6 * BLOCK, a)
    tl.store(f + 7 * BLOCK, b)
    tl.store(f + 8 * BLOCK, c)
    tl.store(f + 9 * BLOCK, d)


# counters of 32 bits taken by their bits, a Python int as an int32
# PHILOX: (philox (bitcast x:<16xi32> : <16xu32>) (bitcast (mul x:<16xi32> 3:<16xi32> : <16xi32>) : <16xu32>) (bitcast (xor x:<16xi32> 21845:<16xi32> : <16xi32>) : <16xu32>) (splat (bitcast 7:i32 : u32) : <16xu32>)
# scalar counters: scalar words
# PHILOX: (philox (bitcast base:i32 : u32) (bitcast 1:i32 : u32) (bitcast 2:i32 : u32) (bitcast 3:i32 : u32) (cast $philox{{[0-9]+}}:u64 : u32) (cast (shr $philox{{[0-9]+}}:u64 32:u64 : u64) : u32) [n_rounds=10] : (u32, u32, u32, u32))
# one round over words of shapes [8, 1] and [1, 8]: built round by round,
# c0 of the broadcast shape, c2 of c0's and c3's
# PHILOX: (xor (xor (broadcast (umulhi 3449720151:<8x1xu32> col:<8x1xu32> : <8x1xu32>) : <8x8xu32>) (broadcast row:<1x8xu32> : <8x8xu32>) : <8x8xu32>) (splat $philox{{[0-9]+}}:u32 : <8x8xu32>) : <8x8xu32>)
# PHILOX-NEXT: (xor (xor (umulhi 3528531795:<8x1xu32> col:<8x1xu32> : <8x1xu32>) col:<8x1xu32> : <8x1xu32>) 99:<8x1xu32> : <8x1xu32>)
# 64-bit counters take the 64-bit round constants, the seed whole as the
# first key word and a zero of shape [1] as the second
# PHILOX: (philox (bitcast y:<16xi64> : <16xu64>) (bitcast (add y:<16xi64> 1:<16xi64> : <16xi64>) : <16xu64>) (bitcast (mul y:<16xi64> 7:<16xi64> : <16xi64>) : <16xu64>) (bitcast (xor y:<16xi64> -1:<16xi64> : <16xi64>) : <16xu64>) (splat $philox{{[0-9]+}}:u64 : <16xu64>) (broadcast 0:<1xu64> : <16xu64>) [n_rounds=10]
# three rounds of scalar 64-bit counters: words of shape [1]
# PHILOX: (umulhi 14581110107779764567:u64 $philox{{[0-9]+}}:u64 : u64)
# PHILOX-NEXT: (xor (splat (xor (umulhi 15197193596820024467:u64 $philox{{[0-9]+}}:u64 : u64) $philox{{[0-9]+}}:u64 : u64) : <1xu64>) 0:<1xu64> : <1xu64>)
# a 64-bit word's uniform float scales by 2^-63
# PHILOX: (mul (cast (where (lt $uniform{{[0-9]+}}:<16xi64> 0:<16xi64> : <16xi1>) (invert $uniform{{[0-9]+}}:<16xi64> : <16xi64>) $uniform{{[0-9]+}}:<16xi64> : <16xi64>) : <16xfp32>) 1.0842


@triton.jit
def philox_forms(w32_ptr, w64_ptr, f_ptr, seed, base, base64, BLOCK: tl.constexpr, SIDE: tl.constexpr):
    """tl.philox and tl.philox_impl on 32- and 64-bit words, scalar and
    tensor seeds and counters, few rounds over words of different shapes,
    and the uniform and normal floats of 64-bit words."""
    i = tl.arange(0, BLOCK)
    x = base + i
    y = base64 + i
    # 32-bit counters, a Python int among them
    a, b, c, d = tl.philox(seed, x, x * 3, x ^ 0x5555, 7)
    tl.store(w32_ptr + i, a)
    tl.store(w32_ptr + BLOCK + i, b)
    tl.store(w32_ptr + 2 * BLOCK + i, c)
    tl.store(w32_ptr + 3 * BLOCK + i, d)
    # philox_impl on uint32 words: a scalar key word and a Python int one
    u = x.to(tl.uint32)
    a, b, c, d = tl.philox_impl(u, u + 1, u + 2, x, (base * 5).to(tl.uint32), 0x12345678, n_rounds=5)
    tl.store(w32_ptr + 4 * BLOCK + i, a)
    tl.store(w32_ptr + 5 * BLOCK + i, b)
    tl.store(w32_ptr + 6 * BLOCK + i, c)
    tl.store(w32_ptr + 7 * BLOCK + i, d)
    # a tensor of seeds, each with its own high word
    tl.store(w32_ptr + 8 * BLOCK + i, tl.randint(seed + i.to(tl.int64) * 0x100000001, x))
    # scalar counters give scalars
    a, b, c, d = tl.philox(seed, base, 1, 2, 3)
    tl.store(w32_ptr + 9 * BLOCK, a)
    tl.store(w32_ptr + 9 * BLOCK + 1, b)
    tl.store(w32_ptr + 9 * BLOCK + 2, c)
    tl.store(w32_ptr + 9 * BLOCK + 3, d)
    # one round leaves c1 and c3 of the shapes they came from
    r = tl.arange(0, SIDE)
    col = (base + r)[:, None].to(tl.uint32)
    row = (base * 7 + r)[None, :].to(tl.uint32)
    a, b, c, d = tl.philox_impl(col, row, col, col, (base * 3).to(tl.uint32), 99, 1)
    tl.store(w32_ptr + 9 * BLOCK + 4 + r[:, None] * SIDE + r[None, :], a)
    tl.store(w32_ptr + 9 * BLOCK + 4 + SIDE * SIDE + r[:, None], b)
    tl.store(w32_ptr + 9 * BLOCK + 4 + SIDE * SIDE + SIDE + r[:, None], c)
    tl.store(w32_ptr + 9 * BLOCK + 4 + SIDE * SIDE + 2 * SIDE + r[:, None], d)
    # 64-bit counters: uint64 words; scalar ones give tensors of shape [1]
    a, b, c, d = tl.philox(seed, y, y + 1, y * 7, y ^ -1)
    tl.store(w64_ptr + i, a)
    tl.store(w64_ptr + BLOCK + i, b)
    tl.store(w64_ptr + 2 * BLOCK + i, c)
    tl.store(w64_ptr + 3 * BLOCK + i, d)
    one = tl.arange(0, 1)
    e, _, _, h = tl.philox(seed, base64, base64, base64, base64, 3)
    tl.store(w64_ptr + 4 * BLOCK + one, e)
    tl.store(w64_ptr + 4 * BLOCK + 1 + one, h)
    # philox_impl on uint64 words, a tensor key word
    v = y.to(tl.uint64)
    a, b, c, d = tl.philox_impl(v, v, v + 1, v, seed.to(tl.uint64), v * 3)
    tl.store(w64_ptr + 4 * BLOCK + 2 + i, a)
    tl.store(w64_ptr + 5 * BLOCK + 2 + i, d)
    # uniform floats of 64-bit words, signed and unsigned, and of 32-bit
    # ones bitcast to int32; normal floats of the 64-bit uniforms
    a, b, c, d = tl.philox(seed, y, y, y, y)
    ua = tl.uint_to_uniform_float(a)
    ub = tl.uint_to_uniform_float(b.to(tl.int64, bitcast=True))
    tl.store(f_ptr + i, ua)
    tl.store(f_ptr + BLOCK + i, ub)
    tl.store(f_ptr + 2 * BLOCK + i, tl.uint_to_uniform_float(tl.randint(seed, y).to(tl.int32, bitcast=True)))
    n1, n2 = tl.pair_uniform_to_normal(ua, ub)
    tl.store(f_ptr + 3 * BLOCK + i, n1)
    tl.store(f_ptr + 4 * BLOCK + i, n2)
