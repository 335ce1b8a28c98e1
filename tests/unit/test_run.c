/* test_run.c — the pieces of `tilec run` that need no kernel: the reader of
 * the kernel's metadata (every prefix and many corruptions of a real one
 * must fail cleanly), grid expressions with Python's integer semantics and
 * their messages and positions, and the fp16/bf16 rounding of scalars. */
#include <stdint.h>
#include <stdlib.h>

#include <unistd.h>

#include "driver/cli.h"
#include "driver/run.h"
#include "unit.h"

/* What tilec_result_metadata gives for examples/vector_add.py. */
static const char meta_json[] =
    "{\n  \"name\": \"add_kernel\",\n  \"arch\": \"sm_80\",\n  \"num_warps\": 4,\n  \"num_stages\": 3,\n"
    "  \"shared_bytes\": 0,\n  \"params\": [\n"
    "    {\"name\": \"x_ptr\", \"type\": \"*fp32\", \"divisibility\": 16, \"entry\": 0},\n"
    "    {\"name\": \"y_ptr\", \"type\": \"*fp32\", \"divisibility\": 16, \"entry\": 1},\n"
    "    {\"name\": \"out_ptr\", \"type\": \"*fp32\", \"divisibility\": 16, \"entry\": 2},\n"
    "    {\"name\": \"n_elements\", \"type\": \"i32\", \"divisibility\": 16, \"entry\": 3}\n"
    "  ],\n  \"constexprs\": {\"BLOCK_SIZE\": 1024, \"EVEN\": 1},\n"
    "  \"autotune\": {\"configs\": 3, \"config\": 1, \"key\": [\"n_elements\", \"x_ptr\"], \"reset\": [\"out_ptr\"],"
    " \"restore\": [], \"warmup_ms\": 10, \"rep_ms\": 40, \"pre_zero\": [\"y_ptr\"], \"pre_copy\": [\"y_ptr\", \"x_ptr\"]},\n"
    "  \"lowered_hash\": \"8f2c3a9d01b4e765\"\n}\n";

static void test_meta_reads_the_compilers_json(void) {
  KernelMeta m;
  char err[256] = "";
  CHECK(meta_parse(meta_json, &m, err, sizeof err, NULL));
  CHECK_STR(err, "");
  CHECK_STR(m.name, "add_kernel");
  CHECK_STR(m.arch, "sm_80");
  CHECK_STR(m.lowered_hash, "8f2c3a9d01b4e765");
  CHECK(m.num_warps == 4 && m.num_stages == 3 && m.shared_bytes == 0);
  CHECK(m.nparams == 4);
  if (m.nparams == 4) {
    CHECK_STR(m.params[0].name, "x_ptr");
    CHECK_STR(m.params[2].type, "*fp32");
    CHECK_STR(m.params[3].name, "n_elements");
    CHECK_STR(m.params[3].type, "i32");
    CHECK(m.params[3].divisibility == 16);
    CHECK(m.params[1].entry == 1 && m.params[3].entry == 3);
  }
  CHECK(m.nconsts == 2);
  if (m.nconsts == 2) {
    CHECK_STR(m.consts[0].name, "BLOCK_SIZE");
    CHECK(m.consts[0].value == 1024);
    CHECK_STR(m.consts[1].name, "EVEN");
    CHECK(m.consts[1].value == 1);
  }
  CHECK(m.nconfigs == 3 && m.config == 1 && m.nkeys == 2 && m.nreset == 1 && m.nrestore == 0);
  if (m.nreset == 1) CHECK_STR(m.reset[0], "out_ptr");
  CHECK(m.warmup_ms == 10 && m.rep_ms == 40 && m.npre_zero == 1);
  if (m.npre_zero == 1) CHECK_STR(m.pre_zero[0], "y_ptr");
  CHECK(m.npre_copy == 2);
  if (m.npre_copy == 2) {
    CHECK_STR(m.pre_copy[0], "y_ptr");
    CHECK_STR(m.pre_copy[1], "x_ptr");
  }
  if (m.nkeys == 2) {
    CHECK_STR(m.keys[0], "n_elements");
    CHECK_STR(m.keys[1], "x_ptr");
  }
  meta_free(&m);
  CHECK(m.name == NULL && m.params == NULL && m.nparams == 0);

  /* no parameters, no constexprs, keys in another order, escapes */
  const char *small = "{\"constexprs\": {}, \"params\": [], \"name\": \"k\\\"\\\\\", \"arch\": \"sm_90a\", "
                      "\"num_warps\": 32, \"num_stages\": 1, \"shared_bytes\": 98304, \"lowered_hash\": \"\", "
                      "\"autotune\": {\"key\": [], \"restore\": [\"k\"], \"config\": 0, \"configs\": 0, \"reset\": [], "
                      "\"pre_zero\": [], \"rep_ms\": 0, \"warmup_ms\": 0, \"pre_copy\": []}}";
  CHECK(meta_parse(small, &m, err, sizeof err, NULL));
  CHECK_STR(m.name, "k\"\\");
  CHECK(m.nparams == 0 && m.nconsts == 0 && m.num_warps == 32 && m.shared_bytes == 98304 && m.nkeys == 0);
  CHECK(m.nrestore == 1 && m.nreset == 0);
  meta_free(&m);

  /* the extremes of a constexpr's int64 */
  CHECK(meta_parse("{\"name\": \"k\", \"arch\": \"a\", \"num_warps\": 1, \"num_stages\": 0, \"shared_bytes\": 0,"
                       " \"params\": [], \"constexprs\": {\"A\": -9223372036854775808, \"B\": 9223372036854775807},"
                       " \"lowered_hash\": \"0\", \"autotune\": {\"configs\": 0, \"config\": 0, \"key\": [], \"reset\": [],"
                       " \"warmup_ms\": 0, \"rep_ms\": 0, \"pre_zero\": [], \"pre_copy\": [],"
                       " \"restore\": []}}",
                       &m, err, sizeof err, NULL));
  CHECK(m.nconsts == 2 && m.consts[0].value == INT64_MIN && m.consts[1].value == INT64_MAX);
  meta_free(&m);
}

/* Replaces the first `from` in meta_json by `to` and expects the message. */
static void meta_fails(const char *from, const char *to, const char *want) {
  char text[2048];
  const char *at = strstr(meta_json, from);
  CHECK(at != NULL);
  if (!at) return;
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - meta_json), meta_json, to, at + strlen(from));
  KernelMeta m = {.nparams = 7};
  char err[256] = "";
  CHECK(!meta_parse(text, &m, err, sizeof err, NULL));
  CHECK_STR(err, want);
  CHECK(m.name == NULL && m.params == NULL && m.nparams == 0 && m.consts == NULL);
}

static void test_meta_errors(void) {
  meta_fails("\"arch\": \"sm_80\",\n  ", "", "at byte 0: no key 'arch'");
  meta_fails("\"arch\"", "\"name\"", "at byte 28: duplicate key 'name'");
  meta_fails("\"shared_bytes\"", "\"shared\"", "at byte 84: unexpected key 'shared'");
  meta_fails("\"num_warps\": 4", "\"num_warps\": 3.5", "at byte 61: expected an integer, found a fraction");
  meta_fails("\"num_warps\": 4", "\"num_warps\": 64", "at byte 60: num_warps is 64, expected 1 to 32");
  meta_fails("\"num_warps\": 4", "\"num_warps\": \"4\"", "at byte 60: expected an integer, found '\"'");
  meta_fails("\"num_stages\": 3", "\"num_stages\": 03", "at byte 79: an integer with a leading zero");
  meta_fails("\"BLOCK_SIZE\": 1024", "\"BLOCK_SIZE\": 9223372036854775808",
             "at byte 445: an integer out of range");
  meta_fails("\"EVEN\": 1", "\"BLOCK_SIZE\": 1", "at byte 451: duplicate constexpr 'BLOCK_SIZE'");
  meta_fails(", \"divisibility\": 16, \"entry\": 0}", "}", "at byte 121: a parameter needs exactly name, type, divisibility and entry");
  meta_fails("\"entry\": 1", "\"entry\": -1", "at byte 257: entry is -1, expected 0 to 2147483647");
  meta_fails("\"type\": \"*fp32\"", "\"type\": \"\"", "at byte 121: a parameter with an empty name or type");
  meta_fails("\"entry\": 0}", "\"entry\": 0, \"align\": 4}",
             "at byte 188: unexpected key 'align'");
  meta_fails("\"x_ptr\"", "\"x\\u0041\"", "at byte 132: unsupported escape in a string");
  meta_fails("\"x_ptr\"", "\"x\nptr\"", "at byte 132: unterminated string");
  meta_fails("\n  ],", "\n  ,],", "at byte 412: expected '{', found ']'"); /* no trailing commas */
  meta_fails("\"\n}\n", "\"\n}\n}", "at byte 700: text after the object");
  meta_fails(",\n  \"lowered_hash\": \"8f2c3a9d01b4e765\"", "", "at byte 0: no key 'lowered_hash'");
  meta_fails("\"lowered_hash\": \"8f2c3a9d01b4e765\"", "\"lowered_hash\": 1", "at byte 679: expected '\"', found '1'");
  meta_fails("{\n", "[", "at byte 0: expected '{', found '['");
  meta_fails("\"config\": 1", "\"config\": 3", "at byte 477: autotune config 3, but there are 3 configs");
  meta_fails("\"pre_copy\": [\"y_ptr\", \"x_ptr\"]", "\"pre_copy\": [\"y_ptr\"]", "at byte 649: pre_copy holds pairs of names, not 1");
  meta_fails("\"config\": 1, ", "", "at byte 477: autotune needs exactly configs, config, warmup_ms, rep_ms, key, reset, restore, pre_zero and pre_copy");
  meta_fails("\"x_ptr\"]", "\"x_ptr\",]", "at byte 535: expected '\"', found ']'");
  meta_fails("\"key\": [", "\"key\": [1, ", "at byte 513: expected '\"', found '1'");
  meta_fails("\"configs\": 3", "\"configs\": 3, \"configs\": 3", "at byte 492: duplicate key 'configs'");
  meta_fails("\"autotune\": {\"configs\": 3, \"config\": 1, \"key\": [\"n_elements\", \"x_ptr\"], \"reset\": [\"out_ptr\"], \"restore\": [], \"warmup_ms\": 10, \"rep_ms\": 40, \"pre_zero\": [\"y_ptr\"], \"pre_copy\": [\"y_ptr\", \"x_ptr\"]},\n  ", "", "at byte 0: no key 'autotune'");
  meta_fails("\"restore\": []", "\"restore\": [\"a\", 2]", "at byte 576: expected '\"', found '2'");
}

/* The tensor maps a kernel takes after its parameters (host descriptors
 * copied by TMA): each a pointer parameter followed by its shape and
 * strides, a fill, a box of 1 to 5 dimensions of at most 256. */
static void test_meta_tensor_maps(void) {
  static const char head[] = "{\"name\": \"k\", \"arch\": \"sm_90a\", \"num_warps\": 4, \"num_stages\": 3, \"shared_bytes\": 0,"
                             " \"params\": [{\"name\": \"d\", \"type\": \"*fp16\", \"divisibility\": 0, \"entry\": 0},"
                             " {\"name\": \"d_shape0\", \"type\": \"i64\", \"divisibility\": 0, \"entry\": 0},"
                             " {\"name\": \"d_shape1\", \"type\": \"i64\", \"divisibility\": 0, \"entry\": 0},"
                             " {\"name\": \"d_stride0\", \"type\": \"i64\", \"divisibility\": 0, \"entry\": 0},"
                             " {\"name\": \"d_stride1\", \"type\": \"i64\", \"divisibility\": 0, \"entry\": 0}],"
                             " \"constexprs\": {}, \"autotune\": {\"configs\": 0, \"config\": 0, \"key\": [], \"reset\": [],"
                             " \"restore\": [], \"warmup_ms\": 0, \"rep_ms\": 0, \"pre_zero\": [], \"pre_copy\": []},"
                             " \"lowered_hash\": \"0\", \"tensormaps\": ";
  static const struct {
    const char *maps, *err;
  } cases[] = {
      {"[{\"param\": 0, \"fill\": \"nan\", \"swizzle\": 3, \"box\": [64, 128]}]}", ""},
      {"[]}", ""},
      {"[{\"param\": 1, \"fill\": \"zero\", \"swizzle\": 0, \"box\": [64, 128]}]}",
       "tensor map 0: parameter 1 is not a pointer followed by 4 i64 shapes and strides"},
      {"[{\"param\": 0, \"fill\": \"zero\", \"swizzle\": 0, \"box\": [64, 128, 2]}]}",
       "tensor map 0: parameter 0 is not a pointer followed by 6 i64 shapes and strides"},
      {"[{\"param\": 0, \"fill\": \"one\", \"swizzle\": 0, \"box\": [64]}]}", "a tensor map's fill is \"zero\" or \"nan\", not \"one\""},
      {"[{\"param\": 0, \"fill\": \"zero\", \"swizzle\": 0, \"box\": [512]}]}", "box is 512, expected 1 to 256"},
      {"[{\"param\": 0, \"fill\": \"zero\", \"swizzle\": 0, \"box\": [1, 1, 1, 1, 1, 1]}]}", "a tensor map's box has at most 5 dimensions"},
      {"[{\"param\": 0, \"fill\": \"zero\", \"swizzle\": 4, \"box\": [64]}]}", "swizzle is 4, expected 0 to 3"},
      {"[{\"param\": 0, \"box\": [16]}]}", "a tensor map needs exactly param, fill, swizzle and a box of 1 to 5 dimensions"},
      {"[{\"param\": 0, \"fill\": \"zero\", \"swizzle\": 0, \"box\": []}]}", "a tensor map needs exactly param, fill, swizzle and a box of 1 to 5 dimensions"},
      {"[{\"param\": 0, \"param\": 0, \"fill\": \"zero\", \"swizzle\": 0, \"box\": [8]}]}", "duplicate key 'param'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[2048], err[256] = "";
    snprintf(text, sizeof text, "%s%s", head, cases[i].maps);
    KernelMeta m;
    bool ok = meta_parse(text, &m, err, sizeof err, NULL);
    CHECK(ok == !cases[i].err[0]);
    if (cases[i].err[0]) CHECK_CONTAINS(err, cases[i].err);
    if (ok && i == 0) {
      CHECK(m.nmaps == 1 && m.maps[0].param == 0 && m.maps[0].rank == 2 && m.maps[0].nan && m.maps[0].swizzle == 3);
      CHECK(m.maps[0].box[0] == 64 && m.maps[0].box[1] == 128);
    }
    if (ok) meta_free(&m);
  }
}

static void test_meta_never_crashes(void) {
  size_t n = strlen(meta_json);
  char *text = malloc(n + 1);
  char err[256];
  KernelMeta m;
  /* every proper prefix is incomplete (the last byte is a newline) */
  for (size_t i = 0; i + 1 < n; i++) {
    memcpy(text, meta_json, i);
    text[i] = 0;
    CHECK(!meta_parse(text, &m, err, sizeof err, NULL));
    CHECK(m.name == NULL && m.params == NULL);
  }
  /* one byte replaced by each of a few troublesome ones: fails or reads, never crashes */
  static const char bytes[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '-', '0', 'x', '\x01', (char)0xff};
  int parsed = 0;
  for (size_t i = 0; i < n; i++) {
    for (size_t b = 0; b < sizeof bytes; b++) {
      memcpy(text, meta_json, n + 1);
      text[i] = bytes[b];
      if (meta_parse(text, &m, err, sizeof err, NULL)) {
        parsed++;
        meta_free(&m);
      }
    }
  }
  CHECK(parsed > 0); /* e.g. a digit in a number or a letter in a name */
  CHECK(!meta_parse(NULL, &m, err, sizeof err, NULL));
  free(text);
}

static const RunName names[] = {
    {"n_elements", 98432, NULL}, {"BLOCK_SIZE", 1024, NULL}, {"M", 1000, NULL}, {"neg", -7, NULL},
    {"x_ptr", 0, "a pointer parameter"},
};
enum { NNAMES = sizeof names / sizeof *names };

static void grid_is(const char *expr, unsigned x, unsigned y, unsigned z) {
  unsigned d[3] = {0, 0, 0};
  char err[256] = "";
  size_t pos = 0;
  bool ok = run_grid_eval(expr, names, NNAMES, d, err, sizeof err, &pos);
  if (!ok || d[0] != x || d[1] != y || d[2] != z) {
    fprintf(stderr, "grid '%s': expected %u,%u,%u, got %s %u,%u,%u (%s at %zu)\n", expr, x, y, z,
            ok ? "" : "an error", d[0], d[1], d[2], err, pos);
    unit_failures++;
  }
}

static void grid_fails(const char *expr, size_t want_pos, const char *want) {
  unsigned d[3] = {0, 0, 0};
  char err[256] = "";
  size_t pos = 12345;
  CHECK(!run_grid_eval(expr, names, NNAMES, d, err, sizeof err, &pos));
  CHECK_STR(err, want);
  if (pos != want_pos) {
    fprintf(stderr, "grid '%s': error at %zu, expected %zu\n", expr, pos, want_pos);
    unit_failures++;
  }
}

static void test_grid_values(void) {
  grid_is("8", 8, 1, 1);
  grid_is("cdiv(n_elements, BLOCK_SIZE)", 97, 1, 1);
  grid_is("triton.cdiv(n_elements, BLOCK_SIZE)", 97, 1, 1);
  grid_is("meta[\"BLOCK_SIZE\"] // 256, META['M'] - 999", 4, 1, 1);
  grid_is(" cdiv( M , 64 ) ,\t4 , 2 ", 16, 4, 2);
  grid_is("cdiv(M, 64),", 16, 1, 1); /* Python's one-element tuple */
  grid_is("1, 2, 3,", 1, 2, 3);
  /* Python's integer semantics: // and % round toward -infinity */
  grid_is("neg // 2 + 5, neg % 2, 7 % -2 + 2", 1, 1, 1);
  grid_is("7 // -2 + 5, -7 // -2 - 2", 1, 1, 1);
  grid_is("cdiv(neg, 2) + 4", 1, 1, 1); /* (-7 + 2 - 1) // 2 == -3 */
  grid_is("cdiv(7, -2) + 3", 1, 1, 1); /* (7 - 2 - 1) // -2 == -2: Triton's formula as written */
  grid_is("M / 8, 64 / -8 * -1", 125, 8, 1);
  grid_is("-neg, +3, - - 2", 7, 3, 2);
  grid_is("2 + 3 * 4 - 10 // 3, (2 + 3) * 4", 11, 20, 1);
  grid_is("min(M, 64, n_elements), max(1, neg, 2), min(3, max(1, 2))", 64, 2, 2);
  grid_is("True + True, False + 1", 2, 1, 1);
  grid_is("1_000, 0x10, 0XfF", 1000, 16, 255);
  grid_is("(-9223372036854775807 - 1) % -1 + 1", 1, 1, 1);
  grid_is("2147483647, 65535, 65535", 2147483647u, 65535, 65535);
}

static void test_grid_errors(void) {
  grid_fails("cdiv(n_elements, BLOCK)", 17, "unknown name 'BLOCK'; the names are n_elements, BLOCK_SIZE, M, neg");
  grid_fails("meta['BLOCK']", 6, "unknown name 'BLOCK'; the names are n_elements, BLOCK_SIZE, M, neg");
  grid_fails("x_ptr // 4", 0, "'x_ptr' is a pointer parameter; a grid is computed from integers");
  grid_fails("M / 3", 2, "1000 / 3 is not an integer; use // or cdiv()");
  grid_fails("M // (BLOCK_SIZE - 1024)", 2, "division by zero");
  grid_fails("1 + M % 0", 6, "division by zero");
  grid_fails("cdiv(M, 0)", 0, "cdiv() by zero");
  grid_fails("cdiv(M)", 0, "cdiv() takes 2 arguments, got 1");
  grid_fails("triton.cdiv(1, 2, 3)", 0, "triton.cdiv() takes 2 arguments, got 3");
  grid_fails("min(4)", 0, "min() takes 2 or more arguments, got 1");
  grid_fails("max()", 0, "max() takes 2 or more arguments, got 0");
  grid_fails("ceil(M / 64)", 0, "unknown function 'ceil'; a grid may call cdiv, triton.cdiv, min and max");
  grid_fails("tl.cdiv(M, 64)", 0, "unknown name 'tl'; the names are n_elements, BLOCK_SIZE, M, neg");
  grid_fails("cdiv(M, 64", 10, "expected ',' or ')' in the arguments of cdiv()");
  grid_fails("(M + 1", 6, "expected ')'");
  grid_fails("M + 1)", 5, "unmatched ')'");
  grid_fails("(M, 1)", 0, "a grid is X,Y,Z without parentheses, not a tuple");
  grid_fails("M 1", 2, "expected an operator, ',' or the end of the grid");
  grid_fails("", 0, "the expression ends early: expected a number, a name or '('");
  grid_fails("M +", 3, "the expression ends early: expected a number, a name or '('");
  grid_fails("1,,2", 2, "unexpected ',': expected a number, a name or '('");
  grid_fails("M \x01", 2, "expected an operator, ',' or the end of the grid");
  grid_fails("\xc3\xa9", 0, "unexpected byte 0xc3: expected a number, a name or '('");
  grid_fails("M ** 2", 2, "'**' is not supported in a grid");
  grid_fails("M * 1.5", 4, "'1.5' is not an integer (a grid is computed in integers)");
  grid_fails("1e3", 0, "'1e3' is not an integer (a grid is computed in integers)");
  grid_fails("meta[BLOCK_SIZE]", 5, "expected a quoted name after '['");
  grid_fails("meta['M'", 8, "expected ']'");
  grid_fails("meta['M", 5, "unterminated string");
  /* the range of each dimension */
  grid_fails("M - 1000", 0, "grid dimension x is 0; it must be at least 1");
  grid_fails("1, neg", 3, "grid dimension y is -7; it must be at least 1");
  grid_fails("2147483648", 0, "grid dimension x is 2147483648; the most is 2147483647");
  grid_fails("1, 1, 65536", 6, "grid dimension z is 65536; the most is 65535");
  grid_fails("1, 2, 3, 4", 9, "a grid has at most 3 dimensions");
  /* int64 overflow anywhere is an error, never a wrapped value */
  grid_fails("9223372036854775807 + 1", 20, "9223372036854775807 + 1 overflows");
  grid_fails("-9223372036854775807 - 2", 21, "-9223372036854775807 - 2 overflows");
  grid_fails("4294967296 * 4294967296", 11, "4294967296 * 4294967296 overflows");
  grid_fails("9223372036854775808", 0, "9223372036854775808 is too large");
  grid_fails("-(-9223372036854775807 - 1)", 0, "-(-9223372036854775808) overflows");
  grid_fails("(-9223372036854775807 - 1) // -1", 27, "-9223372036854775808 // -1 overflows");
  grid_fails("cdiv(9223372036854775807, 2)", 0, "cdiv(9223372036854775807, 2) overflows");
}

static void test_grid_deep_nesting(void) {
  /* bounded recursion: a long chain is an error, not a stack overflow */
  enum { N = 100000 };
  char *s = malloc(2 * N + 2);
  memset(s, '(', N);
  s[N] = '1';
  memset(s + N + 1, ')', N);
  s[2 * N + 1] = 0;
  unsigned d[3];
  char err[256];
  size_t pos;
  CHECK(!run_grid_eval(s, names, NNAMES, d, err, sizeof err, &pos));
  CHECK_STR(err, "the expression nests too deeply");
  memset(s, '-', N);
  s[N] = '1';
  s[N + 1] = 0;
  CHECK(!run_grid_eval(s, names, NNAMES, d, err, sizeof err, &pos));
  CHECK_STR(err, "the expression nests too deeply");
  /* a long expression: min() of 100 names is 199 nodes, fine; of 200, 399
   * nodes, more than a grid holds */
  for (int count = 100; count <= 200; count += 100) {
    char *m = malloc(16 * (size_t)count), *w = m;
    w += sprintf(w, "min(");
    for (int i = 0; i < count; i++) w += sprintf(w, "%sn_elements", i ? ", " : "");
    sprintf(w, ")");
    bool ok = run_grid_eval(m, names, NNAMES, d, err, sizeof err, &pos);
    CHECK(ok == (count == 100));
    if (ok) CHECK(d[0] == 98432);
    else CHECK_STR(err, "the grid expression is too long");
    free(m);
  }
  free(s);
  /* 40 levels are fine */
  grid_is("((((((((((((((((((((((((((((((((((((((((3))))))))))))))))))))))))))))))))))))))))", 3, 1, 1);
  /* no names at all */
  CHECK(!run_grid_eval("n", NULL, 0, d, err, sizeof err, &pos));
  CHECK_STR(err, "unknown name 'n'; the kernel has no integer arguments or constexprs");
}

static void test_half_floats(void) {
  CHECK(run_f16_bits(1.0) == 0x3c00);
  CHECK(run_f16_bits(-2.0) == 0xc000);
  CHECK(run_f16_bits(0.1) == 0x2e66);
  CHECK(run_f16_bits(65504.0) == 0x7bff);
  CHECK(run_f16_bits(65519.99) == 0x7bff); /* below the halfway point to 65536 */
  CHECK(run_f16_bits(65520.0) == 0x7c00);  /* the tie rounds to even: infinity */
  CHECK(run_f16_bits(1e10) == 0x7c00);
  CHECK(run_f16_bits(-1.0 / 0.0) == 0xfc00);
  CHECK((run_f16_bits(0.0 / 0.0) & 0x7e00) == 0x7e00);
  CHECK(run_f16_bits(-0.0) == 0x8000);
  CHECK(run_f16_bits(0x1p-24) == 0x0001);        /* the smallest subnormal */
  CHECK(run_f16_bits(0x1p-25) == 0x0000);        /* its half: a tie to even zero */
  CHECK(run_f16_bits(0x1.8p-25) == 0x0001);      /* above the half */
  CHECK(run_f16_bits(0x1.ff8p-15) == 0x03ff);    /* the largest subnormal */
  CHECK(run_f16_bits(0x1.ffcp-15) == 0x0400);    /* a tie: to even, the smallest normal */
  CHECK(run_f16_bits(0x1.ff9p-15) == 0x03ff);
  CHECK(run_f16_bits(1.0 + 0x1p-11) == 0x3c00);  /* a tie: to even */
  CHECK(run_f16_bits(1.0 + 0x1.8p-10) == 0x3c02); /* a tie: to even, upwards */
  CHECK(run_f16_bits(1e-300) == 0x0000);
  CHECK(run_bf16_bits(1.0) == 0x3f80);
  CHECK(run_bf16_bits(3.140625) == 0x4049);
  CHECK(run_bf16_bits(-0.1) == 0xbdcd);
  CHECK(run_bf16_bits(3.4e38) == 0x7f80); /* past bf16's largest finite value, 3.39e38 */
  CHECK(run_bf16_bits(0x1p-133) == 0x0001);
  CHECK(run_bf16_bits(1.0 + 0x1p-8) == 0x3f80);
}

/* Runs f(argc, argv) with standard error in `err`. */
static int with_stderr(int (*f)(int, char **), int argc, char **argv, char *err, size_t n) {
  UnitCapture c;
  if (!unit_capture_begin(&c)) return -1;
  int rc = f(argc, argv);
  unit_capture_end(&c, err, n);
  return rc;
}

/* A JIT launch of examples/autotune.py's axpy_kernel, tuned with the disk
 * cache in dir: the config it took; what TILEC_PRINT_AUTOTUNING printed in err. */
static int jit_axpy(const char *dir, char *err, size_t n) {
  size_t len;
  char *src = cli_read_source(EXAMPLES_DIR "/autotune.py", &len);
  tilec_device *cpu = NULL;
  tilec_kernel *k = NULL;
  tilec_devptr x = 0, y = 0, out = 0;
  int count = 5000, config = -1;
  float alpha = 2.0f;
  void *args[5] = {&x, &y, &out, &alpha, &count};
  tilec_jit_options o = {.signature = "*fp32, *fp32, *fp32, fp32, i32", .grid = "cdiv(n_elements, BLOCK_SIZE)",
                         .config = TILEC_CONFIG_TUNE, .cache_dir = dir};
  char *diag = NULL;
  if (src && tilec_device_create(TILEC_DEVICE_CPU, &cpu, NULL) == TILEC_OK &&
      (tilec_kernel_create(cpu, "autotune.py", src, len, &o, &k, &diag) == TILEC_OK || (fprintf(stderr, "%s\n", diag), 0)) &&
      tilec_device_alloc(cpu, 4 * 5000, &x, NULL) == TILEC_OK && tilec_device_alloc(cpu, 4 * 5000, &y, NULL) == TILEC_OK &&
      tilec_device_alloc(cpu, 4 * 5000, &out, NULL) == TILEC_OK) {
    static float ones[5000];
    for (int i = 0; i < 5000; i++) ones[i] = 1.0f;
    tilec_device_copy_to(cpu, x, ones, sizeof ones, NULL);
    tilec_device_copy_to(cpu, y, ones, sizeof ones, NULL);
    UnitCapture c;
    if (unit_capture_begin(&c)) {
      setenv("TILEC_PRINT_AUTOTUNING", "1", 1);
      char *report = NULL;
      if (tilec_kernel_launch(k, NULL, args, 5, NULL, &report) == TILEC_OK) config = tilec_kernel_config_of(k, args, 5);
      else fprintf(stderr, "the launch failed: %s\n", report ? report : "");
      free(report);
      unsetenv("TILEC_PRINT_AUTOTUNING");
      unit_capture_end(&c, err, n);
    }
  }
  free(diag);
  tilec_kernel_destroy(k);
  tilec_device_destroy(cpu);
  free(src);
  return config;
}

/* The tuning cache is one for the CLI and the JIT: what `tilec bench
 * --tune` chose, a JIT launch of the same kernel, signature and key takes
 * without tuning, and what the JIT chose, `tilec run` takes. */
static void test_tuning_shared_with_the_jit(void) {
  char dir[] = "/tmp/tilec-tuning-XXXXXX", err[8192], want[128];
  CHECK(mkdtemp(dir) != NULL);
  setenv("TILEC_CACHE_DIR", dir, 1);
  char *bench[] = {EXAMPLES_DIR "/autotune.py", "-s", "*fp32:16, *fp32:16, *fp32:16, fp32, i32", "-g",
                   "cdiv(n_elements, meta['BLOCK_SIZE'])", "--device=cpu", "--tune", "--warmup", "0", "--rep", "1",
                   "--json", "rand:fp32:5000", "rand:fp32:5000", "empty:fp32:5000", "2.0", "5000", NULL};
  FILE *saved_out = stdout;
  stdout = tmpfile(); /* the JSON */
  CHECK(stdout && with_stderr(cmd_bench, 17, bench, err, sizeof err) == 0);
  char json[8192] = "";
  if (stdout) {
    rewind(stdout);
    json[fread(json, 1, sizeof json - 1, stdout)] = 0;
    fclose(stdout);
  }
  stdout = saved_out;
  const char *best = strstr(json, "\"best\"");
  const char *c = best ? strstr(best, "\"config\": ") : NULL;
  int chosen = c ? atoi(c + 10) : -1;
  CHECK(chosen >= 0 && chosen <= 2);
  CHECK(jit_axpy(dir, err, sizeof err) == chosen);
  snprintf(want, sizeof want, "tilec: autotuning axpy_kernel: config %d, from the tuning cache\n", chosen);
  CHECK_STR(err, want);

  /* the other way: a fresh cache, the JIT tunes, tilec run takes its choice */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", dir);
  CHECK(system(cmd) == 0);
  int jit = jit_axpy(dir, err, sizeof err);
  CHECK(jit >= 0 && jit <= 2);
  CHECK_CONTAINS(err, "tilec: autotuning axpy_kernel: 3 configs\n");
  char *run[] = {EXAMPLES_DIR "/autotune.py", "-s", "*fp32:16, *fp32:16, *fp32:16, fp32, i32", "-g",
                 "cdiv(n_elements, meta['BLOCK_SIZE'])", "--device=cpu", "rand:fp32:5000", "rand:fp32:5000",
                 "empty:fp32:5000", "2.0", "5000", NULL};
  setenv("TILEC_PRINT_AUTOTUNING", "1", 1);
  CHECK(with_stderr(cmd_run, 11, run, err, sizeof err) == 0);
  unsetenv("TILEC_PRINT_AUTOTUNING");
  snprintf(want, sizeof want, "tilec: autotuning axpy_kernel: config %d, from the tuning cache\n", jit);
  CHECK_STR(err, want);
  unsetenv("TILEC_CACHE_DIR");
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

int unit_main(void) {
  test_meta_tensor_maps();
  test_tuning_shared_with_the_jit();
  test_meta_reads_the_compilers_json();
  test_meta_errors();
  test_meta_never_crashes();
  test_grid_values();
  test_grid_errors();
  test_grid_deep_nesting();
  test_half_floats();
  return 0;
}
