"""A small kernel in a file of its own (Triton reads a kernel's source from its file): tests of
:mod:`kernelgym.judge.gpu_compile` type and compile its launches."""

import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, SCALE: tl.constexpr = None, BLOCK: tl.constexpr = 16):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(y_ptr.dtype.element_ty), mask=mask)
