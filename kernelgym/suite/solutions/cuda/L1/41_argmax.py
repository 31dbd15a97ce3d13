"""CUDA solution: row argmax, one block per row, float4 loads, (value, index) block reduction with first-index ties."""
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

// (v, i) beats (bv, bi)? NaN counts as the largest value (like torch.argmax); ties go to the smaller index.
__device__ __forceinline__ void take_better(float& bv, long long& bi, float v, long long i) {
  const bool vn = isnan(v), bn = isnan(bv);
  const bool take = bn ? (vn && i < bi) : (vn || v > bv || (v == bv && i < bi));
  if (take) { bv = v; bi = i; }
}

constexpr int AT = 256;

template <bool VEC>
__global__ void __launch_bounds__(AT)
argmax_kernel(const float* __restrict__ x, int64_t* __restrict__ out, long long rows, long long D) {
  __shared__ float shv[AT / 32];
  __shared__ long long shi[AT / 32];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * D;
    float bv = -INFINITY;
    long long bi = 0x7fffffffffffffffLL;
    if (VEC) {
      const float4* x4 = reinterpret_cast<const float4*>(xr);
      const long long D4 = D / 4;
#pragma unroll 4
      for (long long j = tid; j < D4; j += AT) {
        const float4 v = x4[j];
        take_better(bv, bi, v.x, 4 * j);
        take_better(bv, bi, v.y, 4 * j + 1);
        take_better(bv, bi, v.z, 4 * j + 2);
        take_better(bv, bi, v.w, 4 * j + 3);
      }
    } else {
#pragma unroll 4
      for (long long j = tid; j < D; j += AT) take_better(bv, bi, xr[j], j);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
      const long long oi = __shfl_xor_sync(0xffffffffu, bi, o);
      take_better(bv, bi, ov, oi);
    }
    if (lane == 0) { shv[warp] = bv; shi[warp] = bi; }
    __syncthreads();
    if (warp == 0) {
      bv = lane < AT / 32 ? shv[lane] : -INFINITY;
      bi = lane < AT / 32 ? shi[lane] : 0x7fffffffffffffffLL;
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        const long long oi = __shfl_xor_sync(0xffffffffu, bi, o);
        take_better(bv, bi, ov, oi);
      }
      if (lane == 0) out[row] = (int64_t)bi;
    }
    __syncthreads();
  }
}

void argmax_forward(torch::Tensor x, torch::Tensor out) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == at::ScalarType::Float &&
              out.scalar_type() == at::ScalarType::Long && out.is_contiguous(), "argmax: float32 in, int64 out");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  const long long D = x.size(-1);
  TORCH_CHECK(D > 0, "argmax: empty reduction dimension");
  const long long rows = x.numel() / D;
  TORCH_CHECK(out.numel() == rows, "argmax: output shape mismatch");
  if (rows == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const float* xp = x.data_ptr<float>();
  int64_t* op = out.data_ptr<int64_t>();
  if (D % 4 == 0 && aligned16(xp)) argmax_kernel<true><<<grid_for(rows), AT, 0, stream>>>(xp, op, rows, D);
  else argmax_kernel<false><<<grid_for(rows), AT, 0, stream>>>(xp, op, rows, D);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""

CPP_SRC = "void argmax_forward(torch::Tensor x, torch::Tensor out);"

_ext = load_inline(
    name="kg_l1_41_argmax",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["argmax_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(list(x.shape[:-1]), device=x.device, dtype=torch.int64)
        _ext.argmax_forward(x, out)
        return out
