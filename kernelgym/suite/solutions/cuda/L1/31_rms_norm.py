"""CUDA solution: RMSNorm x * rsqrt(mean(x^2) + eps) * w with the row held in registers (one read, one write)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""#include <torch/types.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>
#include <cmath>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// Block-wide reductions (blockDim.x a multiple of 32); every thread receives the result.
__device__ __forceinline__ float block_sum(float v, float* sh) {
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();                       // sh may still be read by a previous reduction
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  const int nw = blockDim.x >> 5;
  return warp_sum(lane < nw ? sh[lane] : 0.f);
}
__device__ __forceinline__ float block_max(float v, float* sh) {
  v = warp_max(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) sh[warp] = v;
  __syncthreads();
  const int nw = blockDim.x >> 5;
  return warp_max(lane < nw ? sh[lane] : -INFINITY);
}
__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Register-resident rows: thread t holds float4 number k*blockDim + t for k < NV, so each row is read once.
// pick_config chooses NV in {1,2,4,8} and a block size (multiple of 32, <= 1024); returns false when the
// row does not fit (then the generic multi-pass kernel runs).
static bool pick_config(long long D4, int* nv, int* threads) {
  const int cands[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; ++i) {
    long long t = (D4 + cands[i] - 1) / cands[i];
    t = (t + 31) / 32 * 32;
    if (t <= 512) { *nv = cands[i]; *threads = (int)t; return true; }
  }
  long long t = ((D4 + 7) / 8 + 31) / 32 * 32;
  if (t <= 1024) { *nv = 8; *threads = (int)t; return true; }
  return false;
}
static inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
static inline unsigned grid_for(long long rows) { return (unsigned)(rows < 2147483647LL ? rows : 2147483647LL); }

template <int NV>
__global__ void __launch_bounds__(1024)
rmsnorm_reg_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                   long long rows, int D4, float eps) {
  __shared__ float sh[32];
  const int tid = threadIdx.x, nt = blockDim.x;
  const float inv_d = 1.f / (float)(4 * D4);
  const float4* w4 = reinterpret_cast<const float4*>(w);
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x) + row * D4;
    float4* yr = reinterpret_cast<float4*>(y) + row * D4;
    float4 v[NV];
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const int j = k * nt + tid;
      if (j < D4) {
        v[k] = xr[j];
        q += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
      }
    }
    const float r = rsqrtf(block_sum(q, sh) * inv_d + eps);
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const int j = k * nt + tid;
      if (j < D4) {
        const float4 g = w4[j];
        float4 o;
        o.x = v[k].x * r * g.x; o.y = v[k].y * r * g.y; o.z = v[k].z * r * g.z; o.w = v[k].w * r * g.w;
        yr[j] = o;
      }
    }
  }
}

__global__ void __launch_bounds__(512)
rmsnorm_generic_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                       long long rows, long long D, float eps) {
  __shared__ float sh[32];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * D;
    float* yr = y + row * D;
    float q = 0.f;
    for (long long j = threadIdx.x; j < D; j += blockDim.x) { const float v = xr[j]; q += v * v; }
    const float r = rsqrtf(block_sum(q, sh) / (float)D + eps);
    for (long long j = threadIdx.x; j < D; j += blockDim.x) yr[j] = xr[j] * r * w[j];
  }
}

void rms_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor y, double eps) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && y.is_contiguous() && w.is_contiguous(),
              "rms_norm: expected contiguous CUDA tensors");
  TORCH_CHECK(x.scalar_type() == at::ScalarType::Float && y.scalar_type() == at::ScalarType::Float &&
              w.scalar_type() == at::ScalarType::Float, "rms_norm: float32 only");
  const long long D = x.size(-1);
  TORCH_CHECK(w.numel() == D && y.numel() == x.numel(), "rms_norm: shape mismatch");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  if (x.numel() == 0) return;
  const long long rows = x.numel() / D;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const float* xp = x.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  const float e = (float)eps;
  int nv = 0, threads = 0;
  if (D % 4 == 0 && aligned16(xp) && aligned16(yp) && aligned16(wp) && pick_config(D / 4, &nv, &threads)) {
    const int D4 = (int)(D / 4);
    switch (nv) {
      case 1: rmsnorm_reg_kernel<1><<<grid_for(rows), threads, 0, stream>>>(xp, wp, yp, rows, D4, e); break;
      case 2: rmsnorm_reg_kernel<2><<<grid_for(rows), threads, 0, stream>>>(xp, wp, yp, rows, D4, e); break;
      case 4: rmsnorm_reg_kernel<4><<<grid_for(rows), threads, 0, stream>>>(xp, wp, yp, rows, D4, e); break;
      default: rmsnorm_reg_kernel<8><<<grid_for(rows), threads, 0, stream>>>(xp, wp, yp, rows, D4, e); break;
    }
  } else {
    rmsnorm_generic_kernel<<<grid_for(rows), 512, 0, stream>>>(xp, wp, yp, rows, D, e);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""

CPP_SRC = "void rms_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor y, double eps);"

_ext = load_inline(
    name="kg_l1_31_rms_norm",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["rms_norm_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        _ext.rms_norm_forward(x, self.weight.contiguous(), y, float(self.eps))
        return y
