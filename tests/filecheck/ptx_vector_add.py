# PTX of the vector add in examples/vector_add.py. With 16-byte aligned
# pointers and n divisible by 16 every access is one predicated 128-bit
# ld.global.v4 / st.global.v4; without the hints each thread moves single
# elements. Masked accesses are predicated, never branched.
# RUN: %tilec compile %examples/vector_add.py -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit=ptx | FileCheck %s --check-prefix=V4
# RUN: %tilec compile %examples/vector_add.py -s "*fp32, *fp32, *fp32, i32, 1024" --emit=ptx | FileCheck %s --check-prefix=SCALAR
# RUN: %tilec compile %examples/vector_add.py -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=SM90

# V4: .visible .entry add_kernel(
# V4: .maxntid 128
# V4-COUNT-4: @p ld.global.v4.b32
# V4-NOT: ld.global.b32
# V4: add.f32
# V4: @p st.global.v4.b32
# V4-NOT: bra
# V4: ret;

# SCALAR: .visible .entry add_kernel(
# SCALAR-NOT: ld.global.v4
# SCALAR: @p ld.global.b32
# SCALAR-NOT: ld.global.v4
# SCALAR: @p st.global.b32
# SCALAR-NOT: bra

# SM90: .target sm_90a
# SM90: @p ld.global.v4.b32
