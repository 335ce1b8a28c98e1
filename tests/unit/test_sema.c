/* test_sema.c — Triton's typing rules, checked through the typed AST:
 * promotion, weak Python scalars, division, broadcasting, constexprs. */
#include "tilec/tilec.h"
#include "unit.h"

#include <stdlib.h>

/* Compiles a kernel whose body is `body` (4-space indented lines). */
static char *compile(const char *params, const char *sig, const char *body, char **diags) {
  char text[4096];
  snprintf(text, sizeof text,
           "import triton\nimport triton.language as tl\n@triton.jit\ndef k(%s):\n%s", params, body);
  tilec_compile_options o = {.signature = sig};
  tilec_result *r = NULL;
  tilec_status st = tilec_compile("k.py", text, strlen(text), &o, &r);
  char *out = st == TILEC_OK ? strdup(tilec_result_output(r, NULL)) : NULL;
  *diags = strdup(tilec_result_diagnostics(r));
  tilec_result_destroy(r);
  return out;
}

static void expect(const char *params, const char *sig, const char *body, const char *want) {
  char *diags;
  char *out = compile(params, sig, body, &diags);
  if (!out) fprintf(stderr, "%s", diags);
  CHECK_CONTAINS(out, want);
  free(out);
  free(diags);
}

static void expect_error(const char *params, const char *sig, const char *body, const char *want) {
  char *diags;
  char *out = compile(params, sig, body, &diags);
  CHECK(out == NULL);
  CHECK_CONTAINS(diags, want);
  free(out);
  free(diags);
}

int unit_main(void) {
  /* a Python float does not promote an fp16 block; an fp32 value does */
  expect("p", "*fp16", "    x = tl.load(p + tl.arange(0, 16))\n    y = x * 2.0\n",
         "y = (mul x:<16xfp16> 2.0:<16xfp16> : <16xfp16>)");
  expect("p, s", "*fp16, fp32", "    x = tl.load(p + tl.arange(0, 16))\n    y = x * s\n",
         "y = (mul (cast x:<16xfp16> : <16xfp32>) (splat s:fp32 : <16xfp32>) : <16xfp32>)");
  /* int / int is fp32; // stays integer */
  expect("a, b", "i32, i32", "    x = a / b\n    y = a // b\n",
         "x = (div (cast a:i32 : fp32) (cast b:i32 : fp32) : fp32)");
  expect("a, b", "i32, i32", "    y = a // b\n", "y = (floordiv a:i32 b:i32 : i32)");
  /* integer promotion: width, then unsigned wins at equal width */
  expect("a, b", "i8, i32", "    y = a + b\n", "y = (add (cast a:i8 : i32) b:i32 : i32)");
  expect("a, b", "u32, i32", "    y = a + b\n", "y = (add a:u32 (cast b:i32 : u32) : u32)");
  expect("a, b", "fp16, bf16", "    y = a + b\n", "(add a:fp16 (cast b:bf16 : fp16) : fp16)");
  /* broadcasting */
  expect("p", "*fp32", "    r = tl.arange(0, 8)\n    c = tl.arange(0, 4)\n    y = r[:, None] + c[None, :]\n",
         ": <8x4xi32>");
  /* constexpr folding, an `if` on a constexpr, static_range unrolling */
  expect("p, B: tl.constexpr", "*fp32, 6",
         "    if B % 4 == 2:\n        x = B * 10 // 4\n    else:\n        x = 0\n    tl.store(p, x)\n",
         "(store p:*fp32 15.0:fp32 _ : void)");
  expect("p, N: tl.constexpr", "*i32, 3",
         "    acc = 0\n    for i in tl.static_range(N):\n        acc += i * 2\n    tl.store(p, acc)\n",
         "(store p:*i32 6:i32 _ : void)");
  /* a constexpr re-assigned in a runtime loop becomes a runtime value */
  expect("p, n", "*i32, i32",
         "    acc = 0\n    for i in range(n):\n        acc += i\n    tl.store(p, acc)\n",
         "for i in range(0:i32, n:i32, 1:i32) -> acc");
  expect("p", "*fp32", "    x = float('-inf')\n    tl.store(p, x)\n", "-inf:fp32");
  expect("p, S: tl.constexpr", "*fp32, 'abc'", "    tl.static_assert(S == 'abc')\n    tl.store(p, 1)\n", "1.0:fp32");
  /* constant integer edge cases: casts wrap or saturate as the GPU does, cdiv rounds toward +inf */
  expect("p", "*i32", "    tl.store(p, tl.cast(300, tl.int8))\n", "(store p:*i32 44:i32");
  expect("p", "*i32", "    tl.store(p, tl.cast(1e300, tl.int32))\n", "2147483647:i32");
  expect("p", "*i32", "    tl.store(p, tl.cast(1e300, tl.uint8))\n", "(store p:*i32 255:i32");
  expect("p", "*i32", "    tl.store(p, tl.cast(float('nan'), tl.int16))\n", "(store p:*i32 0:i32");
  expect("p", "*i32", "    tl.store(p, tl.cast(-129.7, tl.int8))\n", "(store p:*i32 -128:i32");
  expect("p", "*i64", "    tl.store(p, triton.cdiv(9223372036854775807, 2))\n", "4611686018427387904:i64");
  expect("p", "*i32", "    tl.store(p, triton.cdiv(-7, 2))\n", "-3:i32");
  expect("p", "*i32", "    tl.store(p, 1 ** 9223372036854775807 + (-1) ** 1000000001 + 0 ** 5)\n", "0:i32");
  /* errors */
  expect_error("p", "*fp32", "    x = tl.arange(0, 12)\n", "tl.arange's range must be a power of 2, got 12");
  expect_error("p", "*fp32", "    x = tl.arange(0, 8) + tl.arange(0, 16)\n", "incompatible shapes for broadcasting: <8xi32> and <16xi32>");
  expect_error("p, n", "*fp32, i32", "    for i in range(n):\n        x = 1.0 * i\n    tl.store(p, x)\n",
               "'x' is assigned inside the loop at line 5 but not before it");
  expect_error("p, n", "*fp32, i32", "    x = 0\n    for i in range(n):\n        x = x + 1.5\n",
               "loop-carried variable 'x' has type i32 before the loop but fp32 at the end of its body");
  expect_error("p", "*fp32", "    tl.store(p, tl.exp(1))\n", "tl.exp() expects a floating-point argument, got i32");
  expect_error("p", "*fp32", "    x = tl.load(p, foo=1)\n", "tl.load() got an unexpected keyword argument 'foo'");
  expect_error("p", "*fp32", "    x = tl.nonexistent(p)\n", "'tl.nonexistent' is not a Triton builtin that tilec knows");
  expect_error("p", "*fp32", "    x = [i for i in range(3)]\n", "list comprehensions are not supported yet");
  expect_error("p, B: tl.constexpr", "*fp32, 4", "    tl.static_assert(B > 8, 'B too small')\n", "static assertion failed: B too small");
  return 0;
}
