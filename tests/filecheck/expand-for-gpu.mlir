// Two cases are errors, so tilec exits 1: ERR checks what it says.
// RUN: { %tilec opt %s --pass=expand-for-gpu --split-input-file 2>/dev/null || true; } | FileCheck %s
// RUN: { %tilec opt %s --pass=expand-for-gpu --split-input-file --arch=sm_90a 2>/dev/null || true; } | FileCheck %s --check-prefix=SM90
// RUN: { %tilec opt %s --pass=expand-for-gpu --split-input-file 2>&1 >/dev/null || true; } | FileCheck %s --check-prefix=ERR

// Predicated accesses become PTX under a predicate: a load keeps `other`
// where the predicate is false, and has no side effects (equal loads may
// merge); a store has. The declarations go with the calls.
// CHECK-LABEL: llvm.func @access
// CHECK-NOT: llvm.call @tilec.
// CHECK: llvm.inline_asm "{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b32 $0, $3; @p ld.global.b32 $0, [$1]; }", "=r,l,r,r"
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p st.global.v4.b32 [$0], {$2, $3, $4, $5}; }", "l,r,r,r,r,r"
// CHECK-NOT: @tilec.
module {
  llvm.func @tilec.ld.b32(!llvm.ptr<1>, i1, i32) -> i32
  llvm.func @tilec.st.v4.b32(!llvm.ptr<1>, i1, i32, i32, i32, i32)
  llvm.func @access(%p: !llvm.ptr<1>, %c: i1, %v: i32) attributes {nvvm.kernel} {
    %x = llvm.call @tilec.ld.b32(%p, %c, %v) : (!llvm.ptr<1>, i1, i32) -> i32
    llvm.call @tilec.st.v4.b32(%p, %c, %x, %x, %x, %x) : (!llvm.ptr<1>, i1, i32, i32, i32, i32) -> ()
    llvm.return
  }
}

// -----

// Programmatic dependent launch is griddepcontrol on sm_90 and later, and
// nothing before.
// CHECK-LABEL: llvm.func @gdc
// CHECK-NOT: griddepcontrol
// CHECK: llvm.return
// SM90-LABEL: llvm.func @gdc
// SM90: llvm.inline_asm has_side_effects "griddepcontrol.wait;"
module {
  llvm.func @tilec.gdc.wait()
  llvm.func @gdc() attributes {nvvm.kernel} {
    llvm.call @tilec.gdc.wait() : () -> ()
    llvm.return
  }
}

// -----

// mma.sync: D's registers out, then A's, B's and C's in, all 32-bit.
// CHECK-LABEL: llvm.func @mma
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r" {{.*}} -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$0, $1}, {$2, $3, $4, $5}, {$6, $7}, {$8, $9};", "=r,=r,r,r,r,r,r,r,r,r" {{.*}} -> !llvm.struct<(i32, i32)>
module {
  llvm.func @tilec.mma.m16n8k16.row.col.f32.f16.f16.f32(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @tilec.mma.m16n8k16.row.col.f16.f16.f16.f16(i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32)>
  llvm.func @mma(%a: i32) -> i32 attributes {nvvm.kernel} {
    %d = llvm.call @tilec.mma.m16n8k16.row.col.f32.f16.f16.f32(%a, %a, %a, %a, %a, %a, %a, %a, %a, %a) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
    %h = llvm.call @tilec.mma.m16n8k16.row.col.f16.f16.f16.f16(%a, %a, %a, %a, %a, %a, %a, %a) : (i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32)>
    %x = llvm.extractvalue %d[0] : !llvm.struct<(i32, i32, i32, i32)>
    %y = llvm.extractvalue %h[1] : !llvm.struct<(i32, i32)>
    %z = llvm.add %x, %y : i32
    llvm.return %z : i32
  }
}

// -----

// ldmatrix: the registers out, the row's shared address in (32 bits: short shared pointers); kept
// where it is (a read of shared memory must stay between its barriers).
// CHECK-LABEL: llvm.func @ldmatrix
// CHECK: llvm.inline_asm has_side_effects "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r" {{.*}} -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.inline_asm has_side_effects "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {$0, $1}, [$2];", "=r,=r,r" {{.*}} -> !llvm.struct<(i32, i32)>
module {
  llvm.func @tilec.ldmatrix.x4.trans.b16(!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @tilec.ldmatrix.x2.b16(!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  llvm.func @ldmatrix(%p: !llvm.ptr<3>) -> i32 attributes {nvvm.kernel} {
    %d = llvm.call @tilec.ldmatrix.x4.trans.b16(%p) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    %h = llvm.call @tilec.ldmatrix.x2.b16(%p) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
    %x = llvm.extractvalue %d[0] : !llvm.struct<(i32, i32, i32, i32)>
    %y = llvm.extractvalue %h[1] : !llvm.struct<(i32, i32)>
    %z = llvm.add %x, %y : i32
    llvm.return %z : i32
  }
}

// -----

// cp.async: 16 bytes by .cg, 8 and 4 by .ca, the source size 0 where the
// predicate is off (zero fill), the shared address a 32-bit register;
// commit_group and wait_group.
// CHECK-LABEL: llvm.func @copies
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; .reg .b32 n; setp.ne.b32 p, $2, 0; selp.b32 n, 16, 0, p; cp.async.cg.shared.global [$0], [$1], 16, n; }", "r,l,r"
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; .reg .b32 n; setp.ne.b32 p, $2, 0; selp.b32 n, 4, 0, p; cp.async.ca.shared.global [$0], [$1], 4, n; }", "r,l,r"
// CHECK: llvm.inline_asm has_side_effects "cp.async.commit_group;"
// CHECK: llvm.inline_asm has_side_effects "cp.async.wait_group 2;"
module {
  llvm.func @tilec.cp.async.16(!llvm.ptr<3>, !llvm.ptr<1>, i1)
  llvm.func @tilec.cp.async.4(!llvm.ptr<3>, !llvm.ptr<1>, i1)
  llvm.func @tilec.cp.async.commit()
  llvm.func @tilec.cp.async.wait.2()
  llvm.func @copies(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    llvm.call @tilec.cp.async.16(%d, %s, %c) : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> ()
    llvm.call @tilec.cp.async.4(%d, %s, %c) : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> ()
    llvm.call @tilec.cp.async.commit() : () -> ()
    llvm.call @tilec.cp.async.wait.2() : () -> ()
    llvm.return
  }
}

// -----

// ERR: expand-for-gpu.mlir:[[# @LINE + 4]]:5: error: expand-for-gpu: 'tilec.cp.async.32' is not a call the lowering makes
module {
  llvm.func @tilec.cp.async.32(!llvm.ptr<3>, !llvm.ptr<1>, i1)
  llvm.func @copy_odd(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    llvm.call @tilec.cp.async.32(%d, %s, %c) : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> ()
    llvm.return
  }
}

// -----

// ERR: expand-for-gpu.mlir:[[# @LINE + 4]]:10: error: expand-for-gpu: 'tilec.ldmatrix.x3.b16' is not a call the lowering makes
module {
  llvm.func @tilec.ldmatrix.x3.b16(!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32)>
  llvm.func @ldmatrix_odd(%p: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %d = llvm.call @tilec.ldmatrix.x3.b16(%p) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32)>
    llvm.return
  }
}

// -----

// ERR: expand-for-gpu.mlir:[[# @LINE + 4]]:10: error: expand-for-gpu: 'tilec.mma.m16n8k4.row.col.f32.f16.f16.f32' is not a call the lowering makes
module {
  llvm.func @tilec.mma.m16n8k4.row.col.f32.f16.f16.f32(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @mma_odd(%a: i32) attributes {nvvm.kernel} {
    %d = llvm.call @tilec.mma.m16n8k4.row.col.f32.f16.f16.f32(%a, %a, %a, %a, %a, %a, %a, %a, %a, %a) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
    llvm.return
  }
}

// -----

// Calls of another shape than the lowering's are errors where they are.
// ERR: expand-for-gpu.mlir:[[# @LINE + 4]]:10: error: expand-for-gpu: 'tilec.ld.b32' has other operands or results than the lowering gives it
module {
  llvm.func @tilec.ld.b32(!llvm.ptr<1>) -> i32
  llvm.func @short(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %x = llvm.call @tilec.ld.b32(%p) : (!llvm.ptr<1>) -> i32
    llvm.return
  }
}

// -----

// ERR: expand-for-gpu.mlir:[[# @LINE + 4]]:10: error: expand-for-gpu: 'tilec.ld.b33' is not a call the lowering makes
module {
  llvm.func @tilec.ld.b33(!llvm.ptr<1>, i1, i32) -> i32
  llvm.func @odd(%p: !llvm.ptr<1>, %c: i1, %v: i32) attributes {nvvm.kernel} {
    %x = llvm.call @tilec.ld.b33(%p, %c, %v) : (!llvm.ptr<1>, i1, i32) -> i32
    llvm.return
  }
}
