"""Triton solution: one program per row; online max/sum-exp in pass 1, x - max - log(sum) written in pass 2."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _fits(configs, named_args, **kwargs):
    """One-pass configs only where the whole row fits their block."""
    return [c for c in configs if not c.kwargs["ONE_PASS"] or c.kwargs["BLOCK"] >= named_args["D"]]


#: the earlier fixed two-pass config first (0.84-0.996x of eager on the H200: the row is read twice), then one-pass
#: configs that read each row once (rows up to 32768 elements); the sweep at the first call keeps the fastest
ROW_CONFIGS = [triton.Config({"BLOCK": 4096, "ONE_PASS": False}, num_warps=8)]
ROW_CONFIGS += [triton.Config({"BLOCK": b, "ONE_PASS": one}, num_warps=w)
                for b, one, w in [(32768, True, 16), (32768, True, 32), (8192, False, 16), (2048, False, 4)]]


@triton.autotune(configs=ROW_CONFIGS, key=["D"], prune_configs_by={"early_config_prune": _fits})
@triton.jit
def _log_softmax_kernel(x_ptr, y_ptr, D, stride_x, stride_y, BLOCK: tl.constexpr, ONE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    cols = tl.arange(0, BLOCK)
    if ONE_PASS:  # the whole row in registers: read once, written once
        mask = cols < D
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        m = tl.max(x, axis=0)
        shift = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
        tl.store(y_row + cols, (x - shift).to(y_ptr.dtype.element_ty), mask=mask)
    else:  # two passes over the row, BLOCK at a time: online max and sum, then the outputs
        m_vec = tl.full((BLOCK,), float("-inf"), tl.float32)
        s_vec = tl.zeros((BLOCK,), tl.float32)
        for start in range(0, D, BLOCK):
            offs = start + cols
            mask = offs < D
            x = tl.load(x_row + offs, mask=mask, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m_vec, x)
            live = m_new != float("-inf")
            scale = tl.where(live, tl.exp(m_vec - m_new), 0.0)
            p = tl.where(live, tl.exp(x - m_new), 0.0)
            s_vec = s_vec * scale + p
            m_vec = m_new
        m = tl.max(m_vec, axis=0)
        s = tl.sum(s_vec * tl.exp(m_vec - m), axis=0)
        shift = m + tl.log(s)
        for start in range(0, D, BLOCK):
            offs = start + cols
            mask = offs < D
            x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_row + offs, (x - shift).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        D = x.shape[-1]
        x2 = x.view(-1, D)
        y2 = torch.empty_like(x2)
        _log_softmax_kernel[(x2.shape[0],)](x2, y2, D, x2.stride(0), y2.stride(0))
        return y2.view(x.shape)
