# normlib: a small Triton operator library laid out as the large ones are
# (kernels in ops/, what they share in utils/), used by tilec's tests to
# check that kernel files compile as such libraries write them.
