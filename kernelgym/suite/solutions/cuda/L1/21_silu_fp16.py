"""CUDA solution: SiLU x * sigmoid(x) on fp16, 8 elements per 128-bit packet, fp32 math."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""#include <torch/types.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

// 16-byte packet of V elements: one 128-bit load/store per packet.
template <typename T, int V>
struct alignas(16) Pack { T e[V]; };

constexpr int kThreads = 256;
constexpr int kUnroll = 4;   // packets in flight per thread

struct Op {
  __device__ __forceinline__ float operator()(float x) const {
    return x / (1.f + expf(-x));
  }
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
ew_vec_kernel(const T* __restrict__ a, T* __restrict__ out, long long npack, Op op) {
  constexpr int V = 16 / sizeof(T);
  using P = Pack<T, V>;
  const P* __restrict__ ap = reinterpret_cast<const P*>(a);
  P* __restrict__ op_ = reinterpret_cast<P*>(out);
  const long long step = (long long)gridDim.x * kThreads * kUnroll;
  for (long long base = (long long)blockIdx.x * kThreads * kUnroll + threadIdx.x; base < npack; base += step) {
    P ab[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const long long i = base + (long long)k * kThreads;
      if (i < npack) ab[k] = ap[i];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const long long i = base + (long long)k * kThreads;
      if (i < npack) {
        P r;
#pragma unroll
        for (int e = 0; e < V; ++e) r.e[e] = static_cast<T>(op(static_cast<float>(ab[k].e[e])));
        op_[i] = r;
      }
    }
  }
}

// Scalar path: misaligned pointers and the tail that does not fill a packet.
template <typename T>
__global__ void ew_scalar_kernel(const T* __restrict__ a, T* __restrict__ out, long long start, long long n, Op op) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = static_cast<T>(op(static_cast<float>(a[i])));
}

template <typename T>
static void launch_ew(const torch::Tensor& t_a, torch::Tensor& ot, const Op& op) {
  const long long n = ot.numel();
  if (n == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const T* ap_ = reinterpret_cast<const T*>(t_a.data_ptr());
  T* op_ptr = reinterpret_cast<T*>(ot.data_ptr());
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (reinterpret_cast<uintptr_t>(ap_) % 16 == 0) && (reinterpret_cast<uintptr_t>(op_ptr) % 16 == 0);
  const long long npack = aligned ? n / V : 0;
  if (npack > 0) {
    long long blocks = (npack + (long long)kThreads * kUnroll - 1) / ((long long)kThreads * kUnroll);
    if (blocks > (1LL << 20)) blocks = 1LL << 20;
    ew_vec_kernel<T><<<(unsigned)blocks, kThreads, 0, stream>>>(ap_, op_ptr, npack, op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  const long long done = npack * V;
  if (done < n) {
    long long blocks = (n - done + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    ew_scalar_kernel<T><<<(unsigned)blocks, 256, 0, stream>>>(ap_, op_ptr, done, n, op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

void silu_fp16_forward(torch::Tensor a, torch::Tensor out) {
  TORCH_CHECK(a.is_cuda() && a.is_contiguous() && a.scalar_type() == out.scalar_type() && a.numel() == out.numel(), "silu_fp16_forward: bad input a");
  TORCH_CHECK(out.is_contiguous(), "silu_fp16_forward: output must be contiguous");
  const c10::cuda::OptionalCUDAGuard guard(out.device());
  const Op op{};
  switch (out.scalar_type()) {
    case at::ScalarType::Float: launch_ew<float>(a, out, op); break;
    case at::ScalarType::Half: launch_ew<at::Half>(a, out, op); break;
    case at::ScalarType::BFloat16: launch_ew<at::BFloat16>(a, out, op); break;
    default: TORCH_CHECK(false, "silu_fp16_forward: unsupported dtype");
  }
}
"""

CPP_SRC = "void silu_fp16_forward(torch::Tensor a, torch::Tensor out);"

_ext = load_inline(
    name="kg_l1_21_silu_fp16",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["silu_fp16_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        _ext.silu_fp16_forward(x, y)
        return y
