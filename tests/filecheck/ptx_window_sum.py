# window_sum_kernel in examples/static_range.py: eight shifted loads summed
# into one tile share the aligned load's layout (four elements a thread),
# so no value crosses threads: no shared memory, no barrier. Each load is as
# wide as its own alignment allows: offsets 0 and 4 move 128 bits, 2 and 6
# 64, the odd ones 32; the store is one 128-bit access.
# RUN: cd %examples && %tilec compile static_range.py -k window_sum_kernel -s "*fp32:16, *fp32:16, i32:16, 8, 512" --emit=ptx | FileCheck %s
# RUN: cd %examples && %tilec compile static_range.py -k window_sum_kernel -s "*fp32:16, *fp32:16, i32:16, 8, 512" --emit=ptx | %ptxas_check
# CHECK-NOT: bar.sync
# CHECK-NOT: .shared
# CHECK-COUNT-2: ld.global.v4.b32
# CHECK-NOT: bar.sync
# CHECK: st.global.v4.b32
# CHECK-NOT: bar.sync
