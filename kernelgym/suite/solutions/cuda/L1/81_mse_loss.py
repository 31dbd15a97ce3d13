"""CUDA solution: mean squared error: grid-stride float4 partial sums (8 loads in flight per thread) + a deterministic double-precision final pass."""
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

constexpr int MT = 256;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float sq4(const float4 a, const float4 b) {
  const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z, dw = a.w - b.w;
  return (dx * dx + dy * dy) + (dz * dz + dw * dw);
}

// Stage 1: every block writes the sum of squared differences over its grid-stride share.
__global__ void __launch_bounds__(MT)
mse_partial_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ partial,
                   long long n, long long n4) {
  __shared__ float sh[MT / 32];
  const long long stride = (long long)gridDim.x * MT;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float acc0 = 0.f, acc1 = 0.f;
  long long i = (long long)blockIdx.x * MT + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 x0 = a4[i], x1 = a4[i + stride], x2 = a4[i + 2 * stride], x3 = a4[i + 3 * stride];
    const float4 y0 = b4[i], y1 = b4[i + stride], y2 = b4[i + 2 * stride], y3 = b4[i + 3 * stride];
    acc0 += sq4(x0, y0) + sq4(x1, y1);
    acc1 += sq4(x2, y2) + sq4(x3, y3);
  }
  for (; i < n4; i += stride) acc0 += sq4(a4[i], b4[i]);
  for (long long j = 4 * n4 + (long long)blockIdx.x * MT + threadIdx.x; j < n; j += stride) {
    const float d = a[j] - b[j];
    acc1 += d * d;
  }
  float acc = warp_sum(acc0 + acc1);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = warp_sum(threadIdx.x < MT / 32 ? sh[threadIdx.x] : 0.f);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
  }
}

// Stage 2: one block adds the partials in double (fixed order: deterministic) and divides by n.
__global__ void __launch_bounds__(1024)
mse_final_kernel(const float* __restrict__ partial, int np, float* __restrict__ out, double inv_n) {
  __shared__ double sh[32];
  double acc = 0.0;
  for (int i = threadIdx.x; i < np; i += blockDim.x) acc += (double)partial[i];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) out[0] = (float)(acc * inv_n);
  }
}

void mse_forward(torch::Tensor a, torch::Tensor b, torch::Tensor out) {
  TORCH_CHECK(a.is_cuda() && a.is_contiguous() && b.is_contiguous() && a.numel() == b.numel() &&
              a.scalar_type() == at::ScalarType::Float && b.scalar_type() == at::ScalarType::Float &&
              out.scalar_type() == at::ScalarType::Float && out.numel() == 1, "mse: float32 tensors of equal size");
  const c10::cuda::OptionalCUDAGuard guard(a.device());
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const long long n = a.numel();
  const float* ap = a.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  const long long n4 = (aligned16(ap) && aligned16(bp)) ? n / 4 : 0;
  int sms = 0;
  C10_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, a.get_device()));
  long long np = (n4 > 0 ? n4 : n) / MT + 1;
  const long long cap = (long long)sms * 8;
  if (np > cap) np = cap;
  if (np < 1) np = 1;
  torch::Tensor partial = torch::empty({np}, a.options());
  mse_partial_kernel<<<(unsigned)np, MT, 0, stream>>>(ap, bp, partial.data_ptr<float>(), n, n4);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  mse_final_kernel<<<1, 1024, 0, stream>>>(partial.data_ptr<float>(), (int)np, out.data_ptr<float>(),
                                           n > 0 ? 1.0 / (double)n : NAN);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""

CPP_SRC = "void mse_forward(torch::Tensor a, torch::Tensor b, torch::Tensor out);"

_ext = load_inline(
    name="kg_l1_81_mse_loss",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["mse_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        a = predictions.contiguous()
        b = targets.contiguous()
        out = torch.empty((), device=a.device, dtype=a.dtype)
        _ext.mse_forward(a, b, out)
        return out
