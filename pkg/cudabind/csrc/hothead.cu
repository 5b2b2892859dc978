// hothead.cu — the hot-head design (gpu-hothead): one launch per PageRank
// iteration on the graph relabelled by out-degree (pkg/cudabind/relabel.go),
// the hottest contributions served from shared memory.
//
// After the out-degree relabel the most-cited sources have the smallest ids,
// so the first H contributions take a large share of the gathers (NOTES.md,
// "locality": the hottest 256 KiB, 64K floats, serve 0.47 of them at R-MAT
// 2^24). Every block of a persistent-sized grid (two 1024-thread blocks per
// SM by default) stages contrib[0, H) into shared memory once per iteration
// with 16-byte loads, then gathers col < H from there and col >= H through
// the read-only path (ld.global.nc, L1-allocating). The first H200 probe
// (NOTES.md, "hot head") found the iteration bound by the loads in flight,
// not by L1 tag lookups: 2048 threads per SM beat 1024 by 1.32x, and the
// head saves ~5 % (its shared memory comes out of L1). So H (0, 12K or 24K
// floats), the load mode of the once-read streams (read-only path,
// L1::no_allocate, evict-first) and two or four loads per step are tuned
// once per graph (tune(); all candidates give the same bits), and each row
// loop loads the next row's offsets before this row's gathers. The
// two-phase gather (tiledRows, knob PRLAB_KNOB_HOT_TILE: 8 or 16 loads in
// flight per thread into shared staging, then row sums from it) is kept as
// a knob: on the H200 it was slower than the row loops (NOTES.md), which
// showed the gathers bound by the memory system's throughput, not by the
// loads in flight.
//
// One kernel does the whole iteration (no y round trip): rows are taken from
// the T4 in-degree buckets (block per row above kWarpMax, warp per row above
// kLight, thread per row up to kLight), statically strided over the grid, so
// every run assigns the same rows to the same block; each row's combine runs
// where its sum is made: x'[v] = (1-d)/n + d (y + D/n), contrib'[v] =
// x'[v]/outdeg(v), and the block's dangling partial of x'. D of an iteration
// is re-summed by every block from the previous launch's G partials in a
// fixed order (same bits everywhere), so a run gives the same bits each time.
//
// Bytes per iteration (device memory, the course's counting rule: each
// element a kernel loads or stores counts once): row id 4 + rowPtr[v],
// rowPtr[v+1] 8 + invOut 4 + x' 4 + contrib' 4 = 24n; colIdx 4 + contrib[col]
// 4 = 8nnz; plus the staging reads of G blocks x 4H bytes (O(G H), not in
// the formula: about 25 MB at 2^24 with H = 48K and G = 132, 2 % of the
// iteration; 13 MB with the tuned H <= 24K and G = 264). The hot share of
// the 4nnz gathers is served by shared memory.
// Correctness runs add the residual (8n) and the double sum (4n) kernels of
// kernels.cu after each launch (never timed).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "family.cuh"

namespace prlab {
namespace hh {

constexpr int kLight = 32;     // thread per row up to this in-degree
constexpr int kWarpMax = 1024; // warp per row up to this in-degree, block per row above
static_assert(kWarpMax == PRLAB_HOT_SEGMENT, "a warp row of the packed code is one segment");
// Hot-head sizes tried at setup when the knob is 0 (the fastest of 3 timed
// iterations is kept; every size gives the same bits).
constexpr int kTuneHot[] = {0, 12288, 24576};
constexpr int kMaxHot = 56 * 1024; // 224 KiB: the most one block may stage (227 KiB opt-in limit)
// The settings the knobs PRLAB_KNOB_HOT_TILE and PRLAB_KNOB_HOT_THREADS
// stand for at 0: the tile setting (0 tuned among the row loops and both
// tile sizes, 1 the row loops, 8 or 16 the two-phase gather) and the
// threads per block. The row loops: on the H200 (NOTES.md, "hot head",
// session 3) every two-phase setting was 10-27 % slower than the row loops
// at 2^24 and 2^22, so the automatic setting tunes only the row loops (all
// of whose candidates give the same bits).
constexpr int kDefaultTile = 1;
constexpr int kDefaultThreads = 1024;

struct Args {
  const int *rowPtr, *colIdx;
  const float *invOut;
  const int *heavy, *medium, *light; // T4 bucket row lists, ascending
  int nHeavy, nMedium, nLight;
  int hot; // floats of contrib staged in shared memory (multiple of 4, <= n)
  float tele, d, invN;
  const float *cIn, *dIn; // contributions and dangling partials of x_k
  float *xOut, *cOut, *dOut;
  int G; // blocks (dangling partials per iteration)
  // The packed design's column code (pkg/cudabind ColumnCode): codes [nnz],
  // row v's escaped gaps exc[excPtr[v] ..].
  const unsigned short *codes;
  const int *excPtr, *exc;
  // Rows longer than kWarpMax: segment m of row v starts its escapes at
  // exc[segExc[segFirst[v] + m]].
  const int *segFirst, *segExc;
  // Threads per heavy row (a multiple of 32 dividing the block; the block's
  // groups take heavy rows independently, each with its own named barrier).
  int group;
  // The two-phase gather's tiles (tiledRows): rows [x, y) of consecutive
  // ids, the rows longer than a tile first (one row each, longest first).
  const int2 *tiles;
  int nTiles;
  // The two column passes (PRLAB_KNOB_HOT_TILE = 2): row v's first edge
  // with a column >= the boundary, and pass 1's partial sums.
  const int *split;
  float *yPart;
};

constexpr unsigned kEscape = 0xFFFFu;

__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block sum of v (valid in thread 0); scratch holds 32 floats, the trailing
// barrier lets the caller reuse it.
template <int kT> __device__ __forceinline__ float blockSum(float v, float *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = 0.0f;
  if (warp == 0) r = warpSum(lane < kT / 32 ? scratch[lane] : 0.0f);
  __syncthreads();
  return r;
}

// Sum of v over the kG threads of group g (warps g*kG/32 ..), valid in the
// group's first thread; named barrier 1 + g (0 is __syncthreads). scratch
// holds one float per warp of the block; the trailing barrier lets the
// group reuse it.
__device__ __forceinline__ float groupSum(float v, float *scratch, int g, int kG) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, w0 = g * (kG >> 5);
  v = warpSum(v);
  if (lane == 0) scratch[warp] = v;
  asm volatile("bar.sync %0, %1;" ::"r"(1 + g), "r"(kG) : "memory");
  float r = 0.0f;
  if (warp == w0) r = warpSum(lane < (kG >> 5) ? scratch[w0 + lane] : 0.0f);
  asm volatile("bar.sync %0, %1;" ::"r"(1 + g), "r"(kG) : "memory");
  return r;
}

// A load of a stream the iteration reads once (colIdx, the code, row
// lists, rowPtr, invOut), by load mode kS: 0 the read-only path
// (ld.global.nc, allocates in L1), 1 ld.global.nc.L1::no_allocate (the
// stream leaves L1 to the gathered contributions), 2 evict-first
// (ld.global.cs).
__device__ __forceinline__ int ldNoAlloc(const int *p) {
  int v;
  asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ unsigned short ldNoAlloc(const unsigned short *p) {
  unsigned short v;
  asm("ld.global.nc.L1::no_allocate.b16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ float ldNoAlloc(const float *p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
template <int kS, class T> __device__ __forceinline__ T ldS(const T *p) {
  if (kS == 1) return ldNoAlloc(p);
  if (kS == 2) return __ldcs(p);
  return __ldg(p);
}
constexpr int kLoadModes = 3;
constexpr int kVariants = 3 * kLoadModes; // x {two, four, eight} loads per step
// The two-phase gather's variants come after them: kVariants + load mode +
// kLoadModes x t, kTileK[t] edges per thread and tile (unpacked design only).
constexpr int kTileK[] = {8, 16};
constexpr int kTileVariants = 2 * kLoadModes;
// Then the two column passes' (load mode + kLoadModes x log2(loads per
// step / 2), two or four loads per step; unpacked design only).
constexpr int kSegVariants = 2 * kLoadModes;

__device__ __forceinline__ float gatherOne(const float *head, int hot, const float *cIn, int col) {
  return col < hot ? head[col] : __ldg(cIn + col);
}

template <int kS>
__device__ __forceinline__ float finish(const Args &a, int v, float s, float D, float &dang) {
  const float xn = a.tele + a.d * (s + D * a.invN);
  const float iv = ldS<kS>(a.invOut + v);
  if (kS != 0)
    __stcs(a.xOut + v, xn);
  else
    a.xOut[v] = xn;
  a.cOut[v] = xn * iv;
  if (iv == 0.0f) dang += xn;
  return xn;
}

// Sum of the gathers of row [b, en) of the packed code by one warp, 32
// consecutive edges per step: a ballot of the escapes gives each escaped
// lane its index among the row's escapes, an inclusive warp scan of the
// gaps (carried across steps) gives the columns.
template <int kS>
__device__ __forceinline__ float packedWarpRow(const Args &a, const float *head, int b, int en, int eo) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  int carry = 0;
  float s = 0.0f;
  for (int base = b; base < en; base += 32) {
    const int e = base + lane;
    const unsigned c = e < en ? static_cast<unsigned>(ldS<kS>(a.codes + e)) : 0u;
    const bool esc = c == kEscape;
    const unsigned m = __ballot_sync(0xffffffffu, esc);
    int gap = esc ? ldS<kS>(a.exc + eo + __popc(m & below)) : static_cast<int>(c);
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(0xffffffffu, gap, o);
      if (lane >= o) gap += t;
    }
    const int col = carry + gap;
    if (e < en) s += gatherOne(head, a.hot, a.cIn, col);
    carry = __shfl_sync(0xffffffffu, col, 31);
    eo += __popc(m);
  }
  return warpSum(s);
}

// Sum of the gathers of row [b, en) of the packed code by one thread.
template <int kS0>
__device__ __forceinline__ float packedThreadRow(const Args &a, const float *head, int b, int en, int eo) {
  constexpr int kS = kS0 == 1 ? 0 : kS0; // the row's own code shares lines from step to step: keep L1
  int col = 0;
  float s0 = 0.0f, s1 = 0.0f;
  int e = b;
  for (; e + 1 < en; e += 2) {
    const unsigned c0 = ldS<kS>(a.codes + e), c1 = ldS<kS>(a.codes + e + 1);
    col += c0 == kEscape ? ldS<kS>(a.exc + eo++) : static_cast<int>(c0);
    s0 += gatherOne(head, a.hot, a.cIn, col);
    col += c1 == kEscape ? ldS<kS>(a.exc + eo++) : static_cast<int>(c1);
    s1 += gatherOne(head, a.hot, a.cIn, col);
  }
  if (e < en) {
    const unsigned c0 = ldS<kS>(a.codes + e);
    col += c0 == kEscape ? ldS<kS>(a.exc + eo) : static_cast<int>(c0);
    s0 += gatherOne(head, a.hot, a.cIn, col);
  }
  return s0 + s1;
}

// The rows of the unpacked design: heavy block per row, medium warp per
// row, light thread per row; dang accumulates the dangling mass of x'.
// Row list entry r (v) and its offsets rowPtr[v], rowPtr[v+1] (zeros past
// the list), and the packed code's escape offset excPtr[v].
struct RowRef {
  int v, b, en, eo;
};
// kPass 1 / 2 (the two column passes): the row's edges below / from
// a.split[v] instead of the whole row (kPass 0).
template <int kS, bool kEsc = false, int kPass = 0>
__device__ __forceinline__ RowRef rowRef(const Args &a, const int *list, int r, int count) {
  RowRef x{0, 0, 0, 0};
  if (r < count) {
    x.v = ldS<kS>(list + r);
    x.b = ldS<kS>((kPass == 2 ? a.split : a.rowPtr) + x.v);
    x.en = kPass == 1 ? ldS<kS>(a.split + x.v) : ldS<kS>(a.rowPtr + x.v + 1);
    if (kEsc) x.eo = ldS<kS>(a.excPtr + x.v);
  }
  return x;
}

// Sum of the gathers of edges e, e + step, .. < en (one thread's share of a
// row): kUn (2, 4, 8 or 16) loads in flight per step, then four, two and one, into
// two accumulators, even-numbered edges to s0 and odd to s1 in order, so
// every kUn gives the same bits. kS: the load mode of colIdx.
template <int kS, int kUn>
__device__ __forceinline__ float stridedRow(const Args &a, const float *head, int e, int en, int step) {
  const int hot = a.hot;
  float s0 = 0.0f, s1 = 0.0f;
  if (kUn >= 4) {
    constexpr int kQ = kUn >= 8 ? kUn : 4;
    for (; e + (kQ - 1) * step < en; e += kQ * step) {
      int c[kQ];
#pragma unroll
      for (int q = 0; q < kQ; ++q) c[q] = ldS<kS>(a.colIdx + e + q * step);
      float g[kQ];
#pragma unroll
      for (int q = 0; q < kQ; ++q) g[q] = gatherOne(head, hot, a.cIn, c[q]);
#pragma unroll
      for (int q = 0; q < kQ; q += 2) {
        s0 += g[q];
        s1 += g[q + 1];
      }
    }
  }
  if (kUn >= 8)
    for (; e + 3 * step < en; e += 4 * step) {
      const int c0 = ldS<kS>(a.colIdx + e), c1 = ldS<kS>(a.colIdx + e + step);
      const int c2 = ldS<kS>(a.colIdx + e + 2 * step), c3 = ldS<kS>(a.colIdx + e + 3 * step);
      const float g0 = gatherOne(head, hot, a.cIn, c0), g1 = gatherOne(head, hot, a.cIn, c1);
      const float g2 = gatherOne(head, hot, a.cIn, c2), g3 = gatherOne(head, hot, a.cIn, c3);
      s0 += g0;
      s1 += g1;
      s0 += g2;
      s1 += g3;
    }
  for (; e + step < en; e += 2 * step) {
    const int c0 = ldS<kS>(a.colIdx + e), c1 = ldS<kS>(a.colIdx + e + step);
    s0 += gatherOne(head, hot, a.cIn, c0);
    s1 += gatherOne(head, hot, a.cIn, c1);
  }
  if (e < en) s0 += gatherOne(head, hot, a.cIn, ldS<kS>(a.colIdx + e));
  return s0 + s1;
}

// Row v's sum s is made: the combine (kPass 0); pass 1 keeps it as the
// partial; pass 2 adds it to the partial (by the same thread that stored
// it) and does the combine.
template <int kS, int kPass>
__device__ __forceinline__ void rowDone(const Args &a, int v, float s, float D, float &dang) {
  if (kPass == 1) {
    a.yPart[v] = s;
    return;
  }
  if (kPass == 2) s = a.yPart[v] + s;
  finish<kS>(a, v, s, D, dang);
}

// The rows of the unpacked design: heavy group per row, medium warp per
// row, light thread per row; dang accumulates the dangling mass of x'.
// kUn: loads in flight per thread and step (stridedRow). kPass: the whole
// rows (0), or pass 1 / 2 of the two column passes (rowRef, rowDone): every
// block runs pass 1 over all its rows before pass 2, so while most of the
// grid gathers from contrib[0, boundary) that half stays in L2.
template <int kT, int kS, int kUn, int kPass = 0>
__device__ __forceinline__ void plainRows(const Args &a, const float *head, float D, float &dang, float *scratch) {
  const int tid = threadIdx.x, lane = tid & 31;
  // Group (a.group threads) per row (in-degree > kWarpMax).
  {
    const int kG = a.group, groups = kT / kG, g = tid / kG, gt = tid - g * kG;
    for (int r = blockIdx.x * groups + g; r < a.nHeavy; r += gridDim.x * groups) {
      const int v = ldS<kS>(a.heavy + r);
      const int b = ldS<kS>((kPass == 2 ? a.split : a.rowPtr) + v);
      const int en = kPass == 1 ? ldS<kS>(a.split + v) : ldS<kS>(a.rowPtr + v + 1);
      const float s = groupSum(stridedRow<kS, kUn>(a, head, b + gt, en, kG), scratch, g, kG);
      if (gt == 0) rowDone<kS, kPass>(a, v, s, D, dang);
    }
    __syncthreads(); // the groups' last use of scratch before the block's
  }

  // Warp per row (kLight < in-degree <= kWarpMax); the next row's id and
  // offsets are loaded before this row's gathers (one chain of loads fewer
  // per row on the critical path).
  const int warps = gridDim.x * (kT / 32);
  int r = blockIdx.x * (kT / 32) + (tid >> 5);
  RowRef nx = rowRef<kS, false, kPass>(a, a.medium, r, a.nMedium);
  for (; r < a.nMedium; r += warps) {
    const RowRef cur = nx;
    nx = rowRef<kS, false, kPass>(a, a.medium, r + warps, a.nMedium);
    const float s = warpSum(stridedRow<kS, kUn>(a, head, cur.b + lane, cur.en, 32));
    if (lane == 0) rowDone<kS, kPass>(a, cur.v, s, D, dang);
  }

  // Thread per row (in-degree <= kLight); the relabel makes a warp's rows
  // about equally long. A thread walks its own row's indices, which share
  // lines from step to step: they keep the read-only path (L1) under the
  // no-allocate mode (kRowS), made for the coalesced streams.
  constexpr int kRowS = kS == 1 ? 0 : kS;
  r = blockIdx.x * kT + tid;
  nx = rowRef<kS, false, kPass>(a, a.light, r, a.nLight);
  for (; r < a.nLight; r += gridDim.x * kT) {
    const RowRef cur = nx;
    nx = rowRef<kS, false, kPass>(a, a.light, r + gridDim.x * kT, a.nLight);
    rowDone<kS, kPass>(a, cur.v, stridedRow<kRowS, kUn>(a, head, cur.b, cur.en, 1), D, dang);
  }
}

// The two-phase gather: tiles of consecutive rows with at most kT rows and
// kT x kK edges (TileList). Phase 1: thread t loads edges t, t + kT, ..
// of the tile (kK coalesced colIdx loads, then kK independent gathers: kK
// loads in flight per thread and no row boundaries or row-pointer chain on
// the way) into the shared staging buffer stage[kT kK]; the tile's kT + 1
// row pointers go to rps. Phase 2: thread t sums row r0 + t from stage
// (rows of up to kLight edges alone; longer ones by its warp, one at a
// time, lanes strided and a butterfly), and does the row's combine.
// A row longer than a tile is a tile of its own: the block gathers it kK
// loads per thread and step (stridedRow) and sums by blockSum. Tiles are strided statically over the blocks, so every run
// sums the same values in the same order (the same bits).
template <int kT, int kS, int kK>
__device__ __forceinline__ void tiledRows(const Args &a, const float *head, float *stage, int *rps, float D,
                                          float &dang, float *scratch) {
  constexpr int kCap = kT * kK;
  const int tid = threadIdx.x, lane = tid & 31, hot = a.hot;
  for (int t = blockIdx.x; t < a.nTiles; t += gridDim.x) {
    const int2 tile = __ldg(a.tiles + t);
    const int r0 = tile.x, nr = tile.y - tile.x;
    const int e0 = ldS<kS>(a.rowPtr + r0), e1 = ldS<kS>(a.rowPtr + tile.y), m = e1 - e0;
    if (m > kCap) { // one long row
      const float s = blockSum<kT>(stridedRow<kS, kK>(a, head, e0 + tid, e1, kT), scratch);
      if (tid == 0) finish<kS>(a, r0, s, D, dang);
      continue;
    }
    // Phase 1: the tile's edges into stage, its row pointers into rps.
    int c[kK];
#pragma unroll
    for (int q = 0; q < kK; ++q) {
      const int i = q * kT + tid;
      c[q] = i < m ? ldS<kS>(a.colIdx + e0 + i) : 0;
    }
    for (int j = tid; j <= nr; j += kT) rps[j] = ldS<kS>(a.rowPtr + r0 + j) - e0;
    float g[kK];
#pragma unroll
    for (int q = 0; q < kK; ++q) g[q] = q * kT + tid < m ? gatherOne(head, hot, a.cIn, c[q]) : 0.0f;
#pragma unroll
    for (int q = 0; q < kK; ++q) stage[q * kT + tid] = g[q];
    __syncthreads();
    // Phase 2: row r0 + tid from stage.
    int b = 0, en = 0;
    if (tid < nr) {
      b = rps[tid];
      en = rps[tid + 1];
    }
    const bool wide = en - b > kLight;
    float s = 0.0f;
    if (!wide) {
      float s1 = 0.0f;
      int i = b;
      for (; i + 1 < en; i += 2) {
        s += stage[i];
        s1 += stage[i + 1];
      }
      if (i < en) s += stage[i];
      s += s1;
    }
    for (unsigned w = __ballot_sync(0xffffffffu, wide); w != 0u; w &= w - 1u) {
      const int j = __ffs(w) - 1;
      const int bj = __shfl_sync(0xffffffffu, b, j), ej = __shfl_sync(0xffffffffu, en, j);
      float p = 0.0f;
      for (int i = bj + lane; i < ej; i += 32) p += stage[i];
      p = warpSum(p);
      if (lane == j) s = p;
    }
    if (tid < nr) finish<kS>(a, r0 + tid, s, D, dang);
    __syncthreads(); // stage and rps are the next tile's
  }
}

// Shared memory of tiledRows<kT, ., kK> after the head: the staging
// buffer (kT kK floats) and the row pointers (kT + 1 ints, padded to 16 bytes).
constexpr size_t tileBytes(int threads, int k) {
  return 4 * static_cast<size_t>(threads) * static_cast<size_t>(k) + 4 * (static_cast<size_t>(threads) + 4);
}

// One iteration. Dynamic shared memory: the hot head, hot floats.
// kPacked: columns from the 16-bit code; rows above kLight warp per row
// (the heavy list first, sorted by in-degree descending, so the longest
// rows start first), light rows thread per row. kS: the load mode of the
// streams read once (ldS).
// kTile: 0 the row loops; 2 the row loops in two column passes; 8 or 16
// the two-phase gather (tiledRows) with kTile edges per thread and tile,
// its buffers after the head.
template <int kT, int kMinBlocks, bool kPacked, int kV, int kTile = 0>
__global__ void __launch_bounds__(kT, kMinBlocks) iterKernel(Args a) {
  constexpr int kS = kV % kLoadModes; // load mode; 2 << (kV / kLoadModes): loads per step (unpacked rows)
  extern __shared__ float4 head4[];
  const float *head = reinterpret_cast<const float *>(head4);
  __shared__ float scratch[32];
  __shared__ float shD;
  const int tid = threadIdx.x, lane = tid & 31;
  const float4 *src = reinterpret_cast<const float4 *>(a.cIn);
  for (int i = tid; i < a.hot / 4; i += kT) head4[i] = __ldg(src + i);
  if (tid < 32) {
    float v = 0.0f;
    for (int i = lane; i < a.G; i += 32) v += a.dIn[i];
    v = warpSum(v);
    if (tid == 0) shD = v;
  }
  __syncthreads();
  const float D = shD;
  float dang = 0.0f;

  if constexpr (kTile >= 8) {
    float *stage = reinterpret_cast<float *>(head4) + a.hot;
    tiledRows<kT, kS, kTile>(a, head, stage, reinterpret_cast<int *>(stage + kT * kTile), D, dang,
                                              scratch);
  } else if constexpr (kTile == 2) {
    plainRows<kT, kS, (2 << (kV / kLoadModes)), 1>(a, head, D, dang, scratch);
    plainRows<kT, kS, (2 << (kV / kLoadModes)), 2>(a, head, D, dang, scratch);
  } else if (kPacked) {
    // Group per row, each warp decoding whole segments of PRLAB_HOT_SEGMENT edges.
    const int kG = a.group, groups = kT / kG, g = tid / kG, gw = (tid - g * kG) >> 5;
    for (int r = blockIdx.x * groups + g; r < a.nHeavy; r += gridDim.x * groups) {
      const int v = ldS<kS>(a.heavy + r);
      const int b = ldS<kS>(a.rowPtr + v), en = ldS<kS>(a.rowPtr + v + 1), sf = ldS<kS>(a.segFirst + v);
      const int segs = (en - b + PRLAB_HOT_SEGMENT - 1) / PRLAB_HOT_SEGMENT;
      float s = 0.0f;
      for (int m = gw; m < segs; m += kG / 32) {
        const int sb = b + m * PRLAB_HOT_SEGMENT;
        s += packedWarpRow<kS>(a, head, sb, min(en, sb + PRLAB_HOT_SEGMENT), ldS<kS>(a.segExc + sf + m));
      }
      const float tot = groupSum(lane == 0 ? s : 0.0f, scratch, g, kG);
      if (tid == g * kG) finish<kS>(a, v, tot, D, dang);
    }
    __syncthreads(); // the groups' last use of scratch before the block's
    // Warp per row (one segment: in-degree <= kWarpMax = PRLAB_HOT_SEGMENT).
    const int warps = gridDim.x * (kT / 32);
    int r = blockIdx.x * (kT / 32) + (tid >> 5);
    RowRef nx = rowRef<kS, true>(a, a.medium, r, a.nMedium);
    for (; r < a.nMedium; r += warps) {
      const RowRef cur = nx;
      nx = rowRef<kS, true>(a, a.medium, r + warps, a.nMedium);
      const float s = packedWarpRow<kS>(a, head, cur.b, cur.en, cur.eo);
      if (lane == 0) finish<kS>(a, cur.v, s, D, dang);
    }
    r = blockIdx.x * kT + tid;
    nx = rowRef<kS, true>(a, a.light, r, a.nLight);
    for (; r < a.nLight; r += gridDim.x * kT) {
      const RowRef cur = nx;
      nx = rowRef<kS, true>(a, a.light, r + gridDim.x * kT, a.nLight);
      const float s = packedThreadRow<kS>(a, head, cur.b, cur.en, cur.eo);
      finish<kS>(a, cur.v, s, D, dang);
    }
  } else {
    plainRows<kT, kS, (2 << (kV / kLoadModes))>(a, head, D, dang, scratch);
  }
  const float bd = blockSum<kT>(dang, scratch);
  if (tid == 0) a.dOut[blockIdx.x] = bd;
}

// split[v] = the first edge of row v whose column is >= col (columns are
// sorted within a row: binary search).
__global__ void splitKernel(const int *rowPtr, const int *colIdx, int n, int col, int *split) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
    int lo = rowPtr[v], hi = rowPtr[v + 1];
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (colIdx[mid] < col) lo = mid + 1;
      else hi = mid;
    }
    split[v] = lo;
  }
}

// x_0 = 1/n, contrib_0 = x_0 / outdeg, the G dangling partials of x_0.
template <int kT>
__global__ void __launch_bounds__(kT) prologueKernel(const float *invOut, int n, float x0, float *x,
                                                     float *contrib, float *dPart) {
  __shared__ float scratch[32];
  float dang = 0.0f;
  for (int v = blockIdx.x * kT + threadIdx.x; v < n; v += gridDim.x * kT) {
    const float iv = invOut[v];
    x[v] = x0;
    contrib[v] = x0 * iv;
    if (iv == 0.0f) dang += x0;
  }
  const float bd = blockSum<kT>(dang, scratch);
  if (threadIdx.x == 0) dPart[blockIdx.x] = bd;
}

// The kernel shapes (knobs PRLAB_KNOB_HOT_THREADS, PRLAB_KNOB_HOT_OCCUPANCY):
// kT threads per block, kMinBlocks blocks per SM asked of the compiler
// (1024 / kT: 1024 threads per SM at up to 64 registers; 2048 / kT: 2048
// threads at up to 32).
struct Shape {
  int threads, occ;                // occ 1: 1024 threads per SM, 2: 2048
  const void *iter[2][kVariants]; // [packed][variant: load mode + kLoadModes x log2(loads per step / 2)]
  const void *tiled[kTileVariants]; // the two-phase gather: [load mode + kLoadModes x t], kTileK[t] edges per thread
  const void *seg[kSegVariants];     // the two column passes: [load mode + kLoadModes x log2(loads per step / 2)]
};

#define PR_HH_K(T, OCC, P, S) reinterpret_cast<const void *>(iterKernel<T, (1024 * OCC) / T, P, S>)
#define PR_HH_T(T, OCC, S, K) reinterpret_cast<const void *>(iterKernel<T, (1024 * OCC) / T, false, S, K>)
#define PR_HH_SHAPE(T, OCC)                                                                        \
  {                                                                                                \
    T, OCC, {                                                                                      \
      {PR_HH_K(T, OCC, false, 0), PR_HH_K(T, OCC, false, 1), PR_HH_K(T, OCC, false, 2),            \
       PR_HH_K(T, OCC, false, 3), PR_HH_K(T, OCC, false, 4), PR_HH_K(T, OCC, false, 5),            \
       PR_HH_K(T, OCC, false, 6), PR_HH_K(T, OCC, false, 7), PR_HH_K(T, OCC, false, 8)},           \
          {PR_HH_K(T, OCC, true, 0), PR_HH_K(T, OCC, true, 1), PR_HH_K(T, OCC, true, 2),           \
           PR_HH_K(T, OCC, true, 0), PR_HH_K(T, OCC, true, 1), PR_HH_K(T, OCC, true, 2),           \
           PR_HH_K(T, OCC, true, 0), PR_HH_K(T, OCC, true, 1), PR_HH_K(T, OCC, true, 2)}           \
    }                                                                                              \
    , {PR_HH_T(T, OCC, 0, 8), PR_HH_T(T, OCC, 1, 8), PR_HH_T(T, OCC, 2, 8),                        \
       PR_HH_T(T, OCC, 0, 16), PR_HH_T(T, OCC, 1, 16), PR_HH_T(T, OCC, 2, 16)}                     \
    , {PR_HH_T(T, OCC, 0, 2), PR_HH_T(T, OCC, 1, 2), PR_HH_T(T, OCC, 2, 2),                        \
       PR_HH_T(T, OCC, 3, 2), PR_HH_T(T, OCC, 4, 2), PR_HH_T(T, OCC, 5, 2)}                        \
  }
const Shape kShapes[] = {PR_HH_SHAPE(256, 1), PR_HH_SHAPE(512, 1), PR_HH_SHAPE(1024, 1),
                         PR_HH_SHAPE(256, 2), PR_HH_SHAPE(512, 2), PR_HH_SHAPE(1024, 2)};
#undef PR_HH_K
#undef PR_HH_T
#undef PR_HH_SHAPE

struct State {
  int knobHot = 0, knobThreads = 0, knobOcc = 0, knobBlocksPerSM = 0, knobGroup = 0, knobStream = 0, knobUnroll = 0;
  int knobTile = 0; // PRLAB_KNOB_HOT_TILE: 0 tuned, 1 row loops, 8 or 16 the two-phase gather
  // The two-phase gather's tiles for kTileK[t] edges per thread (TileList),
  // and the dynamic shared memory every kernel is sized for (smemMax bytes).
  int2 *tiles[2] = {nullptr, nullptr};
  int nTiles[2] = {0, 0};
  // The two column passes: row v's first edge with a column >= segCol
  // (splitKernel), and pass 1's partial sums (n floats each).
  int *split = nullptr;
  float *yPart = nullptr;
  int segCol = 0;
  size_t smemMax = 0;
  bool built = false;
  int sms = 0, smemOptin = 0;
  int *rows[3] = {nullptr, nullptr, nullptr}; // light, medium, heavy
  int count[3] = {0, 0, 0};
  long long nnzOf[3] = {0, 0, 0};
  float *contrib[2] = {nullptr, nullptr};
  float *dPart[2] = {nullptr, nullptr};
  int hotMax = 0, G = 0, blocksPerSM = 0, group = 0;
  // Per design (0 plain, 1 packed): the hot-head size and load mode in use,
  // tuned at the first run when their knobs are 0, and the tuning's ms.
  int hotOf[2] = {0, 0}, modeOf[2] = {0, 0}; // modeOf: the kernel variant (load mode + kLoadModes x unroll)
  bool tuned[2] = {false, false};
  float tuneMs[2] = {0.0f, 0.0f};
  const Shape *shape = nullptr;
  // The column code (prlab_hothead_codes); kept across knob changes.
  unsigned short *codes = nullptr;
  int *excPtr = nullptr, *exc = nullptr, *segFirst = nullptr, *segExc = nullptr;
};

void freeBuffers(State &s) {
  freeDevice(s.rows[0], s.rows[1], s.rows[2], s.contrib[0], s.contrib[1], s.dPart[0], s.dPart[1], s.tiles[0],
             s.tiles[1], s.split, s.yPart);
  for (int b = 0; b < 3; ++b) s.count[b] = s.nnzOf[b] = 0;
  s.nTiles[0] = s.nTiles[1] = 0;
  s.built = false;
  s.tuned[0] = s.tuned[1] = false;
}

int getState(Ctx &c, State **out, Err &e) {
  return stateIn(c.hothead, out, "hot-head",
                 [&](State &s) { return deviceLimits(c.device, &s.sms, &s.smemOptin, nullptr, e); }, e);
}

int tileSetting(const State &s) { return s.knobTile ? s.knobTile : kDefaultTile; }

// A hot-head size the block can stage: at most kMaxHot, the opt-in shared
// memory less 1 KiB, and n; a multiple of 4 (16-byte staging loads).
int clampHot(const State &s, int hot, int n) {
  hot = std::min(hot, std::min(kMaxHot, (s.smemOptin - 1024) / 4));
  return std::max(0, std::min(hot, n) & ~3);
}

// The two-phase gather's tiles of graph rp (n + 1 row offsets) for T
// threads and k edges per thread: every row longer than T k is a tile of
// its own (longest first: the static striding starts them first), then
// runs of consecutive rows with at most T rows and T k edges, each ending
// before a long row.
std::vector<int2> tileList(const std::vector<int> &rp, int T, int k) {
  const int n = static_cast<int>(rp.size()) - 1;
  const long long cap = static_cast<long long>(T) * k;
  std::vector<int2> longs, runs;
  int start = 0;
  long long edges = 0;
  for (int v = 0; v < n; ++v) {
    const long long d = rp[v + 1] - rp[v];
    if (d > cap) {
      if (v > start) runs.push_back(make_int2(start, v));
      longs.push_back(make_int2(v, v + 1));
      start = v + 1;
      edges = 0;
      continue;
    }
    if (v - start == T || edges + d > cap) {
      runs.push_back(make_int2(start, v));
      start = v;
      edges = 0;
    }
    edges += d;
  }
  if (n > start) runs.push_back(make_int2(start, n));
  std::stable_sort(longs.begin(), longs.end(),
                   [&](int2 u, int2 v) { return rp[u.y] - rp[u.x] > rp[v.y] - rp[v.x]; });
  longs.insert(longs.end(), runs.begin(), runs.end());
  return longs;
}

// Row lists, hot-head size, grid and vectors (outside any timed region).
int build(Ctx &c, State &s, Err &e) {
  if (s.built) return PRLAB_OK;
  const int n = c.n;
  std::vector<int> rp(static_cast<size_t>(n) + 1);
  PR_CUDA(e, cudaMemcpy(rp.data(), c.rowPtr, 4 * rp.size(), cudaMemcpyDeviceToHost),
          "cudaMemcpy(rowPtr, device to host)");
  std::vector<int> rowsOf[3];
  for (int v = 0; v < n; ++v) {
    const int d = rp[v + 1] - rp[v];
    const int b = d <= kLight ? 0 : (d <= kWarpMax ? 1 : 2);
    rowsOf[b].push_back(v);
    s.nnzOf[b] += d;
  }
  // Heavy rows longest first: the static round robin starts the longest rows first.
  std::stable_sort(rowsOf[2].begin(), rowsOf[2].end(),
                   [&](int u, int v) { return rp[u + 1] - rp[u] > rp[v + 1] - rp[v]; });
  for (int b = 0; b < 3; ++b) {
    s.count[b] = static_cast<int>(rowsOf[b].size());
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.rows[b]), 4 * rowsOf[b].size(), "d_hotRows", e));
    if (!rowsOf[b].empty())
      PR_CUDA(e, cudaMemcpy(s.rows[b], rowsOf[b].data(), 4 * rowsOf[b].size(), cudaMemcpyHostToDevice),
              "cudaMemcpy(d_hotRows, %zu bytes, host to device)", 4 * rowsOf[b].size());
  }

  const int threads = s.knobThreads ? s.knobThreads : kDefaultThreads, occ = s.knobOcc ? s.knobOcc : 2;
  const int tile = tileSetting(s);
  s.shape = nullptr;
  for (const Shape &sh : kShapes)
    if (sh.threads == threads && sh.occ == occ) s.shape = &sh;
  if (s.shape == nullptr)
    return fail(e, PRLAB_ERR_ARG, "hot-head kernel shape %d threads, occupancy %d: no such kernel", threads, occ);
  s.group = s.knobGroup ? s.knobGroup : threads;
  if (s.group % 32 != 0 || threads % s.group != 0 || threads / s.group > 15)
    return fail(e, PRLAB_ERR_ARG, "hot-head group of %d threads: must be a multiple of 32 dividing %d into at most 15 groups",
                s.group, threads);
  s.hotMax = clampHot(s, s.knobHot ? s.knobHot : kTuneHot[2], n);
  // The grid fits the largest candidate: the largest head, or a tile's
  // buffers (with the knob's head when both knobs are set; else the tuning
  // tries the tiles with the heads that fit beside them).
  const size_t headBytes = 4 * static_cast<size_t>(s.hotMax);
  const size_t tileMax = tile == 1 || tile == 2 ? 0 : tileBytes(threads, tile ? tile : kTileK[1]);
  const size_t smem = s.smemMax = tile >= 8 && s.knobHot ? headBytes + tileMax : std::max(headBytes, tileMax);
  int perSM = 1 << 30;
  std::vector<const void *> fns(s.shape->iter[0], s.shape->iter[0] + kVariants);
  fns.insert(fns.end(), s.shape->iter[1], s.shape->iter[1] + kVariants);
  fns.insert(fns.end(), s.shape->tiled, s.shape->tiled + kTileVariants);
  fns.insert(fns.end(), s.shape->seg, s.shape->seg + kSegVariants);
  for (const void *fn : fns) {
    PR_CUDA(e, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
            "cudaFuncSetAttribute(hot-head iterKernel, %zu bytes of dynamic shared memory)", smem);
    int k = 0;
    PR_CUDA(e, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, fn, threads, smem),
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor(hot-head iterKernel, %d threads, %zu bytes)", threads, smem);
    perSM = std::min(perSM, k);
  }
  if (tile == 2) { // the two column passes: the boundary halves the contribution vector
    s.segCol = n / 2;
    const int gs = std::max(1, std::min(blocksFor(n, 256), 4096));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.split), 4 * static_cast<size_t>(n), "d_hotSplit", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.yPart), 4 * static_cast<size_t>(n), "d_hotPartials", e));
    splitKernel<<<gs, 256>>>(c.rowPtr, c.colIdx, n, s.segCol, s.split);
    PR_LAUNCH(e, "hot-head splitKernel<<<%d, 256>>>", gs);
  }
  if (tile == 0 || tile >= 8)
    for (int t = 0; t < 2; ++t) {
      if (tile != 0 && tile != kTileK[t]) continue;
      const std::vector<int2> tl = tileList(rp, threads, kTileK[t]);
      s.nTiles[t] = static_cast<int>(tl.size());
      PR_TRY(devAlloc(reinterpret_cast<void **>(&s.tiles[t]), 8 * tl.size(), "d_hotTiles", e));
      if (!tl.empty())
        PR_CUDA(e, cudaMemcpy(s.tiles[t], tl.data(), 8 * tl.size(), cudaMemcpyHostToDevice),
                "cudaMemcpy(d_hotTiles, %zu bytes, host to device)", 8 * tl.size());
    }
  if (perSM < 1)
    return fail(e, PRLAB_ERR_ARG, "hot-head kernel: %d threads with %zu bytes of shared memory fit no SM", threads, smem);
  if (s.knobBlocksPerSM > 0) perSM = std::min(perSM, s.knobBlocksPerSM);
  s.blocksPerSM = perSM;
  // No more blocks than a thread per row needs (a small graph stages the head once, not once per SM).
  s.G = std::max(1, std::min(perSM * s.sms, blocksFor(n, threads)));

  const size_t N = static_cast<size_t>(n), G = static_cast<size_t>(s.G);
  for (int i = 0; i < 2; ++i) {
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.contrib[i]), 4 * N, "d_hotContrib", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.dPart[i]), 4 * G, "d_hotDanglingPartials", e));
  }
  s.built = true;
  return PRLAB_OK;
}

int launchPrologue(Ctx &c, State &s, Err &e) {
  const float x0 = static_cast<float>(1.0 / c.n);
  prologueKernel<256><<<s.G, 256>>>(c.invOut, c.n, x0, c.xbuf[0], s.contrib[0], s.dPart[0]);
  PR_LAUNCH(e, "hot-head prologueKernel<<<%d, 256>>>", s.G);
  return PRLAB_OK;
}

// Iteration k: x[k%2] -> x[1-k%2] (contrib and partials likewise).
int launchIteration(Ctx &c, State &s, int k, float d, bool packed, Err &e) {
  const int p = k & 1;
  Args a{};
  a.rowPtr = c.rowPtr;
  a.colIdx = c.colIdx;
  a.invOut = c.invOut;
  a.light = s.rows[0];
  a.medium = s.rows[1];
  a.heavy = s.rows[2];
  a.nLight = s.count[0];
  a.nMedium = s.count[1];
  a.nHeavy = s.count[2];
  a.hot = s.hotOf[packed ? 1 : 0];
  setStepOut(a, c, d, s.contrib, s.dPart, p);
  a.cIn = s.contrib[p];
  a.dIn = s.dPart[p];
  a.G = s.G;
  a.codes = s.codes;
  a.excPtr = s.excPtr;
  a.exc = s.exc;
  a.segFirst = s.segFirst;
  a.segExc = s.segExc;
  a.group = s.group;
  const int T = s.shape->threads, v = s.modeOf[packed ? 1 : 0];
  const void *fn = v < kVariants                   ? s.shape->iter[packed ? 1 : 0][v]
                   : v < kVariants + kTileVariants ? s.shape->tiled[v - kVariants]
                                                   : s.shape->seg[v - kVariants - kTileVariants];
  size_t smem = 4 * static_cast<size_t>(a.hot);
  a.split = s.split;
  a.yPart = s.yPart;
  if (v >= kVariants && v < kVariants + kTileVariants) {
    const int t = (v - kVariants) / kLoadModes;
    a.tiles = s.tiles[t];
    a.nTiles = s.nTiles[t];
    smem += tileBytes(T, kTileK[t]);
  }
  void *args[] = {&a};
  PR_CUDA(e, cudaLaunchKernel(fn, dim3(s.G), dim3(T), args, smem, 0),
          "hot-head iterKernel<<<%d, %d, %zu bytes>>> (launch)", s.G, T, smem);
  PR_LAUNCH(e, "hot-head iterKernel<<<%d, %d>>>", s.G, T);
  return PRLAB_OK;
}

// The hot-head size and kernel variant of design packed: the knobs', or the
// fastest candidate of kTuneHot x the load modes x two or four loads per
// step (unpacked) (one warm-up and 3 timed
// iterations each, from x_0; outside any timed region). Every candidate
// computes the same bits (same rows, blocks and summation order).
int tune(Ctx &c, State &s, bool packed, float d, Err &e) {
  const int pk = packed ? 1 : 0;
  if (s.tuned[pk]) return PRLAB_OK;
  std::vector<int> hots, modes, tiled;
  if (s.knobHot) hots.push_back(s.hotMax);
  else
    for (int h : kTuneHot) {
      const int v = clampHot(s, h, c.n);
      if (std::find(hots.begin(), hots.end(), v) == hots.end()) hots.push_back(v);
    }
  const bool rowLoops = packed || tileSetting(s) <= 1;
  for (int u = 0; u < 3 && rowLoops; ++u) {
    if (packed && u > 0) continue; // the packed rows have one loop shape
    if (!packed && s.knobUnroll != 0 && (2 << u) != s.knobUnroll) continue;
    for (int m = 0; m < kLoadModes; ++m)
      if (s.knobStream == 0 || s.knobStream - 1 == m) modes.push_back(m + kLoadModes * u);
  }
  for (int u = 0; u < 2 && !packed && tileSetting(s) == 2; ++u) // the two column passes, two or four loads per step
    if (s.knobUnroll == 0 || (2 << u) == s.knobUnroll)
      for (int m = 0; m < kLoadModes; ++m)
        if (s.knobStream == 0 || s.knobStream - 1 == m) modes.push_back(kVariants + kTileVariants + m + kLoadModes * u);
  for (int t = 0; t < 2 && !packed; ++t)
    if (s.tiles[t] != nullptr)
      for (int m = 0; m < kLoadModes; ++m)
        if (s.knobStream == 0 || s.knobStream - 1 == m) tiled.push_back(kVariants + m + kLoadModes * t);
  // The candidates (head size, variant): every row-loop variant with every
  // head, the tiles with the heads that fit beside their buffers.
  std::vector<std::pair<int, int>> cand;
  for (int h : hots) {
    for (int m : modes) cand.emplace_back(h, m);
    for (int m : tiled)
      if (4 * static_cast<size_t>(h) + tileBytes(s.shape->threads, kTileK[(m - kVariants) / kLoadModes]) <= s.smemMax)
        cand.emplace_back(h, m);
  }
  if (cand.empty())
    return fail(e, PRLAB_ERR_ARG, "hot-head tuning: no kernel variant fits %zu bytes of shared memory", s.smemMax);
  s.hotOf[pk] = cand[0].first;
  s.modeOf[pk] = cand[0].second;
  s.tuneMs[pk] = 0.0f;
  if (cand.size() > 1) {
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    PR_CUDA(e, cudaEventCreate(&t0), "cudaEventCreate (hot-head tuning)");
    cudaError_t st = cudaEventCreate(&t1);
    float best = -1.0f;
    int k = 0, rc = PRLAB_OK, bestHot = cand[0].first, bestMode = cand[0].second;
    const cudaError_t st0 = st;
    if (st0 == cudaSuccess) rc = launchPrologue(c, s, e);
    for (size_t i = 0; st == cudaSuccess && rc == PRLAB_OK && i < cand.size(); ++i) {
        s.hotOf[pk] = cand[i].first;
        s.modeOf[pk] = cand[i].second;
        rc = launchIteration(c, s, k++, d, packed, e);
        if (rc == PRLAB_OK) cudaEventRecord(t0);
        for (int r = 0; r < 3 && rc == PRLAB_OK; ++r) rc = launchIteration(c, s, k++, d, packed, e);
        if (rc != PRLAB_OK) break;
        st = cudaEventRecord(t1);
        if (st != cudaSuccess) break;
        st = cudaEventSynchronize(t1);
        float ms = 0.0f;
        if (st == cudaSuccess) st = cudaEventElapsedTime(&ms, t0, t1);
        if (st != cudaSuccess) break;
        s.tuneMs[pk] += ms;
        if (best < 0.0f || ms < best) {
          best = ms;
          bestHot = cand[i].first;
          bestMode = cand[i].second;
        }
    }
    cudaEventDestroy(t0);
    if (st0 == cudaSuccess) cudaEventDestroy(t1);
    if (rc != PRLAB_OK) return rc;
    if (st != cudaSuccess) return fail(e, st, "hot-head tuning (events)");
    s.hotOf[pk] = bestHot;
    s.modeOf[pk] = bestMode;
  }
  s.tuned[pk] = true;
  return PRLAB_OK;
}

int prepare(Ctx &c, int impl, State **s, float d, Err &e) {
  PR_TRY(checkDamping(d, e));
  PR_TRY(getState(c, s, e));
  if (impl == PRLAB_IMPL_HOTHEAD_PACKED && (*s)->codes == nullptr)
    return fail(e, PRLAB_ERR_ARG, "packed hot-head design: no column code uploaded (prlab_hothead_codes)");
  PR_TRY(build(c, **s, e));
  return tune(c, **s, impl == PRLAB_IMPL_HOTHEAD_PACKED, d, e);
}

void freeCodes(State &s) {
  void *bufs[] = {s.codes, s.excPtr, s.exc, s.segFirst, s.segExc};
  for (void *p : bufs)
    if (p) cudaFree(p);
  s.codes = nullptr;
  s.excPtr = s.exc = s.segFirst = s.segExc = nullptr;
}

} // namespace hh

namespace {

bool hotheadImpl(int impl) { return impl >= PRLAB_IMPL_HOTHEAD_FIRST && impl < PRLAB_IMPL_HOTHEAD_END; }
bool hotheadKnob(int knob) { return knob >= PRLAB_KNOB_HOT_FIRST && knob < PRLAB_KNOB_HOT_END; }

int hotheadRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals,
               double *sums, int *done, int *converged, Err &e) {
  const bool packed = impl == PRLAB_IMPL_HOTHEAD_PACKED;
  PR_TRY(checkRunArgs(c, d, iterations, ranks, residuals, sums, done, converged, e));
  hh::State *s = nullptr;
  PR_TRY(hh::prepare(c, impl, &s, d, e));
  return runLaunched(
      c, iterations, tol, [&] { return hh::launchPrologue(c, *s, e); },
      [&](int k) { return hh::launchIteration(c, *s, k, d, packed, e); }, ranks, residuals, sums, done, converged,
      "hot-head ", e);
}

int hotheadBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs, float *ranks,
                     Err &e) {
  const bool packed = impl == PRLAB_IMPL_HOTHEAD_PACKED;
  PR_TRY(checkBenchArgs(d, iterations, warmups, runs, runsMs, e));
  hh::State *s = nullptr;
  PR_TRY(hh::prepare(c, impl, &s, d, e));
  return timeIterations(
      c, iterations, warmups, runs, runsMs, [&] { return hh::launchPrologue(c, *s, e); },
      [&](int k) { return hh::launchIteration(c, *s, k, d, packed, e); }, ranks, "hot-head benchmark", e);
}

// The hot-head knobs (value >= 0, checked by prlab_layout_set): the State
// field each sets (set) and its values: one of the list (0 automatic) or,
// when the list is empty, [0, max]; the group must also be a multiple of 32.
using HotState = hh::State;
struct KnobRule {
  int knob;
  void (*set)(HotState &, int);
  const char *what;
  int max;
  int nValues, values[5];
};
const KnobRule kKnobRules[] = {
    {PRLAB_KNOB_HOT_FLOATS, [](HotState &s, int v) { s.knobHot = v; }, "hot floats", hh::kMaxHot, 0, {}},
    {PRLAB_KNOB_HOT_THREADS, [](HotState &s, int v) { s.knobThreads = v; }, "threads per block", 0, 4, {0, 256, 512, 1024}},
    {PRLAB_KNOB_HOT_OCCUPANCY, [](HotState &s, int v) { s.knobOcc = v; }, "occupancy (1024 or 2048 threads per SM)", 2, 0, {}},
    {PRLAB_KNOB_HOT_BLOCKS_PER_SM, [](HotState &s, int v) { s.knobBlocksPerSM = v; }, "blocks per SM", 1 << 30, 0, {}},
    {PRLAB_KNOB_HOT_STREAM, [](HotState &s, int v) { s.knobStream = v; }, "load mode", hh::kLoadModes, 0, {}},
    {PRLAB_KNOB_HOT_UNROLL, [](HotState &s, int v) { s.knobUnroll = v; }, "loads per step", 0, 4, {0, 2, 4, 8}},
    {PRLAB_KNOB_HOT_TILE, [](HotState &s, int v) { s.knobTile = v; }, "tile (1 row loops, 2 two column passes, 8 or 16 edges per thread)", 0, 5, {0, 1, 2, 8, 16}},
    {PRLAB_KNOB_HOT_GROUP, [](HotState &s, int v) { s.knobGroup = v; }, "threads per heavy row (a multiple of 32)", 1024, 0, {}},
};

int hotheadSet(Ctx &c, int knob, int value, Err &e) {
  hh::State *s = nullptr;
  PR_TRY(hh::getState(c, &s, e));
  const KnobRule *rule = nullptr;
  for (const KnobRule &r : kKnobRules)
    if (r.knob == knob) rule = &r;
  if (rule == nullptr)
    return fail(e, PRLAB_ERR_ARG, "knob %d is not a hot-head knob [%d, %d)", knob, PRLAB_KNOB_HOT_FIRST,
                PRLAB_KNOB_HOT_END);
  const bool listed = std::find(rule->values, rule->values + rule->nValues, value) != rule->values + rule->nValues;
  const bool ok = rule->nValues > 0 ? listed
                                          : value <= rule->max && (knob != PRLAB_KNOB_HOT_GROUP || value % 32 == 0);
  if (!ok) {
    char allowed[64] = "";
    if (rule->nValues > 0)
      for (int i = 0; i < rule->nValues; ++i)
        std::snprintf(allowed + std::strlen(allowed), sizeof allowed - std::strlen(allowed), "%s%d",
                      allowed[0] ? ", " : "", rule->values[i]);
    else
      std::snprintf(allowed, sizeof allowed, "[0, %d]", rule->max);
    return fail(e, PRLAB_ERR_ARG, "hot-head %s %d: must be one of %s (0 automatic)", rule->what, value, allowed);
  }
  rule->set(*s, value);
  cudaDeviceSynchronize();
  hh::freeBuffers(*s);
  return PRLAB_OK;
}

void hotheadStateFree(Ctx &c) {
  hh::State *s = static_cast<hh::State *>(c.hothead);
  if (s == nullptr) return;
  hh::freeBuffers(*s);
  hh::freeCodes(*s);
  delete s;
  c.hothead = nullptr;
}

} // namespace

const DesignFamily kHotHeadFamily = {hotheadImpl, hotheadKnob, hotheadRun, hotheadBenchmark, hotheadSet, hotheadStateFree};

} // namespace prlab

// ==================================================================== C API (prlab_cuda.h)

extern "C" {

int prlab_hothead_codes(void *handle, const unsigned short *codes, const int *exc_ptr, const int *exc, int n_exc,
                        char *msg, int msg_len) {
  return prlab::entry(msg, msg_len, [&](prlab::Err &e) -> int {
    PR_TRY(prlab::checkHandle(handle, e));
    prlab::Ctx &c = *static_cast<prlab::Ctx *>(handle);
    if (!codes || !exc_ptr || n_exc < 0 || (n_exc > 0 && !exc))
      return prlab::fail(e, PRLAB_ERR_ARG, "prlab_hothead_codes: NULL array or negative escape count %d", n_exc);
    if (exc_ptr[0] != 0 || exc_ptr[c.n] != n_exc)
      return prlab::fail(e, PRLAB_ERR_ARG, "exc_ptr[0] = %d and exc_ptr[n] = %d must be 0 and the %d escapes",
                         exc_ptr[0], exc_ptr[c.n], n_exc);
    prlab::hh::State *s = nullptr;
    PR_TRY(prlab::hh::getState(c, &s, e));
    prlab::hh::freeCodes(*s);
    const size_t nnz = static_cast<size_t>(c.nnz), np1 = static_cast<size_t>(c.n) + 1, nx = static_cast<size_t>(n_exc);
    PR_TRY(prlab::devAlloc(reinterpret_cast<void **>(&s->codes), 2 * nnz, "d_hotCodes", e));
    PR_TRY(prlab::devAlloc(reinterpret_cast<void **>(&s->excPtr), 4 * np1, "d_hotEscapePtr", e));
    PR_TRY(prlab::devAlloc(reinterpret_cast<void **>(&s->exc), 4 * nx, "d_hotEscapes", e));
    PR_CUDA(e, cudaMemcpy(s->codes, codes, 2 * nnz, cudaMemcpyHostToDevice), "cudaMemcpy(d_hotCodes, %zu bytes)", 2 * nnz);
    PR_CUDA(e, cudaMemcpy(s->excPtr, exc_ptr, 4 * np1, cudaMemcpyHostToDevice), "cudaMemcpy(d_hotEscapePtr, %zu bytes)",
            4 * np1);
    if (nx > 0)
      PR_CUDA(e, cudaMemcpy(s->exc, exc, 4 * nx, cudaMemcpyHostToDevice), "cudaMemcpy(d_hotEscapes, %zu bytes)", 4 * nx);
    // The escape index at the start of every segment of the rows longer than kWarpMax.
    std::vector<int> rp(np1), segFirst(np1 - 1, 0), segExc;
    PR_CUDA(e, cudaMemcpy(rp.data(), c.rowPtr, 4 * np1, cudaMemcpyDeviceToHost), "cudaMemcpy(rowPtr, device to host)");
    for (int v = 0; v < c.n; ++v) {
      if (rp[v + 1] - rp[v] <= prlab::hh::kWarpMax) continue;
      segFirst[v] = static_cast<int>(segExc.size());
      int x = exc_ptr[v];
      for (int j = rp[v]; j < rp[v + 1]; ++j) {
        if ((j - rp[v]) % PRLAB_HOT_SEGMENT == 0) segExc.push_back(x);
        if (codes[j] == prlab::hh::kEscape) ++x;
      }
    }
    PR_TRY(prlab::devAlloc(reinterpret_cast<void **>(&s->segFirst), 4 * segFirst.size(), "d_hotSegFirst", e));
    PR_TRY(prlab::devAlloc(reinterpret_cast<void **>(&s->segExc), 4 * segExc.size(), "d_hotSegEscapes", e));
    PR_CUDA(e, cudaMemcpy(s->segFirst, segFirst.data(), 4 * segFirst.size(), cudaMemcpyHostToDevice),
            "cudaMemcpy(d_hotSegFirst, %zu bytes)", 4 * segFirst.size());
    if (!segExc.empty())
      PR_CUDA(e, cudaMemcpy(s->segExc, segExc.data(), 4 * segExc.size(), cudaMemcpyHostToDevice),
              "cudaMemcpy(d_hotSegEscapes, %zu bytes)", 4 * segExc.size());
    return PRLAB_OK;
  });
}

int prlab_hothead_info(void *handle, int impl, float damping, int *hot_floats, int *load_mode, int *loads_per_step,
                       int *grid, int *threads, int *group, float *tune_ms, char *msg, int msg_len) {
  return prlab::entry(msg, msg_len, [&](prlab::Err &e) -> int {
    PR_TRY(prlab::checkHandle(handle, e));
    if (!prlab::kHotHeadFamily.ownsImpl(impl)) return prlab::fail(e, PRLAB_ERR_ARG, "implementation %d is not a hot-head design", impl);
    if (!hot_floats || !load_mode || !loads_per_step || !grid || !threads || !group || !tune_ms)
      return prlab::fail(e, PRLAB_ERR_ARG, "an output pointer is NULL");
    prlab::Ctx &c = *static_cast<prlab::Ctx *>(handle);
    prlab::hh::State *s = nullptr;
    PR_TRY(prlab::hh::prepare(c, impl, &s, damping, e));
    const int pk = impl == PRLAB_IMPL_HOTHEAD_PACKED ? 1 : 0;
    *hot_floats = s->hotOf[pk];
    const int v = s->modeOf[pk];
    *load_mode = v % prlab::hh::kLoadModes + 1;
    *grid = s->G;
    *threads = s->shape->threads;
    if (v < prlab::hh::kVariants) {
      *loads_per_step = 2 << (v / prlab::hh::kLoadModes);
      *group = s->group;
    } else if (v >= prlab::hh::kVariants + prlab::hh::kTileVariants) { // the two column passes' row loops
      *loads_per_step = 2 << ((v - prlab::hh::kVariants - prlab::hh::kTileVariants) / prlab::hh::kLoadModes);
      *group = s->group;
    } else { // the two-phase gather: edges per thread and tile, no heavy-row groups
      *loads_per_step = prlab::hh::kTileK[(v - prlab::hh::kVariants) / prlab::hh::kLoadModes];
      *group = 0;
    }
    *tune_ms = s->tuneMs[pk];
    PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (hot-head info)");
    return PRLAB_OK;
  });
}

} // extern "C"
