"""CUDA solution: suffix sums along the last dim in one pass (the row scan run from the end, no flips)."""
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

// Row scan, one block of 256 threads per row. A tile is K * 256 float4 (or floats): thread t owns item
// k * 256 + t of the tile; each item is scanned in-thread, then across the warp with shuffles, then the
// warp totals (in shared memory) give every item its offset. A running carry links the tiles. REV scans
// from the end of the row (suffix sums) by mapping logical index q to physical D - 1 - q.
constexpr int ST = 256;
constexpr int SW = ST / 32;

__device__ __forceinline__ void warp_incl_excl(float v, int lane, float& incl, float& excl) {
  float s = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float n = __shfl_up_sync(0xffffffffu, s, o);
    if (lane >= o) s += n;
  }
  const float e = __shfl_up_sync(0xffffffffu, s, 1);
  incl = s;
  excl = lane == 0 ? 0.f : e;
}

template <int K, bool REV>
__global__ void __launch_bounds__(ST)
cumsum_vec_kernel(const float* __restrict__ x, float* __restrict__ y, long long rows, long long D4) {
  __shared__ float wsum[K][SW];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x) + row * D4;
    float4* yr = reinterpret_cast<float4*>(y) + row * D4;
    float carry = 0.f;
    for (long long base = 0; base < D4; base += (long long)K * ST) {
      float4 v[K];
      float ex[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const long long q = base + k * ST + tid;
        v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (q < D4) {
          const float4 t = xr[REV ? D4 - 1 - q : q];
          v[k] = REV ? make_float4(t.w, t.z, t.y, t.x) : t;
        }
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        v[k].y += v[k].x; v[k].z += v[k].y; v[k].w += v[k].z;
        float incl;
        warp_incl_excl(v[k].w, lane, incl, ex[k]);
        if (lane == 31) wsum[k][warp] = incl;
      }
      __syncthreads();
      float run = carry;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        float before = 0.f, total = 0.f;
#pragma unroll
        for (int w = 0; w < SW; ++w) {
          const float t = wsum[k][w];
          total += t;
          if (w < warp) before += t;
        }
        const float off = run + before + ex[k];
        const long long q = base + k * ST + tid;
        if (q < D4) {
          const float4 o = make_float4(v[k].x + off, v[k].y + off, v[k].z + off, v[k].w + off);
          yr[REV ? D4 - 1 - q : q] = REV ? make_float4(o.w, o.z, o.y, o.x) : o;
        }
        run += total;
      }
      carry = run;
      __syncthreads();
    }
  }
}

template <int K, bool REV>
__global__ void __launch_bounds__(ST)
cumsum_scalar_kernel(const float* __restrict__ x, float* __restrict__ y, long long rows, long long D) {
  __shared__ float wsum[K][SW];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * D;
    float* yr = y + row * D;
    float carry = 0.f;
    for (long long base = 0; base < D; base += (long long)K * ST) {
      float v[K], ex[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const long long q = base + k * ST + tid;
        v[k] = q < D ? xr[REV ? D - 1 - q : q] : 0.f;
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        float incl;
        warp_incl_excl(v[k], lane, incl, ex[k]);
        if (lane == 31) wsum[k][warp] = incl;
      }
      __syncthreads();
      float run = carry;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        float before = 0.f, total = 0.f;
#pragma unroll
        for (int w = 0; w < SW; ++w) {
          const float t = wsum[k][w];
          total += t;
          if (w < warp) before += t;
        }
        const long long q = base + k * ST + tid;
        if (q < D) yr[REV ? D - 1 - q : q] = v[k] + run + before + ex[k];
        run += total;
      }
      carry = run;
      __syncthreads();
    }
  }
}

template <bool REV>
static void launch_cumsum(const torch::Tensor& x, torch::Tensor& y) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous() && y.is_contiguous() && x.scalar_type() == at::ScalarType::Float &&
              y.scalar_type() == at::ScalarType::Float && x.numel() == y.numel() && x.dim() >= 1,
              "cumsum: expected contiguous float32 CUDA tensors");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  const long long D = x.size(-1);
  if (x.numel() == 0 || D == 0) return;
  const long long rows = x.numel() / D;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  if (D % 4 == 0 && aligned16(xp) && aligned16(yp)) {
    cumsum_vec_kernel<4, REV><<<grid_for(rows), ST, 0, stream>>>(xp, yp, rows, D / 4);
  } else {
    cumsum_scalar_kernel<8, REV><<<grid_for(rows), ST, 0, stream>>>(xp, yp, rows, D);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void reverse_cumsum_forward(torch::Tensor x, torch::Tensor y) { launch_cumsum<true>(x, y); }
"""

CPP_SRC = "void reverse_cumsum_forward(torch::Tensor x, torch::Tensor y);"

_ext = load_inline(
    name="kg_l1_47_reverse_cumsum",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["reverse_cumsum_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # suffix sums along dim 1 (the last dim of the 2D input)
        xt = x.movedim(1, x.dim() - 1).contiguous() if x.dim() != 2 else x.contiguous()
        y = torch.empty_like(xt)
        _ext.reverse_cumsum_forward(xt, y)
        return y.movedim(x.dim() - 1, 1) if x.dim() != 2 else y
