/*
 * meta.h — the kernel's metadata: a strict reader of the one JSON object
 * tilec_result_metadata writes, for `tilec run`, `tilec aot` and the JIT.
 */
#ifndef TILEC_RUNTIME_META_H
#define TILEC_RUNTIME_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One runtime parameter of the kernel, in order. */
typedef struct KernelParam {
  char *name;
  char *type; /* as the signature spells it: "*fp32", "i32", "fp16" */
  int divisibility;
  int entry;  /* its entry in the signature, from 0: a dtype given to a tl.constexpr is an entry too */
  bool no_specialize; /* @triton.jit(do_not_specialize=) names it ("specialize": 0): the JIT gives it no hint */
  bool desc_part;     /* a tensor descriptor's base, shape or stride: an entry it shares with its neighbours */
} KernelParam;

/* A constexpr that is a number or a boolean (as 0 or 1). */
typedef struct KernelConst {
  char *name;
  int64_t value;
} KernelConst;

/* A tensor map the kernel takes after its parameters (a host descriptor
 * whose accesses are TMA copies): built from the parameters param (the
 * base), param + 1 .. param + rank (the shape) and the rank strides after
 * them, the box (outermost first) what each copy moves, swizzled as the
 * buffer it fills, out-of-bounds elements zero or NaN. */
/* The most tensor maps a launch builds (the metadata may list up to 64). */
#define MAX_MAPS 16

typedef struct KernelTensorMap {
  int param;
  int rank;
  int swizzle; /* CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B */
  int64_t box[5];
  bool nan;
} KernelTensorMap;

/* The kernel's metadata; all strings and arrays are owned (meta_free). */
typedef struct KernelMeta {
  char *name;
  char *arch;
  char *lowered_hash; /* names the lowered kernel the GPU and the emulator both start from */
  int num_warps;
  int num_stages;
  int64_t shared_bytes;
  KernelParam *params;
  int nparams;
  KernelConst *consts;
  int nconsts;
  int nconfigs, config; /* @triton.autotune's configs (0 without), and the one taken */
  char **keys;          /* the parameters whose values key the tuning */
  int nkeys;
  char **reset, **restore; /* pointer parameters tuning zeroes before each run, or restores after */
  int nreset, nrestore;
  char **pre_zero; /* pointer parameters the config's pre_hook zeroes before every launch */
  int npre_zero;
  char **pre_copy; /* pairs of them: the buffer it copies into, then the one it copies from */
  int npre_copy;   /* an even count */
  int warmup_ms, rep_ms; /* @triton.autotune's warmup and rep; 0 when not given */
  KernelTensorMap *maps; /* "tensormaps", optional: what the launch appends, in order */
  int nmaps;
} KernelMeta;

/* Reads exactly the JSON object tilec_result_metadata writes: the keys
 * name, arch, num_warps, num_stages, shared_bytes, params (objects of name,
 * type, divisibility, entry), constexprs (names to integers), autotune (configs,
 * config, warmup_ms, rep_ms, and the lists of names key, reset, restore and
 * pre_zero, pre_copy: pairs, an even number of names) and lowered_hash,
 * and optionally tensormaps (objects of param, fill, swizzle and box), each once,
 * in any order, nothing else. On failure *out is empty ({0}) and err says where
 * and what, and *oom (oom may be NULL) whether it was for want of memory.
 * Any input is safe: the reader stops at the NUL. */
bool meta_parse(const char *json, KernelMeta *out, char *err, size_t errlen, bool *oom);
void meta_free(KernelMeta *m);

#endif
