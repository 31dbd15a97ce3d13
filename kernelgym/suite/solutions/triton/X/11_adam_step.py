"""Triton fused Adam step: one pass reads param/grad/m/v and writes new param/m/v (bias corrections folded into scalars)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, po_ptr, mo_ptr, vo_ptr, n_elements,
                 beta1, beta2, one_minus_beta1, one_minus_beta2, step_size, inv_sqrt_bc2, eps,
                 BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * g * g
    denom = tl.sqrt(v) * inv_sqrt_bc2 + eps
    p = p - step_size * (m / denom)
    tl.store(po_ptr + offs, p, mask=mask)
    tl.store(mo_ptr + offs, m, mask=mask)
    tl.store(vo_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, step: int):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step = lr, beta1, beta2, eps, step

    def forward(self, param, grad, exp_avg, exp_avg_sq):
        param, grad = param.contiguous(), grad.contiguous()
        exp_avg, exp_avg_sq = exp_avg.contiguous(), exp_avg_sq.contiguous()
        p_out = torch.empty_like(param)
        m_out = torch.empty_like(exp_avg)
        v_out = torch.empty_like(exp_avg_sq)
        n = param.numel()
        bc1 = 1 - self.beta1 ** self.step
        bc2 = 1 - self.beta2 ** self.step
        BLOCK = 2048
        _adam_kernel[(triton.cdiv(n, BLOCK),)](param, grad, exp_avg, exp_avg_sq, p_out, m_out, v_out, n,
                                               self.beta1, self.beta2, 1 - self.beta1, 1 - self.beta2,
                                               self.lr / bc1, 1.0 / bc2 ** 0.5, self.eps,
                                               BLOCK=BLOCK, num_warps=8)
        return p_out, m_out, v_out
