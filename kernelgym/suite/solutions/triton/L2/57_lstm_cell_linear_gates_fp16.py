"""Triton: fp16 LSTM cell in one kernel. Each program owns a (rows x hidden-units) tile and accumulates the four
gate pre-activations of both projections (x W_x^T + h W_h^T) in fp32, then applies biases, the gate
nonlinearities, the cell update and the output in the epilogue."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tanh(x):
    return 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def _lstm_cell_kernel(x_ptr, h_ptr, c_ptr, wx_ptr, wh_ptr, bx_ptr, bh_ptr, out_ptr, B, IN, HID,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(B, BM)
    num_n = tl.cdiv(HID, BN)
    group = GROUP_M * num_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % gsize
    pid_n = (pid % group) // gsize
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    nmask = rn < HID
    acc_i = tl.zeros((BM, BN), dtype=tl.float32)
    acc_f = tl.zeros((BM, BN), dtype=tl.float32)
    acc_g = tl.zeros((BM, BN), dtype=tl.float32)
    acc_o = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, IN, BK):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * IN + kk[None, :], mask=(rm[:, None] < B) & (kk[None, :] < IN), other=0.0)
        wmask = (kk[:, None] < IN) & nmask[None, :]
        wp = wx_ptr + rn[None, :] * IN + kk[:, None]
        acc_i = tl.dot(a, tl.load(wp, mask=wmask, other=0.0), acc_i)
        acc_f = tl.dot(a, tl.load(wp + HID * IN, mask=wmask, other=0.0), acc_f)
        acc_g = tl.dot(a, tl.load(wp + 2 * HID * IN, mask=wmask, other=0.0), acc_g)
        acc_o = tl.dot(a, tl.load(wp + 3 * HID * IN, mask=wmask, other=0.0), acc_o)
    for k0 in range(0, HID, BK):
        kk = k0 + rk
        a = tl.load(h_ptr + rm[:, None] * HID + kk[None, :], mask=(rm[:, None] < B) & (kk[None, :] < HID), other=0.0)
        wmask = (kk[:, None] < HID) & nmask[None, :]
        wp = wh_ptr + rn[None, :] * HID + kk[:, None]
        acc_i = tl.dot(a, tl.load(wp, mask=wmask, other=0.0), acc_i)
        acc_f = tl.dot(a, tl.load(wp + HID * HID, mask=wmask, other=0.0), acc_f)
        acc_g = tl.dot(a, tl.load(wp + 2 * HID * HID, mask=wmask, other=0.0), acc_g)
        acc_o = tl.dot(a, tl.load(wp + 3 * HID * HID, mask=wmask, other=0.0), acc_o)
    b_i = tl.load(bx_ptr + rn, mask=nmask, other=0.0).to(tl.float32) + tl.load(bh_ptr + rn, mask=nmask, other=0.0).to(tl.float32)
    b_f = tl.load(bx_ptr + HID + rn, mask=nmask, other=0.0).to(tl.float32) + tl.load(bh_ptr + HID + rn, mask=nmask, other=0.0).to(tl.float32)
    b_g = tl.load(bx_ptr + 2 * HID + rn, mask=nmask, other=0.0).to(tl.float32) + tl.load(bh_ptr + 2 * HID + rn, mask=nmask, other=0.0).to(tl.float32)
    b_o = tl.load(bx_ptr + 3 * HID + rn, mask=nmask, other=0.0).to(tl.float32) + tl.load(bh_ptr + 3 * HID + rn, mask=nmask, other=0.0).to(tl.float32)
    omask = (rm[:, None] < B) & nmask[None, :]
    c = tl.load(c_ptr + rm[:, None] * HID + rn[None, :], mask=omask, other=0.0).to(tl.float32)
    c_new = _sigmoid(acc_f + b_f[None, :]) * c + _sigmoid(acc_i + b_i[None, :]) * _tanh(acc_g + b_g[None, :])
    h_new = _sigmoid(acc_o + b_o[None, :]) * _tanh(c_new)
    tl.store(out_ptr + rm[:, None] * HID + rn[None, :], h_new.to(out_ptr.dtype.element_ty), mask=omask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.wx = nn.Linear(input_size, 4 * hidden_size, dtype=torch.float16)
        self.wh = nn.Linear(hidden_size, 4 * hidden_size, dtype=torch.float16)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        x, h, c = x.contiguous(), h.contiguous(), c.contiguous()
        B, IN = x.shape
        HID = h.shape[1]
        out = torch.empty_like(h)
        BM, BN, BK = 128, 64, 64
        grid = (triton.cdiv(B, BM) * triton.cdiv(HID, BN),)
        _lstm_cell_kernel[grid](x, h, c, self.wx.weight, self.wh.weight, self.wx.bias, self.wh.bias, out, B, IN, HID,
                                BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=8, num_stages=3)
        return out
