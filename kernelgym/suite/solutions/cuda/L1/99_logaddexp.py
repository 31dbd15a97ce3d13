"""CUDA solution: stable logaddexp max(x, y) + log1p(exp(-|x - y|)) in one vectorised pass."""
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
  __device__ __forceinline__ float operator()(float x, float y) const {
    if (isinf(x) && x == y) return x;
    const float m = fmaxf(x, y);
    return m + log1pf(expf(-fabsf(x - y)));
  }
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
ew_vec_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, long long npack, Op op) {
  constexpr int V = 16 / sizeof(T);
  using P = Pack<T, V>;
  const P* __restrict__ ap = reinterpret_cast<const P*>(a);
  const P* __restrict__ bp = reinterpret_cast<const P*>(b);
  P* __restrict__ op_ = reinterpret_cast<P*>(out);
  const long long step = (long long)gridDim.x * kThreads * kUnroll;
  for (long long base = (long long)blockIdx.x * kThreads * kUnroll + threadIdx.x; base < npack; base += step) {
    P ab[kUnroll];
    P bb[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const long long i = base + (long long)k * kThreads;
      if (i < npack) ab[k] = ap[i];
      if (i < npack) bb[k] = bp[i];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const long long i = base + (long long)k * kThreads;
      if (i < npack) {
        P r;
#pragma unroll
        for (int e = 0; e < V; ++e) r.e[e] = static_cast<T>(op(static_cast<float>(ab[k].e[e]), static_cast<float>(bb[k].e[e])));
        op_[i] = r;
      }
    }
  }
}

// Scalar path: misaligned pointers and the tail that does not fill a packet.
template <typename T>
__global__ void ew_scalar_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, long long start, long long n, Op op) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = static_cast<T>(op(static_cast<float>(a[i]), static_cast<float>(b[i])));
}

template <typename T>
static void launch_ew(const torch::Tensor& t_a, const torch::Tensor& t_b, torch::Tensor& ot, const Op& op) {
  const long long n = ot.numel();
  if (n == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const T* ap_ = reinterpret_cast<const T*>(t_a.data_ptr());
  const T* bp_ = reinterpret_cast<const T*>(t_b.data_ptr());
  T* op_ptr = reinterpret_cast<T*>(ot.data_ptr());
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (reinterpret_cast<uintptr_t>(ap_) % 16 == 0) && (reinterpret_cast<uintptr_t>(bp_) % 16 == 0) && (reinterpret_cast<uintptr_t>(op_ptr) % 16 == 0);
  const long long npack = aligned ? n / V : 0;
  if (npack > 0) {
    long long blocks = (npack + (long long)kThreads * kUnroll - 1) / ((long long)kThreads * kUnroll);
    if (blocks > (1LL << 20)) blocks = 1LL << 20;
    ew_vec_kernel<T><<<(unsigned)blocks, kThreads, 0, stream>>>(ap_, bp_, op_ptr, npack, op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  const long long done = npack * V;
  if (done < n) {
    long long blocks = (n - done + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    ew_scalar_kernel<T><<<(unsigned)blocks, 256, 0, stream>>>(ap_, bp_, op_ptr, done, n, op);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

void logaddexp_forward(torch::Tensor a, torch::Tensor b, torch::Tensor out) {
  TORCH_CHECK(a.is_cuda() && a.is_contiguous() && a.scalar_type() == out.scalar_type() && a.numel() == out.numel(), "logaddexp_forward: bad input a");
  TORCH_CHECK(b.is_cuda() && b.is_contiguous() && b.scalar_type() == out.scalar_type() && b.numel() == out.numel(), "logaddexp_forward: bad input b");
  TORCH_CHECK(out.is_contiguous(), "logaddexp_forward: output must be contiguous");
  const c10::cuda::OptionalCUDAGuard guard(out.device());
  const Op op{};
  switch (out.scalar_type()) {
    case at::ScalarType::Float: launch_ew<float>(a, b, out, op); break;
    case at::ScalarType::Half: launch_ew<at::Half>(a, b, out, op); break;
    case at::ScalarType::BFloat16: launch_ew<at::BFloat16>(a, b, out, op); break;
    default: TORCH_CHECK(false, "logaddexp_forward: unsupported dtype");
  }
}
"""

CPP_SRC = "void logaddexp_forward(torch::Tensor a, torch::Tensor b, torch::Tensor out);"

_ext = load_inline(
    name="kg_l1_99_logaddexp",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["logaddexp_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        _ext.logaddexp_forward(x, y, out)
        return out
