/*
 * launch.c — launching a kernel (tilec.h): the hints of the arguments pick
 * (or compile) the specialization, the config is the one asked for or the
 * one tuning finds, the grid is given or computed from the kernel's grid
 * expression, and the launch goes to the CUDA driver or the emulator, on
 * the CPU device's allocations. tilec_kernel_launchv reads the arguments
 * from the call, each as C passes its parameter's dtype.
 */
#include "jit.h"

#include "emu/tma.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The hints of the arguments: two bits per runtime parameter. */
static uint64_t hints_of(const tilec_kernel *k, void **args) {
  uint64_t key = 0;
  for (int i = 0; i < k->nparams && i < 32; i++) {
    uint64_t h = 0;
    if (k->no_specialize[i]) {
      /* @triton.jit(do_not_specialize=): one specialization for every value */
    } else if (k->kind[i] == P_PTR) {
      tilec_devptr a;
      memcpy(&a, args[i], sizeof a);
      h = !a ? 2 : a % 16 == 0;
    } else if (k->kind[i] == P_INT) {
      int32_t v;
      memcpy(&v, args[i], sizeof v);
      h = v == 1 ? 2 : v % 16 == 0;
    } else if (k->kind[i] == P_INT64) {
      int64_t v;
      memcpy(&v, args[i], sizeof v);
      h = v == 1 ? 2 : v % 16 == 0;
    }
    key |= h << (2 * i);
  }
  return key;
}

/* The grid of a launch from the kernel's grid expression, with the
 * arguments and the specialization's constexprs. Allocates nothing. */
static tilec_status eval_grid(const tilec_kernel *k, const Spec *s, void **args, unsigned dims[3], char **report) {
  if (!k->grid && k->opt.grid_fn) {
    dims[0] = dims[1] = dims[2] = 1;
    if (k->opt.grid_fn(k->opt.grid_user, s->config, args, dims)) {
      jit_tell(report, "%s: the host's grid function failed for config %d", k->name, s->config);
      return TILEC_ERROR_USAGE;
    }
    GridError e;
    if (dims[0] && dims[1] && dims[2] && !grid_check(dims, &e)) {
      jit_tell(report, "%s: the grid (%u, %u, %u) of config %d: %s", k->name, dims[0], dims[1], dims[2], s->config, e.msg);
      return TILEC_ERROR_USAGE;
    }
    return TILEC_OK;
  }
  int64_t values[MAX_GRID_NAMES];
  for (int i = 0; i < k->nparams; i++) {
    values[i] = 0; /* a pointer or a float, which the grid cannot name */
    if (k->kind[i] == P_PTR || k->kind[i] == P_FLOAT || jit_arg_value(k, args, i, &values[i])) continue;
    jit_tell(report, "grid '%s': argument %d (a u64) is past the range of grid arithmetic", k->opt.grid, i);
    return TILEC_ERROR_USAGE;
  }
  for (int i = 0; i < k->nconsts; i++) values[k->nparams + i] = s->consts[i];
  GridError e;
  if (!grid_eval(k->grid, values, dims, &e)) {
    jit_tell(report, "grid '%s': %s (at byte %zu)", k->opt.grid, e.msg, e.pos);
    return TILEC_ERROR_USAGE;
  }
  return TILEC_OK;
}

int jit_tensor_map_type(DType t) {
  switch (t) {
  case DT_I8: case DT_U8: case DT_F8E4M3: case DT_F8E5M2: return EMU_TMA_U8;
  case DT_I16: case DT_U16: return EMU_TMA_U16;
  case DT_U32: return EMU_TMA_U32;
  case DT_I32: return EMU_TMA_I32;
  case DT_U64: return EMU_TMA_U64;
  case DT_I64: return EMU_TMA_I64;
  case DT_F16: return EMU_TMA_F16;
  case DT_BF16: return EMU_TMA_BF16;
  case DT_F32: return EMU_TMA_F32;
  case DT_F64: return EMU_TMA_F64;
  default: return -1;
  }
}

/* The tensor maps of a launch, from the arguments of each one's base,
 * shape and strides (elements, outermost first, as the descriptor gives
 * them): on the GPU (cuda not NULL) the driver's, on the CPU the
 * emulator's own encoding. A tensor TMA cannot copy (a base or a stride
 * not a multiple of 16 bytes, a last dimension not contiguous) is a usage
 * error that names its argument. */
tilec_status jit_tensor_maps(tilec_cuda *cuda, const char *kernel, const KernelTensorMap *maps, const int *types, int nmaps,
                             void **args, unsigned char (*out)[128], char **report) {
  for (int i = 0; i < nmaps; i++) {
    const KernelTensorMap *t = &maps[i];
    int r = t->rank, p = t->param;
    tilec_devptr base;
    memcpy(&base, args[p], sizeof base);
    int64_t shape[5], stride[5];
    for (int d = 0; d < r; d++) {
      memcpy(&shape[d], args[p + 1 + d], sizeof shape[d]);
      memcpy(&stride[d], args[p + 1 + r + d], sizeof stride[d]);
    }
    int64_t eb = emu_tma_elem_bytes((EmuTmaType)types[i]);
    const char *why = NULL;
    char text[160];
    if (stride[r - 1] != 1) why = "its last dimension is not contiguous (a stride of 1)";
    if (base % 16) why = "its base is not 16-byte aligned";
    for (int d = 0; d + 1 < r && !why; d++)
      if (stride[d] > 0 && stride[d] * eb % 16) {
        snprintf(text, sizeof text, "the stride of dimension %d (%lld elements, %lld bytes) is not a multiple of 16 bytes", d,
                 (long long)stride[d], (long long)(stride[d] * eb));
        why = text;
      }
    EmuTensorMap m = {.address = base, .rank = r, .type = (EmuTmaType)types[i], .swizzle = t->swizzle, .oob_nan = t->nan,
                      .l2_promotion = 2};
    for (int d = 0; d < r && !why; d++) {
      if (shape[d] < 1 || stride[d] < 1) why = "a dimension or a stride is not positive";
      m.dims[d] = (uint64_t)shape[r - 1 - d];
      m.strides[d] = (uint64_t)(stride[r - 1 - d] * eb);
      m.box[d] = (uint32_t)t->box[r - 1 - d];
      m.estrides[d] = 1;
    }
    tilec_status st = TILEC_OK;
    char *message = NULL;
    if (why) {
      st = TILEC_ERROR_USAGE;
    } else if (cuda) {
      tilec_rt_status rs = tilec_cuda_tensor_map(cuda, out[i], m.type, r, base, m.dims, m.strides + 1, m.box, m.swizzle, m.oob_nan,
                                                 &message);
      st = rs == TILEC_RT_INVALID || rs == TILEC_RT_CUDA_ERROR ? TILEC_ERROR_USAGE : jit_from_rt(rs);
      why = message;
    } else if (!emu_tma_encode(&m, out[i], &why)) {
      st = TILEC_ERROR_USAGE;
    }
    if (st != TILEC_OK)
      jit_tell(report, "%s: argument %d, a tensor descriptor's base, and its shape and strides: TMA cannot copy this tensor: %s",
               kernel, p, why ? why : "the driver refused it");
    free(message);
    if (st != TILEC_OK) return st;
  }
  return TILEC_OK;
}

tilec_status jit_run_spec(tilec_kernel *k, const Spec *s, const unsigned grid[3], void **all, int nall, void *stream,
                          char **report) {
  unsigned dims[3];
  if (!grid) {
    tilec_status st = eval_grid(k, s, all, dims, report);
    if (st != TILEC_OK) return st;
    if (!dims[0] || !dims[1] || !dims[2]) return TILEC_OK; /* the host's grid is empty: nothing to launch */
    grid = dims;
  }
  /* the config's pre_hook: each buffer it names zeroed, from its pointer
   * to the end of its allocation, as Triton's hook zeroes the tensor */
  for (int i = 0; i < s->nzero; i++) {
    tilec_devptr addr;
    memcpy(&addr, all[s->zero_param[i]], sizeof addr);
    size_t bytes = jit_extent(k->dev, addr);
    if (!bytes) {
      jit_tell(report, "%s: argument %d, which the config's pre_hook zeroes, is not in device memory", k->name,
               s->zero_param[i]);
      return TILEC_ERROR_USAGE;
    }
    tilec_status st;
    if (k->dev->cuda) {
      st = jit_from_rt(tilec_cuda_memset(k->dev->cuda, addr, 0, bytes, report));
    } else {
      void *zeros = calloc(1, bytes);
      st = zeros ? tilec_device_copy_to(k->dev, addr, zeros, bytes, report) : jit_no_memory(report, k->name);
      free(zeros);
    }
    if (st != TILEC_OK) return st;
  }
  /* and its copies: from each pointer to the end of its allocation, the
   * shorter of the two, through the host */
  for (int i = 0; i + 1 < s->ncopy; i += 2) {
    tilec_devptr to, from;
    memcpy(&to, all[s->copy_param[i]], sizeof to);
    memcpy(&from, all[s->copy_param[i + 1]], sizeof from);
    size_t a = jit_extent(k->dev, to), b = jit_extent(k->dev, from), bytes = a < b ? a : b;
    if (!bytes) {
      jit_tell(report, "%s: the config's pre_hook copies between arguments %d and %d; one is not in device memory",
               k->name, s->copy_param[i], s->copy_param[i + 1]);
      return TILEC_ERROR_USAGE;
    }
    void *tmp = malloc(bytes);
    tilec_status st = !tmp ? jit_no_memory(report, k->name) : tilec_device_copy_from(k->dev, tmp, from, bytes, report);
    if (st == TILEC_OK) st = tilec_device_copy_to(k->dev, to, tmp, bytes, report);
    free(tmp);
    if (st != TILEC_OK) return st;
  }
  void *kept[MAX_PARAMS + MAX_MAPS], **args = kept;
  int nargs = 0;
  for (int i = 0; i < nall; i++)
    if (i >= 32 || k->kind[i] != P_PTR || (s->key >> (2 * i) & 3) != 2) kept[nargs++] = all[i];
  /* the tensor maps after the parameters, each 128 bytes, 64-byte aligned */
  _Alignas(64) unsigned char maps[MAX_MAPS][128];
  if (s->nmaps) {
    tilec_status st = jit_tensor_maps(k->dev->cuda, k->name, s->maps, s->map_type, s->nmaps, kept, maps, report);
    if (st != TILEC_OK) return st;
    for (int i = 0; i < s->nmaps; i++) kept[nargs + i] = maps[i];
  }
  if (s->cuda) return jit_from_rt(tilec_cuda_launch(s->cuda, grid, args, stream, report));
  /* the CPU: the device's allocations are the memory the kernel may touch */
  tilec_device *d = k->dev;
  pthread_mutex_lock(&d->lock);
  EmuBuffer *bufs = malloc((size_t)(d->nallocs + 1) * sizeof *bufs);
  for (int i = 0; bufs && i < d->nallocs; i++)
    bufs[i] = (EmuBuffer){d->allocs[i].data, d->allocs[i].bytes, d->allocs[i].borrowed ? "registered host memory" : "an allocation",
                          d->allocs[i].init};
  int nbufs = d->nallocs;
  if (bufs && s->nmaps) bufs[nbufs++] = (EmuBuffer){maps, (size_t)s->nmaps * 128, "the launch's tensor maps", NULL};
  pthread_mutex_unlock(&d->lock);
  if (!bufs) return jit_no_memory(report, k->name);
  EmuLaunch l = {.grid = {grid[0], grid[1], grid[2]}, .num_warps = s->num_warps, .args = args, .nargs = nargs + s->nmaps,
                 .buffers = bufs, .nbuffers = nbufs};
  char *rep = NULL;
  EmuFailure why;
  bool ok = emu_launch(s->emu, &l, &rep, &why);
  free(bufs);
  if (!ok) {
    if (report) *report = rep;
    else free(rep);
    return why == EMU_FAILED_NO_MEMORY ? TILEC_ERROR_NO_MEMORY : why == EMU_FAILED_LAUNCH ? TILEC_ERROR_USAGE
                                                                                          : TILEC_ERROR_CHECK;
  }
  free(rep);
  return TILEC_OK;
}

tilec_status tilec_kernel_launch(tilec_kernel *k, const unsigned grid[3], void **args, int nargs, void *stream,
                                 char **report) {
  if (report) *report = NULL;
  if (!k) {
    jit_tell(report, "tilec_kernel_launch: the kernel is NULL");
    return TILEC_ERROR_USAGE;
  }
  if (nargs != k->nparams) {
    jit_tell(report, "%s takes %d runtime arguments, got %d", k->name ? k->name : "the kernel", k->nparams, nargs);
    return TILEC_ERROR_USAGE;
  }
  if (!jit_array_given(report, "tilec_kernel_launch", "args", "nargs", (const void *const *)args, nargs))
    return TILEC_ERROR_USAGE;
  if (!grid && !k->grid && !k->opt.grid_fn) {
    jit_tell(report, "%s: no grid, and no grid expression in its options", k->name);
    return TILEC_ERROR_USAGE;
  }
  GridError e;
  if (grid && !grid_check(grid, &e)) {
    jit_tell(report, "tilec_kernel_launch: the grid (%u, %u, %u): %s", grid[0], grid[1], grid[2], e.msg);
    return TILEC_ERROR_USAGE;
  }
  /* what the kernel assumes of the parameters no hint specializes: a
   * tensor descriptor's, as Triton's TensorDescriptor asserts them */
  for (int i = 0; i < k->nparams; i++) {
    int d = k->divisibility[i];
    int64_t v = 0;
    if (d <= 0) continue;
    if (k->kind[i] == P_PTR) memcpy(&v, args[i], sizeof v);
    else if (!jit_arg_value(k, args, i, &v)) continue;
    if (d == 1 ? v == 1 : v % d == 0) continue;
    bool desc = is_desc_param(k, i);
    jit_tell(report, "%s: argument %d is %lld; the kernel takes it %s %d%s", k->name, i, (long long)v,
             d == 1 ? "equal to" : k->kind[i] == P_PTR ? "aligned to" : "a multiple of", d,
             desc ? " (a tensor descriptor: a 16-byte aligned base, every stride but the last a multiple of 16 bytes, the "
                    "last 1, as Triton's TensorDescriptor asserts)"
                  : "");
    return TILEC_ERROR_USAGE;
  }
  uint64_t hints = hints_of(k, args);
  int config;
  tilec_status st = jit_config_for(k, hints, grid, args, nargs, stream, &config, report);
  if (st != TILEC_OK) return st;
  Spec *s = jit_spec_for(k, hints, config, report, &st);
  if (!s) return st;
  return jit_run_spec(k, s, grid, args, nargs, stream, report);
}

tilec_status tilec_kernel_launchv(tilec_kernel *k, const unsigned grid[3], void *stream, char **report, ...) {
  if (report) *report = NULL;
  if (!k) {
    jit_tell(report, "tilec_kernel_launchv: the kernel is NULL");
    return TILEC_ERROR_USAGE;
  }
  union {
    tilec_devptr p;
    int32_t i;
    int64_t l;
    float f;
    double d;
    uint16_t h;
  } vals[MAX_PARAMS];
  void *args[MAX_PARAMS];
  va_list ap;
  va_start(ap, report);
  for (int i = 0; i < k->nparams; i++) {
    DType t = k->dtype[i];
    switch (k->kind[i]) {
    case P_PTR: vals[i].p = va_arg(ap, tilec_devptr); break;
    case P_INT: vals[i].i = (int32_t)va_arg(ap, int); break;
    case P_INT64: vals[i].l = va_arg(ap, long long); break;
    case P_OTHER: vals[i].i = (int32_t)va_arg(ap, int); break; /* i1, i8, i16, u8, u16: the low bytes */
    case P_FLOAT:
      /* C promotes a float argument to double; narrower floats have no C type to be promoted from */
      if (t == DT_F64) vals[i].d = va_arg(ap, double);
      else if (t == DT_F32) vals[i].f = (float)va_arg(ap, double);
      else {
        va_end(ap);
        jit_tell(report, "tilec_kernel_launchv cannot pass a %s argument; use tilec_kernel_launch", dtype_short(t));
        return TILEC_ERROR_USAGE;
      }
    }
    args[i] = &vals[i];
  }
  va_end(ap);
  return tilec_kernel_launch(k, grid, args, k->nparams, stream, report);
}

tilec_status tilec_kernel_launch_packed(tilec_kernel *k, const unsigned grid[3], const void *args, size_t size,
                                        void *stream, char **report) {
  if (report) *report = NULL;
  if (!k || !args) {
    jit_tell(report, "tilec_kernel_launch_packed: the %s is NULL", !k ? "kernel" : "argument block");
    return TILEC_ERROR_USAGE;
  }
  /* each argument at the next offset that is a multiple of its size, as a
   * C struct of them lays them out (and Python's struct module in native
   * mode packs them) */
  void *argv[MAX_PARAMS];
  size_t end = 0;
  for (int i = 0; i < k->nparams; i++) {
    size_t n = k->kind[i] == P_PTR ? sizeof(tilec_devptr) : (size_t)dtype_bytes(k->dtype[i]);
    end = (end + n - 1) / n * n;
    argv[i] = (char *)args + end;
    end += n;
  }
  size_t padded = (end + 7) / 8 * 8;
  if (size < end || size > padded) {
    jit_tell(report, "%s: an argument block of %zu bytes; its %d runtime arguments take %zu", k->name, size,
             k->nparams, end);
    return TILEC_ERROR_USAGE;
  }
  return tilec_kernel_launch(k, grid, argv, k->nparams, stream, report);
}
