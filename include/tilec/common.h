/*
 * common.h — what tilec.h and runtime.h share: the mark of the exported
 * functions, the type of a device address, and how a call says why it
 * failed.
 *
 * libtilec and libtilec_rt are built with hidden visibility: a function
 * leaves the library only when its declaration here is marked TILEC_API,
 * as Lua marks LUA_API. A test compares libtilec.so's dynamic symbols with
 * the functions these headers declare.
 *
 * Messages: a function that returns a status takes `char **message` as its
 * last parameter (tilec_kernel_launchv's last before the arguments), which
 * may be NULL. On failure *message is a malloc'd, NUL-terminated text
 * saying why (a line, or the compiler's diagnostics), which the caller
 * frees with free(); on success it is NULL. It may be NULL on failure too
 * when even the message could not be allocated (the status then says
 * TILEC_ERROR_NO_MEMORY or TILEC_RT_NO_MEMORY). tilec_compile and
 * tilec_opt instead return a result that holds the diagnostics, because a
 * compilation that succeeds has diagnostics too (warnings), and
 * tilec_context_create, which fails only for a NULL out or memory, has
 * nothing to say. A caller's buffer would cut diagnostics, an emulator
 * report or a driver's JIT log short: no call takes one.
 */
#ifndef TILEC_COMMON_H
#define TILEC_COMMON_H

#if defined(__GNUC__) || defined(__clang__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

/* A device address: what CUDA's cuMemAlloc gives (CUdeviceptr is unsigned
 * long long on every 64-bit host), or on the CPU device the host address of
 * the emulator's memory. Pointer arguments of a launch are passed as
 * values of this type. */
typedef unsigned long long tilec_devptr;

#endif
