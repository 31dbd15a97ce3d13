"""Triton solution: tiled fp16 tensor-core matmul (fp32 accumulation) with masked edges for odd sizes.

At the full size (M=9999, K=6000, N=7000) the earlier kernel reached 0.22x (fixed 128x128x64 tile) and 0.34x
(autotuned) of cuBLAS on the H200. Its sm_90 code shows why: N = 7000 is not a multiple of 16, so Triton gives the
mask ``offs_n < N`` no known run length and every load of B and every store of C became one 2-byte access (B then
also bypasses the cp.async pipeline); padding B's rows to 7040 did not change that. Every row of A, B and C does
start on 16 bytes (6000 and 7000 are multiples of 8), so two fixes:

* the pointer path gets N, K and the row strides divided by ``VEC`` (8 when they all allow it) and multiplies them
  back inside, which tells Triton they are multiples of 8 elements: B's loads and C's stores become 16-byte vectors
  and no padding copy is needed;
* TMA configs (``TMA=True``) load the tiles with Hopper's tensor-memory accelerator through host-side
  ``TensorDescriptor`` objects (triton.tools.tensor_descriptor, same API in Triton 3.6 and 3.9): no address
  arithmetic or masks in the loop, out-of-range rows, columns and the K tail (6000 = 93.75 x 64) read as zeros, and C
  is written by a TMA store that clips at M and N. A pre_hook gives the descriptors each config's block shape.

The tiles: 2212 tiles of 128x256 fill the 132 SMs about 16.8 times, so there is no wave or split-K problem, only the
per-tile efficiency. The first config is the earlier first config (pointer path, 128x128x64); the sweep (at the first
call, per shape) keeps the fastest. Measured on the H100 with that 7-config list: 0.67-0.71x of eager (1.71-1.86 ms
against cuBLAS's 1.22-1.24 ms, ~490 against ~690 TFLOP/s).

Since then (measured once on an H100 at 98953aa: 0.743x of eager, 1.740 ms against 1.293; docs/BENCHMARKS.md, thirty-fourth session): the list is cut to 6 (the first config, the two non-persistent 128x256x64
TMA configs) and gains PERSISTENT TMA configs, the Triton persistent-matmul tutorial's scheme for Hopper: one
program per SM walks the tiles in the same grouped order (GROUP_M = 8 row blocks sweep the column blocks together,
so A and B tiles are reused from L2), and ``tl.range(..., flatten=True)`` fuses the tile and K loops so the software
pipeline issues the next tile's TMA loads while the current tile's epilogue runs (a non-persistent program leaves
its SM's tensor cores idle during its epilogue and the next program's prologue). EPI_SUBTILE stores C in two
BLOCK_N/2 halves (half the staging shared memory, which leaves room for 4 stages of 128x256x64). fp32 accumulation,
one cast to fp16 at the store, as before.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _set_block_shapes(nargs):
    """The descriptors' block shapes follow the config being run (TMA tiles are part of the descriptor); a
    subtiled epilogue stores C in two halves of BLOCK_N // 2 columns."""
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_K"], nargs["BLOCK_N"]]
    half = nargs["BLOCK_N"] // 2 if nargs["EPI_SUBTILE"] else nargs["BLOCK_N"]
    nargs["c_desc"].block_shape = [nargs["BLOCK_M"], half]


def _config(bm, bn, bk, stages, tma, num_warps, persistent=False, subtile=False):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "TMA": tma,
                          "PERSISTENT": persistent, "EPI_SUBTILE": subtile},
                         num_warps=num_warps, num_stages=stages, pre_hook=_set_block_shapes)


#: the earlier first config (pointer path), the two non-persistent TMA configs most likely to have won the earlier
#: sweep, then persistent TMA ones (shared memory per stage: 128x256x64 and 256x128x64 48 KB; the subtiled
#: epilogue's staging tile 32 KB: 4 stages + epilogue = 224 KB of the 227 KB). Each config is one more compilation
#: in every fresh worker, so the list is short.
MATMUL_CONFIGS = [
    _config(128, 128, 64, 3, False, num_warps=8),
    _config(128, 256, 64, 3, True, num_warps=8),
    _config(128, 256, 64, 4, True, num_warps=8),
    _config(128, 256, 64, 3, True, num_warps=8, persistent=True, subtile=True),
    _config(128, 256, 64, 4, True, num_warps=8, persistent=True, subtile=True),
    _config(256, 128, 64, 3, True, num_warps=8, persistent=True, subtile=True),
]


@triton.jit
def _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M: tl.constexpr):
    """Grouped ordering: GROUP_M row blocks walk the column blocks together (their A and B tiles stay in L2)."""
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N_V", "K_V", "VEC"])
@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, a_desc, b_desc, c_desc, M, N_V, K_V,
                   stride_am_v, stride_bk_v, stride_cm_v, VEC: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, TMA: tl.constexpr, PERSISTENT: tl.constexpr,
                   EPI_SUBTILE: tl.constexpr, NUM_SMS: tl.constexpr):
    # sizes and row strides come divided by VEC: multiplied back here, Triton knows they are multiples of VEC
    N = N_V * VEC
    K = K_V * VEC
    if PERSISTENT:  # TMA only: NUM_SMS programs walk the tiles; flatten lets the next tile's loads overlap the store
        start_pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        k_tiles = tl.cdiv(K, BLOCK_K)
        num_tiles = num_pid_m * num_pid_n
        num_pid_in_group = GROUP_M * num_pid_n
        tile_id_c = start_pid - NUM_SMS  # the epilogue's own counter (keeps it apart from the prologue's)
        for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
            pid_m, pid_n = _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
            off_m = pid_m * BLOCK_M
            off_n = pid_n * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for ki in range(k_tiles):
                a = a_desc.load([off_m, ki * BLOCK_K])
                b = b_desc.load([ki * BLOCK_K, off_n])
                acc = tl.dot(a, b, acc)
            tile_id_c += NUM_SMS
            pid_m, pid_n = _tile_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_M)
            off_cm = pid_m * BLOCK_M
            off_cn = pid_n * BLOCK_N
            if EPI_SUBTILE:  # two halves: half the staging shared memory, the first half's store overlaps
                acc3 = tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
                acc0, acc1 = tl.split(acc3)
                c_desc.store([off_cm, off_cn], acc0.to(c_desc.dtype))
                c_desc.store([off_cm, off_cn + BLOCK_N // 2], acc1.to(c_desc.dtype))
            else:
                c_desc.store([off_cm, off_cn], acc.to(c_desc.dtype))
    else:  # one program per tile (the earlier kernel)
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if TMA:
            off_m = pid_m * BLOCK_M
            off_n = pid_n * BLOCK_N
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                a = a_desc.load([off_m, k * BLOCK_K])
                b = b_desc.load([k * BLOCK_K, off_n])
                acc = tl.dot(a, b, acc)
            c_desc.store([off_m, off_n], acc.to(c_desc.dtype))
        else:
            stride_am = stride_am_v * VEC
            stride_bk = stride_bk_v * VEC
            stride_cm = stride_cm_v * VEC
            offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
            offs_k = tl.arange(0, BLOCK_K)
            a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
            mask_m = offs_m[:, None] < M
            mask_n = offs_n[None, :] < N
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                k_left = K - k * BLOCK_K
                a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] < k_left), other=0.0)
                b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n, other=0.0)
                acc = tl.dot(a, b, acc)
                a_ptrs += BLOCK_K
                b_ptrs += BLOCK_K * stride_bk
            c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
            tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m & mask_n)


def _rows16(x):
    """``x`` if its rows start on 16 bytes with unit column stride (what TMA needs), else such a padded copy."""
    if x.stride(1) == 1 and x.stride(0) % 8 == 0 and x.data_ptr() % 16 == 0:
        return x
    rows, cols = x.shape
    out = torch.empty((rows, triton.cdiv(cols, 8) * 8), device=x.device, dtype=x.dtype)[:, :cols]
    out.copy_(x)
    return out


def _num_sms(x):
    """Programs of the persistent configs: one per SM (3 under the CPU interpreter, so a program walks several
    tiles there too)."""
    if x.is_cuda:
        return torch.cuda.get_device_properties(x.device).multi_processor_count
    return 3


def _descriptor(x):
    return TensorDescriptor(x, list(x.shape), list(x.stride()), [16, 16])  # block shape set per config


def matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    a, b = _rows16(a), _rows16(b)
    c = torch.empty((M, triton.cdiv(N, 8) * 8), device=a.device, dtype=a.dtype)[:, :N]
    sizes = (N, K, a.stride(0), b.stride(0), c.stride(0))
    vec = 8 if all(s % 8 == 0 for s in sizes) else 1

    num_sms = _num_sms(a)

    def grid(meta):
        tiles = triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
        return (min(num_sms, tiles),) if meta["PERSISTENT"] else (tiles,)

    _matmul_kernel[grid](a, b, c, _descriptor(a), _descriptor(b), _descriptor(c), M,
                         *(s // vec for s in sizes), VEC=vec, NUM_SMS=num_sms)
    return c


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return matmul(A, B)
