/*
 * device.c — devices (tilec.h): the CUDA device through runtime.h, or the
 * CPU, whose device memory is host memory the emulator checks every access
 * against, with a map of the bytes written; and the helpers every file of
 * the JIT uses to say why a call failed.
 */
#include "jit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *jit_dup_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

void jit_tell(char **out, const char *fmt, ...) {
  if (!out) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *out = jit_dup_text(buf);
}

tilec_status jit_no_memory(char **message, const char *what) {
  jit_tell(message, "%s: out of memory", what);
  return TILEC_ERROR_NO_MEMORY;
}

bool jit_array_given(char **message, const char *fn, const char *name, const char *count, const void *const *v,
                     int n) {
  int bad = n < 0 || (n && !v) ? -1 : n; /* the entry that is NULL; -1: the array */
  for (int i = 0; bad == n && i < n; i++)
    if (!v[i]) bad = i;
  if (n >= 0 && bad == n) return true;
  if (n < 0) jit_tell(message, "%s: %s is %d", fn, count, n);
  else if (bad < 0) jit_tell(message, "%s: %s is NULL, but %s is %d", fn, name, count, n);
  else jit_tell(message, "%s: %s[%d] is NULL", fn, name, bad);
  return false;
}

tilec_status jit_from_rt(tilec_rt_status st) {
  switch (st) {
  case TILEC_RT_OK: return TILEC_OK;
  case TILEC_RT_NO_DRIVER:
  case TILEC_RT_NO_DEVICE: return TILEC_ERROR_NO_DEVICE;
  case TILEC_RT_INVALID: return TILEC_ERROR_USAGE;
  case TILEC_RT_NO_MEMORY: return TILEC_ERROR_NO_MEMORY;
  case TILEC_RT_CUDA_ERROR:
  case TILEC_RT_LOAD_ERROR: break;
  }
  return TILEC_ERROR_DEVICE;
}

tilec_status tilec_device_create(tilec_device_kind kind, tilec_device **out, char **message) {
  if (message) *message = NULL;
  if (!out) {
    jit_tell(message, "tilec_device_create: out is NULL");
    return TILEC_ERROR_USAGE;
  }
  *out = NULL;
  if (kind != TILEC_DEVICE_AUTO && kind != TILEC_DEVICE_CPU && kind != TILEC_DEVICE_CUDA) {
    jit_tell(message, "tilec_device_create: kind %d is not a device kind (TILEC_DEVICE_AUTO, _CPU or _CUDA)", (int)kind);
    return TILEC_ERROR_USAGE;
  }
  bool from_env = false;
  if (kind == TILEC_DEVICE_AUTO) {
    const char *env = getenv("TILEC_DEVICE");
    if (env && *env) {
      if (!strcmp(env, "cpu")) kind = TILEC_DEVICE_CPU, from_env = true;
      else if (!strcmp(env, "cuda")) kind = TILEC_DEVICE_CUDA, from_env = true;
      else if (strcmp(env, "auto")) {
        jit_tell(message, "TILEC_DEVICE must be cpu, cuda or auto, not '%s'", env);
        return TILEC_ERROR_USAGE;
      }
    }
  }
  tilec_device *d = calloc(1, sizeof *d);
  if (!d) return jit_no_memory(message, "tilec_device_create");
  pthread_mutex_init(&d->lock, NULL);
  if (kind == TILEC_DEVICE_CUDA || kind == TILEC_DEVICE_AUTO) {
    char *err = NULL, old[160] = "";
    tilec_rt_status st = tilec_cuda_open(0, &d->cuda, &err);
    if (st == TILEC_RT_OK && !tilec_cuda_target(d->cuda)) {
      int a = tilec_cuda_arch(d->cuda);
      snprintf(old, sizeof old, "device 0 has compute capability %d.%d; tilec compiles for 8.0 (sm_80) and newer", a / 10,
               a % 10);
      tilec_cuda_close(d->cuda);
      d->cuda = NULL;
      st = TILEC_RT_NO_DEVICE;
    }
    if (st == TILEC_RT_OK) {
      d->kind = TILEC_DEVICE_CUDA;
    } else if (kind == TILEC_DEVICE_CUDA) {
      jit_tell(message, "no CUDA device%s: %s", from_env ? " (TILEC_DEVICE=cuda)" : "",
               err ? err : st == TILEC_RT_NO_DEVICE ? old : "out of memory");
      free(err);
      pthread_mutex_destroy(&d->lock);
      free(d);
      return st == TILEC_RT_NO_MEMORY ? TILEC_ERROR_NO_MEMORY : TILEC_ERROR_NO_DEVICE;
    }
    free(err);
  }
  if (!d->cuda) d->kind = TILEC_DEVICE_CPU;
  *out = d;
  return TILEC_OK;
}

static void free_identity(JitIdentity *id) {
  if (!id) return;
  free((char *)id->build), free((char *)id->llvm), free((char *)id->host), free((char *)id->toolkit);
  free(id);
}

void tilec_device_destroy(tilec_device *d) {
  if (!d) return;
  free_identity(d->identity);
  for (int i = 0; i < d->nallocs; i++) {
    if (!d->allocs[i].borrowed) free(d->allocs[i].data);
    free(d->allocs[i].init);
  }
  free(d->allocs);
  tilec_cuda_close(d->cuda);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

bool jit_device_set_identity(tilec_device *d, const JitIdentity *id) {
  if (!d) return false;
  JitIdentity *copy = NULL;
  if (id) {
    copy = calloc(1, sizeof *copy);
    if (!copy) return false;
    *copy = (JitIdentity){jit_dup_text(id->build), jit_dup_text(id->llvm), jit_dup_text(id->host), jit_dup_text(id->toolkit)};
    if (!copy->build || !copy->llvm || !copy->host || !copy->toolkit) {
      free_identity(copy);
      return false;
    }
  }
  free_identity(d->identity);
  d->identity = copy;
  return true;
}

tilec_device_kind tilec_device_kind_of(const tilec_device *d) { return d ? d->kind : TILEC_DEVICE_AUTO; }

/* Appends a to the device's allocations, under its lock; false when out of memory. */
static bool add_alloc(tilec_device *d, Alloc a) {
  if (d->nallocs == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    Alloc *grown = realloc(d->allocs, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    d->allocs = grown, d->cap = cap;
  }
  d->allocs[d->nallocs++] = a;
  return true;
}

tilec_status tilec_device_alloc(tilec_device *d, size_t bytes, tilec_devptr *address, char **message) {
  if (message) *message = NULL;
  if (!d || !address) {
    jit_tell(message, "tilec_device_alloc: %s is NULL", d ? "address" : "the device");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda) return jit_from_rt(tilec_cuda_alloc(d->cuda, bytes, address, message));
  /* rounded up with room past the end, which the emulator's checks still see as outside */
  void *p = bytes < SIZE_MAX - 512 ? aligned_alloc(256, (bytes + 255) / 256 * 256 + 256) : NULL;
  unsigned char *init = p ? calloc(bytes / 8 + 1, 1) : NULL;
  if (!init) {
    free(p);
    jit_tell(message, "tilec_device_alloc: out of memory for %zu bytes", bytes);
    return TILEC_ERROR_NO_MEMORY;
  }
  pthread_mutex_lock(&d->lock);
  bool added = add_alloc(d, (Alloc){p, bytes, init, false});
  pthread_mutex_unlock(&d->lock);
  if (!added) {
    free(p), free(init);
    return jit_no_memory(message, "tilec_device_alloc");
  }
  *address = (uintptr_t)p;
  return TILEC_OK;
}

tilec_status tilec_device_register_host(tilec_device *d, void *host, size_t bytes, char **message) {
  if (message) *message = NULL;
  if (!d || !host) {
    jit_tell(message, "tilec_device_register_host: %s is NULL", d ? "host" : "the device");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda) {
    jit_tell(message, "tilec_device_register_host: the CUDA device's kernels take device memory, not host memory");
    return TILEC_ERROR_USAGE;
  }
  if ((uintptr_t)host > UINTPTR_MAX - bytes) {
    jit_tell(message, "tilec_device_register_host: [%p, +%zu bytes) wraps around the address space", host, bytes);
    return TILEC_ERROR_USAGE;
  }
  pthread_mutex_lock(&d->lock);
  uintptr_t b = (uintptr_t)host;
  int clash = -1;
  for (int i = 0; clash < 0 && i < d->nallocs; i++) {
    uintptr_t a = (uintptr_t)d->allocs[i].data;
    if (b < a + d->allocs[i].bytes + (d->allocs[i].bytes == 0) && a < b + bytes + (bytes == 0)) clash = i;
  }
  /* no map of the bytes written: the caller's values are all there (EmuBuffer.init NULL) */
  bool added = clash < 0 && add_alloc(d, (Alloc){host, bytes, NULL, true});
  pthread_mutex_unlock(&d->lock);
  if (added) return TILEC_OK;
  if (clash < 0) return jit_no_memory(message, "tilec_device_register_host");
  jit_tell(message, "tilec_device_register_host: [%p, +%zu bytes) overlaps memory the device has already", host, bytes);
  return TILEC_ERROR_USAGE;
}

tilec_status tilec_device_unregister_host(tilec_device *d, void *host, char **message) {
  if (message) *message = NULL;
  if (!d) {
    jit_tell(message, "tilec_device_unregister_host: the device is NULL");
    return TILEC_ERROR_USAGE;
  }
  pthread_mutex_lock(&d->lock);
  int i = d->cuda ? -1 : jit_find_alloc(d, (uintptr_t)host, 0);
  bool ok = i >= 0 && d->allocs[i].data == host && d->allocs[i].borrowed;
  if (ok) d->allocs[i] = d->allocs[--d->nallocs];
  pthread_mutex_unlock(&d->lock);
  if (!ok) jit_tell(message, "tilec_device_unregister_host: %p is not host memory registered with the device", host);
  return ok ? TILEC_OK : TILEC_ERROR_USAGE;
}

int jit_find_alloc(tilec_device *d, tilec_devptr address, size_t bytes) {
  for (int i = 0; i < d->nallocs; i++) {
    /* by the offset into the allocation, so that no sum wraps: a size
     * near SIZE_MAX or an address near the top is outside every one */
    uintptr_t b = (uintptr_t)d->allocs[i].data;
    size_t len = d->allocs[i].bytes;
    if (address >= b && address - b <= len && bytes <= len - (address - b)) return i;
  }
  return -1;
}

tilec_status tilec_device_free(tilec_device *d, tilec_devptr address, char **message) {
  if (message) *message = NULL;
  if (!d) {
    jit_tell(message, "tilec_device_free: the device is NULL");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda) return jit_from_rt(tilec_cuda_free(d->cuda, address, message));
  pthread_mutex_lock(&d->lock);
  int i = jit_find_alloc(d, address, 0);
  bool ok = i >= 0 && (uintptr_t)d->allocs[i].data == address && !d->allocs[i].borrowed;
  if (ok) {
    free(d->allocs[i].data), free(d->allocs[i].init);
    d->allocs[i] = d->allocs[--d->nallocs];
  }
  pthread_mutex_unlock(&d->lock);
  if (!ok) jit_tell(message, "tilec_device_free: 0x%llx is not an allocation of the device", address);
  return ok ? TILEC_OK : TILEC_ERROR_USAGE;
}

/* Sets the bits of bytes [off, off + n) in an allocation's map: they hold values now. */
static void mark_written(unsigned char *init, size_t off, size_t n) {
  size_t end = off + n;
  for (; off < end && off & 7; off++) __atomic_fetch_or(&init[off >> 3], (unsigned char)(1u << (off & 7)), __ATOMIC_RELAXED);
  if (end - off >= 8) memset(init + (off >> 3), 0xff, (end - off) >> 3), off += (end - off) & ~(size_t)7;
  for (; off < end; off++) __atomic_fetch_or(&init[off >> 3], (unsigned char)(1u << (off & 7)), __ATOMIC_RELAXED);
}

static tilec_status copy(tilec_device *d, tilec_devptr dev, void *host, size_t bytes, bool to_device, char **message) {
  const char *fn = to_device ? "tilec_device_copy_to" : "tilec_device_copy_from";
  if (message) *message = NULL;
  if (!d || (!host && bytes)) {
    jit_tell(message, "%s: %s is NULL", fn, !d ? "the device" : to_device ? "src" : "dst");
    return TILEC_ERROR_USAGE;
  }
  if (d->cuda)
    return jit_from_rt(to_device ? tilec_cuda_copy_to(d->cuda, dev, host, bytes, message)
                             : tilec_cuda_copy_from(d->cuda, host, dev, bytes, message));
  pthread_mutex_lock(&d->lock);
  int i = jit_find_alloc(d, dev, bytes);
  bool ok = i >= 0;
  if (ok && to_device && d->allocs[i].init) mark_written(d->allocs[i].init, dev - (uintptr_t)d->allocs[i].data, bytes);
  pthread_mutex_unlock(&d->lock);
  if (!ok) {
    jit_tell(message, "%s: [0x%llx, +%zu bytes) is not within an allocation of the device", fn, dev, bytes);
    return TILEC_ERROR_USAGE;
  }
  if (bytes) memcpy(to_device ? (void *)(uintptr_t)dev : host, to_device ? host : (void *)(uintptr_t)dev, bytes);
  return TILEC_OK;
}

tilec_status tilec_device_copy_to(tilec_device *d, tilec_devptr dst, const void *src, size_t bytes, char **message) {
  return copy(d, dst, (void *)(uintptr_t)src, bytes, true, message);
}

tilec_status tilec_device_copy_from(tilec_device *d, void *dst, tilec_devptr src, size_t bytes, char **message) {
  return copy(d, src, dst, bytes, false, message);
}
