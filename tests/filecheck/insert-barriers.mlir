// The last case is an error, so tilec exits 1: ERR checks what it says.
// RUN: { %tilec opt %s --pass=insert-barriers --split-input-file 2>/dev/null || true; } | FileCheck %s
// RUN: { %tilec opt %s --pass=insert-barriers --split-input-file 2>&1 >/dev/null || true; } | FileCheck %s --check-prefix=ERR

// A read of memory written since the last barrier, and a write of memory
// read, get a barrier; a buffer's write after its own write does not (the
// lowering's uses write each place once), nor does an access to memory
// that does not overlap (buffer 1 lies at 64).
// CHECK-LABEL: llvm.func @straight
// CHECK: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: llvm.load %{{.*}} {tilec.smem = 1 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: llvm.return
module {
  llvm.func @straight(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0, 64>, tilec.smem_sizes = array<i64: 64, 64>} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %p {tilec.smem = 1 : i32} : !llvm.ptr<3> -> f32
    %y = llvm.load %p {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    llvm.store %y, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// An ldmatrix tagged with its buffer is a read of it: a barrier after the
// writes before it, and before the next writes after it.
// CHECK-LABEL: llvm.func @ldmatrix
// CHECK: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.call @tilec.ldmatrix.x4.b16
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 0 : i32}
module {
  llvm.func @tilec.ldmatrix.x4.b16(!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.func @ldmatrix(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0>, tilec.smem_sizes = array<i64: 64>} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %d = llvm.call @tilec.ldmatrix.x4.b16(%p) {tilec.smem = 0 : i32} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// A cp.async tagged with its buffer is a write of it: the reads before it
// get a barrier between; the wait before the reads is the lowering's.
// CHECK-LABEL: llvm.func @copy
// CHECK: llvm.load %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.call @tilec.cp.async.16
// CHECK-NEXT: llvm.call @tilec.cp.async.commit
// CHECK-NEXT: llvm.call @tilec.cp.async.wait.0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %{{.*}} {tilec.smem = 0 : i32}
module {
  llvm.func @tilec.cp.async.16(!llvm.ptr<3>, !llvm.ptr<1>, i1)
  llvm.func @tilec.cp.async.commit()
  llvm.func @tilec.cp.async.wait.0()
  llvm.func @copy(%p: !llvm.ptr<3>, %g: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0>, tilec.smem_sizes = array<i64: 64>} {
    %x = llvm.load %p {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    llvm.call @tilec.cp.async.16(%p, %g, %c) {tilec.smem = 0 : i32} : (!llvm.ptr<3>, !llvm.ptr<1>, i1) -> ()
    llvm.call @tilec.cp.async.commit() : () -> ()
    llvm.call @tilec.cp.async.wait.0() : () -> ()
    %y = llvm.load %p {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    llvm.return
  }
}

// -----

// Buffers that share memory (both at 0) race as one.
// CHECK-LABEL: llvm.func @shared_place
// CHECK: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %{{.*}} {tilec.smem = 1 : i32}
module {
  llvm.func @shared_place(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0, 0>, tilec.smem_sizes = array<i64: 64, 64>} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %p {tilec.smem = 1 : i32} : !llvm.ptr<3> -> f32
    llvm.return
  }
}

// -----

// In a loop, the next iteration's read meets this iteration's write: the
// read at the top of the body gets a barrier too, found by walking the
// body to a fixed point of the sets at its head.
// CHECK-LABEL: llvm.func @loop
// CHECK: scf.for
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: }
module {
  llvm.func @loop(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0>, tilec.smem_sizes = array<i64: 64>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %x = llvm.load %p {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
      llvm.store %x, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    }
    llvm.return
  }
}

// -----

// Two buffers sharing memory, the first written and never read after (its
// reads were in a loop that ran no iteration: an operand converted before
// its loop, as test_trips runs): the second's writes, by other threads
// than the first's of the same places, get a barrier before them.
// CHECK-LABEL: llvm.func @write_over_unread
// CHECK: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store %{{.*}} {tilec.smem = 1 : i32}
module {
  llvm.func @write_over_unread(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0, 0>, tilec.smem_sizes = array<i64: 64, 64>} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.store %v, %p {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Under a per-thread condition (tilec.divergent) no barrier goes in, where
// only some threads would reach it: the if counts as one access, and the
// barrier goes before it.
// CHECK-LABEL: llvm.func @divergent
// CHECK: llvm.store %{{.*}} {tilec.smem = 0 : i32}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: scf.if
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module {
  llvm.func @divergent(%p: !llvm.ptr<3>, %v: f32, %c: i1) attributes {nvvm.kernel, tilec.smem_offsets = array<i64: 0>, tilec.smem_sizes = array<i64: 64>} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    scf.if %c {
      %x = llvm.load %p {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
      llvm.store %x, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    } {tilec.divergent}
    llvm.return
  }
}

// -----

// Without allocate-shared's placement there is nothing to know overlaps by.
// ERR: error: insert-barriers: the kernel has no placement of its shared memory (run allocate-shared first)
module {
  llvm.func @unplaced(%p: !llvm.ptr<3>, %v: f32) attributes {nvvm.kernel} {
    llvm.store %v, %p {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}
