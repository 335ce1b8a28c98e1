import triton
@triton.jit
def k(n):
    x = triton.next_power_of_2(4611686018427387905)
