// The last two cases are errors, so tilec exits 1: ERR checks what it says.
// RUN: { %tilec opt %s --pass=allocate-shared --split-input-file 2>/dev/null || true; } | FileCheck %s
// RUN: { %tilec opt %s --pass=allocate-shared --split-input-file 2>&1 >/dev/null || true; } | FileCheck %s --check-prefix=ERR
// RUN: { %tilec opt %s --pass=allocate-shared --split-input-file --arch=sm_90a 2>/dev/null || true; } | FileCheck %s --check-prefix=SM90

// Buffers whose uses do not overlap in time share memory, as Triton's
// allocator places them, even where that costs a barrier (here between the
// load of buffer 0 and the store to buffer 1: insert-barriers puts it).
// Each address becomes an offset into the one dynamic buffer, and the
// placement stays on the kernel for insert-barriers.
// CHECK-LABEL: llvm.mlir.global external @tilec_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: @tilec_smem_
// CHECK: llvm.func @shared_at_a_barrier({{.*}}) attributes {nvvm.kernel, tilec.shared_bytes = 72 : i64, tilec.smem_offsets = array<i64: 0, 0>, tilec.smem_sizes = array<i64: 72, 40>}
// CHECK: %[[A:.*]] = llvm.mlir.addressof @tilec_smem : !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %[[A]] {tilec.smem = 0 : i32}
// CHECK: %[[B:.*]] = llvm.mlir.addressof @tilec_smem : !llvm.ptr<3>
// CHECK-NOT: llvm.getelementptr
// CHECK: llvm.store %{{.*}}, %[[B]] {tilec.smem = 1 : i32}
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 72 : i64} : !llvm.array<72 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 40 : i64} : !llvm.array<40 x i8>
  llvm.func @shared_at_a_barrier(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %a {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    llvm.store %x, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Where a place that costs no barrier lies below the end so far, a small
// buffer takes it over the first fit. Buffer 2 is written right after
// buffer 0's last load (sharing its place would cost a barrier) but after
// the barrier that buffer 0's second store needs before its load, which
// follows buffer 1's last load: it takes buffer 1's place, within the 80
// bytes already there.
// CHECK-LABEL: llvm.func @free_place
// CHECK-SAME: tilec.shared_bytes = 80 : i64, tilec.smem_offsets = array<i64: 0, 16, 16>, tilec.smem_sizes = array<i64: 16, 64, 16>
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 16 : i64} : !llvm.array<16 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 64 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @tilec_smem_2() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 16 : i64} : !llvm.array<16 x i8>
  llvm.func @free_place(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    %c = llvm.mlir.addressof @tilec_smem_2 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.store %v, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %b {tilec.smem = 1 : i32} : !llvm.ptr<3> -> f32
    llvm.store %x, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %y = llvm.load %a {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    llvm.store %y, %c {tilec.smem = 2 : i32} : f32, !llvm.ptr<3>
    %z = llvm.load %c {tilec.smem = 2 : i32} : !llvm.ptr<3> -> f32
    llvm.store %z, %c {tilec.smem = 2 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// A buffer a thread alone reads back (prefetched copies: tilec.private; no
// barrier orders them) shares memory with no other, even past 16 KiB.
// CHECK-LABEL: llvm.func @private_apart
// CHECK-SAME: tilec.shared_bytes = 20480 : i64, tilec.smem_offsets = array<i64: 0, 12288>
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 12288 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 8192 : i64} : !llvm.array<8192 x i8>
  llvm.func @private_apart(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32, tilec.private} : f32, !llvm.ptr<3>
    %x = llvm.load %a {tilec.smem = 0 : i32, tilec.private} : !llvm.ptr<3> -> f32
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    llvm.store %x, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Past 16 KiB side by side, buffers whose uses do not overlap share memory.
// CHECK-LABEL: llvm.func @reuse
// CHECK-SAME: tilec.shared_bytes = 12288 : i64, tilec.smem_offsets = array<i64: 0, 0>, tilec.smem_sizes = array<i64: 12288, 8192>
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 12288 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 8192 : i64} : !llvm.array<8192 x i8>
  llvm.func @reuse(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %a {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    llvm.store %x, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Uses that overlap in time keep their buffers apart.
// CHECK-LABEL: llvm.func @overlap
// CHECK-SAME: tilec.shared_bytes = 20480 : i64, tilec.smem_offsets = array<i64: 0, 12288>, tilec.smem_sizes = array<i64: 12288, 8192>
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 12288 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 8192 : i64} : !llvm.array<8192 x i8>
  llvm.func @overlap(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    llvm.store %v, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    %x = llvm.load %a {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
    llvm.store %x, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// A use that starts before a loop and reaches into it lives to the loop's
// end: the next iteration comes back to it. So buffer 0 stays apart from
// buffer 1, which is used later in the body.
// CHECK-LABEL: llvm.func @loop
// CHECK-SAME: tilec.smem_offsets = array<i64: 0, 12288>
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 12288 : i64} : !llvm.array<12288 x i8>
  llvm.mlir.global internal @tilec_smem_1() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 8192 : i64} : !llvm.array<8192 x i8>
  llvm.func @loop(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    %b = llvm.mlir.addressof @tilec_smem_1 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %x = llvm.load %a {tilec.smem = 0 : i32} : !llvm.ptr<3> -> f32
      %y = llvm.fadd %x, %v : f32
      llvm.store %y, %b {tilec.smem = 1 : i32} : f32, !llvm.ptr<3>
    }
    llvm.return
  }
}

// -----

// More than the target allows a block: an error at the kernel. sm_80
// allows 163 KiB, sm_90a 227 KiB.
// ERR: error: kernel 'big' needs 200000 bytes of shared memory per block; sm_80 allows 166912
// SM90-LABEL: llvm.func @big
// SM90-SAME: tilec.shared_bytes = 200000 : i64
module {
  llvm.mlir.global internal @tilec_smem_0() {addr_space = 3 : i32, alignment = 16 : i64, tilec.bytes = 200000 : i64} : !llvm.array<200000 x i8>
  llvm.func @big(%v: f32) attributes {nvvm.kernel} {
    %a = llvm.mlir.addressof @tilec_smem_0 : !llvm.ptr<3>
    llvm.store %v, %a {tilec.smem = 0 : i32} : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// A buffer the lowering did not make is refused, not guessed at.
// ERR: error: allocate-shared: 'tilec_smem_x' is not a shared buffer of the lowering (@tilec_smem_<n>, tilec.bytes)
module {
  llvm.mlir.global internal @tilec_smem_x() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
  llvm.func @odd(%v: f32) attributes {nvvm.kernel} {
    llvm.return
  }
}
