// block_reduce.cuh — the fixed-order warp and block sums shared by the
// one-launch kernels (layout.cu) and gpu-cluster-dsmem (cluster_dsmem.cu):
// a butterfly over the warp's 32 lanes, then the warps' sums in lane order,
// so every call on the same values gives the same bits.
#pragma once

namespace prlab {
namespace dev {

__device__ __forceinline__ float warpAllSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warpAllSum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block sum (blockDim.x a multiple of 32); the result is valid in warp 0.
// scratch holds 32 values; the trailing barrier lets the caller reuse it.
template <class T> __device__ T blockSum(T v, T *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warpAllSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T r = T(0);
  if (warp == 0) {
    r = lane < warps ? scratch[lane] : T(0);
    r = warpAllSum(r);
  }
  __syncthreads();
  return r;
}

} // namespace dev
} // namespace prlab
