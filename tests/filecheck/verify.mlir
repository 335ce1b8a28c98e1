// RUN: (%tilec opt %s --pass=cse --split-input-file 2>&1 >/dev/null; echo "exit $?") | FileCheck %s
// The tile verifier's rules that IRDL cannot state, each at the op that
// breaks it: IR text given to `tilec opt` is verified before any pass.

// A program id's axis is x, y or z: the lowering reads its register by it.
// CHECK: verify.mlir:[[@LINE+2]]:10: error: 'tile.program_id' op axis must be an integer from 0 to 2
llvm.func @axis9() {
  %pid = "tile.program_id"() {axis = 9 : i32} : () -> i32
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:8: error: 'tile.num_programs' op axis must be an integer from 0 to 2
llvm.func @axis_negative() {
  %n = "tile.num_programs"() {axis = -1 : i32} : () -> i32
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:10: error: 'tile.program_id' op axis must be an integer from 0 to 2
llvm.func @axis_text() {
  %pid = "tile.program_id"() {axis = "x"} : () -> i32
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:8: error: 'tile.make_range' op start must be less than end
llvm.func @backwards() {
  %r = "tile.make_range"() {start = 64 : i32, end = 0 : i32} : () -> tensor<64xi32>
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:8: error: 'tile.make_range' op start must be less than end
llvm.func @empty() {
  %r = "tile.make_range"() {start = 8 : i32, end = 8 : i32} : () -> tensor<1xi32>
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:8: error: 'tile.make_range' op result must be a 1-D tensor of end - start elements
llvm.func @wrong_size() {
  %r = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<128xi32>
  llvm.return
}

// -----
// CHECK: verify.mlir:[[@LINE+2]]:8: error: 'tile.make_range' op result elements must be i32
llvm.func @wrong_type() {
  %r = "tile.make_range"() {start = 0 : i32, end = 64 : i32} : () -> tensor<64xi64>
  llvm.return
}

// -----
// And what holds passes.
// CHECK-NOT: error
// CHECK: exit 1
llvm.func @fine() {
  %pid = "tile.program_id"() {axis = 2 : i32} : () -> i32
  %r = "tile.make_range"() {start = 16 : i32, end = 48 : i32} : () -> tensor<32xi32>
  llvm.return
}
