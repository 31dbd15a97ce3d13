"""CUDA solution: tall-skinny x @ W^T on TF32 tensor cores (tiled wmma GEMM, cp.async pipeline) with tanh(relu(. + b) * gamma + beta) fused in the epilogue."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""#include <torch/types.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAException.h>
#include <mma.h>
#include <cstdint>
#include <cmath>

using namespace nvcuda;

// ---------------------------------------------------------------------------------------------------------
// C[M, N] = epi(A[M, K] * B, row, col) with B given as W[N, K] (BT = true, nn.Linear weight) or W[K, N]
// (BT = false). TF32 tensor cores (wmma m16n16k8, fp32 accumulate); block tile 128 x 128 x 32, 8 warps
// with 64 x 32 warp tiles, a 3-stage cp.async pipeline in dynamic shared memory, zero-filled edges.
// ---------------------------------------------------------------------------------------------------------
constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WM = 64, WN = 32;
constexpr int FM = WM / 16, FN = WN / 16;           // 4 x 2 accumulator fragments per warp
constexpr int NTHREADS = (BM / WM) * (BN / WN) * 32;  // 256
constexpr int STAGES = 3;
constexpr int LDA = BK + 4;                          // padded leading dims (floats, multiples of 4)
constexpr int LDB_T = BK + 4;                        // B stored [BN][LDB_T] when BT
constexpr int LDB_N = BN + 4;                        // B stored [BK][LDB_N] when !BT
constexpr int A_STAGE = BM * LDA;
constexpr int B_STAGE = (BN * LDB_T > BK * LDB_N) ? BN * LDB_T : BK * LDB_N;
constexpr size_t SMEM_BYTES = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(float);

__device__ __forceinline__ void cp_async16(float* smem, const float* gmem, bool pred) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  const int n = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <bool BT>
__device__ __forceinline__ void load_tile(float* As, float* Bs, const float* __restrict__ A, const float* __restrict__ B,
                                          int M, int N, int K, int m0, int n0, int k0) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < (BM * BK / 4) / NTHREADS; ++i) {   // A: 128 rows x 8 chunks of 4 floats
    const int c = tid + i * NTHREADS;
    const int r = c >> 3, kc = (c & 7) * 4;
    const bool p = (m0 + r < M) && (k0 + kc < K);
    cp_async16(As + r * LDA + kc, p ? A + (size_t)(m0 + r) * K + k0 + kc : A, p);
  }
  if (BT) {
#pragma unroll
    for (int i = 0; i < (BN * BK / 4) / NTHREADS; ++i) {  // W[N, K]: 128 rows (n) x 8 chunks (k)
      const int c = tid + i * NTHREADS;
      const int r = c >> 3, kc = (c & 7) * 4;
      const bool p = (n0 + r < N) && (k0 + kc < K);
      cp_async16(Bs + r * LDB_T + kc, p ? B + (size_t)(n0 + r) * K + k0 + kc : B, p);
    }
  } else {
#pragma unroll
    for (int i = 0; i < (BN * BK / 4) / NTHREADS; ++i) {  // W[K, N]: 32 rows (k) x 32 chunks (n)
      const int c = tid + i * NTHREADS;
      const int r = c >> 5, nc = (c & 31) * 4;
      const bool p = (k0 + r < K) && (n0 + nc < N);
      cp_async16(Bs + r * LDB_N + nc, p ? B + (size_t)(k0 + r) * N + n0 + nc : B, p);
    }
  }
}

template <bool BT, class Epi>
__global__ void __launch_bounds__(NTHREADS, 2)
gemm_tf32_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int M, int N, int K, Epi epi) {
  extern __shared__ __align__(128) float smem[];
  float* As = smem;
  float* Bs = smem + STAGES * A_STAGE;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wm = (warp / (BN / WN)) * WM;   // warp row offset in the block tile
  const int wn = (warp % (BN / WN)) * WN;   // warp col offset
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.f);

  const int ktiles = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load_tile<BT>(As + s * A_STAGE, Bs + s * B_STAGE, A, B, M, N, K, m0, n0, s * BK);
    cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();   // tile kt visible to all; everyone is done with the stage refilled below
    const int nk = kt + STAGES - 1;
    if (nk < ktiles) load_tile<BT>(As + (nk % STAGES) * A_STAGE, Bs + (nk % STAGES) * B_STAGE, A, B, M, N, K, m0, n0, nk * BK);
    cp_async_commit();
    const float* as = As + (kt % STAGES) * A_STAGE;
    const float* bs = Bs + (kt % STAGES) * B_STAGE;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> af[FM];
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        wmma::load_matrix_sync(af[i], as + (wm + i * 16) * LDA + kk, LDA);
#pragma unroll
        for (int t = 0; t < af[i].num_elements; ++t) af[i].x[t] = wmma::__float_to_tf32(af[i].x[t]);
      }
      if (BT) {
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> bf[FN];
#pragma unroll
        for (int j = 0; j < FN; ++j) {
          wmma::load_matrix_sync(bf[j], bs + (wn + j * 16) * LDB_T + kk, LDB_T);
#pragma unroll
          for (int t = 0; t < bf[j].num_elements; ++t) bf[j].x[t] = wmma::__float_to_tf32(bf[j].x[t]);
        }
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
          for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
      } else {
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> bf[FN];
#pragma unroll
        for (int j = 0; j < FN; ++j) {
          wmma::load_matrix_sync(bf[j], bs + kk * LDB_N + wn + j * 16, LDB_N);
#pragma unroll
          for (int t = 0; t < bf[j].num_elements; ++t) bf[j].x[t] = wmma::__float_to_tf32(bf[j].x[t]);
        }
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
          for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();   // pipeline drained: reuse shared memory as per-warp 16 x 16 staging for the epilogue

  float* stage = smem + warp * 256;
  const int r = lane >> 1, c0 = (lane & 1) * 8;
#pragma unroll
  for (int i = 0; i < FM; ++i) {
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int gm = m0 + wm + i * 16 + r;
      const int gn = n0 + wn + j * 16 + c0;
      if (gm < M) {
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = epi(stage[r * 16 + c0 + e], gm, gn + e);
        float* crow = C + (size_t)gm * N;
        if (gn + 8 <= N && (N & 3) == 0) {
          reinterpret_cast<float4*>(crow + gn)[0] = make_float4(v[0], v[1], v[2], v[3]);
          reinterpret_cast<float4*>(crow + gn)[1] = make_float4(v[4], v[5], v[6], v[7]);
        } else {
#pragma unroll
          for (int e = 0; e < 8; ++e)
            if (gn + e < N) crow[gn + e] = v[e];
        }
      }
      __syncwarp();
    }
  }
}

// Fallback for shapes/alignments the cp.async path cannot take (K or N not a multiple of 4, unaligned
// pointers): a plain 16 x 16 shared-memory tiled fp32 GEMM with the same epilogue.
template <bool BT, class Epi>
__global__ void gemm_simple_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                   int M, int N, int K, Epi epi) {
  __shared__ float As[16][17], Bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
    const int bn = blockIdx.x * 16 + tx;   // B(k0 + ty, bn)
    float bv = 0.f;
    if (k0 + ty < K && bn < N) bv = BT ? B[(size_t)bn * K + k0 + ty] : B[(size_t)(k0 + ty) * N + bn];
    Bs[ty][tx] = bv;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = epi(acc, row, col);
}

static inline bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <bool BT, class Epi>
static void launch_gemm(const float* A, const float* B, float* C, long long M, long long N, long long K, const Epi& epi) {
  TORCH_CHECK(M < (1LL << 31) && N < (1LL << 31) && K < (1LL << 31), "gemm: dimension too large");
  if (M == 0 || N == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const bool fast = (K % 4 == 0) && (BT || N % 4 == 0) && aligned16(A) && aligned16(B) && aligned16(C) &&
                    ((M + BM - 1) / BM) <= 65535;
  if (fast) {
    auto kern = gemm_tf32_kernel<BT, Epi>;
    C10_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES));
    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    kern<<<grid, NTHREADS, SMEM_BYTES, stream>>>(A, B, C, (int)M, (int)N, (int)K, epi);
  } else {
    TORCH_CHECK((M + 15) / 16 <= 65535, "gemm: too many rows for the fallback kernel");
    dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
    gemm_simple_kernel<BT, Epi><<<grid, dim3(16, 16), 0, stream>>>(A, B, C, (int)M, (int)N, (int)K, epi);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

static void check_f32(const torch::Tensor& t, const char* what) {
  TORCH_CHECK(t.is_cuda() && t.is_contiguous() && t.scalar_type() == at::ScalarType::Float, what,
              ": expected a contiguous float32 CUDA tensor");
}

struct Epi {
  const float* b_lin;
  const float* gamma;
  const float* beta;
  __device__ __forceinline__ float operator()(float v, int row, int col) const {
    float y = v + b_lin[col];
    y = y < 0.f ? 0.f : y;
    return tanhf(y * gamma[col] + beta[col]);
  }
};

void linear_relu_affine_tanh_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor gamma,
                                     torch::Tensor beta, torch::Tensor out) {
  check_f32(x, "x"); check_f32(w, "weight"); check_f32(b, "linear bias"); check_f32(gamma, "gamma");
  check_f32(beta, "beta"); check_f32(out, "out");
  const long long K = x.size(-1), N = w.size(0);
  TORCH_CHECK(w.size(1) == K && b.numel() == N && gamma.numel() == N && beta.numel() == N, "shape mismatch");
  const long long M = x.numel() / (K > 0 ? K : 1);
  TORCH_CHECK(out.numel() == M * N, "output shape mismatch");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  const Epi epi{b.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>()};
  launch_gemm<true>(x.data_ptr<float>(), w.data_ptr<float>(), out.data_ptr<float>(), M, N, K, epi);
}
"""

CPP_SRC = "void linear_relu_affine_tanh_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor gamma, torch::Tensor beta, torch::Tensor out);"

_ext = load_inline(
    name="kg_l2_20_linear_tall_skinny_relu_affine_tanh",
    cpp_sources=CPP_SRC,
    cuda_sources=CUDA_SRC,
    functions=["linear_relu_affine_tanh_forward"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    """out = tanh(relu(x @ W^T + b) * gamma + beta)."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gamma = nn.Parameter(torch.rand(out_features) * 2.0 + 0.5)
        self.beta = nn.Parameter(torch.randn(out_features) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        out = torch.empty(list(x.shape[:-1]) + [w.shape[0]], device=x.device, dtype=x.dtype)
        _ext.linear_relu_affine_tanh_forward(x, w, self.linear.bias.contiguous(), self.gamma.contiguous(),
                                             self.beta.contiguous(), out)
        return out
