// RUN: %tilec opt %s --pass=to-llvm-dialect --split-input-file | FileCheck %s

// scf becomes branches, arith and math the LLVM dialect's ops; a loop's
// annotation (tl.range's loop_unroll_factor) moves to the back edge, where
// translation to LLVM IR reads it.
// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<count = 4 : i32>
// CHECK: #[[LOOP:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: llvm.func @loop
// CHECK-NOT: scf.
// CHECK-NOT: arith.
// CHECK: llvm.fadd
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[LOOP]]}
// CHECK-NOT: llvm.loop_annotation
// CHECK: llvm.intr.sqrt
#unroll = #llvm.loop_annotation<unroll = <count = 4 : i32>>
module {
  llvm.func @loop(%p: !llvm.ptr<1>, %v: f32) attributes {nvvm.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %v) -> (f32) {
      %b = arith.addf %a, %v : f32
      scf.yield %b : f32
    } {llvm.loop_annotation = #unroll}
    %r = math.sqrt %s : f32
    llvm.store %r, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// A module that is already the LLVM dialect's is left as it is.
// CHECK-LABEL: llvm.func @plain
// CHECK-NEXT: llvm.return
module {
  llvm.func @plain() attributes {nvvm.kernel} {
    llvm.return
  }
}
