/*
 * cse.c — common subexpression elimination of pure ops.
 *
 * Requires: nothing. Guarantees: of two pure ops without regions that have
 * the same name, operands, attributes and result types, where the first
 * dominates the second, only the first remains. Scopes follow the region
 * tree: an op is available in its block after it and in the regions nested
 * there. Of two equal loads in one block with no op between them that may
 * write memory (an impure op, or one with regions), not volatile, only the
 * first remains too.
 *
 * Value numbering with a scoped hash table, as LLVM's EarlyCSE does: names,
 * values, types and attributes are uniqued by the MLIR context, so an op's
 * key is its pointers, hashed and compared without printing anything. The
 * ops available form a stack; leaving a block pops what the block pushed.
 * One walk in program order, each op hashed once: linear in the ops.
 */
#include "passes.h"

#include <mlir-c/BuiltinAttributes.h>

typedef struct Entry {
  MlirOperation op;
  uint64_t hash;
  int next; /* the entry below in the same bucket, or -1 */
} Entry;

typedef struct Table {
  Arena *a;
  Entry *e;       /* the stack of available ops */
  int n, cap;
  int *bucket;    /* the top entry of each bucket, or -1 */
  int nbuckets;   /* a power of 2, at least twice n */
} Table;

static uint64_t mix(uint64_t h, const void *p) {
  h ^= (uint64_t)(uintptr_t)p;
  h *= 0x100000001b3ull;
  return h ^ (h >> 29);
}

static uint64_t op_hash(MlirOperation op) {
  uint64_t h = mix(0xcbf29ce484222325ull, mlirOperationGetName(op).ptr);
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < n; i++) h = mix(h, mlirOperationGetOperand(op, i).ptr);
  intptr_t r = mlirOperationGetNumResults(op);
  for (intptr_t i = 0; i < r; i++) h = mix(h, mlirValueGetType(mlirOperationGetResult(op, i)).ptr);
  intptr_t na = mlirOperationGetNumAttributes(op);
  for (intptr_t i = 0; i < na; i++) {
    MlirNamedAttribute x = mlirOperationGetAttribute(op, i);
    h = mix(mix(h, x.name.ptr), x.attribute.ptr);
  }
  return h;
}

static bool same_op(MlirOperation a, MlirOperation b) {
  if (!mlirIdentifierEqual(mlirOperationGetName(a), mlirOperationGetName(b))) return false;
  intptr_t n = mlirOperationGetNumOperands(a);
  if (n != mlirOperationGetNumOperands(b)) return false;
  for (intptr_t i = 0; i < n; i++)
    if (!mlirValueEqual(mlirOperationGetOperand(a, i), mlirOperationGetOperand(b, i))) return false;
  intptr_t r = mlirOperationGetNumResults(a);
  if (r != mlirOperationGetNumResults(b)) return false;
  for (intptr_t i = 0; i < r; i++)
    if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(a, i)), mlirValueGetType(mlirOperationGetResult(b, i))))
      return false;
  intptr_t na = mlirOperationGetNumAttributes(a);
  if (na != mlirOperationGetNumAttributes(b)) return false;
  for (intptr_t i = 0; i < na; i++) {
    MlirNamedAttribute x = mlirOperationGetAttribute(a, i), y = mlirOperationGetAttribute(b, i);
    if (!mlirIdentifierEqual(x.name, y.name) || !mlirAttributeEqual(x.attribute, y.attribute)) return false;
  }
  return true;
}

static MlirOperation table_find(Table *t, MlirOperation op, uint64_t h) {
  for (int i = t->bucket[h & (uint64_t)(t->nbuckets - 1)]; i >= 0; i = t->e[i].next)
    if (t->e[i].hash == h && same_op(t->e[i].op, op)) return t->e[i].op;
  return (MlirOperation){NULL};
}

/* Entries go on top of their bucket's chain, so popping the stack in order
 * restores every chain; a rehash pushes the stack again from the bottom. */
static void link(Table *t, int i) {
  int *b = &t->bucket[t->e[i].hash & (uint64_t)(t->nbuckets - 1)];
  t->e[i].next = *b;
  *b = i;
}

static void table_rehash(Table *t, int nbuckets) {
  t->nbuckets = nbuckets;
  t->bucket = arena_alloc(t->a, sizeof *t->bucket * (size_t)t->nbuckets);
  for (int i = 0; i < t->nbuckets; i++) t->bucket[i] = -1;
  for (int i = 0; i < t->n; i++) link(t, i);
}

static void table_push(Table *t, MlirOperation op, uint64_t h) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    Entry *e = arena_alloc(t->a, sizeof *e * (size_t)t->cap);
    for (int i = 0; i < t->n; i++) e[i] = t->e[i];
    t->e = e;
  }
  t->e[t->n++] = (Entry){op, h, -1};
  if (2 * t->n <= t->nbuckets) {
    link(t, t->n - 1);
    return;
  }
  table_rehash(t, 2 * t->nbuckets);
}

static void table_pop_to(Table *t, int n) {
  while (t->n > n) {
    Entry *e = &t->e[--t->n];
    t->bucket[e->hash & (uint64_t)(t->nbuckets - 1)] = e->next;
  }
}

static void cse_block(Table *t, MlirBlock b);

static void cse_regions(Table *t, MlirOperation op) {
  intptr_t nr = mlirOperationGetNumRegions(op);
  for (intptr_t i = 0; i < nr; i++) {
    MlirRegion r = mlirOperationGetRegion(op, i);
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      cse_block(t, b);
  }
}

/* Replaces op by prev, an equal op before it. */
static void merge(MlirOperation op, MlirOperation prev) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); r++)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, r), mlirOperationGetResult(prev, r));
  op_erase(op);
}

static void cse_block(Table *t, MlirBlock b) {
  int mark = t->n;
  /* the loads of this block since the last op that may write memory: a
   * load equal to one of them reads what it read */
  enum { LOADS = 32 };
  MlirOperation loads[LOADS];
  int nloads = 0;
  MlirOperation next;
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op); op = next) {
    next = mlirOperationGetNextInBlock(op);
    if (mlirOperationGetNumRegions(op) > 0) {
      cse_regions(t, op);
      nloads = 0;
      continue;
    }
    if (op_is_plain_load(op)) { /* merged with an equal one before it in its block */
      int i = 0;
      while (i < nloads && !same_op(loads[i], op)) i++;
      if (i < nloads) merge(op, loads[i]);
      else if (nloads < LOADS) loads[nloads++] = op;
      continue;
    }
    if (!op_is_pure(op)) nloads = 0;
    if (!op_is_pure(op) || mlirOperationGetNumResults(op) == 0) continue;
    uint64_t h = op_hash(op);
    MlirOperation prev = table_find(t, op, h);
    if (mlirOperationIsNull(prev)) {
      table_push(t, op, h);
      continue;
    }
    merge(op, prev);
  }
  table_pop_to(t, mark);
}

bool pass_cse(Compilation *comp, MlirOperation module) {
  Table t = {.a = comp->a};
  table_rehash(&t, 16);
  cse_regions(&t, module);
  return true;
}
