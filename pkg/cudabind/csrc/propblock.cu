// propblock.cu — propagation blocking (gpu-prop-blocking): the pull
// iteration's random 4-byte gathers turned into streams, after Beamer,
// Asanovic and Patterson, "Reducing PageRank Communication via Propagation
// Blocking" (IPDPS 2017), on the graph relabelled by out-degree
// (pkg/cudabind/relabel.go). Written for the H200 from the idea, not from
// their code.
//
// Why: gpu-hothead's row loops are bound by the memory system's throughput
// for scattered 4-byte gathers (~154 G/s at R-MAT 2^24, NOTES.md "hot
// head"), whatever the loads in flight. Here no edge gathers from device
// memory: every iteration is two launches of coalesced streams.
//
// Layout, once per graph (build(), on the GPU: one key per edge, one
// cub::DeviceRadixSort, a few passes; outside the timed iterations):
//  * destinations cut into B bins of consecutive rows, at most W rows
//    (W <= 65536: 16-bit destination-local index; W floats of accumulator in
//    one block's shared memory) and about E edges each (a row with more is a
//    bin of its own), so the accumulate blocks are balanced by edges;
//  * sources below H (the hot head: the most-cited after the relabel) are
//    gathered in phase 2 from a staged copy of contrib[0, H), as gpu-hothead
//    does (H = 0: pure propagation blocking); the sources from H on are cut
//    into C chunks of S rows (S <= 65536: 16-bit source-local index; S
//    floats staged in one block's shared memory in phase 1);
//  * the edges are ordered bin-major: bin b's cold segments [b][0 .. C) then
//    its hot segment [b][C], within a segment by source then destination.
//    dst2[e] (16 bits) is the destination-local index, val[e] the value
//    phase 1 writes (a hot edge's val holds src << 16 | dst instead, written
//    once); src1 holds the cold edges' source-local indices in phase 1's
//    order: chunk-major, then bin, then as in the segment. pre[c][b] is
//    segment [b][c]'s first position in chunk c's phase-1 order, and
//    delta[c][b] = its bin-major position minus that.
//  * phase 1's work items: runs of at most I consecutive edges of one chunk
//    (balanced by edges).
// Per iteration k (x_k -> x_{k+1}):
//  1. scatterKernel, block per item: stages its chunk's contributions
//     contrib[u] = x_k[u]/outdeg(u) in shared memory, then its 32 warps
//     walk contiguous ranges of the item, 8 loads of src1 in flight per lane,
//     and store val[pos] = stage[src1[f]] (pos = f + delta[c][b], the
//     lane's segment b found once by binary search, then advanced):
//     coalesced 2-byte reads and 4-byte writes. Block 0 also sums the
//     dangling partials of x_k into D.
//  2. accumulateKernel, block per bin: zeroes its accumulator, stages
//     contrib[0, H), adds val[e] at dst2[e] for its cold edges and
//     head[src] at dst for its hot edges, then combines its rows. By
//     default (measured fastest with the same bits every run, NOTES.md
//     "propagation blocking") the segments are ordered by destination, each
//     lane adds its 8 consecutive edges' runs of one destination with one
//     atomic, and the row sums are 64-bit fixed point (2^-60) added by
//     native 32-bit integer atomics, so the order of the adds does not
//     change the bits; knobs PRLAB_KNOB_PB_RUNS / _FIXED = 2 give one atomic
//     per edge / float atomics (compare-and-swap loops on sm_90, whose
//     order varies, so reruns differ in the last bits). The combine: x' = (1-d)/n + d (acc + D/n), contrib' = x'/outdeg, and the
//     block's dangling partial of x'. A bin of at most W/32 rows (a few
//     long rows) keeps 32 replicas of each row's sum, one per lane, so the
//     lanes of a warp never add to the same address; its rows are summed
//     by warp.
// Bytes per iteration (device memory, each element a kernel loads or stores
// counted once): per cold edge src1 2 + val store 4 (phase 1) + val 4 +
// dst2 2 (phase 2) = 12; per hot edge val 4 (packed src, dst); per row
// contrib staged 4 (phase 1), invOut 4, x' 4, contrib' 4 = 16n; so
// 16n + 12 nnz - 8 x hot edges. Not counted: the head's staging (B x 4H
// bytes), the tables pre/delta read by the lanes' segment search (L1),
// the items and bin tables O(B C), the dangling partials O(B).
// Correctness runs add the residual (8n) and double-sum (4n) kernels of
// kernels.cu after each iteration (never timed), as gpu-hothead does.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "block_reduce.cuh"
#include "family.cuh"

namespace prlab {
namespace pb {

constexpr int kT = 1024;      // threads per block of both phases
constexpr int kMinBlocks = 2; // 2048 threads per SM (<= 32 registers)
constexpr int kU = 8;         // edges per lane and step (loads in flight)
constexpr int kRep = 32;      // replicas of a short bin's row sums (one per lane)
// Defaults of the knobs at 0 (NOTES.md, "propagation blocking"): 2 x (64
// KiB accumulator + 48 KiB head) fit one SM's 228 KiB, as do 2 x 64 KiB of
// phase 1's staging.
constexpr int kDefaultHot = 12288;
constexpr int kDefaultBinRows = 16384;      // float row sums (4 bytes per row)
constexpr int kDefaultFixedBinRows = 8192;  // fixed-point row sums (8 bytes per row): two blocks per SM
constexpr int kDefaultChunkRows = 16384;
constexpr int kDefaultBinEdges = 1 << 18;
constexpr int kDefaultItemEdges = 1 << 18;
constexpr int kMaxLocal = 65536; // 16-bit local indices

struct State {
  int knobHot = 0, knobBinRows = 0, knobChunkRows = 0, knobBinEdges = 0, knobItemEdges = 0, knobReplicate = 0, knobRuns = 0, knobFixed = 0;
  bool built = false;
  // The settings in use: destination runs and fixed-point sums (knobs 0 or 1: on, 2: off).
  bool runs = true, fixed = true;
  int sms = 0, smemOptin = 0;
  // The layout in use (knobs resolved) and what it came to.
  int hot = 0, W = 0, S = 0, binEdges = 0, itemEdges = 0, B = 0, C = 0, nItems = 0;
  long long hotEdges = 0;
  float buildMs = 0.0f;
  // Each phase alone, ms per launch (timePhases; -1 until measured).
  float phaseMs[2] = {-1.0f, -1.0f};
  int *binStart = nullptr; // [B + 1] first row of bin b
  int *binOff = nullptr;   // [B + 1] first edge of bin b (bin-major)
  int *hotOff = nullptr;   // [B] first hot edge of bin b
  int *pre = nullptr, *delta = nullptr; // [C (B + 1)]
  int4 *items = nullptr;   // phase 1's items: chunk, flat begin, flat end, the chunk's first src1 position
  unsigned short *src1 = nullptr, *dst2 = nullptr;
  float *val = nullptr;
  float *contrib[2] = {nullptr, nullptr};
  float *dPart[2] = {nullptr, nullptr};
  float *dTot = nullptr;
};

void freeBuffers(State &s) {
  freeDevice(s.binStart, s.binOff, s.hotOff, s.pre, s.delta, s.items, s.src1, s.dst2, s.val, s.contrib[0],
             s.contrib[1], s.dPart[0], s.dPart[1], s.dTot);
  s.built = false;
  s.phaseMs[0] = s.phaseMs[1] = -1.0f;
}

int getState(Ctx &c, State **out, Err &e) {
  return stateIn(c.propblock, out, "propagation-blocking",
                 [&](State &s) { return deviceLimits(c.device, &s.sms, &s.smemOptin, nullptr, e); }, e);
}

// ------------------------------------------------------------------ one-time layout kernels

// bin of row v: the largest b with binStart[b] <= v.
__device__ __forceinline__ int binOf(const int *binStart, int B, int v) {
  int lo = 0, hi = B - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (binStart[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// One key per edge (warp per row): segment (b (C + 1) + chunk, or + C for
// a hot source) << 32 | source-local << 16 | destination-local (dstMajor:
// the two local indices swapped, so a segment is ordered by destination).
__global__ void keyKernel(const int *rowPtr, const int *colIdx, int n, const int *binStart, int B, int C, int hot,
                          int S, bool dstMajor, unsigned long long *keys) {
  const int lane = threadIdx.x & 31;
  for (int v = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n; v += (gridDim.x * blockDim.x) >> 5) {
    const int b = binOf(binStart, B, v);
    const unsigned long long dl = static_cast<unsigned long long>(v - binStart[b]);
    const unsigned long long segBase = static_cast<unsigned long long>(b) * static_cast<unsigned long long>(C + 1);
    for (int e = rowPtr[v] + lane; e < rowPtr[v + 1]; e += 32) {
      const int u = colIdx[e];
      unsigned long long seg, sl;
      if (u < hot) {
        seg = segBase + static_cast<unsigned long long>(C);
        sl = static_cast<unsigned long long>(u);
      } else {
        const int ch = (u - hot) / S;
        seg = segBase + static_cast<unsigned long long>(ch);
        sl = static_cast<unsigned long long>(u - hot - ch * S);
      }
      keys[e] = seg << 32 | (dstMajor ? dl << 16 | sl : sl << 16 | dl);
    }
  }
}

// segOff[s] = the first sorted position of segment s (segments [0, ns]; an
// empty segment starts where the next non-empty one does).
__global__ void segmentKernel(const unsigned long long *keys, int nnz, int ns, int *segOff) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += gridDim.x * blockDim.x) {
    const long long s = static_cast<long long>(keys[i] >> 32);
    const long long p = i == 0 ? -1 : static_cast<long long>(keys[i - 1] >> 32);
    for (long long t = p + 1; t <= s; ++t) segOff[t] = i;
    if (i == nnz - 1)
      for (long long t = s + 1; t <= ns; ++t) segOff[t] = nnz;
  }
}

// The per-edge arrays from the sorted keys: dst2 (bin-major), a hot edge's
// packed val, a cold edge's src1 at its phase-1 position.
__global__ void scatterLayoutKernel(const unsigned long long *keys, int nnz, int C, const int *segOff, const int *pre,
                                    const int *chunkBase, int B, bool dstMajor, unsigned short *src1,
                                    unsigned short *dst2, float *val) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += gridDim.x * blockDim.x) {
    const unsigned long long k = keys[i];
    const long long s = static_cast<long long>(k >> 32);
    const unsigned hi = static_cast<unsigned>(k >> 16) & 0xFFFFu, lo = static_cast<unsigned>(k) & 0xFFFFu;
    const unsigned sl = dstMajor ? lo : hi, dl = dstMajor ? hi : lo;
    dst2[i] = static_cast<unsigned short>(dl);
    const int b = static_cast<int>(s / (C + 1)), ch = static_cast<int>(s % (C + 1));
    if (ch == C) {
      val[i] = __uint_as_float(sl << 16 | dl);
    } else {
      val[i] = 0.0f;
      const long long f = static_cast<long long>(pre[static_cast<size_t>(ch) * (B + 1) + b]) + (i - segOff[s]);
      src1[chunkBase[ch] + f] = static_cast<unsigned short>(sl);
    }
  }
}

// ------------------------------------------------------------------ the iteration

struct ScatterArgs {
  const int4 *items;
  int nItems;
  const unsigned short *src1;
  const int *pre, *delta;
  int B, hot, S, n;
  const float *contrib;
  const float *dIn;
  int nPart;
  float *dTot, *val;
};

// Phase 1 (see the file comment).
__global__ void __launch_bounds__(kT, kMinBlocks) scatterKernel(ScatterArgs a) {
  extern __shared__ float stage[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (blockIdx.x == 0 && warp == 0) { // D of x_k, in lane order: the same bits every run
    float v = 0.0f;
    for (int i = lane; i < a.nPart; i += 32) v += a.dIn[i];
    v = dev::warpAllSum(v);
    if (lane == 0) *a.dTot = v;
  }
  if (static_cast<int>(blockIdx.x) >= a.nItems) return;
  const int4 it = a.items[blockIdx.x];
  const int c = it.x, base = a.hot + c * a.S, rows = min(a.S, a.n - base);
  for (int i = tid; i < rows; i += kT) stage[i] = __ldg(a.contrib + base + i);
  __syncthreads();
  const int *pre = a.pre + static_cast<size_t>(c) * (a.B + 1), *delta = a.delta + static_cast<size_t>(c) * (a.B + 1);
  const unsigned short *src = a.src1 + it.w;
  // The warp's contiguous range of the item (a multiple of 32 edges).
  const int len = it.z - it.y, per = (((len + 31) / 32) + 31) & ~31;
  const int wa = it.y + warp * per, wb = min(it.z, wa + per);
  int f = wa + lane;
  if (f >= wb) return;
  int b = 0;
  {
    int lo = 0, hi = a.B - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (__ldg(pre + mid) <= f) lo = mid;
      else hi = mid - 1;
    }
    b = lo;
  }
  int next = __ldg(pre + b + 1), dl = __ldg(delta + b);
  for (; f < wb; f += 32 * kU) {
    unsigned short sidx[kU];
#pragma unroll
    for (int j = 0; j < kU; ++j) {
      const int g = f + 32 * j;
      sidx[j] = g < wb ? __ldcs(src + g) : static_cast<unsigned short>(0);
    }
#pragma unroll
    for (int j = 0; j < kU; ++j) {
      const int g = f + 32 * j;
      if (g < wb) {
        while (g >= next) {
          ++b;
          next = __ldg(pre + b + 1);
          dl = __ldg(delta + b);
        }
        a.val[g + dl] = stage[sidx[j]];
      }
    }
  }
}

struct AccArgs {
  const int *binStart, *binOff, *hotOff;
  const unsigned short *dst2;
  const float *val;
  const float *cIn;
  int hot, W, replicate;
  const float *dTot;
  const float *invOut;
  float tele, d, invN;
  float *xOut, *cOut, *dOut;
};

// The warp's contiguous share [wa, wb) of edges [e0, e1) (a multiple of 32).
__device__ __forceinline__ void warpRange(int e0, int e1, int warp, int &wa, int &wb) {
  const int len = e1 - e0, per = (((len + 31) / 32) + 31) & ~31;
  wa = e0 + warp * per;
  wb = min(e1, wa + per);
}

// Phase 2 (see the file comment). Dynamic shared memory: W + H floats.
// kRuns (knob PRLAB_KNOB_PB_RUNS, segments ordered by destination): each
// lane takes 8 consecutive edges (16- and 32-byte loads of 8-aligned
// groups, the edges outside the range masked) and adds each run of equal
// destinations with one atomic.
// kFixed (knob PRLAB_KNOB_PB_FIXED): every row sum is a 64-bit fixed-point
// number (units of 2^-60; a contribution is below 1) in two 32-bit words,
// added with native 32-bit integer atomics (the low word's carry into the
// high word): integer sums do not depend on the order, so a rerun gives
// the same bits. 8 bytes per row: dynamic shared memory 2W + H floats.
template <bool kRuns, bool kFixed>
__global__ void __launch_bounds__(kT, kMinBlocks) accumulateKernel(AccArgs a) {
  extern __shared__ float sm[];
  __shared__ float scratch[32];
  float *acc = sm, *head = sm + (kFixed ? 2 : 1) * a.W;
  unsigned *words = reinterpret_cast<unsigned *>(sm);
  auto addTo = [&](int slot, float x) {
    if constexpr (kFixed) {
      const unsigned long long q = static_cast<unsigned long long>(__float2ll_rn(x * 1.152921504606846976e18f)); // x 2^60
      const unsigned lo = static_cast<unsigned>(q), hi = static_cast<unsigned>(q >> 32);
      const unsigned old = atomicAdd(words + 2 * slot, lo);
      const unsigned up = hi + (old + lo < old ? 1u : 0u);
      if (up != 0u) atomicAdd(words + 2 * slot + 1, up);
    } else {
      atomicAdd(acc + slot, x);
    }
  };
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, b = blockIdx.x;
  const int r0 = a.binStart[b], rows = a.binStart[b + 1] - r0;
  const bool rep = a.replicate && rows * kRep <= a.W;
  const int sh = rep ? 5 : 0, rl = rep ? lane : 0;
  const int accN = (rep ? rows * kRep : rows) * (kFixed ? 2 : 1);
  for (int i = tid; i < accN; i += kT) acc[i] = 0.0f;
  for (int i = tid; i < a.hot; i += kT) head[i] = __ldg(a.cIn + i);
  __syncthreads();
  const int e0 = a.binOff[b], eh = a.hotOff[b], e1 = a.binOff[b + 1];
  int wa, wb;
  if constexpr (kRuns) {
    // Groups [q0, q1) of 8 edges covering [lo, hi); hot: val holds src << 16 | dst.
    auto runs = [&](int lo, int hi, bool hotPart) {
      if (lo >= hi) return;
      const int q0 = lo >> 3, q1 = (hi + 7) >> 3;
      int qa, qb;
      warpRange(q0, q1, warp, qa, qb);
      for (int q = qa + lane; q < qb; q += 32) {
        const int base = q << 3;
        const float4 v0 = __ldcs(reinterpret_cast<const float4 *>(a.val + base));
        const float4 v1 = __ldcs(reinterpret_cast<const float4 *>(a.val + base) + 1);
        const float vv[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
        unsigned d[8];
        if (hotPart) {
#pragma unroll
          for (int j = 0; j < 8; ++j) d[j] = __float_as_uint(vv[j]) & 0xFFFFu;
        } else {
          const uint4 w = __ldcs(reinterpret_cast<const uint4 *>(a.dst2 + base));
          const unsigned ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            d[2 * j] = ws[j] & 0xFFFFu;
            d[2 * j + 1] = ws[j] >> 16;
          }
        }
        int cur = -1;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int e = base + j;
          if (e < lo || e >= hi) continue;
          const float x = hotPart ? head[__float_as_uint(vv[j]) >> 16] : vv[j];
          if (static_cast<int>(d[j]) != cur) {
            if (cur >= 0) addTo((cur << sh) | rl, sum);
            cur = static_cast<int>(d[j]);
            sum = x;
          } else {
            sum += x;
          }
        }
        if (cur >= 0) addTo((cur << sh) | rl, sum);
      }
    };
    runs(e0, eh, false);
    runs(eh, e1, true);
  } else {
    warpRange(e0, eh, warp, wa, wb);
    for (int g = wa + lane; g < wb; g += 32 * kU) {
      float v[kU];
      unsigned short dd[kU];
#pragma unroll
      for (int j = 0; j < kU; ++j) {
        const int gj = g + 32 * j;
        v[j] = gj < wb ? __ldcs(a.val + gj) : 0.0f;
        dd[j] = gj < wb ? __ldcs(a.dst2 + gj) : static_cast<unsigned short>(0);
      }
#pragma unroll
      for (int j = 0; j < kU; ++j)
        if (g + 32 * j < wb) addTo((static_cast<int>(dd[j]) << sh) | rl, v[j]);
    }
    warpRange(eh, e1, warp, wa, wb);
    for (int g = wa + lane; g < wb; g += 32 * kU) {
      unsigned p[kU];
#pragma unroll
      for (int j = 0; j < kU; ++j) {
        const int gj = g + 32 * j;
        p[j] = gj < wb ? __float_as_uint(__ldcs(a.val + gj)) : 0u;
      }
#pragma unroll
      for (int j = 0; j < kU; ++j)
        if (g + 32 * j < wb) addTo((static_cast<int>(p[j] & 0xFFFFu) << sh) | rl, head[p[j] >> 16]);
    }
  }
  __syncthreads();
  const float D = __ldg(a.dTot);
  float dang = 0.0f;
  auto finish = [&](int v, float s) {
    const float xn = a.tele + a.d * (s + D * a.invN);
    const float iv = __ldg(a.invOut + v);
    a.xOut[v] = xn;
    a.cOut[v] = xn * iv;
    if (iv == 0.0f) dang += xn;
  };
  // Slot i's sum: a float, or the fixed-point words as a float (exact integer, one rounding).
  auto slotFixed = [&](int i) {
    return static_cast<unsigned long long>(words[2 * i]) | static_cast<unsigned long long>(words[2 * i + 1]) << 32;
  };
  auto toFloat = [](unsigned long long q) { return static_cast<float>(static_cast<double>(q) * 8.673617379884035e-19); }; // 2^-60
  if (rep) {
    for (int r = warp; r < rows; r += kT / 32) {
      float s;
      if constexpr (kFixed) {
        unsigned long long q = slotFixed(r * kRep + lane);
        for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
        s = toFloat(q);
      } else {
        s = dev::warpAllSum(acc[r * kRep + lane]);
      }
      if (lane == 0) finish(r0 + r, s);
    }
  } else {
    for (int r = tid; r < rows; r += kT) {
      if constexpr (kFixed) finish(r0 + r, toFloat(slotFixed(r)));
      else finish(r0 + r, acc[r]);
    }
  }
  const float bd = dev::blockSum(dang, scratch);
  if (tid == 0) a.dOut[b] = bd;
}

// x_0 = 1/n, contrib_0 = x_0 / outdeg, one dangling partial of x_0 per block (B blocks).
__global__ void __launch_bounds__(256) prologueKernel(const float *invOut, int n, float x0, float *x, float *contrib,
                                                      float *dPart) {
  __shared__ float scratch[32];
  float dang = 0.0f;
  for (int v = blockIdx.x * 256 + threadIdx.x; v < n; v += gridDim.x * 256) {
    const float iv = invOut[v];
    x[v] = x0;
    contrib[v] = x0 * iv;
    if (iv == 0.0f) dang += x0;
  }
  const float bd = dev::blockSum(dang, scratch);
  if (threadIdx.x == 0) dPart[blockIdx.x] = bd;
}

// ------------------------------------------------------------------ host side

int knobOr(int knob, int def) { return knob ? knob : def; }

// The layout (see the file comment), outside any timed region; its wall
// time (host and device, synchronised) goes to s.buildMs.
int build(Ctx &c, State &s, Err &e) {
  if (s.built) return PRLAB_OK;
  const auto t0 = std::chrono::steady_clock::now();
  const int n = c.n, nnz = c.nnz;
  s.hot = std::min(n, s.knobHot == 1 ? 0 : knobOr(s.knobHot, kDefaultHot));
  s.runs = s.knobRuns != 2;
  s.fixed = s.knobFixed != 2;
  s.W = knobOr(s.knobBinRows, s.fixed ? kDefaultFixedBinRows : kDefaultBinRows);
  s.S = knobOr(s.knobChunkRows, kDefaultChunkRows);
  s.binEdges = knobOr(s.knobBinEdges, kDefaultBinEdges);
  s.itemEdges = knobOr(s.knobItemEdges, kDefaultItemEdges);
  const size_t smem1 = 4 * static_cast<size_t>(s.S), smem2 = 4 * ((s.fixed ? 2 : 1) * static_cast<size_t>(s.W) + s.hot);
  if (s.hot > kMaxLocal || s.W > kMaxLocal || s.S > kMaxLocal)
    return fail(e, PRLAB_ERR_ARG, "propagation blocking: head %d, bin rows %d, chunk rows %d: each must be <= %d (16-bit local indices)",
                s.hot, s.W, s.S, kMaxLocal);
  if (std::max(smem1, smem2) > static_cast<size_t>(s.smemOptin))
    return fail(e, PRLAB_ERR_ARG, "propagation blocking: %zu bytes of staging (4 x chunk rows %d) or %zu of accumulator + head (4 x (%d + %d)) exceed the block's %d bytes of shared memory",
                smem1, s.S, smem2, s.W, s.hot, s.smemOptin);
  PR_CUDA(e, cudaFuncSetAttribute(scatterKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem1)),
          "cudaFuncSetAttribute(scatterKernel, %zu bytes)", smem1);
  for (const void *fn : {reinterpret_cast<const void *>(accumulateKernel<false, false>), reinterpret_cast<const void *>(accumulateKernel<true, false>),
                         reinterpret_cast<const void *>(accumulateKernel<false, true>), reinterpret_cast<const void *>(accumulateKernel<true, true>)}) {
    PR_CUDA(e, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem2)),
            "cudaFuncSetAttribute(accumulateKernel, %zu bytes)", smem2);
    // Two accumulate blocks of 112 KiB need the largest shared-memory carveout (the streams need little L1).
    PR_CUDA(e, cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
            "cudaFuncSetAttribute(accumulateKernel, shared-memory carveout)");
  }

  // Bins: at most W rows and binEdges edges (a longer row alone).
  std::vector<int> rp(static_cast<size_t>(n) + 1);
  PR_CUDA(e, cudaMemcpy(rp.data(), c.rowPtr, 4 * rp.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(rowPtr, device to host)");
  std::vector<int> binStart{0};
  for (int v = 0; v < n; ++v) {
    const int first = binStart.back();
    if (v > first && (v - first == s.W || rp[v + 1] - rp[first] > s.binEdges)) binStart.push_back(v);
  }
  binStart.push_back(n);
  if (n == 0) binStart = {0, 0};
  s.B = static_cast<int>(binStart.size()) - 1;
  s.C = n > s.hot ? (n - s.hot + s.S - 1) / s.S : 0;
  const long long ns = static_cast<long long>(s.B) * (s.C + 1);
  if ((ns >> 31) != 0)
    return fail(e, PRLAB_ERR_ARG, "propagation blocking: %d bins x %d chunks: too many segments", s.B, s.C + 1);
  PR_TRY(upload(&s.binStart, binStart, "d_pbBinStart", e));

  // Keys, sorted: the bin-major order.
  unsigned long long *keys[2] = {nullptr, nullptr};
  void *tmp = nullptr;
  int *segOff = nullptr, *dBase = nullptr;
  auto cleanup = [&]() { freeDevice(keys[0], keys[1], tmp, segOff, dBase); };
  auto body = [&]() -> int {
    const size_t E = static_cast<size_t>(nnz);
    PR_TRY(devAlloc(reinterpret_cast<void **>(&keys[0]), 8 * E, "d_pbKeys", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&keys[1]), 8 * E, "d_pbKeysSorted", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&segOff), 4 * (static_cast<size_t>(ns) + 1), "d_pbSegOff", e));
    const int gk = std::max(1, std::min(blocksFor(static_cast<long long>(n) * 32, 256), 65535));
    keyKernel<<<gk, 256>>>(c.rowPtr, c.colIdx, n, s.binStart, s.B, s.C, s.hot, s.S, s.runs, keys[0]);
    PR_LAUNCH(e, "propagation blocking keyKernel<<<%d, 256>>>", gk);
    int bits = 1;
    while ((1ll << bits) <= ns) ++bits;
    size_t tmpBytes = 0;
    PR_CUDA(e, cub::DeviceRadixSort::SortKeys(nullptr, tmpBytes, keys[0], keys[1], nnz, 0, 32 + bits),
            "cub::DeviceRadixSort::SortKeys (temporary size)");
    PR_TRY(devAlloc(&tmp, tmpBytes, "d_pbSortTemp", e));
    PR_CUDA(e, cub::DeviceRadixSort::SortKeys(tmp, tmpBytes, keys[0], keys[1], nnz, 0, 32 + bits),
            "cub::DeviceRadixSort::SortKeys (%d keys, %d bits)", nnz, 32 + bits);
    std::vector<int> off(static_cast<size_t>(ns) + 1, 0);
    if (nnz > 0) {
      const int gs = std::max(1, std::min(blocksFor(nnz, 256), 65535));
      segmentKernel<<<gs, 256>>>(keys[1], nnz, static_cast<int>(ns), segOff);
      PR_LAUNCH(e, "propagation blocking segmentKernel<<<%d, 256>>>", gs);
      PR_CUDA(e, cudaMemcpy(off.data(), segOff, 4 * off.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(segment offsets)");
    } else {
      PR_CUDA(e, cudaMemcpy(segOff, off.data(), 4 * off.size(), cudaMemcpyHostToDevice), "cudaMemcpy(segment offsets)");
    }
    // Bin and hot offsets; per chunk the segments' phase-1 positions and
    // deltas; the items.
    const int B = s.B, C = s.C, B1 = s.B + 1;
    std::vector<int> binOff(static_cast<size_t>(B1)), hotOff(static_cast<size_t>(std::max(B, 1)));
    for (int b = 0; b <= B; ++b) binOff[b] = off[static_cast<size_t>(b) * (C + 1)];
    s.hotEdges = 0;
    for (int b = 0; b < B; ++b) {
      hotOff[b] = off[static_cast<size_t>(b) * (C + 1) + C];
      s.hotEdges += binOff[b + 1] - hotOff[b];
    }
    std::vector<int> pre(static_cast<size_t>(C) * B1 + 1), delta(static_cast<size_t>(C) * B1 + 1), base(static_cast<size_t>(C) + 1);
    std::vector<int4> items;
    long long at = 0;
    for (int ch = 0; ch < C; ++ch) {
      base[ch] = static_cast<int>(at);
      int f = 0;
      for (int b = 0; b < B; ++b) {
        const size_t sg = static_cast<size_t>(b) * (C + 1) + ch;
        pre[static_cast<size_t>(ch) * B1 + b] = f;
        delta[static_cast<size_t>(ch) * B1 + b] = off[sg] - f;
        f += off[sg + 1] - off[sg];
      }
      pre[static_cast<size_t>(ch) * B1 + B] = f;
      delta[static_cast<size_t>(ch) * B1 + B] = 0;
      for (int f0 = 0; f0 < f; f0 += s.itemEdges) items.push_back(make_int4(ch, f0, std::min(f, f0 + s.itemEdges), base[ch]));
      at += f;
    }
    base[C] = static_cast<int>(at);
    s.nItems = static_cast<int>(items.size());
    PR_TRY(upload(&s.binOff, binOff, "d_pbBinOff", e));
    PR_TRY(upload(&s.hotOff, hotOff, "d_pbHotOff", e));
    PR_TRY(upload(&s.pre, pre, "d_pbPre", e));
    PR_TRY(upload(&s.delta, delta, "d_pbDelta", e));
    PR_TRY(upload(&s.items, items, "d_pbItems", e));
    PR_TRY(upload(&dBase, base, "d_pbChunkBase", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.src1), 2 * static_cast<size_t>(at), "d_pbSrc1", e));
    // 8 elements past the edges: the last 8-edge group of the destination-ordered accumulate.
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.dst2), 2 * (E + 8), "d_pbDst2", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.val), 4 * (E + 8), "d_pbVal", e));
    PR_CUDA(e, cudaMemset(s.dst2, 0, 2 * (E + 8)), "cudaMemset(d_pbDst2)");
    PR_CUDA(e, cudaMemset(s.val, 0, 4 * (E + 8)), "cudaMemset(d_pbVal)");
    if (nnz > 0) {
      const int gs = std::max(1, std::min(blocksFor(nnz, 256), 65535));
      scatterLayoutKernel<<<gs, 256>>>(keys[1], nnz, C, segOff, s.pre, dBase, B, s.runs, s.src1, s.dst2, s.val);
      PR_LAUNCH(e, "propagation blocking scatterLayoutKernel<<<%d, 256>>>", gs);
    }
    for (int i = 0; i < 2; ++i) {
      PR_TRY(devAlloc(reinterpret_cast<void **>(&s.contrib[i]), 4 * static_cast<size_t>(n), "d_pbContrib", e));
      PR_TRY(devAlloc(reinterpret_cast<void **>(&s.dPart[i]), 4 * static_cast<size_t>(B), "d_pbDanglingPartials", e));
    }
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.dTot), 4, "d_pbDangling", e));
    PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (propagation-blocking layout)");
    return PRLAB_OK;
  };
  const int rc = body();
  cleanup();
  if (rc != PRLAB_OK) {
    freeBuffers(s);
    return rc;
  }
  s.buildMs = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.built = true;
  return PRLAB_OK;
}

int launchPrologue(Ctx &c, State &s, Err &e) {
  const float x0 = static_cast<float>(1.0 / c.n);
  prologueKernel<<<s.B, 256>>>(c.invOut, c.n, x0, c.xbuf[0], s.contrib[0], s.dPart[0]);
  PR_LAUNCH(e, "propagation blocking prologueKernel<<<%d, 256>>>", s.B);
  return PRLAB_OK;
}

// Iteration k: x[k%2] -> x[1-k%2] (contributions and partials likewise);
// phases: bit 1 launches phase 1, bit 2 phase 2 (timePhases times each alone).
int launchIteration(Ctx &c, State &s, int k, float d, Err &e, int phases = 3) {
  const int p = k & 1;
  ScatterArgs a1{};
  a1.items = s.items;
  a1.nItems = s.nItems;
  a1.src1 = s.src1;
  a1.pre = s.pre;
  a1.delta = s.delta;
  a1.B = s.B;
  a1.hot = s.hot;
  a1.S = s.S;
  a1.n = c.n;
  a1.contrib = s.contrib[p];
  a1.dIn = s.dPart[p];
  a1.nPart = s.B;
  a1.dTot = s.dTot;
  a1.val = s.val;
  const int g1 = std::max(1, s.nItems);
  if (phases & 1) scatterKernel<<<g1, kT, 4 * static_cast<size_t>(s.S)>>>(a1);
  PR_LAUNCH(e, "propagation blocking scatterKernel<<<%d, %d, %zu bytes>>>", g1, kT, 4 * static_cast<size_t>(s.S));
  if (!(phases & 2)) return PRLAB_OK;
  AccArgs a2{};
  a2.binStart = s.binStart;
  a2.binOff = s.binOff;
  a2.hotOff = s.hotOff;
  a2.dst2 = s.dst2;
  a2.val = s.val;
  a2.cIn = s.contrib[p];
  a2.hot = s.hot;
  a2.W = s.W;
  a2.replicate = s.knobReplicate == 1 ? 0 : 1;
  a2.dTot = s.dTot;
  a2.invOut = c.invOut;
  setStepOut(a2, c, d, s.contrib, s.dPart, p);
  const size_t smem2 = 4 * ((s.fixed ? 2 : 1) * static_cast<size_t>(s.W) + s.hot);
  const bool runs = s.runs, fixed = s.fixed;
  if (runs && fixed) accumulateKernel<true, true><<<s.B, kT, smem2>>>(a2);
  else if (runs) accumulateKernel<true, false><<<s.B, kT, smem2>>>(a2);
  else if (fixed) accumulateKernel<false, true><<<s.B, kT, smem2>>>(a2);
  else accumulateKernel<false, false><<<s.B, kT, smem2>>>(a2);
  PR_LAUNCH(e, "propagation blocking accumulateKernel<<<%d, %d, %zu bytes>>>", s.B, kT, smem2);
  return PRLAB_OK;
}

// s.phaseMs: each phase alone, from x_0 (one warm-up launch, then the mean of
// 10 launches between two events; outside any timed region: it leaves
// x and the contributions of some iteration behind, which every run and
// timed run overwrites from its prologue on).
int timePhases(Ctx &c, State &s, float d, Err &e) {
  if (s.phaseMs[0] >= 0.0f) return PRLAB_OK;
  PR_TRY(launchPrologue(c, s, e));
  PR_TRY(launchIteration(c, s, 0, d, e)); // val and D of x_0 for phase 2
  for (int ph = 0; ph < 2; ++ph) {
    float ms = 0.0f;
    PR_TRY(timeRuns(EventClock{c.ev0, c.ev1, 0}, 1, 1, &ms, [&]() -> int {
      for (int r = 0; r < 10; ++r) PR_TRY(launchIteration(c, s, 0, d, e, 1 << ph));
      return PRLAB_OK;
    }, "propagation-blocking phase", e));
    s.phaseMs[ph] = ms / 10.0f;
  }
  return PRLAB_OK;
}

int prepare(Ctx &c, State **s, float d, Err &e) {
  PR_TRY(checkDamping(d, e));
  PR_TRY(getState(c, s, e));
  return build(c, **s, e);
}

} // namespace pb

namespace {

bool propblockImpl(int impl) { return impl >= PRLAB_IMPL_PROPBLOCK_FIRST && impl < PRLAB_IMPL_PROPBLOCK_END; }
bool propblockKnob(int knob) { return knob >= PRLAB_KNOB_PB_FIRST && knob < PRLAB_KNOB_PB_END; }

int propblockRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals, double *sums,
                 int *done, int *converged, Err &e) {
  (void)impl;
  PR_TRY(checkRunArgs(c, d, iterations, ranks, residuals, sums, done, converged, e));
  pb::State *s = nullptr;
  PR_TRY(pb::prepare(c, &s, d, e));
  return runLaunched(
      c, iterations, tol, [&] { return pb::launchPrologue(c, *s, e); },
      [&](int k) { return pb::launchIteration(c, *s, k, d, e); }, ranks, residuals, sums, done, converged,
      "propagation-blocking ", e);
}

int propblockBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs, float *ranks,
                       Err &e) {
  (void)impl;
  PR_TRY(checkBenchArgs(d, iterations, warmups, runs, runsMs, e));
  pb::State *s = nullptr;
  PR_TRY(pb::prepare(c, &s, d, e));
  return timeIterations(
      c, iterations, warmups, runs, runsMs, [&] { return pb::launchPrologue(c, *s, e); },
      [&](int k) { return pb::launchIteration(c, *s, k, d, e); }, ranks, "propagation-blocking benchmark", e);
}

int propblockSet(Ctx &c, int knob, int value, Err &e) {
  pb::State *s = nullptr;
  PR_TRY(pb::getState(c, &s, e));
  struct Rule {
    int knob;
    int *field;
    const char *what;
    int lo, hi;
  } rules[] = {
      {PRLAB_KNOB_PB_HOT, &s->knobHot, "head floats (1: none)", 1, pb::kMaxLocal},
      {PRLAB_KNOB_PB_BIN_ROWS, &s->knobBinRows, "bin rows", 32, pb::kMaxLocal},
      {PRLAB_KNOB_PB_CHUNK_ROWS, &s->knobChunkRows, "chunk rows", 32, pb::kMaxLocal},
      {PRLAB_KNOB_PB_BIN_EDGES, &s->knobBinEdges, "bin edges", 32, 1 << 30},
      {PRLAB_KNOB_PB_ITEM_EDGES, &s->knobItemEdges, "item edges", 32, 1 << 30},
      {PRLAB_KNOB_PB_REPLICATE, &s->knobReplicate, "replicas (1: never)", 1, 1},
      {PRLAB_KNOB_PB_RUNS, &s->knobRuns, "runs (1: segments by destination, runs added once; 2: by source, one atomic per edge)", 1, 2},
      {PRLAB_KNOB_PB_FIXED, &s->knobFixed, "fixed point (1: 64-bit integer row sums, the same bits every run; 2: float atomics)", 1, 2},
  };
  for (Rule &r : rules) {
    if (r.knob != knob) continue;
    if (value != 0 && (value < r.lo || value > r.hi))
      return fail(e, PRLAB_ERR_ARG, "propagation blocking %s %d: must be 0 (automatic) or in [%d, %d]", r.what, value,
                  r.lo, r.hi);
    *r.field = value;
    cudaDeviceSynchronize();
    pb::freeBuffers(*s);
    return PRLAB_OK;
  }
  return fail(e, PRLAB_ERR_ARG, "knob %d is not a propagation-blocking knob [%d, %d)", knob, PRLAB_KNOB_PB_FIRST,
              PRLAB_KNOB_PB_END);
}

void propblockStateFree(Ctx &c) {
  pb::State *s = static_cast<pb::State *>(c.propblock);
  if (s == nullptr) return;
  pb::freeBuffers(*s);
  delete s;
  c.propblock = nullptr;
}

} // namespace

const DesignFamily kPropBlockFamily = {propblockImpl,      propblockKnob, propblockRun, propblockBenchmark,
                                       propblockSet,       propblockStateFree};

} // namespace prlab

// ==================================================================== C API (prlab_cuda.h)

extern "C" {

int prlab_propblock_info(void *handle, float damping, int *hot_floats, int *bin_rows, int *chunk_rows, int *bins,
                         int *chunks, int *items, long long *hot_edges, float *build_ms, float *phase_ms, int *mode,
                         char *msg, int msg_len) {
  return prlab::entry(msg, msg_len, [&](prlab::Err &e) -> int {
    PR_TRY(prlab::checkHandle(handle, e));
    if (!hot_floats || !bin_rows || !chunk_rows || !bins || !chunks || !items || !hot_edges || !build_ms || !phase_ms || !mode)
      return prlab::fail(e, PRLAB_ERR_ARG, "an output pointer is NULL");
    prlab::Ctx &c = *static_cast<prlab::Ctx *>(handle);
    prlab::pb::State *s = nullptr;
    PR_TRY(prlab::pb::prepare(c, &s, damping, e));
    PR_TRY(prlab::pb::timePhases(c, *s, damping, e));
    PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (propagation-blocking info)");
    phase_ms[0] = s->phaseMs[0];
    phase_ms[1] = s->phaseMs[1];
    *hot_floats = s->hot;
    *bin_rows = s->W;
    *chunk_rows = s->S;
    *bins = s->B;
    *chunks = s->C;
    *items = s->nItems;
    *hot_edges = s->hotEdges;
    *build_ms = s->buildMs;
    *mode = (s->runs ? 1 : 0) | (s->fixed ? 2 : 0);
    return PRLAB_OK;
  });
}

} // extern "C"
