/*
 * common.h — what tilec.h and runtime.h share: the mark of the exported
 * functions.
 *
 * libtilec and libtilec_rt are built with hidden visibility: a function
 * leaves the library only when its declaration here is marked TILEC_API,
 * as Lua marks LUA_API. A test compares libtilec.so's dynamic symbols with
 * the functions these headers declare.
 */
#ifndef TILEC_COMMON_H
#define TILEC_COMMON_H

#if defined(__GNUC__) || defined(__clang__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

#endif
