"""CUDA solution: row softmax with the row held in registers (one 128-bit load per 4 elements, one read, one write)."""
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

template <int NV, bool LOG>
__global__ void __launch_bounds__(1024)
softmax_reg_kernel(const float* __restrict__ x, float* __restrict__ y, long long rows, int D4) {
  __shared__ float sh[32];
  const int tid = threadIdx.x, nt = blockDim.x;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x) + row * D4;
    float4* yr = reinterpret_cast<float4*>(y) + row * D4;
    float4 v[NV];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const int j = k * nt + tid;
      if (j < D4) { v[k] = xr[j]; m = fmaxf(m, max4(v[k])); }
    }
    m = block_max(m, sh);
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < NV; ++k) {
      const int j = k * nt + tid;
      if (j < D4) {
        float4 e;
        e.x = expf(v[k].x - m); e.y = expf(v[k].y - m); e.z = expf(v[k].z - m); e.w = expf(v[k].w - m);
        s += sum4(e);
        if (!LOG) v[k] = e;
      }
    }
    s = block_sum(s, sh);
    if (LOG) {
      const float ls = logf(s);
#pragma unroll
      for (int k = 0; k < NV; ++k) {
        const int j = k * nt + tid;
        if (j < D4) {
          float4 o;
          o.x = (v[k].x - m) - ls; o.y = (v[k].y - m) - ls; o.z = (v[k].z - m) - ls; o.w = (v[k].w - m) - ls;
          yr[j] = o;
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < NV; ++k) {
        const int j = k * nt + tid;
        if (j < D4) {
          float4 o;
          o.x = v[k].x / s; o.y = v[k].y / s; o.z = v[k].z / s; o.w = v[k].w / s;
          yr[j] = o;
        }
      }
    }
  }
}

// Any row length / alignment: online (max, sum) pass, then a write pass.
template <bool LOG>
__global__ void __launch_bounds__(512)
softmax_generic_kernel(const float* __restrict__ x, float* __restrict__ y, long long rows, long long D) {
  __shared__ float sh[32];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * D;
    float* yr = y + row * D;
    float m = -INFINITY, s = 0.f;
    for (long long j = threadIdx.x; j < D; j += blockDim.x) {
      const float v = xr[j];
      if (v > m) { s = (m == -INFINITY ? 0.f : s * expf(m - v)) + 1.f; m = v; }
      else if (v != -INFINITY) s += expf(v - m);
    }
    const float M = block_max(m, sh);
    const float S = block_sum(m == -INFINITY ? 0.f : s * expf(m - M), sh);
    const float ls = logf(S);
    for (long long j = threadIdx.x; j < D; j += blockDim.x) {
      const float v = xr[j];
      yr[j] = LOG ? (v - M) - ls : expf(v - M) / S;
    }
  }
}

template <bool LOG>
static void launch_softmax(const torch::Tensor& x, torch::Tensor& y) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && y.is_contiguous() && x.scalar_type() == at::ScalarType::Float &&
              y.scalar_type() == at::ScalarType::Float && x.numel() == y.numel() && x.dim() >= 1,
              "softmax: expected contiguous float32 CUDA tensors");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  const long long D = x.size(-1);
  if (x.numel() == 0 || D == 0) return;
  const long long rows = x.numel() / D;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  int nv = 0, threads = 0;
  if (D % 4 == 0 && aligned16(xp) && aligned16(yp) && pick_config(D / 4, &nv, &threads)) {
    const int D4 = (int)(D / 4);
    switch (nv) {
      case 1: softmax_reg_kernel<1, LOG><<<grid_for(rows), threads, 0, stream>>>(xp, yp, rows, D4); break;
      case 2: softmax_reg_kernel<2, LOG><<<grid_for(rows), threads, 0, stream>>>(xp, yp, rows, D4); break;
      case 4: softmax_reg_kernel<4, LOG><<<grid_for(rows), threads, 0, stream>>>(xp, yp, rows, D4); break;
      default: softmax_reg_kernel<8, LOG><<<grid_for(rows), threads, 0, stream>>>(xp, yp, rows, D4); break;
    }
  } else {
    softmax_generic_kernel<LOG><<<grid_for(rows), 512, 0, stream>>>(xp, yp, rows, D);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void softmax_forward(torch::Tensor x, torch::Tensor y) { launch_softmax<false>(x, y); }
"""

CPP_SRC = "void softmax_forward(torch::Tensor x, torch::Tensor y);"

_ext = load_inline(
    name="kg_l1_28_softmax",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["softmax_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # softmax over dim 1 of a 2D input == the last dimension
        x = x.contiguous()
        y = torch.empty_like(x)
        _ext.softmax_forward(x, y)
        return y
