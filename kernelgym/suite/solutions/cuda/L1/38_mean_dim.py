"""CUDA solution: mean over dim 0 as a coalesced, deterministic split column reduction (partials + combine)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""#include <torch/types.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>
#include <cmath>

static inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
static inline unsigned grid_for(long long rows) { return (unsigned)(rows < 2147483647LL ? rows : 2147483647LL); }

// x viewed as [outer, R, D] (contiguous); dst[(s * outer + o) * D + d] = scale * sum over rows of split s.
// Block (32, 8): threadIdx.x walks 32 adjacent columns (float4 each when VEC), threadIdx.y 8 interleaved rows.
constexpr int CT = 32;
constexpr int RT = 8;

__device__ __forceinline__ void add4(float4& a, const float4& b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }

template <bool VEC>
__global__ void __launch_bounds__(CT * RT, 6)
colsum_kernel(const float* __restrict__ x, float* __restrict__ dst, long long outer, long long R, long long D,
              int splits, long long chunk, float scale) {
  __shared__ float4 sh[RT][CT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long W = VEC ? D / 4 : D;
  const long long c = (long long)blockIdx.x * CT + tx;
  const long long total = outer * splits;
  for (long long oy = blockIdx.y; oy < total; oy += gridDim.y) {
    const long long o = oy / splits;
    const long long s = oy % splits;
    const long long r0 = s * chunk;
    const long long r1 = (r0 + chunk < R) ? r0 + chunk : R;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    if (c < W) {
      const float* base = x + o * R * D;
      long long r = r0 + ty;
      if (VEC) {
        const float4* p = reinterpret_cast<const float4*>(base) + c;
        for (; r + 3 * RT < r1; r += 4 * RT) {
          const float4 a0 = p[r * W], a1 = p[(r + RT) * W], a2 = p[(r + 2 * RT) * W], a3 = p[(r + 3 * RT) * W];
          add4(acc, a0); add4(acc, a1); add4(acc, a2); add4(acc, a3);
        }
        for (; r < r1; r += RT) add4(acc, p[r * W]);
      } else {
        const float* p = base + c;
        for (; r + 3 * RT < r1; r += 4 * RT) {
          const float a0 = p[r * W], a1 = p[(r + RT) * W], a2 = p[(r + 2 * RT) * W], a3 = p[(r + 3 * RT) * W];
          acc.x += a0; acc.x += a1; acc.x += a2; acc.x += a3;
        }
        for (; r < r1; r += RT) acc.x += p[r * W];
      }
    }
    sh[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && c < W) {
      float4 t = sh[0][tx];
#pragma unroll
      for (int i = 1; i < RT; ++i) add4(t, sh[i][tx]);
      float* drow = dst + (s * outer + o) * D;
      if (VEC) {
        reinterpret_cast<float4*>(drow)[c] = make_float4(t.x * scale, t.y * scale, t.z * scale, t.w * scale);
      } else {
        drow[c] = t.x * scale;
      }
    }
    __syncthreads();
  }
}

// out[i] = scale * sum_s ws[s * n + i]  (fixed order: deterministic)
__global__ void combine_kernel(const float* __restrict__ ws, float* __restrict__ out, long long n, int splits, float scale) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    float t = 0.f;
    for (int s = 0; s < splits; ++s) t += ws[(long long)s * n + i];
    out[i] = t * scale;
  }
}

void colsum_forward(torch::Tensor x, torch::Tensor out, int64_t outer, int64_t R, int64_t D, double scale) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && out.is_contiguous() && x.scalar_type() == at::ScalarType::Float &&
              out.scalar_type() == at::ScalarType::Float, "colsum: expected contiguous float32 CUDA tensors");
  TORCH_CHECK(x.numel() == outer * R * D && out.numel() == outer * D, "colsum: shape mismatch");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  if (out.numel() == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  float* op = out.data_ptr<float>();
  if (R == 0) {
    combine_kernel<<<1, 256, 0, stream>>>(op, op, outer * D, 0, 0.f);  // writes zeros
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
  const float* xp = x.data_ptr<float>();
  const bool vec = (D % 4 == 0) && aligned16(xp) && aligned16(op);
  const long long W = vec ? D / 4 : D;
  const long long colblocks = (W + CT - 1) / CT;
  // enough blocks to fill the GPU a couple of times over: split the reduced dimension if needed
  long long splits = 1;
  const long long want = 2048;
  if (colblocks * outer < want) {
    splits = (want + colblocks * outer - 1) / (colblocks * outer);
    const long long max_splits = (R + 63) / 64;
    if (splits > max_splits) splits = max_splits;
    if (splits < 1) splits = 1;
  }
  const long long chunk = (R + splits - 1) / splits;
  splits = (R + chunk - 1) / chunk;
  const long long gy_total = outer * splits;
  TORCH_CHECK(colblocks <= 2147483647LL, "colsum: too many columns");
  dim3 grid((unsigned)colblocks, (unsigned)(gy_total < 65535 ? gy_total : 65535));
  dim3 block(CT, RT);
  if (splits == 1) {
    if (vec) colsum_kernel<true><<<grid, block, 0, stream>>>(xp, op, outer, R, D, 1, chunk, (float)scale);
    else colsum_kernel<false><<<grid, block, 0, stream>>>(xp, op, outer, R, D, 1, chunk, (float)scale);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  } else {
    torch::Tensor ws = torch::empty({splits * outer * D}, x.options());
    float* wp = ws.data_ptr<float>();
    if (vec) colsum_kernel<true><<<grid, block, 0, stream>>>(xp, wp, outer, R, D, (int)splits, chunk, 1.f);
    else colsum_kernel<false><<<grid, block, 0, stream>>>(xp, wp, outer, R, D, (int)splits, chunk, 1.f);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    const long long n = outer * D;
    long long blocks = (n + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    combine_kernel<<<(unsigned)blocks, 256, 0, stream>>>(wp, op, n, (int)splits, (float)scale);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}
"""

CPP_SRC = "void colsum_forward(torch::Tensor x, torch::Tensor out, int64_t outer, int64_t R, int64_t D, double scale);"

_ext = load_inline(
    name="kg_l1_38_mean_dim",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["colsum_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


def _split_dims(shape, dim):
    """(outer, reduced, inner) sizes for reducing `dim` of `shape`."""
    dim = dim % len(shape)
    outer = 1
    for s in shape[:dim]:
        outer *= s
    inner = 1
    for s in shape[dim + 1:]:
        inner *= s
    return dim, outer, shape[dim], inner


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        shape = list(x.shape)
        dim, outer, r, inner = _split_dims(shape, 0)
        out = torch.empty(shape[1:], device=x.device, dtype=x.dtype)
        _ext.colsum_forward(x, out, outer, r, inner, 1.0 / r)
        return out
