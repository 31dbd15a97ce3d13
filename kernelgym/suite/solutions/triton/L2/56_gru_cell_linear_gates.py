"""Triton: GRU cell in one kernel. Each program owns a (rows x hidden-units) tile and accumulates the r and z gate
pre-activations of both projections into shared accumulators, keeps the input and hidden n-gate products apart,
then applies biases, sigmoid/tanh gating and the state blend in the epilogue."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gru_cell_kernel(x_ptr, h_ptr, wih_ptr, whh_ptr, bih_ptr, bhh_ptr, out_ptr, B, IN, HID,
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
    acc_r = tl.zeros((BM, BN), dtype=tl.float32)
    acc_z = tl.zeros((BM, BN), dtype=tl.float32)
    acc_xn = tl.zeros((BM, BN), dtype=tl.float32)
    acc_hn = tl.zeros((BM, BN), dtype=tl.float32)
    # input projection: W_ih rows [0, HID) -> r, [HID, 2HID) -> z, [2HID, 3HID) -> n
    for k0 in range(0, IN, BK):
        kk = k0 + rk
        a = tl.load(x_ptr + rm[:, None] * IN + kk[None, :], mask=(rm[:, None] < B) & (kk[None, :] < IN), other=0.0)
        wmask = (kk[:, None] < IN) & nmask[None, :]
        wp = wih_ptr + rn[None, :] * IN + kk[:, None]
        acc_r = tl.dot(a, tl.load(wp, mask=wmask, other=0.0), acc_r)
        acc_z = tl.dot(a, tl.load(wp + HID * IN, mask=wmask, other=0.0), acc_z)
        acc_xn = tl.dot(a, tl.load(wp + 2 * HID * IN, mask=wmask, other=0.0), acc_xn)
    for k0 in range(0, HID, BK):
        kk = k0 + rk
        a = tl.load(h_ptr + rm[:, None] * HID + kk[None, :], mask=(rm[:, None] < B) & (kk[None, :] < HID), other=0.0)
        wmask = (kk[:, None] < HID) & nmask[None, :]
        wp = whh_ptr + rn[None, :] * HID + kk[:, None]
        acc_r = tl.dot(a, tl.load(wp, mask=wmask, other=0.0), acc_r)
        acc_z = tl.dot(a, tl.load(wp + HID * HID, mask=wmask, other=0.0), acc_z)
        acc_hn = tl.dot(a, tl.load(wp + 2 * HID * HID, mask=wmask, other=0.0), acc_hn)
    b_r = tl.load(bih_ptr + rn, mask=nmask, other=0.0) + tl.load(bhh_ptr + rn, mask=nmask, other=0.0)
    b_z = tl.load(bih_ptr + HID + rn, mask=nmask, other=0.0) + tl.load(bhh_ptr + HID + rn, mask=nmask, other=0.0)
    b_xn = tl.load(bih_ptr + 2 * HID + rn, mask=nmask, other=0.0)
    b_hn = tl.load(bhh_ptr + 2 * HID + rn, mask=nmask, other=0.0)
    r = 1.0 / (1.0 + tl.exp(-(acc_r + b_r[None, :])))
    z = 1.0 / (1.0 + tl.exp(-(acc_z + b_z[None, :])))
    pre_n = acc_xn + b_xn[None, :] + r * (acc_hn + b_hn[None, :])
    n = 1.0 - 2.0 / (tl.exp(2.0 * pre_n) + 1.0)
    omask = (rm[:, None] < B) & nmask[None, :]
    hv = tl.load(h_ptr + rm[:, None] * HID + rn[None, :], mask=omask, other=0.0)
    tl.store(out_ptr + rm[:, None] * HID + rn[None, :], (1.0 - z) * n + z * hv, mask=omask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.ih = nn.Linear(input_size, 3 * hidden_size)
        self.hh = nn.Linear(hidden_size, 3 * hidden_size)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        h = h.contiguous()
        B, IN = x.shape
        HID = h.shape[1]
        out = torch.empty_like(h)
        BM, BN, BK = 128, 64, 32
        grid = (triton.cdiv(B, BM) * triton.cdiv(HID, BN),)
        _gru_cell_kernel[grid](x, h, self.ih.weight, self.hh.weight, self.ih.bias, self.hh.bias, out, B, IN, HID,
                               BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=8, num_stages=3)
        return out
