/*
 * axis_info.h — axis analysis (axis_info.c): what is known of the values
 * of integer and pointer tiles, read by the coalescing pass and codegen.
 */
#ifndef TILEC_AXIS_INFO_H
#define TILEC_AXIS_INFO_H

#include "ir.h"

/* ---- axis info --------------------------------------------- */

typedef struct AxisInfo {
  int rank;
  int64_t contiguity[MAX_RANK];   /* runs of consecutive values (+1 each) along each dim */
  int64_t divisibility[MAX_RANK]; /* the first value of each run divides this (bytes for pointers) */
  int64_t constancy[MAX_RANK];    /* runs of equal values */
} AxisInfo;

typedef struct AxisAnalysis AxisAnalysis;
AxisAnalysis *axis_analyze(Compilation *comp, MlirOperation module);
const AxisInfo *axis_info_of(AxisAnalysis *aa, MlirValue v); /* NULL when unknown */

#endif
