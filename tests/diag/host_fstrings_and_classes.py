# ARGS: -s "*fp32:16, *fp32:16, i32, 1024"
"""Benchmark harness with a buggy kernel in the middle."""
from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Optional

import torch
import triton
import triton.language as tl

DEVICE = torch.device("cuda")
SIZES = [2**i for i in range(12, 24)]
NAMES = {s: f"n={s:>8,d}" for s in SIZES}


@dataclasses.dataclass(frozen=True)
class Case:
    n: int
    dtype: torch.dtype = torch.float32
    note: Optional[str] = None

    def label(self) -> str:
        return f"{self.n!r:>10} {self.dtype} {'(' + self.note + ')' if self.note else ''}"

    @property
    def nbytes(self) -> int:
        return self.n * torch.finfo(self.dtype).bits // 8


class Timer:
    def __enter__(self):
        self.start = torch.cuda.Event(enable_timing=True)
        return self

    def __exit__(self, *exc):
        return False


@functools.lru_cache(maxsize=None)
def grid_for(n: int, block: int) -> tuple[int, ...]:
    return (triton.cdiv(n, block), )


@triton.jit
def add_one_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """Adds one; the docstring is fine."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x + on, mask=mask)


def run(case: Case) -> torch.Tensor:
    x = torch.randn(case.n, device=DEVICE, dtype=case.dtype)
    y = torch.empty_like(x)
    with Timer() as t:
        add_one_kernel[grid_for(case.n, 1024)](x, y, case.n, BLOCK=1024)
    print(f"{case.label()}: {t.start!s} {{braces}} {'nested' + f'{case.n:#x}'}")
    return y


if __name__ == "__main__":
    results = [run(Case(n, note=(lambda k: f"k={k}")(n))) for n in SIZES if (m := n) > 0]
    match results:
        case [first, *rest]:
            print(first.sum(), len(rest))
        case _:
            pass
