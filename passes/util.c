/*
 * util.c — the list of passes, by name.
 */
#include "passes.h"

#include <string.h>

const Pass pass_list[] = {
    {"canonicalize", pass_canonicalize, "upstream canonicalization and tile folds"},
    {"cse", pass_cse, "common subexpression elimination of pure ops"},
    {"dce", pass_dce, "removal of unused pure ops"},
    {"licm", pass_licm, "hoisting of loop-invariant pure ops"},
    {"axis-info", pass_axis_info, "annotates tensors with contiguity, divisibility, constancy"},
    {"convert-to-gpu", pass_convert_to_gpu, "gives every tensor a layout (Triton's default blocked)"},
    {"coalesce", pass_coalesce, "vectorized, coalesced layouts for memory ops"},
    {"remove-layout-conversions", pass_remove_layout_conversions, "folds and rematerializes convert_layout"},
    {NULL, NULL, NULL},
};

const Pass *pass_find(const char *name) {
  for (const Pass *p = pass_list; p->name; p++)
    if (!strcmp(p->name, name)) return p;
  return NULL;
}
