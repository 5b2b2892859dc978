// block_reduce.cuh — the fixed-order warp and block sums shared by the
// one-launch kernels (layout.cu), gpu-cluster-dsmem (cluster_dsmem.cu) and
// gpu-prop-blocking (propblock.cu):
// a butterfly over the warp's 32 lanes, then the warps' sums in lane order,
// so every call on the same values gives the same bits; the batched gather
// of a block; the row sums of a tile staged in shared memory (thread per
// light row, warp per heavy row) and the store of a block's residual and
// sum partials; and the residual test of the one-cluster kernels.
#pragma once

#include <cooperative_groups.h>

namespace prlab {
namespace dev {

// The warp's sum by a five-step shuffle tree (offsets 16, 8, 4, 2, 1):
// kAll, a butterfly (__shfl_xor_sync), leaves it in every lane; else
// (__shfl_down_sync) it is valid in lane 0 only.
template <bool kAll, class T> __device__ __forceinline__ T warpTreeSum(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    if constexpr (kAll) {
      v += __shfl_xor_sync(0xffffffffu, v, o);
    } else {
      v += __shfl_down_sync(0xffffffffu, v, o);
    }
  }
  return v;
}
// The butterfly: the same bits in every lane.
template <class T> __device__ __forceinline__ T warpAllSum(T v) { return warpTreeSum<true>(v); }

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

// The batched gather of a block: for its threads' strided share of edges
// e in [0, edges), kBatch values load(e) in flight per thread (all loads of
// a batch issued before the first is used; 0 past edges), each batch handed
// to use(v, base) with v[u] the value of edge base + u * blockDim.x.
template <int kBatch, class LoadF, class UseF>
__device__ __forceinline__ void batchedLoads(int edges, LoadF load, UseF use) {
  const int bd = blockDim.x;
  for (int base = threadIdx.x; base < edges; base += kBatch * bd) {
    float v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = base + u * bd;
      v[u] = e < edges ? load(e) : 0.0f;
    }
    use(v, base);
  }
}

// vals[e] = load(e) for e in [0, edges), kBatch loads in flight per thread.
template <int kBatch, class LoadF> __device__ __forceinline__ void gatherBatched(float *vals, int edges, LoadF load) {
  const int bd = blockDim.x;
  batchedLoads<kBatch>(edges, load, [&](const float *v, int base) {
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int e = base + u * bd;
      if (e < edges) vals[e] = v[u];
    }
  });
}

// The row sums of a tile whose rows are staged in shared memory (row i has
// the edges [rp[i], rp[i + 1])): every row of at most kLight edges by one
// thread (rows strided over the block), then each heavy row heavyRow(h),
// h in [h0, h1), by one warp (strided over the block's warps; lane l adds
// edges l, l + 32, .., then the butterfly). sum(j, end, step) adds the
// values of edges j, j + step, .. < end in that order; finish(i, s) gets
// row i's sum (in lane 0 for a heavy row).
template <int kLight, class HeavyRowF, class SumF, class FinishF>
__device__ __forceinline__ void tileRowSums(const int *rp, int rows, int h0, int h1, HeavyRowF heavyRow, SumF sum,
                                            FinishF finish) {
  const int tid = threadIdx.x, bd = blockDim.x, lane = tid & 31, warp = tid >> 5, warps = bd >> 5;
  for (int i = tid; i < rows; i += bd) {
    const int b = rp[i], en = rp[i + 1];
    if (en - b <= kLight) finish(i, sum(b, en, 1));
  }
  for (int h = h0 + warp; h < h1; h += warps) {
    const int i = heavyRow(h);
    const float s = warpAllSum(sum(rp[i] + lane, rp[i + 1], 32));
    if (lane == 0) finish(i, s);
  }
}

// The sum functor of tileRowSums over values staged per edge: vals[j] + vals[j + step] + ...
struct StagedSum {
  const float *vals;
  __device__ __forceinline__ float operator()(int j, int end, int step) const {
    float s = 0.0f;
    for (; j < end; j += step) s += vals[j];
    return s;
  }
};

// Thread 0 stores the block's residual and rank-sum partials of an
// iteration (correctness runs): blockSum of res (scratch fs) and of sum
// (scratch ds) into *rOut and *sOut.
__device__ __forceinline__ void storeBlockPartials(float res, double sum, float *fs, double *ds, float *rOut,
                                                   double *sOut) {
  res = blockSum(res, fs);
  sum = blockSum(sum, ds);
  if (threadIdx.x == 0) {
    *rOut = res;
    *sOut = sum;
  }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Warp 0 of each block of a one-cluster kernel (gpu-cluster, gpu-cluster-dsmem):
// the L1 residual and the sum of iteration k-1 from every block's partials
// rPart and sPart (this parity's slot, read through distributed shared memory
// by lanes 0..C-1, summed in lane order: the same bits in every block);
// block 0 records them in in.residHist / in.sumHist and the control words
// in.ctl [stopped 0, done 1, converged 3]: after the last iteration (last)
// done = k and converged when r < tol; else, when r < tol, done, converged
// and stopped. Returns whether r < tol (a positive tolerance).
template <class Inst>
__device__ int clusterResidualTest(cooperative_groups::cluster_group &cl, float *rPart, double *sPart, int k, bool last,
                                   const Inst &in) {
  const int lane = threadIdx.x & 31, C = static_cast<int>(cl.num_blocks());
  const float r = warpAllSum(lane < C ? *cl.map_shared_rank(rPart, lane) : 0.0f);
  const double s = warpAllSum(lane < C ? *cl.map_shared_rank(sPart, lane) : 0.0);
  const int stop = in.tol > 0.0f && r < in.tol;
  if (cl.block_rank() == 0 && lane == 0) {
    in.residHist[k - 1] = r;
    in.sumHist[k - 1] = s;
    if (last || stop) {
      in.ctl[1] = k;
      if (stop) in.ctl[3] = 1;
      if (!last && stop) in.ctl[0] = 1;
    }
  }
  return stop;
}
#endif

} // namespace dev
} // namespace prlab
