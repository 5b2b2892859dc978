// layout.cu — the layout designs (built on a layout computed once per
// uploaded graph: T4 buckets, CSR-Adaptive tiles, the persistent and cluster
// grids) and the primitives that explain their times.
//
//   T4 bucketed   rows split once (at first use) by in-degree into
//                 thread-per-row (<= 32), warp-per-row (33..1024) and
//                 block-per-row (> 1024) lists (Merrill & Garland's / Gunrock's
//                 degree bucketing); one SpMV launch per non-empty bucket,
//                 then one fused combine that also scales the next
//                 contribution vector and writes the next dangling partials.
//   fused         ONE launch per iteration: CSR-Adaptive row tiles
//                 (Greathouse & Daga, SC14: a tile's gathered values are
//                 staged in shared memory, then reduced thread per row, warp
//                 per row for in-degree > 32, a whole block for a row longer
//                 than a tile) + combine + next contribution + next dangling
//                 partials. The dangling mass D_k of iteration k was folded
//                 into iteration k-1's combine: every block re-sums the G
//                 per-block partials in a fixed order (same bits everywhere).
//   graph         the fused kernel captured in a CUDA Graph: the timed run is
//                 one graph launch (prologue + every iteration); correctness
//                 runs replay a graph of K iterations and read one int per K.
//   persistent    one cooperative launch for all iterations (grid sized by
//                 occupancy), the fused iteration body, one grid.sync() per
//                 iteration; the residual is tested on the device.
//   cluster       one thread-block cluster (16 blocks where the device allows
//                 a non-portable size, else 8) holds the whole graph, the
//                 ranks and the contributions in shared memory; the SpMV
//                 gathers through distributed shared memory, one
//                 cluster.sync() per iteration (sm_90 only).
//
// Determinism: every reduction sums in a fixed order (no float atomics), so
// a run gives the same bits each time.
//
// Bytes (device memory, per timed iteration; the course's counting rule: each
// element a kernel loads or stores counts once, the O(gridDim) partials, the
// tile table and the heavy-row lists are not counted):
//   T4:         per bucket 16 rows_b + 8 nnz_b (row id 4, rowPtr[v], rowPtr[v+1] 8, y 4;
//               colIdx 4 + contrib[col] 4 per edge); combine 16n (y, invOut, x', contrib')
//               -> 32n + 8nnz
//   fused, graph, persistent: rowPtr 4(n+1), colIdx 4nnz, contrib[col] 4nnz, invOut 4n,
//               x' 4n, contrib' 4n -> 16n + 8nnz + 4
//   cluster:    the same loads and stores, served by (distributed) shared memory:
//               0 bytes of device memory per iteration after the one-time load.
// Correctness runs add x 4n per iteration for the residual (never timed).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "block_reduce.cuh"
#include "cluster_dsmem.cuh"
#include "family.cuh"
#include "layout.cuh"

namespace cg = cooperative_groups;

namespace prlab {

// This file's own argument checks: the codes of its designs and stages.
bool layoutImplInRange(int impl);
bool layoutStageInRange(int stage);

namespace fr {

constexpr int kThreads = 256;          // fused / persistent / T4 block size
constexpr int kLight = 32;             // thread per row up to this in-degree
constexpr int kWarpMax = 1024;         // T4: warp per row up to this in-degree
constexpr int kClusterThreads = 1024;  // cluster kernel block size
constexpr int kMaxCluster = 16;
constexpr int kOwnerShift = 27;        // packed column: owner rank << 27 | local row
constexpr unsigned kLocalMask = (1u << kOwnerShift) - 1u;
static_assert(kLocalMask == 0x07ffffffu, "packed column layout");

enum { kCtlStopped = 0, kCtlDone = 1, kCtlBase = 2, kCtlConverged = 3, kCtlCount = 4 };

// ------------------------------------------------------------------ device helpers

using dev::blockSum; // block_reduce.cuh
using dev::warpAllSum;

// Fixed-order sum of p[0..count) by one warp (lane-strided, then a butterfly):
// every lane of every block that calls it gets the same bits.
template <class T> __device__ T warpSumArray(const T *p, int count) {
  const int lane = threadIdx.x & 31;
  T v = T(0);
  for (int i = lane; i < count; i += 32) v += p[i];
  return warpAllSum(v);
}

struct DevGraph {
  const int *rowPtr;
  const int *colIdx;
  const float *invOut;
  const int4 *tiles;      // [numTiles] {r0, r1, e0, e1}
  const int *heavyStart;  // [numTiles+1] heavy rows of tile t: heavy[heavyStart[t] .. heavyStart[t+1])
  const int *heavy;       // rows of in-degree > kLight inside normal tiles
  int numTiles, tileEdges, tileRows, n;
  int resEdges; // capacity of the persistent kernel's resident column indices (>= tileEdges)
};

// Device vectors, ping-pong by parity p: iteration k reads parity k%2 and
// writes the other one.
struct Vec {
  float *x[2];
  float *contrib[2];
  float *dPart[2]; // per-block dangling mass of x[parity]
  float *rPart[2]; // per-block L1 residual of the iteration that wrote x[parity]
  double *sPart[2]; // per-block sum of x[parity] (double)
};

// The pointers of one iteration (parity p in, 1-p out), chosen with selects
// so that no kernel indexes a parameter array with a run-time value (which
// would copy the array to local memory).
struct Ptrs {
  float *xIn, *xOut, *cIn, *cOut;
  float *dIn, *dOut, *rIn, *rOut;
  double *sIn, *sOut;
};

__host__ __device__ __forceinline__ Ptrs ptrsOf(const Vec &V, int p) {
  const bool o = p != 0;
  return Ptrs{o ? V.x[1] : V.x[0],         o ? V.x[0] : V.x[1],
              o ? V.contrib[1] : V.contrib[0], o ? V.contrib[0] : V.contrib[1],
              o ? V.dPart[1] : V.dPart[0],   o ? V.dPart[0] : V.dPart[1],
              o ? V.rPart[1] : V.rPart[0],   o ? V.rPart[0] : V.rPart[1],
              o ? V.sPart[1] : V.sPart[0],   o ? V.sPart[0] : V.sPart[1]};
}

struct Coef {
  float tele, d, invN, x0;
};

// Instrumentation of correctness runs: residual and sum history, control words.
struct Inst {
  float *residHist;
  double *sumHist;
  int *ctl; // kCtl*
  float tol;
};

struct Acc {
  float dang = 0.0f, res = 0.0f;
  double sum = 0.0;
};

struct Shared {
  float D;
  int stop;
};

// x'[v] = (1-d)/n + d (y + D/n) (the course's combine, same expression),
// contrib'[v] = x'[v] / outdeg(v), dangling mass of x' accumulated where
// 1/outdeg = 0 (the upload's invOut is 0 exactly on dangling nodes).
template <bool kInstr>
__device__ __forceinline__ void finishRowIv(int v, float s, float D, float iv, const Ptrs &P,
                                            const Coef &c, Acc &a) {
  const float xn = c.tele + c.d * (s + D * c.invN);
  P.xOut[v] = xn;
  P.cOut[v] = xn * iv;
  if (iv == 0.0f) a.dang += xn;
  if (kInstr) {
    a.res += fabsf(xn - P.xIn[v]);
    a.sum += static_cast<double>(xn);
  }
}

template <bool kInstr>
__device__ __forceinline__ void finishRow(int v, float s, float D, const Ptrs &P,
                                          const float *invOut, const Coef &c, Acc &a) {
  finishRowIv<kInstr>(v, s, D, __ldg(invOut + v), P, c, a);
}

// Early dangling sum (timed runs of the resident kernels): warp 0 issues the
// loads of the first 32*kPre partials before its share of the gather and
// adds them after it, so the two L2 round trips overlap. Same order as
// warpSumArray: lane-strided ascending, then the butterfly.
constexpr int kPre = 8;
struct PrePartials {
  float v[kPre];
};
__device__ __forceinline__ void preloadPartials(PrePartials &pp, const float *p, int G) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int j = 0; j < kPre; ++j) {
    const int i = lane + 32 * j;
    pp.v[j] = i < G ? p[i] : 0.0f;
  }
}
__device__ __forceinline__ float finishPartials(const PrePartials &pp, const float *p, int G) {
  const int lane = threadIdx.x & 31;
  float v = 0.0f;
#pragma unroll
  for (int j = 0; j < kPre; ++j) v += pp.v[j];
  for (int i = lane + 32 * kPre; i < G; i += 32) v += p[i];
  return warpAllSum(v);
}

// Warp 0: D_k from the partials of x_k, and (correctness runs) the residual
// and sum of iteration k-1, the convergence test, the history. Thread 0
// publishes D and the stop decision in sh (read after the next barrier).
template <bool kInstr>
__device__ void beginIteration(int k, int G, const Ptrs &P, const Inst &in, Shared &sh) {
  if (threadIdx.x >= 32) return;
  const float D = warpSumArray(P.dIn, G);
  int stop = 0;
  if (kInstr) {
    stop = *reinterpret_cast<volatile int *>(in.ctl + kCtlStopped);
    if (!stop && k > 0) {
      const float r = warpSumArray(P.rIn, G);
      const double s = warpSumArray(P.sIn, G);
      stop = in.tol > 0.0f && r < in.tol;
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        in.residHist[k - 1] = r;
        in.sumHist[k - 1] = s;
        if (stop) {
          in.ctl[kCtlDone] = k;
          in.ctl[kCtlConverged] = 1;
          in.ctl[kCtlStopped] = 1;
        }
      }
    }
  }
  if (threadIdx.x == 0) {
    sh.D = D;
    sh.stop = stop;
  }
}

// Block reductions of the iteration's accumulators into the partials of parity 1-p.
template <bool kInstr>
__device__ void endIteration(const Acc &a, const Ptrs &P, float *fs, double *ds) {
  const float dsum = blockSum(a.dang, fs);
  if (threadIdx.x == 0) P.dOut[blockIdx.x] = dsum;
  if (kInstr) {
    const float r = blockSum(a.res, fs);
    const double s = blockSum(a.sum, ds);
    if (threadIdx.x == 0) {
      P.rOut[blockIdx.x] = r;
      P.sOut[blockIdx.x] = s;
    }
  }
}

// Warp 0 of one block, after the last iteration k-1 = iters-1.
__device__ void finalizeLast(int k, int G, const Ptrs &P, const Inst &in) {
  const float r = warpSumArray(P.rIn, G);
  const double s = warpSumArray(P.sIn, G);
  if (threadIdx.x == 0) {
    in.residHist[k - 1] = r;
    in.sumHist[k - 1] = s;
    in.ctl[kCtlDone] = k;
    if (in.tol > 0.0f && r < in.tol) in.ctl[kCtlConverged] = 1;
  }
}

// Gathers vals[e] = cin[col(e)] for e in [0, edges) with kBatch loads in
// flight per thread: all loads of a batch are issued before the first
// shared-memory store. (A plain loop serialises one L2 round trip per
// blockDim.x edges: cin is a generic pointer that may alias shared memory,
// so the compiler keeps each load after the previous store; run 1 of the
// layout-design notes (NOTES.md) measured about 0.27 us per extra round trip.) cin is read
// with ld.global.cg (L2, no L1 allocation): inside a persistent kernel the
// vector was written by other SMs since the last barrier.
// kCoherent selects the load: true (persistent kernel) reads cin with
// ld.global.cg as above; false (one launch per iteration: cin is read-only
// for the whole launch, written by the previous one) reads it with
// ld.global.nc (__ldg), which may allocate in L1, so a hot contribution line
// is served by each SM's L1 instead of queueing at one L2 slice (NOTES,
// "locality": the relabelled R-MAT graph concentrates the hubs' lines).
constexpr int kBatch = 8;
template <bool kCoherent> __device__ __forceinline__ float loadContrib(const float *p) {
  if constexpr (kCoherent) {
    return __ldcg(p);
  } else {
    return __ldg(p);
  }
}
template <bool kCoherent, class ColF>
__device__ __forceinline__ void stageGather(float *vals, int edges, const float *cin, ColF col) {
  dev::gatherBatched<kBatch>(vals, edges, [&](int e) { return loadContrib<kCoherent>(cin + col(e)); });
}

// Sum of cin[col(e)] over the thread's strided share of [0, edges), kBatch
// loads in flight (block-per-row tiles).
template <bool kCoherent, class ColF>
__device__ __forceinline__ float stridedSum(int edges, const float *cin, ColF col) {
  float s = 0.0f;
  dev::batchedLoads<kBatch>(edges, [&](int e) { return loadContrib<kCoherent>(cin + col(e)); },
                            [&](const float *v, int) {
#pragma unroll
                              for (int u = 0; u < kBatch; ++u) s += v[u];
                            });
  return s;
}

// The SpMV + combine of one iteration over the block's tiles (CSR-Adaptive).
// vals: tileEdges floats, rp: tileRows+1 ints of dynamic shared memory.
// pp != nullptr (timed runs): warp 0 issued the dangling partials' loads
// before the call; it finishes D_k after its share of the first tile's
// gather and publishes it in sh before the tile's barrier.
template <bool kInstr, bool kCoherent>
__device__ void processTiles(const DevGraph &g, const Ptrs &P, const Coef &c, Shared &sh,
                             float *vals, int *rp, float *fs, Acc &a, const PrePartials *pp) {
  const int tid = threadIdx.x, bd = blockDim.x, lane = tid & 31, warp = tid >> 5,
            warps = bd >> 5;
  const float *cin = P.cIn;
  bool needD = pp != nullptr;
  auto publishD = [&]() {
    if (needD && warp == 0) {
      const float D = finishPartials(*pp, P.dIn, gridDim.x);
      if (lane == 0) sh.D = D;
    }
    needD = false;
  };
  for (int t = blockIdx.x; t < g.numTiles; t += gridDim.x) {
    const int4 tl = __ldg(g.tiles + t);
    const int r0 = tl.x, r1 = tl.y, e0 = tl.z, e1 = tl.w;
    const int *col = g.colIdx + e0;
    if (e1 - e0 > g.tileEdges) { // one row longer than a tile: the whole block
      const float iv = __ldg(g.invOut + r0);
      float s = stridedSum<kCoherent>(e1 - e0, cin, [&](int e) { return __ldg(col + e); });
      publishD();
      s = blockSum(s, fs);
      if (tid == 0) finishRowIv<kInstr>(r0, s, sh.D, iv, P, c, a);
      continue;
    }
    const int rows = r1 - r0;
    const float ivFirst = tid < rows ? __ldg(g.invOut + r0 + tid) : 0.0f; // overlaps the gather
    for (int i = tid; i <= rows; i += bd) rp[i] = __ldg(g.rowPtr + r0 + i) - e0;
    stageGather<kCoherent>(vals, e1 - e0, cin, [&](int e) { return __ldg(col + e); });
    publishD();
    __syncthreads();
    const float D = sh.D;
    // dev::tileRowSums written out: through the helper (the heavy rows' bounds loaded before the light
    // rows, ivFirst selected for heavy rows too: 1616 -> 1656 instructions) gpu-fused and gpu-graph were
    // 3-5 % slower on the H200 (A/B of 2026-12-02, NOTES.md "The row-sum helper").
    for (int i = tid; i < rows; i += bd) {
      const int b = rp[i], en = rp[i + 1];
      if (en - b <= kLight) {
        float s = 0.0f;
        for (int j = b; j < en; ++j) s += vals[j];
        const float iv = i == tid ? ivFirst : __ldg(g.invOut + r0 + i);
        finishRowIv<kInstr>(r0 + i, s, D, iv, P, c, a);
      }
    }
    const int hEnd = __ldg(g.heavyStart + t + 1);
    for (int h = __ldg(g.heavyStart + t) + warp; h < hEnd; h += warps) {
      const int v = __ldg(g.heavy + h);
      const int b = rp[v - r0], en = rp[v - r0 + 1];
      float s = 0.0f;
      for (int j = b + lane; j < en; j += 32) s += vals[j];
      s = warpAllSum(s);
      if (lane == 0) finishRow<kInstr>(v, s, D, P, g.invOut, c, a);
    }
    __syncthreads(); // the next tile overwrites vals and rp
  }
  publishD(); // a block without tiles (not launched: grids never exceed the tile count)
}

// x_0 = 1/n, contrib_0 = x_0 / outdeg, dangling partials of x_0 (parity 0).
__device__ void prologueBody(const DevGraph &g, const Vec &V, const Coef &c, float *fs) {
  float dang = 0.0f;
  const int stride = gridDim.x * blockDim.x;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < g.n; v += stride) {
    const float iv = __ldg(g.invOut + v);
    V.x[0][v] = c.x0;
    V.contrib[0][v] = c.x0 * iv;
    if (iv == 0.0f) dang += c.x0;
  }
  dang = blockSum(dang, fs);
  if (threadIdx.x == 0) V.dPart[0][blockIdx.x] = dang;
}

// ------------------------------------------------------------------ kernels

__global__ void __launch_bounds__(kThreads) prologueKernel(DevGraph g, Vec V, Coef c) {
  __shared__ float fs[32];
  prologueBody(g, V, c, fs);
}

// The fused iteration: one launch = one PageRank iteration.
template <bool kInstr>
__global__ void __launch_bounds__(kThreads) iterKernel(DevGraph g, Vec V, Coef c, int kRel, int p,
                                                       Inst in) {
  extern __shared__ float dyn[];
  __shared__ float fs[32];
  __shared__ double ds[32];
  __shared__ Shared sh;
  const int k = kInstr ? kRel + in.ctl[kCtlBase] : kRel;
  const Ptrs P = ptrsOf(V, p);
  PrePartials pp;
  if (kInstr) {
    beginIteration<kInstr>(k, gridDim.x, P, in, sh);
    __syncthreads();
    if (sh.stop) return;
  } else if (threadIdx.x < 32) {
    preloadPartials(pp, P.dIn, gridDim.x); // D_k is finished after the first gather
  }
  Acc a;
  processTiles<kInstr, false>(g, P, c, sh, dyn, reinterpret_cast<int *>(dyn + g.tileEdges), fs, a,
                       kInstr ? nullptr : &pp);
  endIteration<kInstr>(a, P, fs, ds);
}

// After the last iteration of a correctness run (one warp).
__global__ void finishKernel(Vec V, int kRel, int p, int G, Inst in) {
  if (*reinterpret_cast<volatile int *>(in.ctl + kCtlStopped)) return;
  finalizeLast(kRel + in.ctl[kCtlBase], G, ptrsOf(V, p), in);
}

// End of a K-iteration graph replay: the next replay's iterations are base + kRel.
__global__ void advanceKernel(int *ctl, int K) {
  if (!ctl[kCtlStopped]) ctl[kCtlBase] += K;
}

// All iterations in one cooperative launch; one grid.sync() per iteration.
// resident != 0 (the host sets it when every block owns exactly one tile and
// the tile fits): the block's tile descriptor, column indices (also of a
// block-per-row tile, up to g.resEdges), row offsets, 1/outdeg and heavy rows
// are loaded into shared memory once, so an iteration's critical path is one
// L2 round trip (the contrib gather) plus the barrier.
// Dynamic shared memory: vals[T], then either rp[R+1] (not resident) or
// colS[resEdges], rpS[R+1], invS[R], hS[R] (resident).
template <bool kInstr>
__global__ void __launch_bounds__(kThreads) persistentKernel(DevGraph g, Vec V, Coef c, int iters,
                                                             Inst in, int resident) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float dyn[];
  __shared__ float fs[32];
  __shared__ double ds[32];
  __shared__ Shared sh;
  const int tid = threadIdx.x, bd = blockDim.x, lane = tid & 31, warp = tid >> 5, warps = bd >> 5;
  const int T = g.tileEdges, R = g.tileRows;
  float *vals = dyn;
  int *colS = reinterpret_cast<int *>(dyn + T);
  int *rpS = colS + g.resEdges;
  float *invS = reinterpret_cast<float *>(rpS + R + 1);
  int *hS = reinterpret_cast<int *>(invS + R);
  int r0 = 0, rows = 0, edges = 0, nh = 0;
  float ivBlock = 0.0f;
  bool haveTile = false, blockTile = false;
  prologueBody(g, V, c, fs);
  if (resident && blockIdx.x < g.numTiles) {
    const int4 tl = __ldg(g.tiles + blockIdx.x);
    r0 = tl.x;
    rows = tl.y - tl.x;
    const int e0 = tl.z;
    edges = tl.w - tl.z;
    haveTile = true;
    blockTile = edges > T;
    for (int e = tid; e < edges; e += bd) colS[e] = __ldg(g.colIdx + e0 + e);
    if (blockTile) {
      ivBlock = __ldg(g.invOut + r0);
    } else {
      for (int i = tid; i <= rows; i += bd) rpS[i] = __ldg(g.rowPtr + r0 + i) - e0;
      for (int i = tid; i < rows; i += bd) invS[i] = __ldg(g.invOut + r0 + i);
      const int h0 = __ldg(g.heavyStart + blockIdx.x);
      nh = __ldg(g.heavyStart + blockIdx.x + 1) - h0;
      for (int h = tid; h < nh; h += bd) hS[h] = __ldg(g.heavy + h0 + h) - r0;
    }
  }
  grid.sync(); // also orders the shared-memory writes above
  int p = 0, k = 0;
  for (; k < iters; ++k) {
    const Ptrs P = ptrsOf(V, p);
    PrePartials pp;
    if (kInstr) {
      beginIteration<kInstr>(k, gridDim.x, P, in, sh);
      __syncthreads();
      if (sh.stop) break; // the same decision in every block (same partials, same order)
    } else if (warp == 0) {
      preloadPartials(pp, P.dIn, gridDim.x); // finished after the gather: the round trips overlap
    }
    auto publishD = [&]() {
      if (!kInstr && warp == 0) {
        const float D = finishPartials(pp, P.dIn, gridDim.x);
        if (lane == 0) sh.D = D;
      }
    };
    Acc a;
    if (!resident) {
      processTiles<kInstr, true>(g, P, c, sh, dyn, reinterpret_cast<int *>(dyn + T), fs, a,
                           kInstr ? nullptr : &pp);
    } else if (haveTile && blockTile) { // one long row: the whole block
      float sum = stridedSum<true>(edges, P.cIn, [&](int e) { return colS[e]; });
      publishD();
      sum = blockSum(sum, fs);
      if (tid == 0) finishRowIv<kInstr>(r0, sum, sh.D, ivBlock, P, c, a);
    } else if (haveTile) {
      stageGather<true>(vals, edges, P.cIn, [&](int e) { return colS[e]; });
      publishD();
      __syncthreads();
      const float D = sh.D;
      // dev::tileRowSums written out: through the helper ptxas (CUDA 11.8, sm_90)
      // gives the timed kernel 48 registers and an 8-byte spill instead of 64 and
      // none, and with them another occupancy and grid (NOTES.md, the row-sum helper).
      for (int i = tid; i < rows; i += bd) {
        const int b = rpS[i], en = rpS[i + 1];
        if (en - b <= kLight) {
          float sum = 0.0f;
          for (int j = b; j < en; ++j) sum += vals[j];
          finishRowIv<kInstr>(r0 + i, sum, D, invS[i], P, c, a);
        }
      }
      for (int h = warp; h < nh; h += warps) {
        const int i = hS[h];
        const int b = rpS[i], en = rpS[i + 1];
        float sum = 0.0f;
        for (int j = b + lane; j < en; j += 32) sum += vals[j];
        sum = warpAllSum(sum);
        if (lane == 0) finishRowIv<kInstr>(r0 + i, sum, D, invS[i], P, c, a);
      }
    } else {
      publishD(); // no tile (not expected: the grid is one block per tile)
    }
    endIteration<kInstr>(a, P, fs, ds);
    grid.sync();
    p ^= 1;
  }
  if (kInstr && k == iters && blockIdx.x == 0 && threadIdx.x < 32)
    finalizeLast(k, gridDim.x, ptrsOf(V, p), in);
}

// T4 bucket SpMVs: y[v] = sum of contrib[u] over in-edges, v from a bucket's row list.
__global__ void __launch_bounds__(kThreads) t4ThreadKernel(const int *rows, int cnt, const int *rowPtr,
                                                           const int *colIdx, const float *cin,
                                                           float *y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cnt) return;
  const int v = __ldg(rows + i);
  const int b = __ldg(rowPtr + v), en = __ldg(rowPtr + v + 1);
  float s = 0.0f;
  for (int e = b; e < en; ++e) s += cin[__ldg(colIdx + e)];
  y[v] = s;
}

__global__ void __launch_bounds__(kThreads) t4WarpKernel(const int *rows, int cnt, const int *rowPtr,
                                                         const int *colIdx, const float *cin, float *y) {
  const long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= cnt) return; // uniform across the warp
  const int v = __ldg(rows + w);
  const int b = __ldg(rowPtr + v), en = __ldg(rowPtr + v + 1);
  float s = 0.0f;
  for (int e = b + lane; e < en; e += 32) s += cin[__ldg(colIdx + e)];
  s = warpAllSum(s);
  if (lane == 0) y[v] = s;
}

__global__ void __launch_bounds__(kThreads) t4BlockKernel(const int *rows, const int *rowPtr,
                                                          const int *colIdx, const float *cin, float *y) {
  __shared__ float fs[32];
  const int v = __ldg(rows + blockIdx.x);
  const int b = __ldg(rowPtr + v), en = __ldg(rowPtr + v + 1);
  float s = 0.0f;
  for (int e = b + threadIdx.x; e < en; e += blockDim.x) s += cin[__ldg(colIdx + e)];
  s = blockSum(s, fs);
  if (threadIdx.x == 0) y[v] = s;
}

// T4 combine, thread per row: x', contrib', next dangling partials (and, in
// correctness runs, the previous iteration's residual and sum).
template <bool kInstr>
__global__ void __launch_bounds__(kThreads) t4CombineKernel(const float *y, const float *invOut, int n,
                                                            Vec V, Coef c, int kRel, int p, Inst in) {
  __shared__ float fs[32];
  __shared__ double ds[32];
  __shared__ Shared sh;
  const int k = kInstr ? kRel + in.ctl[kCtlBase] : kRel;
  const Ptrs P = ptrsOf(V, p);
  beginIteration<kInstr>(k, gridDim.x, P, in, sh);
  __syncthreads();
  if (kInstr && sh.stop) return;
  const float D = sh.D;
  Acc a;
  const int stride = gridDim.x * blockDim.x;
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
    finishRow<kInstr>(v, y[v], D, P, invOut, c, a);
  endIteration<kInstr>(a, P, fs, ds);
}

// ---- the cluster kernel (sm_90): one cluster, everything in shared memory.

struct ClusterArgs {
  const int *rowPtr;
  const unsigned *packed;   // [nnz] owner rank << kOwnerShift | row index local to the owner
  const float *invOut;
  const int *colIdx;        // replicated kernel: global column indices
  int n;
  const int *heavy;         // rows of in-degree > kLight, grouped by owner rank
  int rb[kMaxCluster + 1];  // rank q owns rows [rb[q], rb[q+1])
  int hb[kMaxCluster + 1];  // and heavy[hb[q] .. hb[q+1])
  int rmax, emax, hmax;     // shared-memory layout (the same in every block)
};

// Two layouts of the contributions, one kernel (kRep):
//
// Distributed (kRep = false): each block keeps the contributions of its own
// rows (two copies, ping-pong) and the gather reads them from the owner
// block through distributed shared memory (packed column: owner rank <<
// kOwnerShift | row local to the owner). Dynamic shared memory: sPartS[2] |
// dPartS[2] rPartS[2] | contribS [2][rmax] | xS [2][rmax] | invS [rmax] |
// rpS [rmax+1] | colS, valS [emax] | heavyS [hmax].
//
// Replicated (kRep = true): every block keeps the WHOLE contribution vector
// (two copies, ping-pong) in its shared memory, so the gather is a local
// shared-memory read; after its combine each block pushes the contributions
// of its own rows into every block's next copy (coalesced stores through
// distributed shared memory: a warp writes 32 consecutive floats to each
// rank), and one cluster.sync() per iteration publishes them. x of the own
// rows stays in shared memory (one copy: each row belongs to one thread).
// Dynamic shared memory: sPartS[2] | dPartS[2] rPartS[2] | rep [2][n] |
// xS, invS [rmax] | rpS [rmax+1] | colS, valS [emax] | heavyS [hmax].
template <bool kInstr, bool kRep>
__global__ void __launch_bounds__(kClusterThreads, 1)
    clusterKernel(ClusterArgs a, Coef c, int iters, float *xOut, Inst in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cg::cluster_group cl = cg::this_cluster();
  const int rank = static_cast<int>(cl.block_rank());
  const int C = static_cast<int>(cl.num_blocks());
  const int tid = threadIdx.x, bd = blockDim.x, lane = tid & 31;
  extern __shared__ double smem[];
  double *sPartS = smem;                                   // [2]
  float *dPartS = reinterpret_cast<float *>(smem + 2);     // [2]
  float *rPartS = dPartS + 2;                              // [2]
  float *vecS = rPartS + 2;                                // contribS [2][rmax], or rep [2][n]
  float *xS = vecS + 2 * (kRep ? a.n : a.rmax);            // [2][rmax], or [rmax]
  float *invS = xS + (kRep ? 1 : 2) * a.rmax;              // [rmax]
  int *rpS = reinterpret_cast<int *>(invS + a.rmax);       // [rmax+1]
  unsigned *colS = reinterpret_cast<unsigned *>(rpS + a.rmax + 1); // [emax]: packed, or global columns (int)
  int *colIdxS = reinterpret_cast<int *>(colS);            // the replicated layout's view of colS
  float *valS = reinterpret_cast<float *>(colS + a.emax);  // [emax]
  int *heavyS = reinterpret_cast<int *>(valS + a.emax);    // [hmax]
  __shared__ float fs[32];
  __shared__ double ds[32];
  __shared__ Shared sh;
  __shared__ float *remote[kMaxCluster]; // vecS of each rank, in the cluster's window

  const int r0 = a.rb[rank], rows = a.rb[rank + 1] - r0;
  const int e0 = __ldg(a.rowPtr + r0), edges = __ldg(a.rowPtr + r0 + rows) - e0;
  const int h0 = a.hb[rank], nh = a.hb[rank + 1] - h0;
  if (tid < C) remote[tid] = cl.map_shared_rank(vecS, tid);
  if (kRep)
    for (int v = tid; v < a.n; v += bd) vecS[v] = c.x0 * __ldg(a.invOut + v);
  float dang = 0.0f;
  for (int i = tid; i < rows; i += bd) {
    const float iv = __ldg(a.invOut + r0 + i);
    invS[i] = iv;
    rpS[i] = __ldg(a.rowPtr + r0 + i) - e0;
    xS[i] = c.x0;
    if (!kRep) vecS[i] = c.x0 * iv;
    if (iv == 0.0f) dang += c.x0;
  }
  if (tid == 0) rpS[rows] = edges;
  for (int e = tid; e < edges; e += bd) {
    if (kRep)
      colIdxS[e] = __ldg(a.colIdx + e0 + e);
    else
      colS[e] = __ldg(a.packed + e0 + e);
  }
  for (int h = tid; h < nh; h += bd) heavyS[h] = __ldg(a.heavy + h0 + h) - r0;
  dang = blockSum(dang, fs);
  if (tid == 0) dPartS[0] = dang;
  cl.sync();

  int p = 0, k = 0;
  for (; k < iters; ++k) {
    // D_k (and the previous residual) from every rank, fixed order. Timed
    // runs: warp 0 issues the remote load before its share of the gather
    // and reduces after it, so the two round trips overlap.
    float dRemote = 0.0f;
    if (tid < 32 && lane < C) dRemote = *cl.map_shared_rank(dPartS + p, lane);
    if (kInstr && tid < 32) {
      const float D = warpAllSum(dRemote);
      int stop = 0;
      if (k > 0) {
        stop = dev::clusterResidualTest(cl, rPartS + p, sPartS + p, k, false, in);
      }
      if (lane == 0) {
        sh.D = D;
        sh.stop = stop;
      }
    }
    // Offsets of the current (po) and next (pn) copy: of contribS and xS
    // (distributed), of rep (replicated).
    const int po = p * (kRep ? a.n : a.rmax), pn = (1 - p) * (kRep ? a.n : a.rmax);
    if (kInstr) {
      __syncthreads();
      if (sh.stop) break;
    }
    const float *cur = vecS + po; // replicated: the current copy of the whole vector
    dev::gatherBatched<kBatch>(valS, edges, [&](int e) { // kBatch shared-memory loads in flight
      if (kRep) return cur[colIdxS[e]];
      const unsigned pk = colS[e];
      return remote[pk >> kOwnerShift][po + static_cast<int>(pk & kLocalMask)];
    });
    if (!kInstr && tid < 32) {
      const float D = warpAllSum(dRemote);
      if (lane == 0) sh.D = D;
    }
    __syncthreads();
    const float D = sh.D;
    float dg = 0.0f, res = 0.0f;
    double sum = 0.0;
    auto finish = [&](int i, float s) {
      const float xn = c.tele + c.d * (s + D * c.invN);
      const float iv = invS[i];
      if (kRep) {
        if (kInstr) {
          res += fabsf(xn - xS[i]);
          sum += static_cast<double>(xn);
        }
        xS[i] = xn;
        const float cv = xn * iv;
        for (int q = 0; q < C; ++q) remote[q][pn + r0 + i] = cv;
        if (iv == 0.0f) dg += xn;
      } else {
        xS[pn + i] = xn;
        vecS[pn + i] = xn * iv;
        if (iv == 0.0f) dg += xn;
        if (kInstr) {
          res += fabsf(xn - xS[po + i]);
          sum += static_cast<double>(xn);
        }
      }
    };
    dev::tileRowSums<kLight>(rpS, rows, 0, nh, [&](int h) { return heavyS[h]; }, dev::StagedSum{valS}, finish);
    dg = blockSum(dg, fs);
    if (tid == 0) dPartS[1 - p] = dg;
    if (kInstr) dev::storeBlockPartials(res, sum, fs, ds, rPartS + 1 - p, sPartS + 1 - p);
    cl.sync(); // publishes the next contributions (own or pushed), x' and the partials to the whole cluster
    p ^= 1;
  }
  if (kInstr && k == iters && tid < 32) dev::clusterResidualTest(cl, rPartS + p, sPartS + p, k, true, in);
  for (int i = tid; i < rows; i += bd) xOut[r0 + i] = xS[(kRep ? 0 : p * a.rmax) + i];
  cl.sync(); // no block leaves while another may still read its shared memory
#else
  (void)a; (void)c; (void)iters; (void)xOut; (void)in;
#endif
}

// ---- primitives

__global__ void emptyKernel() {}

__global__ void __launch_bounds__(kThreads) gridSyncKernel(int count, int *sink) {
  cg::grid_group grid = cg::this_grid();
  for (int i = 0; i < count; ++i) grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = count;
}

__global__ void __launch_bounds__(kClusterThreads, 1) clusterSyncKernel(int count, int *sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cg::cluster_group cl = cg::this_cluster();
  for (int i = 0; i < count; ++i) cl.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = count;
#else
  (void)count; (void)sink;
#endif
}

} // namespace fr

// ==================================================================== host side

namespace {

using namespace fr;

struct LayoutState {
  cudaStream_t st = nullptr;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr;
  int sms = 0, smemOptin = 0, ccMajor = 0;
  // knobs (0 = automatic)
  int knobTileEdges = 0, knobTileRows = 0, knobBlocksPerSM = 0, knobGraphK = 10,
      knobClusterSize = 0, knobResident = 0, knobClusterMode = 0;

  // --- layout: built on first use, rebuilt after a knob changes
  bool built = false;
  std::vector<int> hRowPtr;
  int maxInDegree = 0;
  int *bucketRows[3] = {nullptr, nullptr, nullptr};
  int bucketCount[3] = {0, 0, 0};
  long long bucketNnz[3] = {0, 0, 0};
  int bucketMaxDeg[3] = {0, 0, 0};
  int4 *tiles = nullptr;
  int *heavyStart = nullptr, *heavy = nullptr;
  int numTiles = 0, numHeavy = 0, numBlockTiles = 0, tileEdges = 0, tileRows = 0;
  int maxBlockTileEdges = 0, resEdges = 0;
  size_t tileSmem = 0, coopSmem = 0;
  int gridFused = 0, gridT4 = 0, gridCoop = 0, coopPerSM = 0, resident = 0;
  int partCap = 0;
  float *contrib[2] = {nullptr, nullptr};
  float *dPart[2] = {nullptr, nullptr}, *rPart[2] = {nullptr, nullptr};
  double *sPart[2] = {nullptr, nullptr};
  int *ctl = nullptr;  // [kCtlCount]
  int *sink = nullptr; // primitives' output word
  // --- cluster
  bool clusterBuilt = false;
  int clusterSize = 0, clusterRep = 0;
  size_t clusterSmem = 0;
  std::string clusterWhy;
  unsigned *packed = nullptr;
  int *cHeavy = nullptr;
  ClusterArgs cargs{};
  // --- graphs
  cudaGraphExec_t benchExec = nullptr;
  int benchIters = -1;
  float benchD = 0.0f;
  cudaGraphExec_t runExec = nullptr;
  int runK = -1;
  float runD = 0.0f, runTol = -1.0f;
};

void freeGraphs(LayoutState &s) {
  if (s.benchExec) cudaGraphExecDestroy(s.benchExec);
  if (s.runExec) cudaGraphExecDestroy(s.runExec);
  s.benchExec = s.runExec = nullptr;
  s.benchIters = s.runK = -1;
}

void freeLayout(LayoutState &s) {
  freeGraphs(s);
  freeDevice(s.bucketRows[0], s.bucketRows[1], s.bucketRows[2], s.tiles, s.heavyStart, s.heavy, s.contrib[0],
             s.contrib[1], s.dPart[0], s.dPart[1], s.rPart[0], s.rPart[1], s.sPart[0], s.sPart[1], s.ctl, s.sink,
             s.packed, s.cHeavy);
  for (int b = 0; b < 3; ++b) s.bucketCount[b] = s.bucketNnz[b] = s.bucketMaxDeg[b] = 0;
  s.clusterBuilt = false;
  s.clusterSize = 0;
  s.clusterRep = 0;
  s.clusterSmem = 0;
  s.clusterWhy.clear();
  s.built = false;
}

// cudaGraphInstantiate(exec, graph, flags) from CUDA 12 on (the 11.x form took an
// error node and a log buffer); cudaGraphInstantiateWithFlags exists in both.
cudaError_t graphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags) {
#if CUDART_VERSION >= 12000
  return cudaGraphInstantiate(exec, graph, flags);
#else
  return cudaGraphInstantiateWithFlags(exec, graph, flags);
#endif
}

int nextPow2(long long v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p <<= 1;
  return p;
}

int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

int occupancy(int *blocks, const void *fn, int threads, size_t smem, const char *what, Err &e) {
  PR_CUDA(e, cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, threads, smem),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor(%s, %d threads, %zu bytes)", what, threads,
          smem);
  return PRLAB_OK;
}

LayoutState *stateOf(Ctx &c) { return static_cast<LayoutState *>(c.layout); }

int getState(Ctx &c, LayoutState **out, Err &e) {
  return stateIn(c.layout, out, "layout", [&](LayoutState &s) -> int {
    PR_CUDA(e, cudaStreamCreateWithFlags(&s.st, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    PR_CUDA(e, cudaEventCreate(&s.ev0), "cudaEventCreate");
    PR_CUDA(e, cudaEventCreate(&s.ev1), "cudaEventCreate");
    return deviceLimits(c.device, &s.sms, &s.smemOptin, &s.ccMajor, e);
  }, e);
}

// Buckets, tiles, grids and vectors (outside any timed region).
int build(Ctx &c, LayoutState &s, Err &e) {
  if (s.built) return PRLAB_OK;
  const int n = c.n, nnz = c.nnz;
  s.hRowPtr.assign(static_cast<size_t>(n) + 1, 0);
  PR_CUDA(e, cudaMemcpy(s.hRowPtr.data(), c.rowPtr, 4 * (static_cast<size_t>(n) + 1), cudaMemcpyDeviceToHost),
          "cudaMemcpy(rowPtr, device to host)");
  const std::vector<int> &rp = s.hRowPtr;
  auto deg = [&](int v) { return rp[v + 1] - rp[v]; };

  // T4 buckets, rows in ascending order within each.
  std::vector<int> rowsOf[3];
  s.maxInDegree = 0;
  for (int v = 0; v < n; ++v) {
    const int d = deg(v);
    const int b = d <= kLight ? 0 : (d <= kWarpMax ? 1 : 2);
    rowsOf[b].push_back(v);
    s.bucketNnz[b] += d;
    s.bucketMaxDeg[b] = std::max(s.bucketMaxDeg[b], d);
    s.maxInDegree = std::max(s.maxInDegree, d);
  }
  for (int b = 0; b < 3; ++b) {
    s.bucketCount[b] = static_cast<int>(rowsOf[b].size());
    PR_TRY(upload(&s.bucketRows[b], rowsOf[b], "d_t4BucketRows", e));
  }

  // CSR-Adaptive tiles: about two tiles per SM on a small graph.
  const long long twoPerSM = 2LL * s.sms;
  s.tileEdges = s.knobTileEdges > 0 ? s.knobTileEdges
                                    : clampi(nextPow2((nnz + twoPerSM - 1) / twoPerSM), 256, 4096);
  s.tileRows = s.knobTileRows > 0 ? s.knobTileRows
                                  : clampi(nextPow2((n + twoPerSM - 1) / twoPerSM), 32, kThreads);
  std::vector<int4> tiles;
  std::vector<int> hs, heavy;
  s.numBlockTiles = 0;
  s.maxBlockTileEdges = 0;
  for (int r = 0; r < n;) {
    const int r0 = r, e0 = rp[r0];
    hs.push_back(static_cast<int>(heavy.size()));
    if (deg(r0) > s.tileEdges) { // block per row
      tiles.push_back(make_int4(r0, r0 + 1, e0, rp[r0 + 1]));
      ++s.numBlockTiles;
      s.maxBlockTileEdges = std::max(s.maxBlockTileEdges, deg(r0));
      r = r0 + 1;
      continue;
    }
    int r1 = r0 + 1;
    while (r1 < n && r1 - r0 < s.tileRows && rp[r1 + 1] - e0 <= s.tileEdges) ++r1;
    for (int v = r0; v < r1; ++v)
      if (deg(v) > kLight) heavy.push_back(v);
    tiles.push_back(make_int4(r0, r1, e0, rp[r1]));
    r = r1;
  }
  hs.push_back(static_cast<int>(heavy.size()));
  s.numTiles = static_cast<int>(tiles.size());
  s.numHeavy = static_cast<int>(heavy.size());
  PR_TRY(upload(&s.tiles, tiles, "d_tiles", e));
  PR_TRY(upload(&s.heavyStart, hs, "d_tileHeavyStart", e));
  PR_TRY(upload(&s.heavy, heavy, "d_tileHeavy", e));
  s.tileSmem = 4 * static_cast<size_t>(s.tileEdges) + 4 * (static_cast<size_t>(s.tileRows) + 1);
  if (s.tileSmem > 48 * 1024)
    return fail(e, PRLAB_ERR_ARG, "tile of %d edges and %d rows needs %zu bytes of shared memory (> 48 KiB)",
                 s.tileEdges, s.tileRows, s.tileSmem);

  // Grids.
  int occA = 0, occB = 0;
  PR_TRY(occupancy(&occA, reinterpret_cast<const void *>(iterKernel<false>), kThreads, s.tileSmem, "iterKernel", e));
  PR_TRY(occupancy(&occB, reinterpret_cast<const void *>(iterKernel<true>), kThreads, s.tileSmem, "iterKernel<instr>", e));
  const int occIter = std::max(1, std::min(occA, occB));
  s.gridFused = std::max(1, std::min(s.numTiles, occIter * s.sms));
  // The persistent kernel's shared memory covers both of its layouts
  // (resident: vals, colS [T], rpS [R+1], invS, hS [R]).
  // Resident column indices also hold a block-per-row tile's row when it fits.
  s.resEdges = std::max(s.tileEdges, s.maxBlockTileEdges);
  size_t residentSmem = 4 * static_cast<size_t>(s.tileEdges) + 4 * static_cast<size_t>(s.resEdges) +
                        12 * static_cast<size_t>(s.tileRows) + 4;
  bool residentFits = residentSmem <= 48 * 1024;
  if (!residentFits) {
    s.resEdges = s.tileEdges;
    residentSmem = 0;
  }
  s.coopSmem = std::max(s.tileSmem, residentSmem);
  if (s.coopSmem > 48 * 1024)
    return fail(e, PRLAB_ERR_ARG, "persistent tile of %d edges and %d rows needs %zu bytes of shared memory (> 48 KiB)",
                 s.tileEdges, s.tileRows, s.coopSmem);
  PR_TRY(occupancy(&occA, reinterpret_cast<const void *>(persistentKernel<false>), kThreads, s.coopSmem, "persistentKernel", e));
  PR_TRY(occupancy(&occB, reinterpret_cast<const void *>(persistentKernel<true>), kThreads, s.coopSmem, "persistentKernel<instr>", e));
  s.coopPerSM = std::min(occA, occB);
  if (s.coopPerSM < 1)
    return fail(e, PRLAB_ERR_CUDA, "persistentKernel: occupancy 0 blocks per SM (%zu bytes of shared memory)", s.coopSmem);
  int perSM = s.coopPerSM;
  if (s.knobBlocksPerSM > 0) perSM = std::min(perSM, s.knobBlocksPerSM);
  s.gridCoop = std::max(1, std::min(s.numTiles, perSM * s.sms));
  s.resident = s.knobResident == 0 && residentFits && s.numTiles <= s.gridCoop ? 1 : 0;
  s.gridT4 = std::max(1, std::min(blocksFor(n, kThreads), 4 * s.sms));
  s.partCap = std::max(std::max(s.gridFused, s.gridCoop), std::max(s.gridT4, kMaxCluster));

  const size_t N = static_cast<size_t>(n), P = static_cast<size_t>(s.partCap);
  for (int i = 0; i < 2; ++i) {
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.contrib[i]), 4 * N, "d_layoutContrib", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.dPart[i]), 4 * P, "d_layoutDanglingPartials", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.rPart[i]), 4 * P, "d_layoutResidualPartials", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.sPart[i]), 8 * P, "d_layoutSumPartials", e));
  }
  PR_TRY(devAlloc(reinterpret_cast<void **>(&s.ctl), 4 * kCtlCount, "d_layoutControl", e));
  PR_TRY(devAlloc(reinterpret_cast<void **>(&s.sink), 16, "d_layoutSink", e));
  PR_CUDA(e, cudaMemset(s.ctl, 0, 4 * kCtlCount), "cudaMemset(d_layoutControl)");
  s.built = true;
  return PRLAB_OK;
}

size_t clusterRepSmemBytes(int n, int rmax, int emax, int hmax) {
  // sPartS[2] (double), dPartS[2] + rPartS[2], rep[2][n], xS[rmax] + invS[rmax] + rpS[rmax+1],
  // colS[emax] + valS[emax], heavyS[hmax]
  return 16 + 16 + 8 * static_cast<size_t>(n) + 4 * (3 * static_cast<size_t>(rmax) + 1) +
         8 * static_cast<size_t>(emax) + 4 * static_cast<size_t>(hmax);
}

size_t clusterSmemBytes(int rmax, int emax, int hmax) {
  // sPartS[2] (double), dPartS[2] + rPartS[2], contribS[2][rmax] + xS[2][rmax] + invS[rmax] +
  // rpS[rmax+1], colS[emax] + valS[emax], heavyS[hmax]
  return 16 + 16 + 4 * (6 * static_cast<size_t>(rmax) + 1) + 8 * static_cast<size_t>(emax) +
         4 * static_cast<size_t>(hmax);
}

// The cluster layout: rows split into C contiguous ranges of about equal
// rows + edges; the packed column of every edge names its owner rank and the
// row's index there. Unavailable (clusterWhy set) when the device is not
// sm_90, the cluster cannot be scheduled, or a block's share exceeds shared memory.
int buildCluster(Ctx &c, LayoutState &s, Err &e) {
  if (s.clusterBuilt) return PRLAB_OK;
  s.clusterBuilt = true;
  s.clusterSize = 0;
  if (s.ccMajor < 9) {
    s.clusterWhy = "thread-block clusters need compute capability 9.0 or later";
    return PRLAB_OK;
  }
  int kernelSm = 0;
  {
    cudaFuncAttributes fa;
    PR_CUDA(e, cudaFuncGetAttributes(&fa, clusterKernel<false, false>), "cudaFuncGetAttributes(clusterKernel)");
    kernelSm = fa.binaryVersion;
  }
  if (kernelSm < 90) {
    s.clusterWhy = "the library has no sm_90 code for the cluster kernel (build with CUDA_ARCHS including 90)";
    return PRLAB_OK;
  }
  const int n = c.n;
  const std::vector<int> &rp = s.hRowPtr;
  std::vector<int> sizes;
  if (s.knobClusterSize > 0) sizes.push_back(s.knobClusterSize);
  else sizes = {16, 8};
  std::string why;
  for (int C : sizes) {
    if (C < 1 || C > kMaxCluster) {
      why = "cluster size " + std::to_string(C) + " outside [1, 16]";
      continue;
    }
    // Split rows by cost = rows + edges.
    ClusterArgs a{};
    const long long total = static_cast<long long>(n) + rp[n];
    a.rb[0] = 0;
    int v = 0;
    for (int q = 1; q < C; ++q) {
      const long long target = total * q / C;
      while (v < n && static_cast<long long>(v) + rp[v] < target) ++v;
      a.rb[q] = v;
    }
    a.rb[C] = n;
    for (int q = C + 1; q <= kMaxCluster; ++q) a.rb[q] = n;
    std::vector<int> heavy;
    int rmax = 0, emax = 0, hmax = 0;
    for (int q = 0; q < C; ++q) {
      a.hb[q] = static_cast<int>(heavy.size());
      for (int r = a.rb[q]; r < a.rb[q + 1]; ++r)
        if (rp[r + 1] - rp[r] > kLight) heavy.push_back(r);
      rmax = std::max(rmax, a.rb[q + 1] - a.rb[q]);
      emax = std::max(emax, rp[a.rb[q + 1]] - rp[a.rb[q]]);
      hmax = std::max(hmax, static_cast<int>(heavy.size()) - a.hb[q]);
    }
    for (int q = C; q <= kMaxCluster; ++q) a.hb[q] = static_cast<int>(heavy.size());
    // + 1024: the kernels' static shared memory
    const size_t limit = static_cast<size_t>(s.smemOptin);
    const size_t smemRep = clusterRepSmemBytes(n, rmax, emax, hmax);
    const size_t smemDist = clusterSmemBytes(rmax, emax, hmax);
    bool rep = s.knobClusterMode != 1 && smemRep + 1024 <= limit;
    if (s.knobClusterMode == 2 && !rep) {
      why = "the replicated cluster layout needs " + std::to_string(smemRep) +
            " bytes of shared memory per block in a cluster of " + std::to_string(C) + " (the device allows " +
            std::to_string(limit) + ")";
      continue;
    }
    const size_t smem = rep ? smemRep : smemDist;
    if (smem + 1024 > limit) {
      why = "graph needs " + std::to_string(smem) + " bytes of shared memory per block in a cluster of " +
            std::to_string(C) + " (the device allows " + std::to_string(limit) + ")";
      continue;
    }
    // Can the device schedule such a cluster?
    const void *fns[] = {rep ? reinterpret_cast<const void *>(clusterKernel<false, true>)
                             : reinterpret_cast<const void *>(clusterKernel<false, false>),
                         rep ? reinterpret_cast<const void *>(clusterKernel<true, true>)
                             : reinterpret_cast<const void *>(clusterKernel<true, false>)};
    if (!clusterSchedulable(fns[0], "clusterKernel", C, kClusterThreads, smem, &why) ||
        !clusterSchedulable(fns[1], "clusterKernel", C, kClusterThreads, smem, &why))
      continue;
    if (!rep) { // packed columns (needs colIdx on the host once)
      const int nnz = c.nnz;
      std::vector<int> col(static_cast<size_t>(nnz));
      if (nnz > 0)
        PR_CUDA(e, cudaMemcpy(col.data(), c.colIdx, 4 * static_cast<size_t>(nnz), cudaMemcpyDeviceToHost),
                "cudaMemcpy(colIdx, device to host)");
      std::vector<unsigned> packed(static_cast<size_t>(nnz));
      for (int k = 0; k < nnz; ++k) {
        const int u = col[k];
        const int q = static_cast<int>(std::upper_bound(a.rb, a.rb + C + 1, u) - a.rb) - 1;
        packed[k] = (static_cast<unsigned>(q) << kOwnerShift) | static_cast<unsigned>(u - a.rb[q]);
      }
      PR_TRY(upload(&s.packed, packed, "d_clusterPackedCols", e));
    }
    PR_TRY(upload(&s.cHeavy, heavy, "d_clusterHeavy", e));
    a.rowPtr = c.rowPtr;
    a.packed = s.packed;
    a.invOut = c.invOut;
    a.colIdx = c.colIdx;
    a.n = n;
    s.clusterRep = rep ? 1 : 0;
    a.heavy = s.cHeavy;
    a.rmax = rmax;
    a.emax = emax;
    a.hmax = hmax;
    s.cargs = a;
    s.clusterSize = C;
    s.clusterSmem = smem;
    s.clusterWhy.clear();
    return PRLAB_OK;
  }
  s.clusterWhy = why;
  return PRLAB_OK;
}

int setup(Ctx &c, LayoutState **out, Err &e) {
  PR_TRY(getState(c, out, e));
  return build(c, **out, e);
}

DevGraph devGraph(const Ctx &c, const LayoutState &s) {
  return DevGraph{c.rowPtr, c.colIdx, c.invOut, s.tiles, s.heavyStart, s.heavy,
                  s.numTiles, s.tileEdges, s.tileRows, c.n, s.resEdges};
}

Vec vecs(const Ctx &c, const LayoutState &s) {
  Vec V;
  for (int i = 0; i < 2; ++i) {
    V.x[i] = c.xbuf[i];
    V.contrib[i] = s.contrib[i];
    V.dPart[i] = s.dPart[i];
    V.rPart[i] = s.rPart[i];
    V.sPart[i] = s.sPart[i];
  }
  return V;
}

Coef coef(const Ctx &c, float d) {
  return Coef{teleportOf(d, c.n), d, invNOf(c.n), invNOf(c.n)};
}

Inst inst(const Ctx &c, const LayoutState &s, float tol) {
  return Inst{c.residHist, c.sumHist, s.ctl, tol};
}

// ---- launchers (all on the layout stream; none synchronizes)

int launchPrologue(const Ctx &c, const LayoutState &s, int grid, float d, Err &e) {
  prologueKernel<<<grid, kThreads, 0, s.st>>>(devGraph(c, s), vecs(c, s), coef(c, d));
  PR_LAUNCH(e, "prologueKernel<<<%d, %d>>>", grid, kThreads);
  return PRLAB_OK;
}

template <bool kInstr>
int launchIter(const Ctx &c, const LayoutState &s, int kRel, int p, float d, float tol, cudaStream_t st,
               Err &e) {
  iterKernel<kInstr><<<s.gridFused, kThreads, s.tileSmem, st>>>(devGraph(c, s), vecs(c, s), coef(c, d), kRel,
                                                                 p, inst(c, s, tol));
  PR_LAUNCH(e, "iterKernel<<<%d, %d, %zu>>>", s.gridFused, kThreads, s.tileSmem);
  return PRLAB_OK;
}

int launchT4Spmv(const Ctx &c, const LayoutState &s, int bucket, int p, Err &e) {
  const int cnt = s.bucketCount[bucket];
  if (cnt == 0) return PRLAB_OK;
  const float *cin = s.contrib[p];
  if (bucket == 0) {
    const int g = blocksFor(cnt, kThreads);
    t4ThreadKernel<<<g, kThreads, 0, s.st>>>(s.bucketRows[0], cnt, c.rowPtr, c.colIdx, cin, c.y);
    PR_LAUNCH(e, "t4ThreadKernel<<<%d, %d>>>", g, kThreads);
  } else if (bucket == 1) {
    const int g = blocksFor(static_cast<long long>(cnt) * 32, kThreads);
    t4WarpKernel<<<g, kThreads, 0, s.st>>>(s.bucketRows[1], cnt, c.rowPtr, c.colIdx, cin, c.y);
    PR_LAUNCH(e, "t4WarpKernel<<<%d, %d>>>", g, kThreads);
  } else {
    t4BlockKernel<<<cnt, kThreads, 0, s.st>>>(s.bucketRows[2], c.rowPtr, c.colIdx, cin, c.y);
    PR_LAUNCH(e, "t4BlockKernel<<<%d, %d>>>", cnt, kThreads);
  }
  return PRLAB_OK;
}

template <bool kInstr>
int launchT4Combine(const Ctx &c, const LayoutState &s, int kRel, int p, float d, float tol, Err &e) {
  t4CombineKernel<kInstr><<<s.gridT4, kThreads, 0, s.st>>>(c.y, c.invOut, c.n, vecs(c, s), coef(c, d), kRel, p,
                                                             inst(c, s, tol));
  PR_LAUNCH(e, "t4CombineKernel<<<%d, %d>>>", s.gridT4, kThreads);
  return PRLAB_OK;
}

template <bool kInstr>
int launchT4Iteration(const Ctx &c, const LayoutState &s, int kRel, int p, float d, float tol, Err &e) {
  for (int b = 0; b < 3; ++b) PR_TRY(launchT4Spmv(c, s, b, p, e));
  return launchT4Combine<kInstr>(c, s, kRel, p, d, tol, e);
}

template <bool kInstr>
int launchPersistent(const Ctx &c, const LayoutState &s, int iters, float d, float tol, Err &e) {
  DevGraph g = devGraph(c, s);
  Vec V = vecs(c, s);
  Coef co = coef(c, d);
  Inst in = inst(c, s, tol);
  int resident = s.resident;
  void *args[] = {&g, &V, &co, &iters, &in, &resident};
  PR_CUDA(e,
          cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(persistentKernel<kInstr>), dim3(s.gridCoop),
                                      dim3(kThreads), args, s.coopSmem, s.st),
          "cudaLaunchCooperativeKernel(persistentKernel, %d blocks of %d, %zu bytes, resident %d)", s.gridCoop,
          kThreads, s.coopSmem, resident);
  return PRLAB_OK;
}

template <bool kInstr>
int launchCluster(const Ctx &c, const LayoutState &s, int iters, float d, float tol, float *xOut, Err &e) {
  // The dynamic shared-memory limit is a property of the function: set it for this layout.
  auto kernel = s.clusterRep ? clusterKernel<kInstr, true> : clusterKernel<kInstr, false>;
  PR_CUDA(e, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(s.clusterSmem)),
          "cudaFuncSetAttribute(clusterKernel, %zu bytes of dynamic shared memory)", s.clusterSmem);
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = clusterConfig(s.clusterSize, kClusterThreads, s.clusterSmem, attr, s.st);
  PR_CUDA(e, cudaLaunchKernelEx(&cfg, kernel, s.cargs, coef(c, d), iters, xOut, inst(c, s, tol)),
          "cudaLaunchKernelEx(clusterKernel, cluster of %d blocks of %d, %zu bytes)", s.clusterSize,
          kClusterThreads, s.clusterSmem);
  return PRLAB_OK;
}

int requireCluster(Ctx &c, LayoutState &s, Err &e) {
  PR_TRY(buildCluster(c, s, e));
  if (s.clusterSize == 0)
    return fail(e, PRLAB_ERR_ARG, "cluster implementation unavailable: %s", s.clusterWhy.c_str());
  return PRLAB_OK;
}

// The timed work of one run (benchmark): prologue + `iters` iterations, no
// convergence test, no host synchronization.
// endCapture ends the capture begun on s.st and instantiates the graph of
// `iters` iterations into *exec; rc is the status of the captured launches
// (the captured graph is dropped when they failed).
int endCapture(LayoutState &s, int rc, cudaGraphExec_t *exec, int iters, Err &e) {
  cudaGraph_t graph = nullptr;
  cudaError_t st = cudaStreamEndCapture(s.st, &graph);
  if (rc != PRLAB_OK) {
    if (graph) cudaGraphDestroy(graph);
    return rc;
  }
  PR_CUDA(e, st, "cudaStreamEndCapture (%d iterations)", iters);
  st = graphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  PR_CUDA(e, st, "cudaGraphInstantiateWithFlags (%d iterations)", iters);
  return PRLAB_OK;
}

int timedWork(Ctx &c, LayoutState &s, int impl, int iters, float d, Err &e) {
  switch (impl) {
  case PRLAB_IMPL_T4_BUCKETED:
    PR_TRY(launchPrologue(c, s, s.gridT4, d, e));
    for (int k = 0; k < iters; ++k) PR_TRY(launchT4Iteration<false>(c, s, k, k & 1, d, 0.0f, e));
    return PRLAB_OK;
  case PRLAB_IMPL_FUSED:
    PR_TRY(launchPrologue(c, s, s.gridFused, d, e));
    for (int k = 0; k < iters; ++k) PR_TRY(launchIter<false>(c, s, k, k & 1, d, 0.0f, s.st, e));
    return PRLAB_OK;
  case PRLAB_IMPL_GRAPH:
    if (s.benchExec == nullptr || s.benchIters != iters || s.benchD != d) {
      if (s.benchExec) cudaGraphExecDestroy(s.benchExec);
      s.benchExec = nullptr;
      PR_CUDA(e, cudaStreamBeginCapture(s.st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      int rc = launchPrologue(c, s, s.gridFused, d, e);
      for (int k = 0; rc == PRLAB_OK && k < iters; ++k) rc = launchIter<false>(c, s, k, k & 1, d, 0.0f, s.st, e);
      PR_TRY(endCapture(s, rc, &s.benchExec, iters, e));
      PR_CUDA(e, cudaGraphUpload(s.benchExec, s.st), "cudaGraphUpload");
      s.benchIters = iters;
      s.benchD = d;
    }
    PR_CUDA(e, cudaGraphLaunch(s.benchExec, s.st), "cudaGraphLaunch (%d iterations)", iters);
    return PRLAB_OK;
  case PRLAB_IMPL_PERSISTENT:
    return launchPersistent<false>(c, s, iters, d, 0.0f, e);
  case PRLAB_IMPL_CLUSTER:
    return launchCluster<false>(c, s, iters, d, 0.0f, c.xbuf[iters & 1], e);
  }
  return fail(e, PRLAB_ERR_ARG, "layout design %d out of range [%d, %d)", impl,
               PRLAB_IMPL_LAYOUT_FIRST, PRLAB_IMPL_LAYOUT_END);
}

int readCtl(LayoutState &s, int *h, Err &e) {
  PR_CUDA(e, cudaMemcpyAsync(h, s.ctl, 4 * kCtlCount, cudaMemcpyDeviceToHost, s.st),
          "cudaMemcpyAsync(control words, device to host)");
  PR_CUDA(e, cudaStreamSynchronize(s.st), "cudaStreamSynchronize (control words)");
  return PRLAB_OK;
}

int readStopped(LayoutState &s, int *stopped, Err &e) {
  PR_CUDA(e, cudaMemcpyAsync(stopped, s.ctl + kCtlStopped, 4, cudaMemcpyDeviceToHost, s.st),
          "cudaMemcpyAsync(stop flag, 4 bytes, device to host)");
  PR_CUDA(e, cudaStreamSynchronize(s.st), "cudaStreamSynchronize (stop flag)");
  return PRLAB_OK;
}

int runGraph(Ctx &c, LayoutState &s, int iters, float d, float tol, Err &e) {
  int K = std::min(std::max(s.knobGraphK, 2), iters);
  K -= K & 1; // even, so that a replay's parities do not depend on its base
  int base = 0;
  if (K >= 2) {
    if (s.runExec == nullptr || s.runK != K || s.runD != d || s.runTol != tol) {
      if (s.runExec) cudaGraphExecDestroy(s.runExec);
      s.runExec = nullptr;
      PR_CUDA(e, cudaStreamBeginCapture(s.st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      int rc = PRLAB_OK;
      for (int j = 0; rc == PRLAB_OK && j < K; ++j) rc = launchIter<true>(c, s, j, j & 1, d, tol, s.st, e);
      if (rc == PRLAB_OK) {
        advanceKernel<<<1, 1, 0, s.st>>>(s.ctl, K);
        cudaError_t le = cudaGetLastError();
        if (le != cudaSuccess) rc = fail(e, le, "advanceKernel<<<1, 1>>>");
      }
      PR_TRY(endCapture(s, rc, &s.runExec, K, e));
      s.runK = K;
      s.runD = d;
      s.runTol = tol;
    }
    for (; base + K <= iters; base += K) {
      PR_CUDA(e, cudaGraphLaunch(s.runExec, s.st), "cudaGraphLaunch (iterations %d..%d)", base, base + K - 1);
      if (tol > 0.0f) { // the convergence test: one 4-byte read per K iterations
        int stopped = 0;
        PR_TRY(readStopped(s, &stopped, e));
        if (stopped) return PRLAB_OK;
      }
    }
  }
  const int rem = iters - base; // ctl[base] == base here
  for (int j = 0; j < rem; ++j) {
    PR_TRY(launchIter<true>(c, s, j, (base + j) & 1, d, tol, s.st, e));
    if (tol > 0.0f) {
      int stopped = 0;
      PR_TRY(readStopped(s, &stopped, e));
      if (stopped) return PRLAB_OK;
    }
  }
  finishKernel<<<1, 32, 0, s.st>>>(vecs(c, s), rem, iters & 1, s.gridFused, inst(c, s, tol));
  PR_LAUNCH(e, "finishKernel<<<1, 32>>>");
  return PRLAB_OK;
}

// timeRuns on the layout stream and events, into times[repeats].
template <class F> int timeEvents(LayoutState &s, int warmups, int repeats, std::vector<float> &times, F body,
                                  const char *what, Err &e) {
  times.assign(static_cast<size_t>(repeats), 0.0f);
  return timeRuns(EventClock{s.ev0, s.ev1, s.st}, warmups, repeats, times.data(), body, what, e);
}

int checkRange(int impl, Err &e) {
  if (!layoutImplInRange(impl))
    return fail(e, PRLAB_ERR_ARG, "layout design %d out of range [%d, %d)", impl,
                 PRLAB_IMPL_LAYOUT_FIRST, PRLAB_IMPL_LAYOUT_END);
  return PRLAB_OK;
}

int primitive(Ctx &c, LayoutState &s, int which, int count, int warmups, int repeats, float *med, Err &e) {
  if (count < 1 || count > 1000000 || warmups < 0 || repeats < 1 || !med)
    return fail(e, PRLAB_ERR_ARG, "count %d, warmups %d, repeats %d: need [1, 1e6], >= 0, >= 1", count, warmups,
                 repeats);
  std::vector<float> t;
  switch (which) {
  case PRLAB_PRIM_EMPTY_LAUNCH:
    PR_TRY(timeEvents(s, warmups, repeats, t, [&]() -> int {
      for (int i = 0; i < count; ++i) emptyKernel<<<1, 32, 0, s.st>>>();
      PR_LAUNCH(e, "emptyKernel<<<1, 32>>> x %d", count);
      return PRLAB_OK;
    }, "empty launches", e));
    *med = medianOf(t);
    return PRLAB_OK;
  case PRLAB_PRIM_GRAPH_NODE: {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    PR_CUDA(e, cudaStreamBeginCapture(s.st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < count; ++i) emptyKernel<<<1, 32, 0, s.st>>>();
    cudaError_t le = cudaGetLastError();
    cudaError_t st = cudaStreamEndCapture(s.st, &graph);
    if (le != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      return fail(e, le, "emptyKernel capture");
    }
    PR_CUDA(e, st, "cudaStreamEndCapture (%d empty nodes)", count);
    st = graphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    PR_CUDA(e, st, "cudaGraphInstantiateWithFlags (%d empty nodes)", count);
    int rc = timeEvents(s, warmups, repeats, t, [&]() -> int {
      PR_CUDA(e, cudaGraphLaunch(exec, s.st), "cudaGraphLaunch (%d empty nodes)", count);
      return PRLAB_OK;
    }, "graph of empty nodes", e);
    cudaGraphExecDestroy(exec);
    PR_TRY(rc);
    *med = medianOf(t);
    return PRLAB_OK;
  }
  case PRLAB_PRIM_GRID_SYNC:
  case PRLAB_PRIM_COOP_LAUNCH: {
    int occ = 0;
    PR_TRY(occupancy(&occ, reinterpret_cast<const void *>(gridSyncKernel), kThreads, 0, "gridSyncKernel", e));
    const int grid = std::min(s.gridCoop, std::max(1, occ) * s.sms);
    auto coop = [&](int syncs) -> int {
      int *sink = s.sink;
      int k = syncs;
      void *args[] = {&k, &sink};
      PR_CUDA(e, cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(gridSyncKernel), dim3(grid),
                                             dim3(kThreads), args, 0, s.st),
              "cudaLaunchCooperativeKernel(gridSyncKernel, %d blocks, %d syncs)", grid, syncs);
      return PRLAB_OK;
    };
    if (which == PRLAB_PRIM_COOP_LAUNCH) {
      PR_TRY(timeEvents(s, warmups, repeats, t, [&]() -> int {
        for (int i = 0; i < count; ++i) PR_TRY(coop(0));
        return PRLAB_OK;
      }, "cooperative launches", e));
      *med = medianOf(t);
      return PRLAB_OK;
    }
    std::vector<float> t0;
    PR_TRY(timeEvents(s, warmups, repeats, t0, [&]() { return coop(0); }, "grid sync x0", e));
    PR_TRY(timeEvents(s, warmups, repeats, t, [&]() { return coop(count); }, "grid sync xK", e));
    *med = std::max(0.0f, medianOf(t) - medianOf(t0));
    return PRLAB_OK;
  }
  case PRLAB_PRIM_CLUSTER_SYNC: {
    PR_TRY(buildCluster(c, s, e));
    if (s.clusterSize == 0)
      return fail(e, PRLAB_ERR_ARG, "cluster primitive unavailable: %s", s.clusterWhy.c_str());
    const int C = s.clusterSize;
    if (C > 8)
      PR_CUDA(e, cudaFuncSetAttribute(clusterSyncKernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
              "cudaFuncSetAttribute(clusterSyncKernel, non-portable cluster size)");
    auto launch = [&](int syncs) -> int {
      cudaLaunchAttribute attr[1];
      cudaLaunchConfig_t cfg = clusterConfig(C, kClusterThreads, 0, attr, s.st);
      PR_CUDA(e, cudaLaunchKernelEx(&cfg, clusterSyncKernel, syncs, s.sink),
              "cudaLaunchKernelEx(clusterSyncKernel, cluster of %d, %d syncs)", C, syncs);
      return PRLAB_OK;
    };
    std::vector<float> t0;
    PR_TRY(timeEvents(s, warmups, repeats, t0, [&]() { return launch(0); }, "cluster sync x0", e));
    PR_TRY(timeEvents(s, warmups, repeats, t, [&]() { return launch(count); }, "cluster sync xK", e));
    *med = std::max(0.0f, medianOf(t) - medianOf(t0));
    return PRLAB_OK;
  }
  }
  return fail(e, PRLAB_ERR_ARG, "primitive %d out of range [0, %d)", which, PRLAB_PRIM_COUNT);
}

} // namespace

// ==================================================================== entry points used by api.cu

bool layoutImplInRange(int impl) { return impl >= PRLAB_IMPL_LAYOUT_FIRST && impl < PRLAB_IMPL_LAYOUT_END; }
bool layoutStageInRange(int stage) { return stage >= PRLAB_STAGE_LAYOUT_FIRST && stage < PRLAB_STAGE_LAYOUT_END; }

int layoutRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals, double *sums,
                int *done, int *converged, Err &e) {
  PR_TRY(checkRange(impl, e));
  PR_TRY(checkRunArgs(c, d, iterations, ranks, residuals, sums, done, converged, e));
  LayoutState *sp = nullptr;
  PR_TRY(setup(c, &sp, e));
  LayoutState &s = *sp;
  if (impl == PRLAB_IMPL_CLUSTER) PR_TRY(requireCluster(c, s, e));
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before the run)");
  const float t = tol > 0.0f ? tol : 0.0f;
  PR_CUDA(e, cudaMemsetAsync(s.ctl, 0, 4 * kCtlCount, s.st), "cudaMemsetAsync(d_layoutControl)");
  PR_CUDA(e, cudaMemsetAsync(c.residHist, 0, 4 * static_cast<size_t>(iterations), s.st), "cudaMemsetAsync(d_residuals)");
  PR_CUDA(e, cudaMemsetAsync(c.sumHist, 0, 8 * static_cast<size_t>(iterations), s.st), "cudaMemsetAsync(d_sums)");
  float *xOut = c.xbuf[0];
  switch (impl) {
  case PRLAB_IMPL_T4_BUCKETED:
  case PRLAB_IMPL_FUSED: {
    const bool t4 = impl == PRLAB_IMPL_T4_BUCKETED;
    const int G = t4 ? s.gridT4 : s.gridFused;
    PR_TRY(launchPrologue(c, s, G, d, e));
    bool stopped = false;
    for (int k = 0; k < iterations && !stopped; ++k) {
      if (t4) PR_TRY(launchT4Iteration<true>(c, s, k, k & 1, d, t, e));
      else PR_TRY(launchIter<true>(c, s, k, k & 1, d, t, s.st, e));
      if (t > 0.0f) { // the course's convergence test: one 4-byte read per iteration
        int st = 0;
        PR_TRY(readStopped(s, &st, e));
        stopped = st != 0;
      }
    }
    if (!stopped) {
      finishKernel<<<1, 32, 0, s.st>>>(vecs(c, s), iterations, iterations & 1, G, inst(c, s, t));
      PR_LAUNCH(e, "finishKernel<<<1, 32>>>");
    }
    break;
  }
  case PRLAB_IMPL_GRAPH:
    PR_TRY(launchPrologue(c, s, s.gridFused, d, e));
    PR_TRY(runGraph(c, s, iterations, d, t, e));
    break;
  case PRLAB_IMPL_PERSISTENT:
    PR_TRY(launchPersistent<true>(c, s, iterations, d, t, e));
    break;
  case PRLAB_IMPL_CLUSTER:
    PR_TRY(launchCluster<true>(c, s, iterations, d, t, xOut, e));
    break;
  }
  int h[kCtlCount] = {0, 0, 0, 0};
  PR_TRY(readCtl(s, h, e));
  const int k = h[kCtlDone];
  if (k < 1 || k > iterations)
    return fail(e, PRLAB_ERR_INTERNAL, "layout design %d reported %d iterations done (asked %d)", impl, k,
                 iterations);
  *done = k;
  *converged = h[kCtlConverged] != 0;
  PR_TRY(copyRunOut(c, impl == PRLAB_IMPL_CLUSTER ? xOut : c.xbuf[k & 1], k, ranks, residuals, sums, e));
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (after %d iterations)", k);
  return PRLAB_OK;
}

int layoutBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs, float *ranks,
                      Err &e) {
  PR_TRY(checkRange(impl, e));
  PR_TRY(checkBenchArgs(d, iterations, warmups, runs, runsMs, e));
  LayoutState *sp = nullptr;
  PR_TRY(setup(c, &sp, e));
  LayoutState &s = *sp;
  if (impl == PRLAB_IMPL_CLUSTER) PR_TRY(requireCluster(c, s, e));
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before timing)");
  PR_TRY(timeRuns(EventClock{s.ev0, s.ev1, s.st}, warmups, runs, runsMs,
                  [&]() { return timedWork(c, s, impl, iterations, d, e); }, "benchmark", e));
  if (ranks)
    PR_CUDA(e, cudaMemcpy(ranks, c.xbuf[iterations & 1], 4 * static_cast<size_t>(c.n), cudaMemcpyDeviceToHost),
            "cudaMemcpy(ranks, device to host)");
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (after timing)");
  return PRLAB_OK;
}

int layoutTimeStage(Ctx &c, int stage, float d, int warmups, int repeats, float *med, Err &e) {
  if (!layoutStageInRange(stage))
    return fail(e, PRLAB_ERR_ARG, "layout stage %d out of range [%d, %d)", stage, PRLAB_STAGE_LAYOUT_FIRST,
                 PRLAB_STAGE_LAYOUT_END);
  PR_TRY(checkDamping(d, e));
  if (warmups < 0 || repeats < 1 || !med)
    return fail(e, PRLAB_ERR_ARG, "warmups %d, repeats %d: need >= 0 and >= 1", warmups, repeats);
  LayoutState *sp = nullptr;
  PR_TRY(setup(c, &sp, e));
  LayoutState &s = *sp;
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before stage timing)");
  // Inputs of a real iteration: x_0, contrib_0, the partials of the grid
  // that reads them, and y of one SpMV.
  const bool t4 = stage != PRLAB_STAGE_FUSED_ITERATION;
  PR_TRY(launchPrologue(c, s, t4 ? s.gridT4 : s.gridFused, d, e));
  if (t4)
    for (int b = 0; b < 3; ++b) PR_TRY(launchT4Spmv(c, s, b, 0, e));
  std::vector<float> t;
  PR_TRY(timeEvents(s, warmups, repeats, t, [&]() -> int {
    switch (stage) {
    case PRLAB_STAGE_T4_SPMV_THREAD: return launchT4Spmv(c, s, 0, 0, e);
    case PRLAB_STAGE_T4_SPMV_WARP: return launchT4Spmv(c, s, 1, 0, e);
    case PRLAB_STAGE_T4_SPMV_BLOCK: return launchT4Spmv(c, s, 2, 0, e);
    case PRLAB_STAGE_T4_COMBINE: return launchT4Combine<false>(c, s, 0, 0, d, 0.0f, e);
    default: return launchIter<false>(c, s, 0, 0, d, 0.0f, s.st, e);
    }
  }, "layout stage", e));
  *med = medianOf(t);
  PR_CUDA(e, cudaStreamSynchronize(s.st), "cudaStreamSynchronize (stage timing)");
  return PRLAB_OK;
}

void layoutStateFree(Ctx &c) {
  LayoutState *s = stateOf(c);
  if (s == nullptr) return;
  if (s->st) cudaStreamSynchronize(s->st);
  freeLayout(*s);
  if (s->ev0) cudaEventDestroy(s->ev0);
  if (s->ev1) cudaEventDestroy(s->ev1);
  if (s->st) cudaStreamDestroy(s->st);
  delete s;
  c.layout = nullptr;
}

} // namespace prlab

// ==================================================================== C API (prlab_cuda.h)

namespace {

// A layout entry point: the shared entry() (message, exceptions), the graph
// handle and its device (checkHandle), then this file's state of the graph.
template <class F> int fentry(void *handle, char *msg, int msg_len, F body) {
  return prlab::graphEntry(handle, msg, msg_len, [&](prlab::Ctx &c, prlab::Err &e) -> int {
    prlab::LayoutState *s = nullptr;
    PR_TRY(prlab::getState(c, &s, e));
    return body(c, *s, e);
  });
}

} // namespace

extern "C" {

int prlab_layout_info_get(void *handle, prlab_layout_info *out, char *msg, int msg_len) {
  return fentry(handle, msg, msg_len, [&](prlab::Ctx &c, prlab::LayoutState &s, prlab::Err &e) -> int {
    if (!out) return prlab::fail(e, PRLAB_ERR_ARG, "output pointer is NULL");
    std::memset(out, 0, sizeof(*out));
    PR_TRY(prlab::build(c, s, e));
    PR_TRY(prlab::buildCluster(c, s, e));
    for (int b = 0; b < 3; ++b) {
      out->bucket_rows[b] = s.bucketCount[b];
      out->bucket_nnz[b] = s.bucketNnz[b];
      out->bucket_max_degree[b] = s.bucketMaxDeg[b];
    }
    out->tiles = s.numTiles;
    out->tile_edges = s.tileEdges;
    out->tile_rows = s.tileRows;
    out->heavy_rows = s.numHeavy;
    out->block_tiles = s.numBlockTiles;
    out->grid_fused = s.gridFused;
    out->grid_t4 = s.gridT4;
    out->grid_coop = s.gridCoop;
    out->coop_blocks_per_sm = s.coopPerSM;
    out->persistent_resident = s.resident;
    out->threads_per_block = prlab::fr::kThreads;
    out->cluster_size = s.clusterSize;
    out->cluster_replicated = s.clusterRep;
    out->cluster_threads = prlab::fr::kClusterThreads;
    out->cluster_smem_bytes = static_cast<long long>(s.clusterSmem);
    out->sms = s.sms;
    out->graph_k = s.knobGraphK;
    out->max_in_degree = s.maxInDegree;
    snprintf(out->cluster_reason, sizeof(out->cluster_reason), "%s", s.clusterWhy.c_str());
    return PRLAB_OK;
  });
}

int prlab_layout_set(void *handle, int knob, int value, char *msg, int msg_len) {
  return fentry(handle, msg, msg_len, [&](prlab::Ctx &c, prlab::LayoutState &s, prlab::Err &e) -> int {
    if (prlab::dsmemKnob(knob)) return prlab::dsmemSetKnob(c, knob, value, e);
    if (value < 0) return prlab::fail(e, PRLAB_ERR_ARG, "knob %d: value %d must be >= 0 (0 = automatic)", knob, value);
    if (const prlab::DesignFamily *f = prlab::familyOfKnob(knob)) return f->set(c, knob, value, e);
    switch (knob) {
    case PRLAB_KNOB_TILE_EDGES:
      if (value != 0 && (value < 32 || value > 8192))
        return prlab::fail(e, PRLAB_ERR_ARG, "tile edges %d outside [32, 8192]", value);
      s.knobTileEdges = value;
      break;
    case PRLAB_KNOB_TILE_ROWS:
      if (value != 0 && (value < 1 || value > 2048))
        return prlab::fail(e, PRLAB_ERR_ARG, "tile rows %d outside [1, 2048]", value);
      s.knobTileRows = value;
      break;
    case PRLAB_KNOB_BLOCKS_PER_SM: s.knobBlocksPerSM = value; break;
    case PRLAB_KNOB_GRAPH_K: s.knobGraphK = value == 0 ? 10 : value; break;
    case PRLAB_KNOB_RESIDENT: s.knobResident = value; break;
    case PRLAB_KNOB_CLUSTER_MODE:
      if (value > 2) return prlab::fail(e, PRLAB_ERR_ARG, "cluster mode %d outside [0, 2]", value);
      s.knobClusterMode = value;
      break;
    case PRLAB_KNOB_CLUSTER_SIZE:
      if (value > prlab::fr::kMaxCluster)
        return prlab::fail(e, PRLAB_ERR_ARG, "cluster size %d outside [1, 16]", value);
      s.knobClusterSize = value;
      break;
    default:
      return prlab::fail(e, PRLAB_ERR_ARG, "knob %d out of range [0, %d)", knob, PRLAB_KNOB_COUNT);
    }
    cudaDeviceSynchronize();
    prlab::freeLayout(s);
    return PRLAB_OK;
  });
}

int prlab_time_primitive(void *handle, int which, int count, int warmups, int repeats, float *median_ms,
                             char *msg, int msg_len) {
  return fentry(handle, msg, msg_len, [&](prlab::Ctx &c, prlab::LayoutState &s, prlab::Err &e) -> int {
    PR_TRY(prlab::build(c, s, e));
    PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before primitive)");
    return prlab::primitive(c, s, which, count, warmups, repeats, median_ms, e);
  });
}

} // extern "C"
