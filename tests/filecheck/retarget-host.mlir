// One case is an error, so tilec exits 1: ERR checks what it says.
// RUN: { %tilec opt %s --pass=retarget-host --split-input-file 2>/dev/null || true; } | FileCheck %s
// RUN: { %tilec opt %s --pass=retarget-host --split-input-file 2>&1 >/dev/null || true; } | FileCheck %s --check-prefix=ERR

// GPU operations become calls the emulator binds; a global access gets
// one more argument, its site (an index into tilec_emu_sites, which holds
// its source position); the kernel loses nvvm.kernel and gets the entry
// that takes its arguments as cuLaunchKernel does. A barrier means fibers.
// CHECK-LABEL: module
// CHECK-DAG: llvm.func @tilec.emu.tid.x() -> i32
// CHECK-DAG: llvm.func @tilec.emu.barrier()
// CHECK-DAG: llvm.func @tilec.emu.ld.b32(!llvm.ptr<1>, i1, i32, i32) -> i32
// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i1) attributes {tilec.shared_bytes = 0 : i64} {
// CHECK: llvm.call @tilec.emu.tid.x()
// CHECK: llvm.call @tilec.emu.barrier()
// CHECK: llvm.call @tilec.emu.ld.b32(%{{.*}}, %{{.*}}, %{{.*}}, %[[SITE:.*]]) : (!llvm.ptr<1>, i1, i32, i32) -> i32
// CHECK-DAG: llvm.mlir.global external constant @tilec_emu_shared_bytes(0 : i64)
// CHECK-DAG: llvm.mlir.global external constant @tilec_emu_fibers(1 : i32)
// CHECK-DAG: llvm.mlir.global external constant @tilec_emu_sites("{{[^:]*}}:[[# @LINE + 8]]:10\00\00")
// CHECK: llvm.func @tilec_emu_entry(%{{.*}}: !llvm.ptr)
// CHECK: llvm.call @k(
module {
  llvm.func @tilec.ld.b32(!llvm.ptr<1>, i1, i32) -> i32
  llvm.func @k(%p: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel, tilec.shared_bytes = 0 : i64} {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    nvvm.barrier0
    %x = llvm.call @tilec.ld.b32(%p, %c, %t) : (!llvm.ptr<1>, i1, i32) -> i32
    llvm.return
  }
}

// -----

// Without barriers or shuffles the threads of a block run one after another.
// CHECK-LABEL: module
// CHECK: llvm.mlir.global external constant @tilec_emu_fibers(0 : i32)
module {
  llvm.func @plain(%p: !llvm.ptr<1>) attributes {nvvm.kernel, tilec.shared_bytes = 0 : i64} {
    llvm.return
  }
}

// -----

// ERR: retarget-host.mlir:[[# @LINE + 4]]:5: error: retarget-host: 'tilec.st.b32' takes a pointer and an i1 predicate first
module {
  llvm.func @tilec.st.b32(i32, i1, i32)
  llvm.func @bad(%v: i32, %c: i1) attributes {nvvm.kernel} {
    llvm.call @tilec.st.b32(%v, %c, %v) : (i32, i1, i32) -> ()
    llvm.return
  }
}

// -----

// mma.sync is a warp collective the emulator runs: its registers go
// through 14 words of the frame, allocated once in the entry block, the
// call passes D, A, B, C by address, and D is read back into the struct.
// CHECK-LABEL: module
// CHECK-NOT: llvm.func @tilec.mma.
// CHECK: llvm.func @tilec.emu.mma.m16n8k8.row.col.f32.tf32.tf32.f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK: llvm.func @m(
// CHECK: %[[N:.*]] = llvm.mlir.constant(14 : i32) : i32
// CHECK: %[[R:.*]] = llvm.alloca %[[N]] x i32 {alignment = 16 : i64}
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr
// CHECK: %[[D:.*]] = llvm.getelementptr %[[R]][10] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[A:.*]] = llvm.getelementptr %[[R]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[B:.*]] = llvm.getelementptr %[[R]][4] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[C:.*]] = llvm.getelementptr %[[R]][6] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.call @tilec.emu.mma.m16n8k8.row.col.f32.tf32.tf32.f32(%[[D]], %[[A]], %[[B]], %[[C]])
// CHECK: llvm.insertvalue
// CHECK-DAG: llvm.mlir.global external constant @tilec_emu_fibers(1 : i32)
module {
  llvm.func @tilec.mma.m16n8k8.row.col.f32.tf32.tf32.f32(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @m(%p: !llvm.ptr<1>, %a: i32) attributes {nvvm.kernel, tilec.shared_bytes = 0 : i64} {
    %d = llvm.call @tilec.mma.m16n8k8.row.col.f32.tf32.tf32.f32(%a, %a, %a, %a, %a, %a, %a, %a, %a, %a) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
    %x = llvm.extractvalue %d[3] : !llvm.struct<(i32, i32, i32, i32)>
    llvm.store %x, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// ldmatrix likewise: the lane's row address passed on, D read back.
// CHECK-LABEL: module
// CHECK-NOT: llvm.func @tilec.ldmatrix.
// CHECK: llvm.func @tilec.emu.ldmatrix.x4.trans.b16(!llvm.ptr, !llvm.ptr<3>)
// CHECK: llvm.func @l(
// CHECK: %[[R:.*]] = llvm.alloca
// CHECK: %[[D:.*]] = llvm.getelementptr %[[R]][10] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.call @tilec.emu.ldmatrix.x4.trans.b16(%[[D]], %{{.*}})
// CHECK: llvm.getelementptr %[[R]][13] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.insertvalue
module {
  llvm.func @tilec.ldmatrix.x4.trans.b16(!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @l(%p: !llvm.ptr<1>, %s: !llvm.ptr<3>) attributes {nvvm.kernel, tilec.shared_bytes = 0 : i64} {
    %d = llvm.call @tilec.ldmatrix.x4.trans.b16(%s) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    %x = llvm.extractvalue %d[3] : !llvm.struct<(i32, i32, i32, i32)>
    llvm.store %x, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// cp.async becomes the emulator's asynchronous copy, with its site (the
// source position its races are reported at); commit and wait by name.
// CHECK-LABEL: module
// CHECK-NOT: llvm.func @tilec.cp.async.
// CHECK: llvm.func @c(
// CHECK: llvm.call @tilec.emu.cp.async.16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr<3>, !llvm.ptr<1>, i1, i32) -> ()
// CHECK: llvm.call @tilec.emu.cp.async.commit()
// CHECK: llvm.call @tilec.emu.cp.async.wait.0()
// CHECK-DAG: llvm.mlir.global external constant @tilec_emu_sites("{{[^:]*}}:[[# @LINE + 7]]:5\00\00")
module {
  llvm.func @tilec.cp.async.16(!llvm.ptr<3>, !llvm.ptr<1>, i1)
  llvm.func @tilec.cp.async.commit()
  llvm.func @tilec.cp.async.wait.0()
  llvm.func @c(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>, %p: i1) attributes {nvvm.kernel, tilec.shared_bytes = 16 : i64} {
    nvvm.barrier0
    llvm.call @tilec.cp.async.16(%d, %s, %p) : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> ()
    llvm.call @tilec.cp.async.commit() : () -> ()
    llvm.call @tilec.cp.async.wait.0() : () -> ()
    llvm.return
  }
}
