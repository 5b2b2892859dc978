// cluster_dsmem.cu — gpu-cluster-dsmem: the whole graph in the shared
// memory of ONE thread-block cluster (16 blocks on sm_90), one
// cluster.sync() per iteration, exact Jacobi PageRank.
//
// Layout (built once per uploaded graph on the host): rows are split into C
// contiguous ranges of about equal rows + edges. Block q keeps, in its own
// shared memory, its rows' in-edges (columns renumbered into q's "ghost"
// vector), 1/outdeg and x of its rows, and two copies (ping-pong) of its
// ghost vector: the contributions of its own rows first, then, per source
// block s (ascending), the contributions of exactly those rows of s that q's
// edges reference (sorted; each segment padded to 4 floats for 16-byte
// transfers). The gather is a local shared-memory read; after its combine
// each block sends every other block the segment it needs (needed-only: on
// the real graph 50,644 floats per iteration in all, against 248,835 for a
// full replica in every block). The exchange is one of (knob
// PRLAB_KNOB_DSM_EXCHANGE):
//   stores  16-byte st through distributed shared memory, one per 4 floats
//           (descriptor per group: destination block, float4 index);
//   bulk    the segment packed into a send buffer, one
//           cp.async.bulk.shared::cluster per destination, completion on the
//           destination's mbarrier (complete_tx), awaited before its gather
//           (needs -DPRLAB_CLUSTER_BULK=1 and CUDA >= 12: PTX 8.0);
//   rows    each row's contribution stored (4 bytes, DSMEM) to every block
//           that needs it as soon as the row is combined (per-row send
//           lists), so the stores overlap the row sums instead of
//           following them (knob value 4; not yet timed);
//   l2      each block stores its rows' contributions to device memory
//           (L2); after the barrier every block loads the entries of its
//           ghost vector it needs (ld.global.cg).
//   async   (the default where compiled in) the stores' 16-byte groups as
//           st.async (PTX 8.1, CUDA >= 12.1),
//           each completing 16 bytes on the receiver's mbarrier of that
//           ghost copy (armed with its bytes, as for bulk), awaited at the
//           receiver's next iteration's top; the cluster barrier's arrive is
//           relaxed for warps 1.. and release for warp 0 only (thread 0
//           wrote the partials read remotely after it): no fence waits for
//           the remote stores' acknowledgements (Nsight Compute, 2026-12-02:
//           that fence was 15 % of the stores exchange's warp stalls).
// Rows to blocks (knob PRLAB_KNOB_DSM_ASSIGN): contiguous ranges (1), or
// those ranges with rows moved from the largest senders (2, balanceSends, on
// a copy of the graph relabelled inside the design; the ranks go back through
// perm in the final write; measured no faster: NOTES.md "Session 6"), or
// rows moved to cut the exchange itself (3, the automatic one: refineCut,
// relabelled the same way; the real graph's exchange 50,644 -> 27,791 floats
// per iteration, -0.13 to -0.20 us on the H200: NOTES.md "Session 8").
// Row sums (knob PRLAB_KNOB_DSM_GATHER): staged (1: the gathered values of
// all edges into shared memory, kBatch loads in flight per thread, then
// thread per row up to in-degree 32 and warp per row above), direct (2: row
// sums read the ghost vector), or pieces (3, 4: each row cut into pieces of
// <= 8 / 4 edges, one thread per piece with coalesced jagged-diagonal column
// loads, then each row adds its pieces in order: short serial chains instead
// of up to 32 dependent adds per light row; checked on the CPU by
// testdata/cluster_dsmem_layout_check.cu), or pieces bank-ordered (5, 6:
// each piece's columns in the order that puts a warp's lanes on distinct
// shared-memory banks at each step where the pieces allow it,
// bankOrderPieces; the same pieces, another summation order; 5 was the
// default after the H200 probe of 2026-12-02), or
// those of 8 fused (7: the thread of a row's only piece finishes the row at
// once, every warp having summed D itself; the row phase adds the rest), or
// rows packed into warps (8, packRows: a row's pieces of 8 on adjacent lanes
// of one warp, summed by a segmented shuffle, the row's first lane storing
// the row sum; then thread per row combines: no row-add pass; the default,
// with partials 18, the fastest correct setting of the final H200 lease of
// 2026-12-02, NOTES.md).
// Pipeline (knob PRLAB_KNOB_DSM_PIPELINE, packed rows only; automatic with
// the stores and async exchanges: 144, small rows several per lane + heavy
// rows split, the fastest in three H200 leases; 256: none; bits): 1 the
// split cluster barrier (barrier.cluster.arrive after the sends, .wait at the
// next iteration's top after each warp's first packed warp has read its
// column indices and own-row values), 2 16-bit column indices (a lane's 8
// slots in one uint4, pack16), 4 row finish (each row combined by its packed
// warp's head lane right after its shuffles, D published by warp 0 in a
// shared-memory word before its gather share: no row pass and no block
// barrier between the gather and the combine). 1 and 2 keep the default's
// bits; 4 changes the dangling sum's thread order (D's last bits). With the
// stores exchange and none of 1, 2, 4, each in its own instantiation (the
// default's code is untouched): 16 heavy rows split (packRows split: a row of
// more than 32 pieces cut into chunks of 256 edges packed like light rows,
// the combine adding the chunk sums in order; rows of in-degree 0 not
// packed), 128 small lanes (with 16: a run of consecutive rows of in-degree
// 1..8, <= 8 edges in all, summed by one lane, each row's sum stored at its
// last slot), 64 (host only) the packed warps permuted to balance each warp's
// share, 32 the phase timer (clock() at each phase boundary of every warp in
// timed runs, printed per block by dsmemBenchmark). 16 and 128 change the
// heavy and small rows' summation order (their last bits).
// Dangling mass and residual: each block's partial in its own shared memory
// (C writes per reduction, the write budget's gridDim.x), read by warp 0 of
// every block through distributed shared memory (lanes 0..C-1 at once) and
// summed in a fixed order, so every block gets the same bits; the residual
// test runs on the device. Or (knob PRLAB_KNOB_DSM_PARTIALS bit 1) each
// block's lanes 0..C-1 store its dangling partial into every block's shared
// memory before the barrier, so the read after it is local (the same values
// in the same order: the same bits); bit 2 sums the block's dangling partial
// with one block barrier instead of two; bit 4 leaves out the block sum: lanes
// 0..C-1 of every warp store the warp's partial into every block (C x 32
// words per block and parity), and warp 0 sums them after the barrier (lane w
// adds warp w's partials of blocks 0..C-1 in order, then the butterfly: other
// bits than the block sums', the same in every block); bit 16: warp 0 does
// only the reductions (D after the barrier, the dangling sum after the row
// sums) while warps 1.. do the gather and the sends (with rows packed into
// warps, gather 8, every warp takes its packed warps' share: there bit 16
// moves only the sends off warp 0, and D's butterfly is 4 steps); bit 8 only
// marks a value as explicit (auto, 0, is 18: warp 0 reduces only + the
// one-barrier sum). None of bits 2, 8, 16 changes what a reduction writes:
// one partial per block (dP, by thread 0), as the write budget's check
// counts it (dsmReduceKernel: C partials + 1 result); bits 1 and 4 write
// C x C and C x 32 x C slots per reduction and break the budget. Fixed-order sums throughout: same bits every run.
//
// Bytes per iteration (the course's rule, as the fused iteration counts
// them, whatever the gather knob): rowPtr 4(n+1), colIdx 4nnz, contrib[col]
// 4nnz, invOut 4n, x' 4n, contrib' 4n = 16n + 8nnz + 4, all from shared
// memory (the piece layouts read their own row words instead of rowPtr:
// prow, or for packed rows one lane word per packed lane and a row sum per
// row; not counted); the exchange moves
// 4 bytes per (block, needed remote row) pair through distributed shared
// memory (or L2) on top; 0 bytes of device memory (stores, bulk).
//
// Ablations (knob PRLAB_KNOB_DSM_ABLATE, timing only: the ranks are then
// wrong): 1 leaves out the gather, 2 the row sums + combine, 4 the exchange,
// 8 the per-iteration cluster.sync(); 7 leaves the skeleton (partials, block
// reductions, cluster.sync()), 15 the loop alone, 16 no iterations at all (the
// launch, the one-time load into shared memory and the final write: the fixed
// cost of one run).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "block_reduce.cuh"
#include "cluster_dsmem.cuh"

#ifndef PRLAB_CLUSTER_BULK
#define PRLAB_CLUSTER_BULK 0
#endif
#if PRLAB_CLUSTER_BULK && defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ < 12
#undef PRLAB_CLUSTER_BULK
#define PRLAB_CLUSTER_BULK 0 // cp.async.bulk and mbarrier expect_tx are PTX 8.0 (CUDA 12)
#endif
// st.async (the async-stores exchange) is PTX 8.1: CUDA 12.1 or later, where it is always compiled in
#ifndef PRLAB_CLUSTER_ASYNC // -DPRLAB_CLUSTER_ASYNC=0 leaves it out
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define PRLAB_CLUSTER_ASYNC 1
#else
#define PRLAB_CLUSTER_ASYNC 0
#endif
#endif
#define PRLAB_CLUSTER_MBAR (PRLAB_CLUSTER_BULK || PRLAB_CLUSTER_ASYNC) // the mbarrier helpers
// The timed fixed-shape kernel synchronises through its mbarriers only (no cluster barrier in its loop):
// -DPRLAB_DSM_MBAR_SYNC=0 restores the late cluster wait (the A/B of NOTES.md "Session 12").
#ifndef PRLAB_DSM_MBAR_SYNC
#define PRLAB_DSM_MBAR_SYNC 1
#endif

namespace cg = cooperative_groups;

namespace prlab {
namespace dsm {

constexpr int kMaxC = 16;
constexpr int kLight = 32; // thread per row up to this in-degree, warp per row above
constexpr int kBatch = 8;  // gather loads in flight per thread
constexpr int kPiece = 8;  // edges per piece of the piece-wise row sums
constexpr int kPieceWarp = 32; // rows of more full pieces are summed by a warp
enum { kStores = 1, kBulk = 2, kL2 = 3, kRowStores = 4, kAsync = 5 };
enum { kNoGather = 1, kNoRows = 2, kNoExchange = 4, kNoSync = 8, kNoLoop = 16 };
enum { kCtlStopped = 0, kCtlDone = 1, kCtlConverged = 3, kCtlCount = 4 };
// kPipe bits of the instantiations beyond the pipeline knob's first three (PRLAB_KNOB_DSM_PIPELINE 16, 32):
// kHeavySplit, the combine adds each split heavy row's chunk sums (packRows with split: a heavy row's pieces
// of 8 packed into as many packed warps as it needs, one row sum per chunk; rows of in-degree 0 not packed, their
// valS slot zeroed once); kPhaseTimer, clock() at each phase boundary of every warp (timed runs only).
enum { kHeavySplit = 16, kPhaseTimer = 32, kPairWarps = 64 /* host only: packRows' pair */, kSmallLanes = 128 };
// kFixedShape (kPipe only; the default: the async exchange with the automatic layout, unless
// PRLAB_KNOB_DSM_PIPELINE has bit 512): the layout's runtime flags as constants (rows packed into warps, gather 8;
// warp 0 reduces only + the one-barrier dangling sum, partials 18). With 1,024 threads a kernel has 64 registers
// per thread, and the generic kernel recomputes such flags, carve offsets and shared-memory addresses inside the
// loop: ~18 % of its instructions (Nsight Compute, NOTES.md "Session 8"). This one uses 56 registers, executes
// 8.7 % fewer instructions and runs 2.94-2.96 us per iteration against 3.28-3.32 (H200, 2026-12-03, "Session 9");
// its bits equal stores'.
enum { kFixedShape = 512 };
constexpr int kPhases = 8;      // boundaries after the top: packed warps, heavy rows, warp 0's D, barrier, combine, dangling sum, sends, cluster barrier
constexpr int kPhaseIters = 64; // iterations recorded per run (the timed runs have 50)

struct Args {
  const int *rowPtr;      // global in-edge CSR row pointer
  const float *invOut;    // global 1/outdeg
  const int *col;         // [nnz] ghost index of each edge's column (concatenated by block)
  const int *gid;         // [sum G] global node of each ghost entry (-1: padding)
  const int *heavy;       // [sum H] local rows of in-degree > kLight
  const unsigned short *sidx; // [sum S] local own row of each sent float (groups of 4)
  const unsigned *desc;   // [sum S / 4] destination block << 24 | float4 index in its ghost copy
  const int *pairs;       // [kMaxC][kMaxC][3] sender s, receiver q: offset in s's send list, floats, offset in q's ghost
  float *gx;              // [2][n] exchange through L2
  int n;
  int rb[kMaxC + 1];      // block q owns rows [rb[q], rb[q+1])
  int gb[kMaxC + 1];      // its ghost entries gid[gb[q] .. gb[q+1])
  int hb[kMaxC + 1];
  int sb[kMaxC + 1];      // its send list sidx[sb[q] .. sb[q+1]) (multiples of 4)
  int recvBytes[kMaxC];   // bytes it receives per iteration
  int gmax, emax, rmax, hmax, smax; // shared-memory layout (the same in every block; multiples of 4)
  int ablate, direct;
  int partials; // PRLAB_KNOB_DSM_PARTIALS: 1 pushed dangling partials, 2 the one-barrier dangling block sum
  // Row sums by pieces (gather knob 3): each row's edges cut into pieces of
  // at most kPiece, the pieces of a block sorted by length (then row) and
  // their columns stored in jagged-diagonal order (slot j of piece t at
  // pnj[0] + .. + pnj[j-1] + t, in col), so that thread t sums piece t with
  // coalesced column loads; then each row adds its pieces.
  int pieces;
  const int *pnj;  // [C][kPiece] pieces longer than j, per block
  const int *prow; // [n][3] per row: first full piece, full pieces, the partial piece (-1: none)
  // Fused (gather knob 7): the thread of a row's only piece finishes the row
  // (every warp sums D itself first); the row phase adds only the other
  // light rows (0 or >= 2 pieces). Block q's piece t: row psr[rowPtr[rb[q]]
  // + t] or -1; its other light rows mrow[rb[q] .. rb[q] + mc[q]).
  int fused, pmax, mmax;
  const int *psr, *mrow;
  int mc[kMaxC];
  // Rows packed into warps (gather knob 8, packRows): block q's columns
  // pcol[pcb[q] .. pcb[q + 1]), lane words lanes[lb[q] ..), warp words winfo[wb[q] ..).
  int packed, lmax, wmax;
  const int *pcol, *lanes, *winfo;
  int pcb[kMaxC + 1], lb[kMaxC + 1], wb[kMaxC + 1];
  // PRLAB_KNOB_DSM_PIPELINE (packed rows only): bit 1 the split cluster barrier, bit 2 16-bit columns:
  // lane l of block q has its 8 slots' ghost indices (0 beyond its piece) in c16[8 (lb[q] + l) ..], one
  // uint4; pcol then holds only the heavy rows' columns.
  int pipeline;
  const unsigned short *c16;
  // Per-row sends (exchange 4): block q's row i goes to rsd[rdb[q] + rsp[rb[q] + q + i] ..
  // rsp[rb[q] + q + i + 1]) as (receiver << 24 | ghost position), stored at its combine.
  const int *rsp;
  const unsigned *rsd;
  int rdb[kMaxC + 1];
  // Phase timer (pipeline bit 32, its own instantiations): [C][32 warps][kPhaseIters][kPhases] clock() deltas
  // from the iteration's top, written by lane 0 of every warp in timed runs (dsmemBenchmark prints them).
  unsigned *phase;
  // Small lanes (pipeline bit 128, kSmallLanes kernels): per lane (indexed like lanes) the row ends of a run of
  // consecutive rows of in-degree 1..8 summed by one lane: nibble j = the offset from the lane's row of the row
  // whose last edge is slot j (15: none; 0xffffffff for every other lane).
  const unsigned *lends;
  // Rows moved between blocks (PRLAB_KNOB_DSM_ASSIGN 2): the graph is relabelled inside the design so that each
  // block's rows are contiguous again (rowPtr and invOut above are then the relabelled copies); perm[r] is the
  // graph's node of row r, through which the final write puts the ranks back in the graph's order (nullptr: the
  // graph's own order).
  const int *perm;
};

struct Coef {
  float tele, d, invN, x0;
};

struct Inst {
  float *residHist;
  double *sumHist;
  int *ctl;
  float tol;
};

// The dynamic shared memory of one block, carved in this order (16-byte
// aligned regions); the host sizes the launch with the same function.
struct Carve {
  size_t ghost, sendBuf, valS, xS, invS, rpS, colS, heavyS, sidxS, descS, prowS, rspS, rsdS, dW, psrS, mrowS, laneS, winfoS,
      c16S, endS, total;
};
__host__ __device__ inline size_t align16(size_t b) { return (b + 15) & ~static_cast<size_t>(15); }
__host__ __device__ inline Carve carve(int gmax, int smax, int emax, int rmax, int hmax, bool bulk, bool staged,
                                       bool pieces, bool rowSends = false, bool warpPartials = false, int pmax = 0,
                                       int mmax = 0, int lmax = 0, int wmax = 0, bool col16 = false, bool laneEnds = false) {
  Carve c{};
  size_t o = 0;
  c.ghost = o;   o += align16(8 * static_cast<size_t>(gmax));
  c.sendBuf = o; o += bulk ? align16(8 * static_cast<size_t>(smax)) : 0;
  c.valS = o;    o += staged ? align16(4 * static_cast<size_t>(emax)) : 0;
  c.xS = o;      o += align16(4 * static_cast<size_t>(rmax));
  c.invS = o;    o += align16(4 * static_cast<size_t>(rmax));
  c.rpS = o;     o += align16(4 * (static_cast<size_t>(rmax) + 1));
  c.colS = o;    o += align16(4 * static_cast<size_t>(emax));
  c.heavyS = o;  o += align16(4 * static_cast<size_t>(hmax));
  c.sidxS = o;   o += align16(2 * static_cast<size_t>(smax));
  c.descS = o;   o += align16(static_cast<size_t>(smax)); // smax / 4 descriptors of 4 bytes
  c.prowS = o;   o += pieces ? align16(12 * static_cast<size_t>(rmax)) : 0;
  c.rspS = o;    o += rowSends ? align16(4 * (static_cast<size_t>(rmax) + 1)) : 0;
  c.rsdS = o;    o += rowSends ? align16(4 * static_cast<size_t>(smax)) : 0;
  c.dW = o;      o += warpPartials ? 4 * 2 * kMaxC * 32 : 0; // [parity][sender block][warp]
  c.psrS = o;    o += align16(4 * static_cast<size_t>(pmax)); // fused pieces: the row of a row's only piece, else -1
  c.mrowS = o;   o += align16(4 * static_cast<size_t>(mmax)); // fused pieces: the light rows of 0 or >= 2 pieces
  c.laneS = o;   o += align16(4 * static_cast<size_t>(lmax)); // packed rows: one word per lane
  c.winfoS = o;  o += align16(4 * static_cast<size_t>(wmax)); // packed rows: one word per warp
  c.c16S = o;    o += col16 ? 16 * static_cast<size_t>(lmax) : 0; // packed rows, 16-bit columns: 8 per lane
  c.endS = o;    o += laneEnds ? align16(4 * static_cast<size_t>(lmax)) : 0; // small lanes: row ends per lane
  c.total = o;
  return c;
}

using dev::blockSum; // block_reduce.cuh
using dev::warpAllSum;

// blockSum without its trailing barrier (the result in warp 0): the caller
// must not write scratch again before a later barrier. The same bits as blockSum.
template <class T> __device__ __forceinline__ T blockSumOneBarrier(T v, T *scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warpAllSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T r = T(0);
  if (warp == 0) r = warpAllSum(lane < warps ? scratch[lane] : T(0));
  return r;
}

__device__ __forceinline__ unsigned smemAddr(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// dst[i] = src[i] for i in [0, count) (T of 4 or 16 bytes, both aligned to it): one cp.async per element
// (PTX 7.0, sm_80), strided over the block, every copy of the block in flight at once and none through
// registers; complete for this thread after cpAsyncWaitAll(), for the block after a barrier that follows it.
template <class T> __device__ __forceinline__ void copyAsync(T *dst, const T *src, int count) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 16, "cp.async copies 4 or 16 bytes here");
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    if constexpr (sizeof(T) == 4)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smemAddr(dst + i)), "l"(src + i) : "memory");
    else
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smemAddr(dst + i)), "l"(src + i) : "memory");
  }
}
__device__ __forceinline__ void cpAsyncWaitAll() { asm volatile("cp.async.wait_all;" ::: "memory"); }

#if PRLAB_CLUSTER_MBAR
__device__ __forceinline__ unsigned mapa(unsigned addr, int rank) {
  unsigned out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(addr), "r"(rank));
  return out;
}
__device__ __forceinline__ void mbarInit(unsigned long long *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarInitFence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbarArriveExpect(unsigned long long *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarWait(unsigned long long *bar, unsigned parity) {
  const unsigned a = smemAddr(bar);
  unsigned done = 0;
  do {
    asm volatile("{\n\t.reg .pred P1;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, P1;\n\t}"
                 : "=r"(done)
                 : "r"(a), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ __forceinline__ void fenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// bytes (a multiple of 16) from this block's src to dst of block `rank`, completing on its bar.
__device__ __forceinline__ void bulkToRank(float *dstLocal, const float *src, unsigned bytes,
                                           unsigned long long *barLocal, int rank) {
  const unsigned dst = mapa(smemAddr(dstLocal), rank), mb = mapa(smemAddr(barLocal), rank);
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "r"(smemAddr(src)), "r"(bytes), "r"(mb)
               : "memory");
}
#endif
#if PRLAB_CLUSTER_ASYNC
// 16 bytes to the shared::cluster address dst (another block's), completing 16 bytes of the transaction
// count of the mbarrier at shared::cluster address mb (in the same block as dst): no release fence needed
// at the sender, the receiver's wait on mb acquires them (PTX 8.1, sm_90).
__device__ __forceinline__ void stAsync16(unsigned dst, float4 v, unsigned mb) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(dst),
               "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)), "r"(__float_as_uint(v.w)),
               "r"(mb)
               : "memory");
}
// 4 bytes to the shared::cluster address dst, completing 4 bytes of the mbarrier at mb (as stAsync16).
__device__ __forceinline__ void stAsync4(unsigned dst, float v, unsigned mb) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst),
               "r"(__float_as_uint(v)), "r"(mb)
               : "memory");
}
#endif

// The two halves of cluster.sync() (barrier.cluster, PTX 7.8, sm_90): arrive
// has release semantics, wait acquire (the defaults); .aligned: every thread
// of the warp executes it together.
__device__ __forceinline__ void clusterArrive() { asm volatile("barrier.cluster.arrive.aligned;" ::: "memory"); }
__device__ __forceinline__ void clusterWait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
// arrive without release semantics (PTX 8.0): for threads whose remote writes complete through mbarriers
__device__ __forceinline__ void clusterArriveRelaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// st(i, ld(i)) for i in [0, count), B loads in flight per thread (the
// one-time load of a block's arrays is latency-bound otherwise).
template <int B, class T, class Ld, class St> __device__ __forceinline__ void batched(int count, Ld ld, St st) {
  for (int b = threadIdx.x; b < count; b += B * blockDim.x) {
    T v[B];
#pragma unroll
    for (int u = 0; u < B; ++u) {
      const int i = b + u * blockDim.x;
      v[u] = i < count ? ld(i) : T();
    }
#pragma unroll
    for (int u = 0; u < B; ++u) {
      const int i = b + u * blockDim.x;
      if (i < count) st(i, v[u]);
    }
  }
}

// kPipe: the pipeline knob's bits compiled in (PRLAB_KNOB_DSM_PIPELINE; 0 for the default, 1 the split
// barrier alone, 7 all); without them the kernel is the default's code as before the knob (the H200 lease
// of 2026-12-02 05:00 timed the default 24 % slower with the knob's branches compiled into the same
// instantiation: 5,360 SASS instructions against 4,576; with kPipe = 0 the same 4,576 opcodes again).
template <bool kInstr, int kMode, int kPipe = 0>
__global__ void __launch_bounds__(1024, 1) dsmKernel(Args a, Coef c, int iters, float *xOut, Inst in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cg::cluster_group cl = cg::this_cluster();
  const int rank = static_cast<int>(cl.block_rank());
  const int C = static_cast<int>(cl.num_blocks());
  const int tid = threadIdx.x, bd = blockDim.x, lane = tid & 31, warp = tid >> 5, warps = bd >> 5;
  constexpr bool kFix = (kPipe & kFixedShape) != 0; // the automatic layout's flags as constants (gather 8, partials 18)
  // the fixed-shape kernel's timed runs wait for the cluster barrier after the gather, not before it: the data
  // comes through the mbarriers, so the barrier orders only the partials dP and the next sends (see the loop's end)
  constexpr bool kLateWait = kFix && !kInstr;
  const bool staged = kFix || a.direct == 0;
  const bool pieces = kFix || a.pieces != 0; // valS then holds the piece sums
  const bool push = !kFix && (a.partials & 1) != 0, oneBarrier = kFix || (a.partials & 2) != 0;
  // bit 16: warp 0 only reduces (D, the dangling sum); the gather and the sends run on warps 1.. (wt, wn)
  const bool lean = (kFix || (a.partials & 16) != 0) && bd > 32;
  const int wt = lean ? tid - 32 : tid, wn = lean ? bd - 32 : bd;
  const bool warpPush = !kFix && (a.partials & 4) != 0; // every warp's dangling partial to every block, no block sum
  const bool fused = !kFix && pieces && a.fused != 0;    // rows of one piece finished by its thread
  const bool everyWarp = fused && !kInstr;      // then every warp sums D before the pieces
  const bool packed = kFix || (pieces && a.packed != 0); // rows packed into warps: segmented shuffle sums, valS = row sums
  const bool col16 = (kPipe & 2) != 0 && packed && (a.pipeline & 2) != 0; // a lane's 8 ghost indices in one 16-byte load
  // split cluster barrier: arrive after the sends, wait after the next iteration's column loads and own-row sums
  const bool split = (kPipe & 1) != 0 && packed && (a.pipeline & 1) != 0 && (a.ablate & (kNoSync | kNoGather)) == 0;
  // bit 4: each packed row finished by its head lane right after its shuffles (no row pass, no valS, no block
  // barrier between the gather and the combine); warp 0 sums D first and publishes it in dWord
  const bool rowFinish = (kPipe & 4) != 0 && packed && (a.pipeline & 4) != 0 && (a.ablate & (kNoGather | kNoRows)) == 0;
  const Carve cv = carve(a.gmax, a.smax, a.emax, a.rmax, a.hmax, kMode == kBulk, staged, pieces, kMode == kRowStores, warpPush,
                         fused ? a.pmax : 0, fused ? a.mmax : 0, packed ? a.lmax : 0, packed ? a.wmax : 0, col16,
                         (kPipe & kSmallLanes) != 0);
  extern __shared__ float4 dynSmem[];
  char *base = reinterpret_cast<char *>(dynSmem);
  float *ghost = reinterpret_cast<float *>(base + cv.ghost);
  float *sendBuf = reinterpret_cast<float *>(base + cv.sendBuf);
  float *valS = reinterpret_cast<float *>(base + cv.valS);
  float *xS = reinterpret_cast<float *>(base + cv.xS);
  float *invS = reinterpret_cast<float *>(base + cv.invS);
  int *rpS = reinterpret_cast<int *>(base + cv.rpS);
  int *colS = reinterpret_cast<int *>(base + cv.colS);
  int *heavyS = reinterpret_cast<int *>(base + cv.heavyS);
  unsigned short *sidxS = reinterpret_cast<unsigned short *>(base + cv.sidxS);
  unsigned *descS = reinterpret_cast<unsigned *>(base + cv.descS);
  int *prowS = reinterpret_cast<int *>(base + cv.prowS);
  int *rspS = reinterpret_cast<int *>(base + cv.rspS);
  unsigned *rsdS = reinterpret_cast<unsigned *>(base + cv.rsdS);
  float *dW = reinterpret_cast<float *>(base + cv.dW);
  int *psrS = reinterpret_cast<int *>(base + cv.psrS);
  int *mrowS = reinterpret_cast<int *>(base + cv.mrowS);
  unsigned *laneS = reinterpret_cast<unsigned *>(base + cv.laneS);
  int *winfoS = reinterpret_cast<int *>(base + cv.winfoS);
  uint4 *c16S = reinterpret_cast<uint4 *>(base + cv.c16S);
  unsigned *endS = reinterpret_cast<unsigned *>(base + cv.endS);
  (void)endS;
  __shared__ int pnjS[kPiece];
  __shared__ float fs[32];
  __shared__ double ds[32];
  __shared__ float dP[2], rP[2]; // this block's partials of x[parity]: dangling mass, residual
  __shared__ float dAll[2][kMaxC]; // pushed partials (knob bit 1): every block's dangling partial of x[parity]
  __shared__ float fs2[32];        // scratch of the one-barrier dangling sum (knob bit 2)
  __shared__ double sP[2];       // and sum (correctness runs)
  __shared__ float shD;
  __shared__ unsigned long long dWord; // row finish (pipeline bit 4): iteration + 1 << 32 | D's bits, atomics only
  __shared__ int shStop;
  __shared__ float *remoteGhost[kMaxC];
  __shared__ unsigned remoteGhostA[kMaxC], remoteBarA[kMaxC][2]; // async stores: shared::cluster addresses
  __shared__ int pOff[kMaxC], pCnt[kMaxC], pRoff[kMaxC];
  __shared__ unsigned long long bar[2]; // mbarriers of the two ghost copies (bulk exchange)
  (void)sendBuf;
  (void)bar;
  (void)pOff;

  const int r0 = a.rb[rank], R = a.rb[rank + 1] - r0;
  const int e0 = __ldg(a.rowPtr + r0), E = __ldg(a.rowPtr + r0 + R) - e0;
  const int g0 = a.gb[rank], G = a.gb[rank + 1] - g0;
  const int H = a.hb[rank + 1] - a.hb[rank];
  const int S = a.sb[rank + 1] - a.sb[rank];
  const int Rpad = (R + 3) & ~3;
  const bool exchange = (a.ablate & kNoExchange) == 0;
  // mbarSync (the timed fixed-shape kernel with the exchange and the barrier on): no cluster barrier inside the
  // loop. Every block sends its dangling partial of x_{k+1} to every other block's dAll with st.async, on the
  // mbarrier that also counts that block's x_{k+1} entries, so bar[1 - p] completes only when all C - 1 senders
  // have finished iteration k. That one wait orders everything the late cluster wait ordered: D_{k+1} is
  // complete; a sender writes copy 1 - p of block q (and q's dAll[1 - p]) in iteration k + 1 only after its wait
  // for q's x_{k+1}, which q sends after its gather of that copy in iteration k - 1 and its read of dAll[1 - p]
  // in iteration k; and q armed bar[1 - p] (in iteration k - 1) before it sent that x_k. Exact Jacobi, the same
  // sums in the same order: the same bits.
  const bool mbarSync = PRLAB_DSM_MBAR_SYNC && PRLAB_CLUSTER_ASYNC && kLateWait && kMode == kAsync && exchange &&
                        (a.ablate & kNoSync) == 0 && C > 1;
  const int recvB = a.recvBytes[rank] + (mbarSync ? 4 * (C - 1) : 0); // bytes per iteration on bar[copy]
  if (tid < C) {
    remoteGhost[tid] = cl.map_shared_rank(ghost, tid);
#if PRLAB_CLUSTER_ASYNC
    if (kMode == kAsync) {
      remoteGhostA[tid] = mapa(smemAddr(ghost), tid);
      remoteBarA[tid][0] = mapa(smemAddr(&bar[0]), tid);
      remoteBarA[tid][1] = mapa(smemAddr(&bar[1]), tid);
    }
#endif
    const int *pp = a.pairs + 3 * (rank * kMaxC + tid);
    pOff[tid] = pp[0];
    pCnt[tid] = pp[1];
    pRoff[tid] = pp[2];
  }
  // The block's arrays, copied as they are: every copy issued at once (cp.async), awaited after the ghost
  // vector and the rows below (which need loads through registers), instead of one round trip per array
  // (NOTES.md "Session 7": the one-time load was ~15 us of each run, 0.3 us per iteration at 50).
  const int PE = packed ? a.pcb[rank + 1] - a.pcb[rank] : E; // the columns this block keeps
  copyAsync(colS, packed ? a.pcol + a.pcb[rank] : a.col + e0, PE);
  const int W = packed ? a.wb[rank + 1] - a.wb[rank] : 0;
  if (packed) {
    copyAsync(laneS, reinterpret_cast<const unsigned *>(a.lanes) + a.lb[rank], 32 * W);
    copyAsync(winfoS, a.winfo + a.wb[rank], W);
    if constexpr ((kPipe & kSmallLanes) != 0) copyAsync(endS, a.lends + a.lb[rank], 32 * W);
    if (col16) copyAsync(c16S, reinterpret_cast<const uint4 *>(a.c16) + a.lb[rank], 32 * W);
  }
  copyAsync(heavyS, a.heavy + a.hb[rank], H);
  // sidx: S (a multiple of 4) 16-bit words from an offset a multiple of 4, copied as S / 2 words of 4 bytes
  copyAsync(reinterpret_cast<unsigned *>(sidxS), reinterpret_cast<const unsigned *>(a.sidx + a.sb[rank]), S >> 1);
  copyAsync(descS, a.desc + (a.sb[rank] >> 2), S >> 2);
  if (kMode == kRowStores) {
    copyAsync(rspS, a.rsp + r0 + rank, R + 1);
    copyAsync(rsdS, a.rsd + a.rdb[rank], a.rdb[rank + 1] - a.rdb[rank]);
  }
  if (pieces) copyAsync(prowS, a.prow + 3 * r0, 3 * R);
  const int M = fused ? a.mc[rank] : 0; // fused: the rows the row phase still adds
  if (fused) {
    copyAsync(psrS, a.psr + e0, __ldg(a.pnj + kPiece * rank));
    copyAsync(mrowS, a.mrow + r0, M);
  }
  if (pieces && tid < kPiece) pnjS[tid] = __ldg(a.pnj + kPiece * rank + tid);
  for (int b = tid; b < a.gmax; b += kBatch * bd) { // the ghost vector of x_0: ids, then 1/outdeg, kBatch in flight
    int g[kBatch];
    float iv[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int j = b + u * bd;
      g[u] = j < G ? __ldg(a.gid + g0 + j) : -1;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) iv[u] = g[u] >= 0 ? __ldg(a.invOut + g[u]) : 0.0f;
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int j = b + u * bd;
      if (j < a.gmax) {
        ghost[j] = g[u] >= 0 ? c.x0 * iv[u] : 0.0f;
        ghost[a.gmax + j] = 0.0f;
      }
    }
  }
  float dang = 0.0f;
  for (int b = tid; b < R; b += 4 * bd) {
    float iv[4];
    int rv[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int i = b + u * bd;
      iv[u] = i < R ? __ldg(a.invOut + r0 + i) : 1.0f;
      rv[u] = i < R ? __ldg(a.rowPtr + r0 + i) : 0;
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int i = b + u * bd;
      if (i < R) {
        invS[i] = iv[u];
        xS[i] = c.x0;
        rpS[i] = rv[u] - e0;
        if (iv[u] == 0.0f) dang += c.x0;
      }
    }
  }
  if (tid == 0) rpS[R] = E;
  // zero the staged values' slots [0, PE) and, with split heavy rows, the chunk slots and the unpacked rows' sums
  const int zEnd = (kPipe & kHeavySplit) != 0 ? a.emax : staged ? PE : 0;
  for (int i = (kPipe & kHeavySplit) != 0 && !staged ? PE : 0; i + tid < zEnd; i += bd) valS[i + tid] = 0.0f;
  cpAsyncWaitAll(); // the copies issued before the ghost vector (visible to the block after blockSum's barrier)
  dang = blockSum(dang, fs);
  if (tid == 0) {
    dP[0] = dang;
    if ((kPipe & 4) != 0) dWord = 0ull;
    rP[0] = rP[1] = 0.0f;
    sP[0] = sP[1] = 0.0;
  }
#if PRLAB_CLUSTER_MBAR
  if ((kMode == kBulk || kMode == kAsync) && tid == 0) {
    mbarInit(&bar[0], 1);
    mbarInit(&bar[1], 1);
    mbarInitFence();
    if (exchange && recvB > 0) {
      if (iters > 1) mbarArriveExpect(&bar[1], static_cast<unsigned>(recvB)); // data of iteration 1
      if (iters > 2) mbarArriveExpect(&bar[0], static_cast<unsigned>(recvB)); // of iteration 2
    }
  }
#endif
  cl.sync();

  // The ghost indices of packed warp w's slots for this lane (-1 beyond its piece), from the 16-bit
  // lane words (col16) or the int32 slots.
  auto packedCols = [&](int w, int wi, unsigned li, int(&cix)[kPiece]) {
    const int wbase = wi >> 8, depth = (wi >> 4) & 15, len = static_cast<int>((li >> 1) & 15u);
    if (col16) {
      const uint4 q4 = c16S[32 * w + lane];
      const unsigned wd[4] = {q4.x, q4.y, q4.z, q4.w};
#pragma unroll
      for (int j = 0; j < kPiece; ++j)
        cix[j] = j < depth && j < len ? static_cast<int>((wd[j >> 1] >> (16 * (j & 1))) & 0xffffu) : -1;
    } else {
#pragma unroll
      for (int j = 0; j < kPiece; ++j) cix[j] = j < depth && j < len ? colS[wbase + 32 * j + lane] : -1;
    }
  };
  bool pendingWait = false; // split barrier: arrived, not yet waited
  // Phase timer (kPhaseTimer, timed runs): tq[b] = clock() at boundary b of this warp's iteration (0: its top).
  constexpr bool kTimer = (kPipe & kPhaseTimer) != 0 && !kInstr;
  unsigned tq[kPhases + 1] = {};
  auto mark = [&](int b) {
    if constexpr (kTimer) {
      asm volatile("" ::: "memory");
      tq[b] = static_cast<unsigned>(clock());
      asm volatile("" ::: "memory");
    }
  };
  (void)mark;
  unsigned long long tLoop0 = 0, gLoop0 = 0; // the timer: clock64() and %globaltimer (ns) at the loop's start, thread 0
  if constexpr (kTimer)
    if (tid == 0) {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gLoop0));
      tLoop0 = clock64();
    }
  int p = 0, k = 0;
  const int loopIters = (a.ablate & kNoLoop) != 0 ? 0 : iters; // ablation 16: the launch, the one-time load, the write
  for (; k < loopIters; ++k) {
    mark(0);
    float *cur = ghost + p * a.gmax, *nxt = ghost + (1 - p) * a.gmax;
    // Split barrier: before waiting, this warp's first packed warp loads its column indices and its
    // own-row values (ghost [0, R): written by this block before its arrive); the remote ones after.
    int preC[kPiece];
    float preV[kPiece];
    const bool pre = split && warp < W;
    if (pre) {
      packedCols(warp, winfoS[warp], laneS[32 * warp + lane], preC);
#pragma unroll
      for (int j = 0; j < kPiece; ++j) preV[j] = preC[j] >= 0 && preC[j] < R ? cur[preC[j]] : 0.0f;
    }
    if (pendingWait) {
      clusterWait(); // the exchanged entries of cur, the partials: visible from here on
      pendingWait = false;
    }
#if PRLAB_CLUSTER_MBAR
    if ((kMode == kBulk || kMode == kAsync) && k > 0 && exchange && recvB > 0)
      mbarWait(&bar[p], static_cast<unsigned>(((k - 1) >> 1) & 1));
#endif
    if (kMode == kL2 && k > 0 && exchange) { // the remote entries of cur from L2, written before the barrier
      const float *src = a.gx + static_cast<size_t>(p) * a.n;
      for (int j = Rpad + tid; j < G; j += bd) {
        const int g = __ldg(a.gid + g0 + j);
        if (g >= 0) cur[j] = __ldcg(src + g);
      }
      __syncthreads();
    }
    // D_k (and the previous residual) from every block's partial, fixed order.
    float dRemote = 0.0f;
    const bool myWarp = tid < 32 || everyWarp; // the warps that sum D themselves
    if (warpPush && k > 0) { // lane w: warp w's partials of blocks 0..C-1 in order, then the butterfly (the same in every block)
      if (myWarp && lane < warps)
        for (int b = 0; b < C; ++b) dRemote += dW[(p * kMaxC + b) * 32 + lane];
    } else if (!kLateWait && myWarp && lane < C) { // pushed partials from iteration 1 on (no block may touch another before the first barrier)
      dRemote = push && k > 0 ? dAll[p][lane] : *cl.map_shared_rank(dP + p, lane);
    }
    float D = 0.0f; // known before the row sums; in fused mode, without kInstr, every warp sums its own copy now
    if (kInstr) {
      if (tid < 32) {
        const float D = warpAllSum(dRemote);
        int stop = 0;
        if (k > 0) {
          stop = dev::clusterResidualTest(cl, rP + p, sP + p, k, false, in);
        }
        if (lane == 0) {
          shD = D;
          shStop = stop;
        }
      }
      __syncthreads();
      if (shStop) break;
      D = shD;
    } else if (everyWarp) {
      D = warpAllSum(dRemote);
    }
    // Row finish: warp 0 sums D before its gather share (the default's butterfly, the same bits in lane 0)
    // and publishes it with the iteration's sequence number; the other warps wait for it after their gather.
    bool haveD = kInstr; // kInstr: D came through the barrier above
    if (!kInstr && rowFinish && tid < 32) {
      float d0 = dRemote;
      if (lean && C <= 16 && !(warpPush && k > 0))
        for (int o = 8; o > 0; o >>= 1) d0 += __shfl_xor_sync(0xffffffffu, d0, o);
      else
        d0 = warpAllSum(d0);
      D = __shfl_sync(0xffffffffu, d0, 0);
      if (lane == 0) atomicExch(&dWord, static_cast<unsigned long long>(k + 1) << 32 | __float_as_uint(D));
      haveD = true;
    }
    auto awaitD = [&]() { // warp-wide: D of this iteration, once warp 0 has published it
      unsigned long long v = 0ull;
      if (lane == 0)
        do {
          v = atomicAdd(&dWord, 0ull);
        } while ((v >> 32) != static_cast<unsigned long long>(k + 1));
      D = __shfl_sync(0xffffffffu, __uint_as_float(static_cast<unsigned>(v & 0xffffffffull)), 0);
      haveD = true;
    };
    float dg = 0.0f, res = 0.0f;
    double sum = 0.0;
    float *gOut = a.gx + static_cast<size_t>(1 - p) * a.n + r0;
    const bool sendNow = exchange && k + 1 < iters;
    const int nxtOfs = (1 - p) * a.gmax;
    (void)sendNow;
    (void)nxtOfs;
    auto finish = [&](int i, float s) {
      const float xn = c.tele + c.d * (s + D * c.invN);
      const float iv = invS[i];
      if (kInstr) {
        res += fabsf(xn - xS[i]);
        sum += static_cast<double>(xn);
      }
      xS[i] = xn;
      const float cv = xn * iv;
      nxt[i] = cv;
      if (kMode == kL2 && exchange) gOut[i] = cv;
      if (kMode == kRowStores && sendNow) // this row's contribution to every block that needs it, now
        for (int j = rspS[i], je = rspS[i + 1]; j < je; ++j) {
          const unsigned dsc = rsdS[j];
          remoteGhost[dsc >> 24][nxtOfs + static_cast<int>(dsc & 0xffffffu)] = cv;
        }
      if (iv == 0.0f) dg += xn;
    };
    if (packed && (a.ablate & kNoGather) == 0) { // each warp: its lanes' pieces, then each row's lanes summed by shuffles
      if constexpr (kFix) { // the tight layout (packRows tight): no per-slot test but the small lanes' end bits
        for (int w = warp; w < W; w += warps) {
          const int wi = winfoS[w], steps = wi & 15;
          const unsigned li = laneS[32 * w + lane], en = endS[32 * w + lane];
          const int *cp = colS + (wi >> 8) + lane; // byte offsets into cur
          const char *curB = reinterpret_cast<const char *>(cur);
          float v[kPiece];
#pragma unroll
          for (int j = 0; j < kPiece; ++j) v[j] = *reinterpret_cast<const float *>(curB + cp[32 * j]); // padded: the zero entry
          float rs = 0.0f;
          if (__any_sync(0xffffffffu, en != 0u)) { // small lanes: each row's sum at its last slot (rows consecutive)
            float *dst = valS + (li >> 16);
#pragma unroll
            for (int j = 0; j < kPiece; ++j) {
              rs += v[j];
              if ((en >> j) & 1u) {
                *dst++ = rs;
                rs = 0.0f;
              }
            }
          } else {
#pragma unroll
            for (int j = 0; j < kPiece; ++j) rs += v[j];
          }
          const int seg = static_cast<int>((li >> 8) & 63u) - lane; // this row's lanes from this one on
#pragma unroll
          for (int st = 0; st < 5; ++st) { // segmented: lane l adds lane l + 2^st of its row (<= 32 lanes: <= 5 steps)
            if (st >= steps) break;
            const float t = __shfl_down_sync(0xffffffffu, rs, 1 << st);
            if ((1 << st) < seg) rs += t;
          }
          if (li & 1u) valS[li >> 16] = rs;
        }
      } else
      for (int w = warp; w < W; w += warps) {
        const int wi = winfoS[w], steps = wi & 15;
        const unsigned li = laneS[32 * w + lane];
        const int segEnd = static_cast<int>((li >> 8) & 63u);
        float v[kPiece];
        if ((kPipe & 1) != 0 && pre && w == warp) { // the own-row values were read before the wait: only the remote ones now
#pragma unroll
          for (int j = 0; j < kPiece; ++j) v[j] = preC[j] >= R ? cur[preC[j]] : preV[j];
        } else if ((kPipe & 2) == 0) { // the default's loads, as before the pipeline knob
          const int wbase = wi >> 8, depth = (wi >> 4) & 15, len = static_cast<int>((li >> 1) & 15u);
#pragma unroll
          for (int j = 0; j < kPiece; ++j) v[j] = j < depth && j < len ? cur[colS[wbase + 32 * j + lane]] : 0.0f;
        } else {
          int cix[kPiece];
          packedCols(w, wi, li, cix);
#pragma unroll
          for (int j = 0; j < kPiece; ++j) v[j] = cix[j] >= 0 ? cur[cix[j]] : 0.0f;
        }
        float rs = 0.0f;
        if constexpr ((kPipe & kSmallLanes) != 0) { // a small lane stores each of its rows' sums at the row's last slot
          const unsigned en = endS[32 * w + lane];
#pragma unroll
          for (int j = 0; j < kPiece; ++j) {
            rs += v[j];
            const unsigned nb = (en >> (4 * j)) & 15u;
            if (nb != 15u) {
              valS[(li >> 16) + nb] = rs;
              rs = 0.0f;
            }
          }
        } else {
#pragma unroll
          for (int j = 0; j < kPiece; ++j) rs += v[j];
        }
        for (int st = 0, o = 1; st < steps; ++st, o <<= 1) { // segmented: lane l adds lane l + o of its row
          const float t = __shfl_down_sync(0xffffffffu, rs, o);
          if (lane + o < segEnd) rs += t;
        }
        if (rowFinish) {
          if (!haveD) awaitD();
          if (li & 1u) finish(static_cast<int>(li >> 16), rs);
        } else if (li & 1u) {
          valS[li >> 16] = rs;
        }
      }
      mark(1);
      for (int h = warp; h < H; h += warps) { // heavy rows: a warp over the row's columns
        const int i = heavyS[h], b = prowS[3 * i], d = prowS[3 * i + 1];
        float hs = 0.0f;
        for (int j = lane; j < d; j += 32) hs += cur[colS[b + j]];
        hs = warpAllSum(hs);
        if (rowFinish && !haveD) awaitD();
        if (lane == 0) {
          if (rowFinish) finish(i, hs);
          else valS[i] = hs;
        }
      }
      mark(2);
    } else if (pieces && (a.ablate & kNoGather) == 0) { // piece sums into valS, coalesced column loads
      const int np = pnjS[0];
      for (int t = wt; t >= 0 && t < np; t += wn) {
        float v[kPiece];
        int slot = t;
#pragma unroll
        for (int j = 0; j < kPiece; ++j) {
          v[j] = t < pnjS[j] ? cur[colS[slot]] : 0.0f;
          slot += pnjS[j];
        }
        float ps = 0.0f;
#pragma unroll
        for (int j = 0; j < kPiece; ++j) ps += v[j];
        valS[t] = ps;
        if (fused) { // the only piece of its row: the row's sum, finished here
          const int i = psrS[t];
          if (i >= 0) finish(i, ps);
        }
      }
    } else if (staged && (a.ablate & kNoGather) == 0) {
      for (int b = wt; b >= 0 && b < E; b += kBatch * wn) { // kBatch shared-memory loads in flight
        float v[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = b + u * wn;
          v[u] = e < E ? cur[colS[e]] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
          const int e = b + u * wn;
          if (e < E) valS[e] = v[u];
        }
      }
    }
    if constexpr (kLateWait) { // the last iteration's barrier, waited for after this gather; then the partials
      if (k > 0 && (a.ablate & kNoSync) == 0 && !mbarSync) clusterWait();
      // the partials were pushed into dAll before the barrier (below): local reads, no DSMEM round trip after
      // the wait; x_0's partials (k = 0) are read remotely, written before the setup's cluster.sync()
      if (tid < 32 && lane < C) dRemote = k > 0 ? dAll[p][lane] : *cl.map_shared_rank(dP + p, lane);
    }
    if (!kInstr && !everyWarp && !rowFinish && tid < 32) {
      // lean (C <= 16): lanes >= 16 hold 0, so the xor-16 step adds 0 to lanes < 16: skipped, the same bits in lane 0
      float d0 = dRemote;
      if (lean && C <= 16 && !(warpPush && k > 0))
        for (int o = 8; o > 0; o >>= 1) d0 += __shfl_xor_sync(0xffffffffu, d0, o);
      else
        d0 = warpAllSum(d0);
      if (lane == 0) shD = d0;
    }
    mark(3);
    if (!rowFinish || kInstr || kMode == kBulk || kMode == kAsync) __syncthreads(); // D and the row sums to the block (not with row finish)
    mark(4);
#if PRLAB_CLUSTER_MBAR
    if ((kMode == kBulk || kMode == kAsync) && tid == 0 && k > 0 && k + 2 <= iters - 1 && exchange && recvB > 0)
      mbarArriveExpect(&bar[p], static_cast<unsigned>(recvB)); // the next use of this copy: iteration k + 2
#endif
    if (!kInstr && !everyWarp && !rowFinish) D = shD;
    if (rowFinish) { // every row was finished in its packed warp or by its heavy row's warp
    } else if (packed && (a.ablate & kNoRows) == 0) { // the row sums are in valS
      for (int i = tid; i < R; i += bd) {
        float s = valS[i];
        if constexpr ((kPipe & kHeavySplit) != 0) { // a split heavy row: its other chunks' sums, in chunk order
          const int x = prowS[3 * i], nx = prowS[3 * i + 1];
          for (int j = 0; j < nx; ++j) s += valS[x + j];
        }
        finish(i, s);
      }
    } else if (pieces && (a.ablate & kNoRows) == 0) { // each row adds its pieces: full ones in order, then the partial one
      const int nr = fused ? M : R; // fused: only the rows not finished by their one piece
      for (int j = tid; j < nr; j += bd) {
        const int i = fused ? mrowS[j] : j;
        const int f = prowS[3 * i], nf = prowS[3 * i + 1], x = prowS[3 * i + 2];
        if (nf > kPieceWarp) continue;
        float rs = 0.0f;
        for (int q = 0; q < nf; ++q) rs += valS[f + q];
        if (x >= 0) rs += valS[x];
        finish(i, rs);
      }
      for (int h = warp; h < H; h += warps) {
        const int i = heavyS[h];
        const int f = prowS[3 * i], nf = prowS[3 * i + 1], x = prowS[3 * i + 2];
        float hs = 0.0f;
        for (int q = lane; q < nf; q += 32) hs += valS[f + q];
        hs = warpAllSum(hs);
        if (lane == 0) finish(i, x >= 0 ? hs + valS[x] : hs);
      }
    } else if ((a.ablate & kNoRows) == 0) {
      dev::tileRowSums<kLight>(
          rpS, R, 0, H, [&](int h) { return heavyS[h]; },
          [&](int j, int en, int step) {
            float s = 0.0f;
            if (!staged)
              for (; j < en; j += step) s += cur[colS[j]];
            else
              for (; j < en; j += step) s += valS[j];
            return s;
          },
          finish);
    }
    mark(5);
    if (warpPush) { // lanes 0..C-1 store the warp's sum into block `lane` (visible after the cluster barrier)
      dg = warpAllSum(dg);
      if (lane < C) cl.map_shared_rank(dW, lane)[((1 - p) * kMaxC + rank) * 32 + warp] = dg;
      if (kMode == kStores || kMode == kBulk || kMode == kAsync) __syncthreads(); // publishes nxt[0, R) to the block for the sends
    } else {
      dg = oneBarrier ? blockSumOneBarrier(dg, fs2) : blockSum(dg, fs); // its barrier also publishes nxt[0, R) to the block
      if (tid == 0) dP[1 - p] = dg;
      // visible after the cluster barrier. kLateWait: warp 0 holds the block's sum and arrives with release; block
      // q reads dAll[1 - p] after its wait in iteration k + 1, and this block overwrites it only in iteration
      // k + 2, after its own wait for the barrier that q's arrive at the end of k + 1 completes
      if (mbarSync) { // the partial on the receivers' mbarriers of copy 1 - p (read in iteration k + 1)
#if PRLAB_CLUSTER_ASYNC
        if (tid < C && k + 1 < iters) {
          if (tid == rank)
            dAll[1 - p][rank] = dg;
          else
            stAsync4(mapa(smemAddr(&dAll[1 - p][rank]), tid), dg, remoteBarA[tid][1 - p]);
        }
#endif
      } else if ((push || kLateWait) && tid < C)
        *cl.map_shared_rank(&dAll[1 - p][rank], tid) = dg;
    }
    mark(6);
    if (kInstr) dev::storeBlockPartials(res, sum, fs, ds, rP + 1 - p, sP + 1 - p);
    if (exchange && k + 1 < iters) {
      if (kMode == kStores) {
        const int ofs4 = ((1 - p) * a.gmax) >> 2;
        const ushort4 *ix4 = reinterpret_cast<const ushort4 *>(sidxS);
        for (int g = wt; g >= 0 && g < (S >> 2); g += wn) {
          const unsigned dsc = descS[g];
          const ushort4 ix = ix4[g];
          const float4 v = make_float4(nxt[ix.x], nxt[ix.y], nxt[ix.z], nxt[ix.w]);
          reinterpret_cast<float4 *>(remoteGhost[dsc >> 24])[ofs4 + static_cast<int>(dsc & 0xffffffu)] = v;
        }
      }
#if PRLAB_CLUSTER_ASYNC
      if (kMode == kAsync) { // the same groups as st.async, completing on the receiver's mbarrier of copy 1 - p
        const unsigned ofs = 4u * static_cast<unsigned>((1 - p) * a.gmax);
        const ushort4 *ix4 = reinterpret_cast<const ushort4 *>(sidxS);
        for (int g = wt; g >= 0 && g < (S >> 2); g += wn) {
          const unsigned dsc = descS[g], q = dsc >> 24;
          const ushort4 ix = ix4[g];
          const float4 v = make_float4(nxt[ix.x], nxt[ix.y], nxt[ix.z], nxt[ix.w]);
          stAsync16(remoteGhostA[q] + ofs + 16u * (dsc & 0xffffffu), v, remoteBarA[q][1 - p]);
        }
      }
#endif
#if PRLAB_CLUSTER_BULK
      if (kMode == kBulk) {
        float *sb = sendBuf + p * a.smax; // the copy sent two iterations ago has landed (its receiver waited before the last barrier)
        for (int j = tid; j < S; j += bd) sb[j] = nxt[sidxS[j]];
        fenceProxyAsyncShared();
        __syncthreads();
        if (tid < C && tid != rank && pCnt[tid] > 0)
          bulkToRank(nxt + pRoff[tid], sb + pOff[tid], static_cast<unsigned>(4 * pCnt[tid]), &bar[1 - p], tid);
      }
#endif
    }
    mark(7);
    if ((a.ablate & kNoSync) == 0 && split) {
      clusterArrive(); // release: this thread's sends, x' and the partials; waited for at the next iteration's top
      pendingWait = true;
    } else if ((a.ablate & kNoSync) == 0 && kLateWait) {
      // arrive now, wait after the next gather (above). A block then sends into copy 1 - p and writes dP[1 - p]
      // only after every block has finished the iteration before: its gather of that copy and its reads of dP[1 - p]
      if (!mbarSync) {
        if (warp == 0) clusterArrive();
        else clusterArriveRelaxed();
      }
    } else if ((a.ablate & kNoSync) == 0 && kMode == kAsync) {
      // the sends complete on the receivers' mbarriers: only warp 0 (thread 0 wrote the partials dP, rP, sP,
      // read remotely after the barrier) arrives with release semantics, the others relaxed; all wait (acquire)
      if (warp == 0) clusterArrive();
      else clusterArriveRelaxed();
      clusterWait();
    } else if ((a.ablate & kNoSync) == 0)
      cl.sync(); // publishes the exchanged contributions (stores, l2), x' and the partials to the whole cluster
    else
      __syncthreads(); // ablation: no cluster barrier (timing only; blocks drift apart)
    if constexpr (kTimer) {
      mark(8);
      if (lane == 0 && k < kPhaseIters && warp < 32)
#pragma unroll
        for (int b = 1; b <= kPhases; ++b)
          a.phase[((static_cast<size_t>(rank) * 32 + warp) * kPhaseIters + k) * kPhases + b - 1] = tq[b] - tq[0];
    }
    p ^= 1;
  }
  if (pendingWait) clusterWait();
  if (kLateWait && !mbarSync && k > 0 && (a.ablate & kNoSync) == 0) clusterWait(); // the last iteration's barrier
  if constexpr (kTimer)
    if (tid == 0) { // after the words of every (block, warp, iteration, boundary): this block's loop in cycles and ns
      unsigned long long g1;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
      unsigned *tail = a.phase + static_cast<size_t>(C) * 32 * kPhaseIters * kPhases + 2 * rank;
      tail[0] = static_cast<unsigned>(clock64() - tLoop0);
      tail[1] = static_cast<unsigned>(g1 - gLoop0);
    }
  if (kInstr && k == iters && tid < 32) dev::clusterResidualTest(cl, rP + p, sP + p, k, true, in);
  for (int i = tid; i < R; i += bd) xOut[a.perm != nullptr ? __ldg(a.perm + r0 + i) : r0 + i] = xS[i];
  cl.sync(); // no block leaves while another may still read its shared memory
#else
  (void)a; (void)c; (void)iters; (void)xOut; (void)in;
#endif
}

// The design's dangling-mass / residual reduction in isolation (the write
// budget's check, prlab_check_reduction kind PRLAB_REDUCE_CLUSTER): block q
// of one cluster sums its slice of the n values (which 0: a where mask, 1:
// |b - a|) with the design's blockSum, writes ONE partial into its own
// shared-memory slot (as dsmKernel writes dP), and warp 0 of block 0 reads
// the C slots through distributed shared memory (lanes 0..C-1 at once, the
// design's fixed order) and writes the result. Each slot starts poisoned
// (0xFFFFFFFF) and is copied to slots[q] at the end, so the host counts the
// scratch floats the reduction wrote: C partials + 1 result.
template <int kWhich>
__global__ void __launch_bounds__(1024, 1)
    dsmReduceKernel(const float *a, const float *b, const unsigned char *mask, int n, float *slots, float *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cg::cluster_group cl = cg::this_cluster();
  const int rank = static_cast<int>(cl.block_rank()), C = static_cast<int>(cl.num_blocks());
  const int tid = threadIdx.x, lane = tid & 31;
  __shared__ float fs[32];
  __shared__ unsigned slotBits;
  float *slot = reinterpret_cast<float *>(&slotBits);
  if (tid == 0) slotBits = 0xFFFFFFFFu;
  const int lo = static_cast<int>(static_cast<long long>(n) * rank / C);
  const int hi = static_cast<int>(static_cast<long long>(n) * (rank + 1) / C);
  float v = 0.0f;
  for (int i = lo + tid; i < hi; i += blockDim.x) v += kWhich == 0 ? (mask[i] ? a[i] : 0.0f) : fabsf(b[i] - a[i]);
  v = blockSum(v, fs);
  if (tid == 0) *slot = v;
  cl.sync();
  if (rank == 0 && tid < 32) {
    const float r = warpAllSum(lane < C ? *cl.map_shared_rank(slot, lane) : 0.0f);
    if (lane == 0) *out = r;
  }
  cl.sync(); // block 0 has read every slot
  if (tid == 0) slots[rank] = __uint_as_float(slotBits);
#else
  (void)a; (void)b; (void)mask; (void)n; (void)slots; (void)out;
#endif
}

} // namespace dsm

// ==================================================================== host side

namespace {

using namespace dsm;

struct DsmState {
  int smemOptin = 0, ccMajor = 0;
  // knobs (0 = automatic)
  int knobExchange = 0, knobAblate = 0, knobThreads = 0, knobCluster = 0, knobGather = 0, knobBalance = 0,
      knobPartials = 0, knobPipeline = 0, knobAssign = 0;
  bool built = false;
  int C = 0, threads = 0, mode = 0; // C = 0: unavailable (why)
  int kernelPipe = 0;                // kernelFor's pipeline argument
  size_t smem = 0;
  long long exchangeFloats = 0;
  std::string why;
  Args args{}; // the kernel's arguments; the state owns their device arrays (col .. winfo, c16, gx)
  int *ctl = nullptr;
  int *relRowPtr = nullptr;   // [n + 1] the relabelled graph's row pointer (rows moved), else null
  float *relInvOut = nullptr; // [n] its 1/outdeg
  int *perm = nullptr;        // [n] the graph's node of each relabelled row
};

DsmState *stateOf(Ctx &c) { return static_cast<DsmState *>(c.dsmem); }

void freeBuffers(DsmState &s) {
  Args &a = s.args;
  freeDevice(a.col, a.gid, a.heavy, a.pairs, s.ctl, a.sidx, a.desc, a.gx, a.pnj, a.prow, a.rsp, a.rsd, a.psr, a.mrow, a.pcol, a.lanes,
             a.winfo, a.c16, a.phase, a.lends, s.relRowPtr, s.relInvOut, s.perm);
  a.perm = nullptr;
  s.built = false;
  s.C = 0;
}

int getState(Ctx &c, DsmState **out, Err &e) {
  return stateIn(c.dsmem, out, "cluster-dsmem",
                 [&](DsmState &s) { return deviceLimits(c.device, nullptr, &s.smemOptin, &s.ccMajor, e); }, e);
}

// The kernel for an exchange and a pipeline value: the default's code when it is 0, the split heavy rows'
// combine and / or the phase timer for stores + 16 / 32 (each its own instantiation), the split barrier
// alone compiled in for stores + 1, all three bits otherwise (stores, l2; bulk where compiled in; the knob's
// value 8, every bit off, also runs that kernel: the code the H200 timed as the default at 05:00).
template <bool kInstr> const void *kernelFor(int mode, int pipeline = 0) {
#if PRLAB_CLUSTER_ASYNC
  if (mode == kAsync)
    return (pipeline & kFixedShape) != 0
               ? reinterpret_cast<const void *>(dsmKernel<kInstr, kAsync, kHeavySplit | kSmallLanes | kFixedShape>)
           : (pipeline & kSmallLanes) != 0 ? reinterpret_cast<const void *>(dsmKernel<kInstr, kAsync, kHeavySplit | kSmallLanes>)
                                           : reinterpret_cast<const void *>(dsmKernel<kInstr, kAsync>);
#endif
  if (mode == kStores && (pipeline & kSmallLanes) != 0)
    return (pipeline & kPhaseTimer) != 0
               ? reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, kHeavySplit | kSmallLanes | kPhaseTimer>)
               : reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, kHeavySplit | kSmallLanes>);
  if (mode == kStores && (pipeline & (kHeavySplit | kPhaseTimer)) != 0) switch (pipeline & (kHeavySplit | kPhaseTimer)) {
    case kHeavySplit: return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, kHeavySplit>);
    case kPhaseTimer: return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, kPhaseTimer>);
    default: return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, kHeavySplit | kPhaseTimer>);
    }
  if (pipeline == 1 && mode == kStores) return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, 1>);
  if (pipeline != 0) switch (mode) {
#if PRLAB_CLUSTER_BULK
    case kBulk: return reinterpret_cast<const void *>(dsmKernel<kInstr, kBulk, 7>);
#endif
    case kL2: return reinterpret_cast<const void *>(dsmKernel<kInstr, kL2, 7>);
    default: return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores, 7>);
    }
  switch (mode) {
#if PRLAB_CLUSTER_BULK
  case kBulk: return reinterpret_cast<const void *>(dsmKernel<kInstr, kBulk>);
#endif
  case kL2: return reinterpret_cast<const void *>(dsmKernel<kInstr, kL2>);
  case kRowStores: return reinterpret_cast<const void *>(dsmKernel<kInstr, kRowStores>);
  default: return reinterpret_cast<const void *>(dsmKernel<kInstr, kStores>);
  }
}

// Reorders the columns inside each piece of one block (the piece's summation
// order; gather knob 5 / 6) so that at each step j the lanes of one warp read
// distinct shared-memory banks where their pieces allow it: lane by lane,
// step by step, each lane takes, among its piece's columns not yet placed,
// the one whose bank (ghost index mod 32) holds the fewest distinct words so
// far at this step (a word already there is a broadcast: free). jc holds the
// block's columns in jagged-diagonal order (slot j of piece t at nj[0] + ..
// + nj[j-1] + t); nj[j] = pieces longer than j. The pieces, their rows and
// the row -> pieces lists are unchanged.
template <class Len, class Slot> void bankOrderLanes(std::vector<int> &jc, int lanes, int steps, Len len, Slot slot) {
  std::vector<int> words[32];
  for (int w0 = 0; w0 < lanes; w0 += 32) {
    const int w1 = std::min(lanes, w0 + 32);
    for (int j = 0; j < steps; ++j) {
      for (auto &l : words) l.clear();
      for (int t = w0; t < w1; ++t) {
        const int lt = len(t);
        if (j >= lt) continue;
        int best = j, bestCost = 1 << 30;
        for (int k = j; k < lt; ++k) {
          const int c = jc[static_cast<size_t>(slot(k, t))];
          const auto &l = words[c & 31];
          const int cost = std::find(l.begin(), l.end(), c) != l.end() ? 0 : static_cast<int>(l.size());
          if (cost < bestCost) {
            bestCost = cost;
            best = k;
          }
        }
        std::swap(jc[static_cast<size_t>(slot(j, t))], jc[static_cast<size_t>(slot(best, t))]);
        const int c = jc[static_cast<size_t>(slot(j, t))];
        auto &l = words[c & 31];
        if (std::find(l.begin(), l.end(), c) == l.end()) l.push_back(c);
      }
    }
  }
}
void bankOrderPieces(std::vector<int> &jc, const int *nj, int plen) {
  std::vector<int> start(static_cast<size_t>(plen) + 1, 0);
  for (int j = 0; j < plen; ++j) start[static_cast<size_t>(j) + 1] = start[static_cast<size_t>(j)] + nj[j];
  bankOrderLanes(
      jc, nj[0], plen,
      [&](int t) {
        int l = 0;
        while (l < plen && t < nj[l]) ++l;
        return l;
      },
      [&](int j, int t) { return start[static_cast<size_t>(j)] + t; });
}

// Rows packed into warps (gather knob 8), block q: its light rows (at most
// 32 pieces of kPiece edges; in-degree 0 is one empty piece) sorted by
// (pieces, in-degree) and packed in that order, a row's pieces on adjacent
// lanes of one warp (a row that does not fit the warp's free lanes starts
// the next warp). Warp w's slot (j, lane) is pcol[base_w + 32 j + lane],
// j < depth_w (its longest piece). Per lane: row << 16 | segment end lane
// << 8 | piece length << 1 | first lane of its row; per warp: base_w << 8 |
// depth_w << 4 | shuffle steps (ceil log2 of its most pieces per row).
// Heavy rows' columns follow in row order (prow[3 i] their start, prow[3 i
// + 1] the in-degree). Columns bank-ordered per lane as bankOrderPieces.
// split (pipeline bit 16, the kHeavySplit kernels): no heavy rows; a row of
// more than 32 pieces is cut into chunks of 32 pieces (256 edges), each
// packed like a light row, chunk 0's sum into valS[i], chunk c >= 1's into
// valS[R + ...] (prow[3 i] the first of them, prow[3 i + 1] how many; the
// combine adds them in chunk order); rows of in-degree 0 are not packed
// (their valS slot is zeroed once). pair (pipeline bit 64): the packed warps
// permuted so that warp w's share (packed warps w, w + 32, ..., as the kernel
// takes them with 32 warps) balances an estimated cost per packed warp (64 +
// 8 depth + 30 shuffle steps cycles), longest first onto the least loaded
// warp with a free position. tight (with ends; the fixed-shape kernel): every
// packed warp 8 deep, the slots beyond a lane's piece holding -1 (layoutFor
// makes them the ghost entry that stays 0, and every column a byte offset), small runs never span a row of
// in-degree 0 (their rows are consecutive), and a small lane's ends word the
// mask of its row-end slots (bit j: the lane's next row ends at slot j; 0 for
// every other lane). Returns the valS slots the block needs (rows + chunk
// slots).
int packRows(const std::vector<int> &rp, const std::vector<int> &cols, int r0, int R, std::vector<int> &pcol,
             std::vector<int> &lanes, std::vector<int> &winfo, std::vector<int> &heavy, std::vector<int> &prow,
             bool split = false, bool pair = false, std::vector<unsigned> *ends = nullptr, bool tight = false) {
  struct Small {
    int base, start, len;
    unsigned ends;
  };
  std::vector<Small> smalls; // ends (small lanes): runs of consecutive rows of in-degree 1..kPiece, <= kPiece edges a lane
  if (ends) {
    split = true;
    for (int i = 0; i < R;) {
      const int d = rp[r0 + i + 1] - rp[r0 + i];
      if (d == 0 || d > kPiece) {
        ++i;
        continue;
      }
      Small sm{i, rp[r0 + i], 0, 0xffffffffu};
      for (; i < R && i - sm.base < 15; ++i) {
        const int di = rp[r0 + i + 1] - rp[r0 + i];
        if (di > kPiece || sm.len + di > kPiece || (tight && di == 0)) break; // tight: the run's rows consecutive
        if (di == 0) continue;
        sm.len += di;
        const int j = sm.len - 1; // the row ends at slot j: its offset from base in nibble j
        sm.ends = (sm.ends & ~(15u << (4 * j))) | static_cast<unsigned>(i - sm.base) << (4 * j);
      }
      smalls.push_back(sm);
    }
  }
  size_t nextSmall = 0;
  struct Unit {
    int slot, start, d; // valS slot of its sum, first edge, edges
  };
  std::vector<Unit> order;
  int slots = R;
  for (int i = 0; i < R; ++i) {
    const int b = rp[r0 + i], d = rp[r0 + i + 1] - b;
    if ((d + kPiece - 1) / kPiece <= kPieceWarp) {
      if ((!split || d > 0) && (!ends || d > kPiece)) order.push_back(Unit{i, b, d});
    } else if (split) {
      constexpr int kChunk = kPiece * kPieceWarp;
      prow[3 * static_cast<size_t>(r0 + i)] = slots;
      prow[3 * static_cast<size_t>(r0 + i) + 1] = (d - 1) / kChunk;
      for (int o = 0; o < d; o += kChunk) order.push_back(Unit{o == 0 ? i : slots++, b + o, std::min(kChunk, d - o)});
    }
  }
  auto npc = [&](const Unit &u) { return std::max(1, (u.d + kPiece - 1) / kPiece); };
  std::stable_sort(order.begin(), order.end(), [&](const Unit &x, const Unit &y) {
    const int mx = npc(x), my = npc(y);
    return mx != my ? mx < my : x.d < y.d;
  });
  const size_t l0 = lanes.size(), c0 = pcol.size(), w0 = winfo.size();
  std::vector<int> laneRow, laneStart, laneLen, laneHead, laneEnd; // per lane of this block
  std::vector<unsigned> laneEnds;                                   // small lanes' row ends (0xffffffff: none)
  auto pushSmall = [&]() { // the next small lane, or false when none is left
    if (nextSmall >= smalls.size()) return false;
    const Small &sm = smalls[nextSmall++];
    laneRow.push_back(sm.base), laneStart.push_back(sm.start), laneLen.push_back(sm.len), laneHead.push_back(0);
    laneEnd.push_back(static_cast<int>(laneRow.size() - 1) % 32 + 1), laneEnds.push_back(sm.ends);
    return true;
  };
  for (const Unit &un : order) {
    const int m = npc(un), used = static_cast<int>(laneRow.size()) % 32;
    if (used + m > 32)
      for (int u = used; u < 32; ++u) {
        if (pushSmall()) continue;
        laneRow.push_back(0), laneStart.push_back(0), laneLen.push_back(0), laneHead.push_back(0);
        laneEnd.push_back(u + 1), laneEnds.push_back(0xffffffffu);
      }
    const int h = static_cast<int>(laneRow.size()) % 32, b = un.start, d = un.d;
    for (int k = 0; k < m; ++k) {
      laneRow.push_back(un.slot), laneStart.push_back(b + kPiece * k);
      laneLen.push_back(std::max(0, std::min(kPiece, d - kPiece * k)));
      laneHead.push_back(k == 0), laneEnd.push_back(h + m), laneEnds.push_back(0xffffffffu);
    }
  }
  while (pushSmall()) {
  }
  while (laneRow.size() % 32) {
    laneEnd.push_back(static_cast<int>(laneRow.size()) % 32 + 1), laneEnds.push_back(0xffffffffu);
    laneRow.push_back(0), laneStart.push_back(0), laneLen.push_back(0), laneHead.push_back(0);
  }
  const int nl = static_cast<int>(laneRow.size());
  std::vector<int> base(static_cast<size_t>(nl / 32)), depth(static_cast<size_t>(nl / 32)), cost(static_cast<size_t>(nl / 32));
  int off = 0;
  for (int w = 0; w < nl / 32; ++w) {
    int dm = 0, mm = 1;
    for (int l = 32 * w; l < 32 * w + 32; ++l) {
      dm = std::max(dm, laneLen[static_cast<size_t>(l)]);
      mm = std::max(mm, laneEnd[static_cast<size_t>(l)] - (l - 32 * w));
    }
    int steps = 0;
    while ((1 << steps) < mm) ++steps;
    if (tight) dm = kPiece; // every slot read: the padded ones hold the ghost entry that stays 0
    base[static_cast<size_t>(w)] = off;
    depth[static_cast<size_t>(w)] = dm;
    cost[static_cast<size_t>(w)] = 64 + 8 * dm + 30 * steps;
    winfo.push_back(off << 8 | dm << 4 | steps);
    off += 32 * dm;
  }
  pcol.resize(c0 + static_cast<size_t>(off), tight ? -1 : 0); // tight: -1, made the zero ghost entry by layoutFor
  for (int l = 0; l < nl; ++l) {
    const int w = l / 32;
    for (int j = 0; j < laneLen[static_cast<size_t>(l)]; ++j)
      pcol[c0 + static_cast<size_t>(base[static_cast<size_t>(w)] + 32 * j + l % 32)] =
          cols[static_cast<size_t>(laneStart[static_cast<size_t>(l)] + j)];
    lanes.push_back(static_cast<int>(static_cast<unsigned>(laneRow[static_cast<size_t>(l)]) << 16 |
                                     static_cast<unsigned>(laneEnd[static_cast<size_t>(l)]) << 8 |
                                     static_cast<unsigned>(laneLen[static_cast<size_t>(l)]) << 1 |
                                     static_cast<unsigned>(laneHead[static_cast<size_t>(l)])));
  }
  std::vector<int> jc(pcol.begin() + static_cast<long>(c0), pcol.end());
  bankOrderLanes( // not the small lanes: their slots are in row order
      jc, nl, kPiece, [&](int t) { return laneEnds[static_cast<size_t>(t)] != 0xffffffffu ? 0 : laneLen[static_cast<size_t>(t)]; },
      [&](int j, int t) { return base[static_cast<size_t>(t / 32)] + 32 * j + t % 32; });
  std::copy(jc.begin(), jc.end(), pcol.begin() + static_cast<long>(c0));
  const int W = nl / 32;
  if (pair && W > 32) { // packed warp at position w + 32 k is warp w's k-th; positions keep their pcol base in winfo
    std::vector<int> byCost(static_cast<size_t>(W));
    for (int w = 0; w < W; ++w) byCost[static_cast<size_t>(w)] = w;
    std::stable_sort(byCost.begin(), byCost.end(), [&](int x, int y) { return cost[static_cast<size_t>(x)] > cost[static_cast<size_t>(y)]; });
    std::vector<int> load(32, 0), used(32, 0), at(static_cast<size_t>(W), -1);
    for (int w : byCost) {
      int best = -1;
      for (int u = 0; u < 32; ++u)
        if (u + 32 * used[static_cast<size_t>(u)] < W && (best < 0 || load[static_cast<size_t>(u)] < load[static_cast<size_t>(best)])) best = u;
      at[static_cast<size_t>(best + 32 * used[static_cast<size_t>(best)]++)] = w;
      load[static_cast<size_t>(best)] += cost[static_cast<size_t>(w)];
    }
    const std::vector<int> wi(winfo.begin() + static_cast<long>(w0), winfo.end()), li(lanes.begin() + static_cast<long>(l0), lanes.end());
    const std::vector<unsigned> le(laneEnds);
    for (int pos = 0; pos < W; ++pos) {
      const int w = at[static_cast<size_t>(pos)];
      winfo[w0 + static_cast<size_t>(pos)] = wi[static_cast<size_t>(w)];
      std::copy(li.begin() + 32 * w, li.begin() + 32 * w + 32, lanes.begin() + static_cast<long>(l0) + 32 * pos);
      std::copy(le.begin() + 32 * w, le.begin() + 32 * w + 32, laneEnds.begin() + 32 * pos);
    }
  }
  if (ends && tight) // the mask of a small lane's row-end slots (its rows consecutive: the k-th end is row base + k), else 0
    for (unsigned &en : laneEnds) {
      unsigned m = 0;
      for (int j = 0; j < kPiece && en != 0xffffffffu; ++j)
        if (((en >> (4 * j)) & 15u) != 15u) m |= 1u << j;
      en = m;
    }
  if (ends) ends->insert(ends->end(), laneEnds.begin(), laneEnds.end());
  for (int i = 0; i < R && !split; ++i) { // heavy rows: their columns after the packed warps
    const int b = rp[r0 + i], d = rp[r0 + i + 1] - b;
    if ((d + kPiece - 1) / kPiece <= kPieceWarp) continue;
    heavy.push_back(i);
    prow[3 * static_cast<size_t>(r0 + i)] = static_cast<int>(pcol.size() - c0);
    prow[3 * static_cast<size_t>(r0 + i) + 1] = d;
    for (int e = b; e < b + d; ++e) pcol.push_back(cols[static_cast<size_t>(e)]);
  }
  return slots;
}

// Rows split into C contiguous ranges (rb[0 .. kMaxC], n beyond C) of about equal cost = 1 + in-degree +
// balance x min(out-degree, C - 1) per row: its row sum, and (balance > 0) an estimate of how many other
// blocks it is sent to (the blocks owning the rows it contributes to).
void splitRows(const std::vector<int> &rp, const std::vector<int> &col, int n, int C, int balance, int *rb) {
  std::vector<int> outdeg(static_cast<size_t>(n), 0);
  if (balance > 0)
    for (int u : col) ++outdeg[static_cast<size_t>(u)];
  std::vector<long long> pre(static_cast<size_t>(n) + 1, 0);
  for (int r = 0; r < n; ++r)
    pre[static_cast<size_t>(r) + 1] = pre[static_cast<size_t>(r)] + 1 + (rp[r + 1] - rp[r]) +
                                      static_cast<long long>(balance) * std::min(outdeg[static_cast<size_t>(r)], C - 1);
  const long long total = pre[static_cast<size_t>(n)];
  rb[0] = 0;
  int v = 0;
  for (int q = 1; q < C; ++q) {
    const long long target = total * q / C;
    while (v < n && pre[static_cast<size_t>(v)] < target) ++v;
    rb[q] = v;
  }
  for (int q = C; q <= kMaxC; ++q) rb[q] = n;
}

// The layout of one cluster of C blocks (see the file comment; balance is
// PRLAB_KNOB_DSM_BALANCE; plen > 0: pieces of plen edges, bankOrder: their
// columns in bankOrderPieces order); false with why set when it cannot hold
// the graph. split, pair, lends (small lanes' row ends, non-null: small lanes): packRows' (packed rows only).
bool layoutFor(const std::vector<int> &rp, const std::vector<int> &col, int n, int C, int balance, int mode, bool staged,
               int plen, bool bankOrder, bool packed, Args &a, std::vector<int> &cols, std::vector<int> &gids, std::vector<int> &heavy,
               std::vector<int> &pnj, std::vector<int> &prow, std::vector<int> &psr, std::vector<int> &mrow,
               std::vector<int> &pcol, std::vector<int> &lanes, std::vector<int> &winfo, std::vector<int> &rsp, std::vector<unsigned> &rsd,
               std::vector<unsigned short> &sidx, std::vector<unsigned> &desc, std::vector<int> &pairs,
               long long &exchangeFloats, std::string &why, bool split = false, bool pair = false,
               std::vector<unsigned> *lends = nullptr, const int *rbFixed = nullptr, bool tight = false) {
  a = Args{};
  a.n = n;
  if (rbFixed != nullptr) std::copy(rbFixed, rbFixed + kMaxC + 1, a.rb);
  else splitRows(rp, col, n, C, balance, a.rb);
  std::vector<int> owner(static_cast<size_t>(n));
  for (int q = 0; q < C; ++q)
    for (int r = a.rb[q]; r < a.rb[q + 1]; ++r) owner[static_cast<size_t>(r)] = q;
  // need[q][s]: the rows of s that q's edges reference (sorted, unique).
  std::vector<std::vector<std::vector<int>>> need(static_cast<size_t>(C), std::vector<std::vector<int>>(static_cast<size_t>(C)));
  std::vector<int> mark(static_cast<size_t>(n), -1);
  for (int q = 0; q < C; ++q) {
    for (int e = rp[a.rb[q]]; e < rp[a.rb[q + 1]]; ++e) {
      const int u = col[static_cast<size_t>(e)];
      const int s = owner[static_cast<size_t>(u)];
      if (s != q && mark[static_cast<size_t>(u)] != q) {
        mark[static_cast<size_t>(u)] = q;
        need[static_cast<size_t>(q)][static_cast<size_t>(s)].push_back(u);
      }
    }
    for (auto &l : need[static_cast<size_t>(q)]) std::sort(l.begin(), l.end());
  }
  // Ghost vectors: own rows (padded to 4), then one padded segment per source.
  std::vector<int> pos(static_cast<size_t>(n), -1);
  pairs.assign(static_cast<size_t>(kMaxC * kMaxC * 3), 0);
  const bool pieces = plen > 0; // pieces of plen <= kPiece edges (the kernel reads kPiece counts, 0 beyond plen)
  pnj.assign(static_cast<size_t>(kPiece * kMaxC), 0);
  prow.assign(pieces ? 3 * static_cast<size_t>(n) : 1, 0);
  for (size_t r = 0; pieces && r < static_cast<size_t>(n); ++r) prow[3 * r + 2] = -1;
  psr.assign(pieces ? std::max<size_t>(col.size(), 1) : 1, -1);
  mrow.assign(pieces ? std::max(n, 1) : 1, 0);
  int pmax = 0, mmax = 0, lmax = 0, wmax = 0;
  pcol.clear();
  lanes.clear();
  if (lends) lends->clear();
  winfo.clear();
  cols.assign(col.size(), 0);
  gids.clear();
  heavy.clear();
  exchangeFloats = 0;
  int gmax = 0, emax = 0, rmax = 0, hmax = 0;
  for (int q = 0; q < C; ++q) {
    const int r0 = a.rb[q], R = a.rb[q + 1] - r0;
    a.gb[q] = static_cast<int>(gids.size());
    a.hb[q] = static_cast<int>(heavy.size());
    int g = 0;
    for (int i = 0; i < R; ++i) {
      gids.push_back(r0 + i);
      ++g;
    }
    while (g & 3) {
      gids.push_back(-1);
      ++g;
    }
    int recv = 0;
    for (int s = 0; s < C; ++s) {
      const auto &l = need[static_cast<size_t>(q)][static_cast<size_t>(s)];
      if (s == q || l.empty()) continue;
      int *pp = &pairs[static_cast<size_t>(3 * (s * kMaxC + q))];
      pp[2] = g; // offset in q's ghost vector
      for (int u : l) {
        pos[static_cast<size_t>(u)] = g;
        gids.push_back(u);
        ++g;
      }
      exchangeFloats += static_cast<long long>(l.size());
      int cnt = static_cast<int>(l.size());
      while (g & 3) {
        gids.push_back(-1);
        ++g;
        ++cnt;
      }
      pp[1] = cnt;
      recv += cnt;
    }
    a.recvBytes[q] = 4 * recv;
    for (int e = rp[r0]; e < rp[r0 + R]; ++e) {
      const int u = col[static_cast<size_t>(e)];
      cols[static_cast<size_t>(e)] = owner[static_cast<size_t>(u)] == q ? u - r0 : pos[static_cast<size_t>(u)];
    }
    a.pcb[q] = static_cast<int>(pcol.size());
    a.lb[q] = static_cast<int>(lanes.size());
    a.wb[q] = static_cast<int>(winfo.size());
    if (pieces && packed) { // rows packed into warps (packRows)
      const int slots = packRows(rp, cols, r0, R, pcol, lanes, winfo, heavy, prow, split, pair, lends, tight && lends);
      emax = std::max({emax, static_cast<int>(pcol.size()) - a.pcb[q], slots});
      lmax = std::max(lmax, static_cast<int>(lanes.size()) - a.lb[q]);
      wmax = std::max(wmax, static_cast<int>(winfo.size()) - a.wb[q]);
    } else if (pieces) { // pieces of <= plen edges, sorted by length (then row), columns in jagged-diagonal order
      struct Piece {
        int len, row, start;
      };
      std::vector<Piece> ps;
      for (int i = 0; i < R; ++i) {
        const int b = rp[r0 + i], d = rp[r0 + i + 1] - b;
        for (int o = 0; o < d; o += plen) ps.push_back(Piece{std::min(plen, d - o), i, b + o});
      }
      std::stable_sort(ps.begin(), ps.end(), [](const Piece &x, const Piece &y) { return x.len > y.len; });
      int *nj = &pnj[static_cast<size_t>(kPiece * q)];
      for (const Piece &pc : ps)
        for (int j = 0; j < pc.len; ++j) ++nj[j];
      std::vector<int> jcol(static_cast<size_t>(rp[r0 + R] - rp[r0]));
      for (int t = 0, n0 = static_cast<int>(ps.size()); t < n0; ++t) {
        const Piece &pc = ps[static_cast<size_t>(t)];
        int slot = t;
        for (int j = 0; j < pc.len; ++j) {
          jcol[static_cast<size_t>(slot)] = cols[static_cast<size_t>(pc.start + j)];
          slot += nj[j];
        }
        int *pr = &prow[3 * static_cast<size_t>(r0 + pc.row)];
        if (pc.len == plen) { // full pieces of a row stay contiguous (stable sort of a row-ordered list)
          if (pr[1] == 0) pr[0] = t;
          ++pr[1];
        } else {
          pr[2] = t;
        }
      }
      if (bankOrder) bankOrderPieces(jcol, nj, plen);
      for (size_t j = 0; j < jcol.size(); ++j) cols[static_cast<size_t>(rp[r0]) + j] = jcol[j];
      for (int i = 0; i < R; ++i)
        if (prow[3 * static_cast<size_t>(r0 + i) + 1] > kPieceWarp) heavy.push_back(i);
      // fused row sums: the row of each row's only piece; the other light rows in a list
      int m = 0;
      for (int i = 0; i < R; ++i) {
        const int *pr = &prow[3 * static_cast<size_t>(r0 + i)];
        if (pr[1] > kPieceWarp) continue;
        if (pr[1] + (pr[2] >= 0) == 1)
          psr[static_cast<size_t>(rp[r0]) + static_cast<size_t>(pr[1] == 1 ? pr[0] : pr[2])] = i;
        else
          mrow[static_cast<size_t>(r0 + m++)] = i;
      }
      a.mc[q] = m;
      pmax = std::max(pmax, nj[0]);
      mmax = std::max(mmax, m);
    } else {
      for (int i = 0; i < R; ++i)
        if (rp[r0 + i + 1] - rp[r0 + i] > kLight) heavy.push_back(i);
    }
    gmax = std::max(gmax, g);
    rmax = std::max(rmax, R);
    emax = std::max(emax, rp[r0 + R] - rp[r0]);
    hmax = std::max(hmax, static_cast<int>(heavy.size()) - a.hb[q]);
  }
  for (int q = C; q <= kMaxC; ++q) {
    a.gb[q] = static_cast<int>(gids.size());
    a.hb[q] = static_cast<int>(heavy.size());
    a.pcb[q] = static_cast<int>(pcol.size());
    a.lb[q] = static_cast<int>(lanes.size());
    a.wb[q] = static_cast<int>(winfo.size());
  }
  if (pcol.empty()) pcol.push_back(0);
  if (lanes.empty()) lanes.push_back(0);
  if (lends && lends->empty()) lends->push_back(0xffffffffu);
  if (winfo.empty()) winfo.push_back(0);
  // Send lists: sender s, receivers q ascending, each segment in q's ghost order.
  sidx.clear();
  desc.clear();
  int smax = 0;
  for (int s = 0; s < C; ++s) {
    a.sb[s] = static_cast<int>(sidx.size());
    for (int q = 0; q < C; ++q) {
      const auto &l = need[static_cast<size_t>(q)][static_cast<size_t>(s)];
      if (s == q || l.empty()) continue;
      int *pp = &pairs[static_cast<size_t>(3 * (s * kMaxC + q))];
      pp[0] = static_cast<int>(sidx.size()) - a.sb[s];
      for (int j = 0; j < pp[1]; ++j) {
        const int u = j < static_cast<int>(l.size()) ? l[static_cast<size_t>(j)] : a.rb[s];
        sidx.push_back(static_cast<unsigned short>(u - a.rb[s]));
      }
      for (int t = 0; t < pp[1] / 4; ++t)
        desc.push_back(static_cast<unsigned>(q) << 24 | static_cast<unsigned>(pp[2] / 4 + t));
    }
    smax = std::max(smax, static_cast<int>(sidx.size()) - a.sb[s]);
  }
  for (int q = C; q <= kMaxC; ++q) a.sb[q] = static_cast<int>(sidx.size());
  // Per-row sends (exchange 4): for each sender's own row, the receivers' ghost positions.
  rsp.assign(static_cast<size_t>(n) + static_cast<size_t>(C) + 1, 0);
  rsd.clear();
  for (int s = 0; s < C; ++s) {
    const int R = a.rb[s + 1] - a.rb[s];
    std::vector<std::vector<unsigned>> rows(static_cast<size_t>(R));
    for (int q = 0; q < C; ++q) {
      const auto &l = need[static_cast<size_t>(q)][static_cast<size_t>(s)];
      if (s == q || l.empty()) continue;
      const int at = pairs[static_cast<size_t>(3 * (s * kMaxC + q)) + 2];
      for (size_t j = 0; j < l.size(); ++j)
        rows[static_cast<size_t>(l[j] - a.rb[s])].push_back(static_cast<unsigned>(q) << 24 |
                                                            static_cast<unsigned>(at + static_cast<int>(j)));
    }
    a.rdb[s] = static_cast<int>(rsd.size());
    int *ptr = &rsp[static_cast<size_t>(a.rb[s] + s)];
    for (int i = 0; i < R; ++i) {
      ptr[i] = static_cast<int>(rsd.size()) - a.rdb[s];
      rsd.insert(rsd.end(), rows[static_cast<size_t>(i)].begin(), rows[static_cast<size_t>(i)].end());
    }
    ptr[R] = static_cast<int>(rsd.size()) - a.rdb[s];
  }
  for (int q = C; q <= kMaxC; ++q) a.rdb[q] = static_cast<int>(rsd.size());
  // tight packed layout: one more ghost entry than the largest block has, never written (it stays 0 in both
  // copies), the column of every padded slot
  a.gmax = ((tight && lends ? gmax + 1 : gmax) + 3) & ~3;
  if (tight && lends) // and every column as a byte offset (4 x its ghost index), added to the copy's address
    for (int &c : pcol) c = 4 * (c < 0 ? a.gmax - 1 : c);
  a.rmax = (rmax + 3) & ~3;
  a.emax = (emax + 3) & ~3;
  a.hmax = (hmax + 3) & ~3;
  a.pmax = (pmax + 3) & ~3;
  a.mmax = (mmax + 3) & ~3;
  a.lmax = (lmax + 3) & ~3;
  a.wmax = (wmax + 3) & ~3;
  a.smax = (smax + 3) & ~3;
  if (rmax > 65535 || a.gmax >= (1 << 22)) {
    why = "graph too large for one cluster: a block's rows exceed the 16-bit send indices";
    return false;
  }
  (void)mode;
  (void)staged;
  return true;
}

// 16-bit columns (pipeline bit 2) of a packed layout (packRows): lane l of
// block q gets its 8 slots' ghost indices in c16[8 (lb[q] + l) + j] (slot j
// of its warp w at pcol[pcb[q] + base_w + 32 j + l mod 32]; 0 beyond the
// warp's depth: the kernel masks slots beyond the lane's piece); pcol then
// keeps only the heavy rows' columns (their prow starts moved down by the
// packed part) and emax is recounted (at least the rows: valS holds row
// sums). false when a ghost index does not fit 16 bits.
bool pack16(Args &a, int C, std::vector<int> &pcol, const std::vector<int> &lanes, const std::vector<int> &winfo,
            const std::vector<int> &heavy, std::vector<int> &prow, std::vector<unsigned short> &c16) {
  if (a.gmax > 65536) return false;
  c16.assign(8 * std::max<size_t>(lanes.size(), 1), 0);
  std::vector<int> out;
  int pcb[kMaxC + 1], emax = 0;
  for (int q = 0; q < C; ++q) {
    const int W = a.wb[q + 1] - a.wb[q];
    int packedSize = 0;
    for (int w = 0; w < W; ++w) {
      const int wi = winfo[static_cast<size_t>(a.wb[q] + w)], wbase = wi >> 8, depth = (wi >> 4) & 15;
      packedSize = std::max(packedSize, wbase + 32 * depth);
      for (int l = 0; l < 32; ++l)
        for (int j = 0; j < depth && j < 8; ++j)
          c16[8 * static_cast<size_t>(a.lb[q] + 32 * w + l) + static_cast<size_t>(j)] =
              static_cast<unsigned short>(pcol[static_cast<size_t>(a.pcb[q] + wbase + 32 * j + l)]);
    }
    pcb[q] = static_cast<int>(out.size());
    out.insert(out.end(), pcol.begin() + a.pcb[q] + packedSize, pcol.begin() + a.pcb[q + 1]);
    for (int h = a.hb[q]; h < a.hb[q + 1]; ++h) prow[3 * static_cast<size_t>(a.rb[q] + heavy[static_cast<size_t>(h)])] -= packedSize;
    emax = std::max({emax, static_cast<int>(out.size()) - pcb[q], a.rb[q + 1] - a.rb[q]});
  }
  for (int q = C; q <= kMaxC; ++q) pcb[q] = static_cast<int>(out.size());
  if (out.empty()) out.push_back(0);
  pcol.swap(out);
  std::copy(pcb, pcb + kMaxC + 1, a.pcb);
  a.emax = (emax + 3) & ~3;
  return true;
}

// Builds (once) the layout for the knobs; C = 0 and why set when the design
// cannot run here (no clusters, no sm_90 code, or the graph does not fit).
// Rows moved between the blocks of a cluster so that the largest senders send less (PRLAB_KNOB_DSM_ASSIGN 2;
// the exchange of the block that sends the most floats per iteration is the longest phase of its iteration,
// NOTES.md "Session 6"). Starts from the contiguous split rb (C + 1 bounds) and returns owner[n]. A row u is
// sent to every other block that holds a row u contributes to (exactly the needed-only exchange's floats,
// before the 16-byte padding); each step takes the block q that sends the most, tries its 32 rows with the
// most receivers per in-edge against every other block t, and makes the move after which the larger of q's
// and t's sends is lowest, if both end below q's sends before it and no other block rises above: t's edges must stay within the largest block's of
// the split (the gather's longest block) and its rows within the combine rounds it already has (multiples of
// `threads`, at least one). Counts are kept exact per move (O(in-degree x C)). Stops when the largest sender
// has no such move, or after 4n moves.
std::vector<int> balanceSends(const std::vector<int> &rp, const std::vector<int> &col, int n, int C, const int *rb,
                              int threads) {
  const size_t N = static_cast<size_t>(n), CC = static_cast<size_t>(C);
  std::vector<int> owner(N);
  for (int q = 0; q < C; ++q)
    for (int r = rb[q]; r < rb[q + 1]; ++r) owner[static_cast<size_t>(r)] = q;
  std::vector<int> cnt(N * CC, 0); // cnt[u C + q]: rows of block q among the rows u contributes to
  for (int i = 0; i < n; ++i)
    for (int e = rp[i]; e < rp[i + 1]; ++e) ++cnt[static_cast<size_t>(col[static_cast<size_t>(e)]) * CC + owner[static_cast<size_t>(i)]];
  auto sendsOf = [&](int u) {
    int k = 0;
    const int *cu = &cnt[static_cast<size_t>(u) * CC];
    for (int q = 0; q < C; ++q) k += q != owner[static_cast<size_t>(u)] && cu[q] > 0;
    return k;
  };
  std::vector<long long> S(CC, 0), E(CC, 0), R(CC, 0);
  std::vector<int> su(N);
  for (int u = 0; u < n; ++u) {
    const size_t q = static_cast<size_t>(owner[static_cast<size_t>(u)]);
    su[static_cast<size_t>(u)] = sendsOf(u);
    S[q] += su[static_cast<size_t>(u)];
    E[q] += rp[u + 1] - rp[u];
    ++R[q];
  }
  const long long capE = *std::max_element(E.begin(), E.end());
  auto rounds = [&](long long r) { return std::max(1LL, (r + threads - 1) / threads); };
  auto move = [&](int u, int t) { // u to block t, every count updated
    const size_t q = static_cast<size_t>(owner[static_cast<size_t>(u)]), tt = static_cast<size_t>(t);
    const int d = rp[u + 1] - rp[u];
    S[q] -= su[static_cast<size_t>(u)];
    owner[static_cast<size_t>(u)] = t;
    su[static_cast<size_t>(u)] = sendsOf(u);
    S[tt] += su[static_cast<size_t>(u)];
    E[q] -= d;
    E[tt] += d;
    --R[q];
    ++R[tt];
    for (int e = rp[u]; e < rp[u + 1]; ++e) { // row u's columns: their counts move from q to t
      const int j = col[static_cast<size_t>(e)];
      const int before = su[static_cast<size_t>(j)];
      --cnt[static_cast<size_t>(j) * CC + q];
      ++cnt[static_cast<size_t>(j) * CC + tt];
      su[static_cast<size_t>(j)] = sendsOf(j);
      S[static_cast<size_t>(owner[static_cast<size_t>(j)])] += su[static_cast<size_t>(j)] - before;
    }
  };
  std::vector<int> cand;
  for (int step = 0; step < 4 * n; ++step) {
    const int q = static_cast<int>(std::max_element(S.begin(), S.end()) - S.begin());
    const long long top = S[static_cast<size_t>(q)];
    cand.clear();
    for (int u = 0; u < n; ++u)
      if (owner[static_cast<size_t>(u)] == q && su[static_cast<size_t>(u)] > 0) cand.push_back(u);
    auto worth = [&](int u) { return static_cast<double>(su[static_cast<size_t>(u)]) / (1 + rp[u + 1] - rp[u]); };
    const size_t k = std::min<size_t>(32, cand.size());
    std::partial_sort(cand.begin(), cand.begin() + static_cast<long>(k), cand.end(),
                      [&](int x, int y) { return worth(x) != worth(y) ? worth(x) > worth(y) : x < y; });
    long long best = top;
    int bu = -1, bt = -1;
    for (size_t ci = 0; ci < k; ++ci) {
      const int u = cand[ci], d = rp[u + 1] - rp[u];
      for (int t = 0; t < C; ++t) {
        const size_t tt = static_cast<size_t>(t);
        if (t == q || E[tt] + d > capE || rounds(R[tt] + 1) > rounds(R[tt])) continue;
        move(u, t);
        // q and t both end below q's sends before the move, no other block above it (the sorted sends
        // then fall lexicographically: the loop ends); the pair's larger sends as low as possible
        const long long m = std::max(S[static_cast<size_t>(q)], S[tt]);
        const bool ok = *std::max_element(S.begin(), S.end()) <= top;
        move(u, q);
        if (ok && m < best) {
          best = m;
          bu = u;
          bt = t;
        }
      }
    }
    if (bu < 0) break;
    move(bu, bt);
  }
  return owner;
}

// Rows moved between the blocks to cut the exchange itself (PRLAB_KNOB_DSM_ASSIGN 3): the needed-only floats
// per iteration are the (block q, row u of another block) pairs with an edge from u into q's rows; greedy
// passes in node order move each row to the block, among those of its in- and out-neighbours, that lowers that
// count the most (ties: the lower block), while the block's rows + edges stay within 3 % over the mean (or the
// split's largest, if larger) and its rows within the combine rounds of the split's largest block (multiples of
// `threads`); at most 16 passes, until none moves a row. On the real graph (CPU, 2026-12-03): 50,644 -> 27,876
// floats, the largest sender 6,288 -> 2,712 (NOTES.md "Session 7"). Starts from the contiguous split rb; returns owner[n].
std::vector<int> refineCut(const std::vector<int> &rp, const std::vector<int> &col, int n, int C, const int *rb, int threads) {
  const size_t N = static_cast<size_t>(n), CC = static_cast<size_t>(C);
  std::vector<int> owner(N);
  std::vector<long long> w(CC, 0);
  std::vector<int> rows(CC, 0);
  long long total = 0, wMax = 0;
  int rMax = 0;
  for (int q = 0; q < C; ++q) {
    for (int r = rb[q]; r < rb[q + 1]; ++r) {
      owner[static_cast<size_t>(r)] = q;
      w[static_cast<size_t>(q)] += 1 + rp[r + 1] - rp[r];
    }
    rows[static_cast<size_t>(q)] = rb[q + 1] - rb[q];
    total += w[static_cast<size_t>(q)];
    wMax = std::max(wMax, w[static_cast<size_t>(q)]);
    rMax = std::max(rMax, rows[static_cast<size_t>(q)]);
  }
  const long long wCap = std::max(wMax, static_cast<long long>(1.03 * static_cast<double>(total) / C));
  const int rCap = (std::max(rMax, 1) + threads - 1) / threads * threads;
  std::vector<int> cnt(N * CC, 0); // cnt[u C + q]: edges from u into the rows of block q
  for (int i = 0; i < n; ++i)
    for (int e = rp[i]; e < rp[i + 1]; ++e) ++cnt[static_cast<size_t>(col[static_cast<size_t>(e)]) * CC + owner[static_cast<size_t>(i)]];
  auto gain = [&](int v, int b) { // pairs saved when v moves from its block to b
    const int a = owner[static_cast<size_t>(v)];
    int g = 0;
    for (int e = rp[v]; e < rp[v + 1]; ++e) {
      const size_t u = static_cast<size_t>(col[static_cast<size_t>(e)]);
      g += cnt[u * CC + a] == 1 && owner[u] != a;  // a needs u no more
      g -= cnt[u * CC + b] == 0 && owner[u] != b;  // b needs u now
    }
    g -= cnt[static_cast<size_t>(v) * CC + a] > 0; // a needs v now
    g += cnt[static_cast<size_t>(v) * CC + b] > 0; // b needs v no more
    return g;
  };
  std::vector<char> cand(CC);
  for (int pass = 0; pass < 16; ++pass) {
    int moved = 0;
    for (int v = 0; v < n; ++v) {
      const int a = owner[static_cast<size_t>(v)], wv = 1 + rp[v + 1] - rp[v];
      std::fill(cand.begin(), cand.end(), 0);
      for (int e = rp[v]; e < rp[v + 1]; ++e) cand[static_cast<size_t>(owner[static_cast<size_t>(col[static_cast<size_t>(e)])])] = 1;
      for (int q = 0; q < C; ++q) cand[static_cast<size_t>(q)] |= cnt[static_cast<size_t>(v) * CC + q] > 0;
      int best = -1, bg = 0;
      for (int b = 0; b < C; ++b) {
        if (!cand[static_cast<size_t>(b)] || b == a || w[static_cast<size_t>(b)] + wv > wCap || rows[static_cast<size_t>(b)] + 1 > rCap) continue;
        const int g = gain(v, b);
        if (g > bg) {
          best = b;
          bg = g;
        }
      }
      if (best < 0) continue;
      for (int e = rp[v]; e < rp[v + 1]; ++e) {
        const size_t u = static_cast<size_t>(col[static_cast<size_t>(e)]);
        --cnt[u * CC + a];
        ++cnt[u * CC + best];
      }
      w[static_cast<size_t>(a)] -= wv;
      w[static_cast<size_t>(best)] += wv;
      --rows[static_cast<size_t>(a)];
      ++rows[static_cast<size_t>(best)];
      owner[static_cast<size_t>(v)] = best;
      ++moved;
    }
    if (moved == 0) break;
  }
  for (int q = 0; q < C; ++q)
    if (rows[static_cast<size_t>(q)] == 0) { // an empty block: the contiguous split instead
      for (int t = 0; t < C; ++t)
        for (int r = rb[t]; r < rb[t + 1]; ++r) owner[static_cast<size_t>(r)] = t;
      break;
    }
  return owner;
}

// The graph relabelled so that block q's rows (owner[r] == q, in node order, rows of in-degree 0 after the
// others, so that runs of small rows do not break at them) are the contiguous range [rb[q], rb[q + 1]) (rb:
// kMaxC + 1 bounds, n beyond C): perm[new] = node, rp2 / col2 the relabelled in-edge CSR (each row's edges in
// their order, columns renamed).
void relabelByOwner(const std::vector<int> &rp, const std::vector<int> &col, int n, int C, const std::vector<int> &owner,
                    std::vector<int> &rp2, std::vector<int> &col2, std::vector<int> &perm, int *rb) {
  std::vector<int> pos(static_cast<size_t>(kMaxC) + 1, 0), newId(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) ++pos[static_cast<size_t>(owner[static_cast<size_t>(r)]) + 1];
  for (int q = 0; q < kMaxC; ++q) pos[static_cast<size_t>(q) + 1] += pos[static_cast<size_t>(q)];
  for (int q = 0; q <= kMaxC; ++q) rb[q] = q < C ? pos[static_cast<size_t>(q)] : n;
  perm.resize(static_cast<size_t>(n));
  for (int last = 0; last < 2; ++last)
    for (int r = 0; r < n; ++r) {
      if ((rp[r + 1] == rp[r]) != (last == 1)) continue;
      const int id = pos[static_cast<size_t>(owner[static_cast<size_t>(r)])]++;
      newId[static_cast<size_t>(r)] = id;
      perm[static_cast<size_t>(id)] = r;
    }
  rp2.assign(static_cast<size_t>(n) + 1, 0);
  col2.resize(col.size());
  for (int i = 0; i < n; ++i) {
    const int r = perm[static_cast<size_t>(i)];
    int o = rp2[static_cast<size_t>(i)];
    for (int x = rp[r]; x < rp[r + 1]; ++x) col2[static_cast<size_t>(o++)] = newId[static_cast<size_t>(col[static_cast<size_t>(x)])];
    rp2[static_cast<size_t>(i) + 1] = o;
  }
}

int build(Ctx &c, DsmState &s, Err &e) {
  if (s.built) return PRLAB_OK;
  s.built = true;
  s.C = 0;
  s.why.clear();
  if (s.ccMajor < 9) {
    s.why = "thread-block clusters need compute capability 9.0 or later";
    return PRLAB_OK;
  }
  {
    cudaFuncAttributes fa;
    PR_CUDA(e, cudaFuncGetAttributes(&fa, kernelFor<false>(kStores)), "cudaFuncGetAttributes(dsmKernel)");
    if (fa.binaryVersion < 90) {
      s.why = "the library has no sm_90 code for the cluster kernel (build with CUDA_ARCHS including 90)";
      return PRLAB_OK;
    }
  }
  // automatic: async stores where st.async is compiled in (the fastest exchange in the H200 lease of
  // 2026-12-03, 3.29-3.33 us against stores' 3.39-3.43 in one process; NOTES.md "Session 7"), else stores
  int mode = s.knobExchange != 0 ? s.knobExchange : PRLAB_CLUSTER_ASYNC ? kAsync : kStores;
  if (mode == kBulk && !PRLAB_CLUSTER_BULK) {
    s.why = "the bulk-copy exchange is not compiled in (build with -DPRLAB_CLUSTER_BULK=1 and CUDA 12 or later)";
    return PRLAB_OK;
  }
  if (mode == kAsync && !PRLAB_CLUSTER_ASYNC) {
    s.why = "the async-stores exchange (st.async, PTX 8.1) needs a library built with CUDA 12.1 or later";
    return PRLAB_OK;
  }
  if ((mode == kBulk || mode == kAsync) && (s.knobAblate & kNoSync) != 0 && (s.knobAblate & kNoExchange) == 0) {
    s.why = "the no-cluster.sync() ablation would let bulk copies overrun the receivers' mbarrier phases";
    return PRLAB_OK;
  }
  const int n = c.n, nnz = c.nnz;
  // A lower bound on the cluster's shared memory (2-byte columns at best, one float per row): a larger graph
  // fits no layout, so it is refused before the host copy and the row moves (which hold n x C counts)
  if (2.0 * nnz + 4.0 * n > static_cast<double>(kMaxC) * static_cast<double>(s.smemOptin)) {
    s.why = "graph too large for one cluster: " + std::to_string(n) + " rows and " + std::to_string(nnz) +
            " edges need more than the " + std::to_string(kMaxC) + " x " + std::to_string(s.smemOptin) +
            " bytes of shared memory of the largest cluster";
    return PRLAB_OK;
  }
  std::vector<int> rp(static_cast<size_t>(n) + 1), col(static_cast<size_t>(nnz));
  PR_CUDA(e, cudaMemcpy(rp.data(), c.rowPtr, 4 * (static_cast<size_t>(n) + 1), cudaMemcpyDeviceToHost),
          "cudaMemcpy(rowPtr, device to host)");
  if (nnz > 0)
    PR_CUDA(e, cudaMemcpy(col.data(), c.colIdx, 4 * static_cast<size_t>(nnz), cudaMemcpyDeviceToHost),
            "cudaMemcpy(colIdx, device to host)");
  const int threads = s.knobThreads > 0 ? s.knobThreads : 1024;
  // automatic: the fastest correct setting of the final H200 lease of 2026-12-02 (NOTES.md, 3.60-3.62 us
  // against 3.97-4.01 for the one before it, gather 5 + partials 2): rows packed into warps, warp 0 reduces
  // only, the one-barrier dangling sum (stores exchange)
  const int gather = s.knobGather == 0 ? 8 : s.knobGather, partials = s.knobPartials == 0 ? 18 : s.knobPartials;
  const bool staged = gather != 2, pieces = gather >= 3, bankOrder = gather >= 5, fused = gather == 7,
             packed = gather == 8;
  // The pipeline knob's value in effect: automatic (0) with packed rows and the stores exchange is small rows
  // several per lane + heavy rows split (144: 3.39-3.44 us against the layout before's 3.56-3.65 in three H200
  // leases, NOTES.md "Session 6"); 256 is that layout before (none of the bits), explicitly; other exchanges: none.
  const int pipeKnob = (s.knobPipeline & ~512) == 0 ? (packed && (mode == kStores || mode == kAsync) ? kSmallLanes | kHeavySplit : 0)
                                                    : s.knobPipeline & 255; // 512 alone: the automatic layout in the generic kernel
  // split barrier, 16-bit columns, row finish: packed rows only; bit 8 marks a value as explicit (8 alone: none)
  const int pipeline = packed && mode != kRowStores ? pipeKnob & 7 : 0; // not with row stores
  const bool col16 = (pipeline & 2) != 0;
  // bits 16 (split heavy rows), 32 (phase timer), 64 (packed warps paired by cost), 128 (small lanes, implies 16):
  // packed rows, stores, none of 1, 2, 4
  const int extra = (pipeKnob & (kHeavySplit | kPhaseTimer | kPairWarps | kSmallLanes)) |
                    ((pipeKnob & kSmallLanes) != 0 ? kHeavySplit : 0);
  if (mode == kAsync && (!packed || (pipeKnob & 7) != 0 || (extra & ~(kHeavySplit | kSmallLanes)) != 0)) {
    s.why = "the async-stores exchange runs rows packed into warps with pipeline 0 or 144 only";
    return PRLAB_OK;
  }
  if (extra != 0 && (!packed || (mode != kStores && mode != kAsync) || (pipeKnob & 7) != 0)) {
    s.why = "pipeline bits 16, 32, 64, 128 need rows packed into warps, the stores exchange and none of bits 1, 2, 4";
    return PRLAB_OK;
  }
  const int plen = pieces ? (gather == 4 || gather == 6 ? 4 : kPiece) : 0; // pieces of 4 (4, 6) or 8
  const int kernelPipe = pipeline != 0                            ? pipeline
                         : (extra & (kHeavySplit | kPhaseTimer)) != 0 ? extra & (kHeavySplit | kPhaseTimer | kSmallLanes)
                         : packed && mode != kRowStores && pipeKnob == 8 ? 8
                                                                         : 0;
  // the automatic async kernel runs with its flags as constants (kFixedShape; gather 8, partials 18, the
  // small-rows layout): 2.94-2.96 us against the generic kernel's 3.28-3.32 in one H200 process (2026-12-03,
  // NOTES.md "Session 9"), on the tight small-rows layout (packRows tight); pipeline knob 512 runs the generic
  // kernel on the small-rows layout instead
  const bool fixedShape = mode == kAsync && gather == 8 && partials == 18 && kernelPipe == (kHeavySplit | kSmallLanes) &&
                          (s.knobPipeline & 512) == 0;
  std::vector<int> sizes;
  if (s.knobCluster > 0) sizes.push_back(s.knobCluster);
  else sizes = {16, 8};
  std::string why;
  // assignment 2: the rows moved between blocks (balanceSends), 3 (automatic): rows moved to cut the exchange
  // (refineCut; 3.23-3.24 us against the contiguous split's 3.37 with async stores, and 3.25-3.26 against 3.45-3.46
  // with stores, in one H200 process on 2026-12-03, NOTES.md "Session 8"), each on a relabelled copy of the graph,
  // else (1, or when that layout does not fit) the contiguous split
  const int assign = s.knobAssign == 0 ? 3 : s.knobAssign;
  const bool wantMove = assign == 2 || assign == 3;
  std::vector<float> inv;
  if (wantMove) {
    inv.resize(static_cast<size_t>(n));
    PR_CUDA(e, cudaMemcpy(inv.data(), c.invOut, 4 * static_cast<size_t>(n), cudaMemcpyDeviceToHost),
            "cudaMemcpy(invOut, device to host)");
  }
  for (int C : sizes)
  for (int mv = wantMove ? 1 : 0; mv >= 0; --mv) {
    std::vector<int> rpM, colM, permM;
    std::vector<float> invM;
    int rbM[kMaxC + 1];
    if (mv) { // rows in (block, node) order: each block's rows contiguous again
      splitRows(rp, col, n, C, s.knobBalance, rbM);
      relabelByOwner(rp, col, n, C, assign == 3 ? refineCut(rp, col, n, C, rbM, threads) : balanceSends(rp, col, n, C, rbM, threads),
                     rpM, colM, permM, rbM);
      invM.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) invM[static_cast<size_t>(i)] = inv[static_cast<size_t>(permM[static_cast<size_t>(i)])];
    }
    const std::vector<int> &rpL = mv ? rpM : rp, &colL = mv ? colM : col;
    Args a;
    std::vector<int> cols, gids, heavy, pairs;
    std::vector<unsigned short> sidx;
    std::vector<unsigned> desc;
    long long xf = 0;
    std::vector<int> pnj, prow, rsp, psr, mrow, pcol, lanes, winfo;
    std::vector<unsigned> lends;
    const bool small = (extra & kSmallLanes) != 0;
    std::vector<unsigned> rsd;
    if (!layoutFor(rpL, colL, n, C, s.knobBalance, mode, staged, plen, bankOrder, packed, a, cols, gids, heavy, pnj, prow, psr,
                   mrow, pcol, lanes, winfo, rsp,
                   rsd, sidx, desc, pairs,
                   xf, why, (extra & kHeavySplit) != 0, (extra & kPairWarps) != 0, small ? &lends : nullptr,
                   mv ? rbM : nullptr, fixedShape))
      continue;
    std::vector<unsigned short> c16;
    if (col16 && !pack16(a, C, pcol, lanes, winfo, heavy, prow, c16)) {
      why = "graph too large for one cluster: a block's ghost vector exceeds the 16-bit column indices";
      continue;
    }
    if (!col16) c16.assign(8, 0);
    const size_t smem = carve(a.gmax, a.smax, a.emax, a.rmax, a.hmax, mode == kBulk, staged, pieces, mode == kRowStores,
                              (partials & 4) != 0, fused ? a.pmax : 0, fused ? a.mmax : 0, packed ? a.lmax : 0,
                              packed ? a.wmax : 0, col16, small)
                            .total;
    const size_t limit = static_cast<size_t>(s.smemOptin);
    if (smem + 2048 > limit) { // + the kernel's static shared memory
      why = "graph too large for one cluster: it needs " + std::to_string(smem) +
            " bytes of shared memory per block in a cluster of " + std::to_string(C) + " (the device allows " +
            std::to_string(limit) + ")";
      continue;
    }
    const int runPipe = kernelPipe | (fixedShape ? kFixedShape : 0); // the kernel instantiation's kPipe
    if (!clusterSchedulable(kernelFor<false>(mode, runPipe), "dsmKernel", C, threads, smem, &why) ||
        !clusterSchedulable(kernelFor<true>(mode, runPipe), "dsmKernel", C, threads, smem, &why))
      continue;
    a.rowPtr = c.rowPtr;
    a.invOut = c.invOut;
    a.perm = nullptr;
    a.ablate = s.knobAblate;
    a.partials = partials;
    a.direct = staged ? 0 : 1;
    a.pieces = pieces ? 1 : 0;
    a.fused = fused ? 1 : 0;
    a.packed = packed ? 1 : 0;
    a.pipeline = pipeline;
    s.args = a; // the layout; its device arrays are uploaded into the state's copy (freed by freeBuffers)
    Args &g = s.args;
    PR_TRY(upload(&g.col, cols, "d_dsmCols", e));
    PR_TRY(upload(&g.gid, gids, "d_dsmGhostIds", e));
    PR_TRY(upload(&g.heavy, heavy, "d_dsmHeavy", e));
    PR_TRY(upload(&g.pairs, pairs, "d_dsmPairs", e));
    PR_TRY(upload(&g.sidx, sidx, "d_dsmSendIdx", e));
    PR_TRY(upload(&g.desc, desc, "d_dsmSendDesc", e));
    PR_TRY(upload(&g.pnj, pnj, "d_dsmPieceCounts", e));
    PR_TRY(upload(&g.prow, prow, "d_dsmRowPieces", e));
    PR_TRY(upload(&g.rsp, rsp, "d_dsmRowSendPtr", e));
    PR_TRY(upload(&g.rsd, rsd, "d_dsmRowSends", e));
    PR_TRY(upload(&g.psr, psr, "d_dsmPieceRow", e));
    PR_TRY(upload(&g.mrow, mrow, "d_dsmAddedRows", e));
    PR_TRY(upload(&g.pcol, pcol, "d_dsmPackedCols", e));
    PR_TRY(upload(&g.lanes, lanes, "d_dsmPackedLanes", e));
    PR_TRY(upload(&g.winfo, winfo, "d_dsmPackedWarps", e));
    PR_TRY(upload(&g.c16, c16, "d_dsmPackedCols16", e));
    if (small) PR_TRY(upload(&g.lends, lends, "d_dsmPackedLaneEnds", e));
    if (mv) { // the relabelled graph's row pointer and 1/outdeg, and the way back to the graph's order
      PR_TRY(upload(&s.relRowPtr, rpM, "d_dsmMovedRowPtr", e));
      PR_TRY(upload(&s.relInvOut, invM, "d_dsmMovedInvOut", e));
      PR_TRY(upload(&s.perm, permM, "d_dsmMovedPerm", e));
      g.rowPtr = s.relRowPtr;
      g.invOut = s.relInvOut;
      g.perm = s.perm;
    }
    PR_TRY(devAlloc(reinterpret_cast<void **>(&g.gx), 8 * static_cast<size_t>(n), "d_dsmExchangeL2", e));
    PR_TRY(devAlloc(reinterpret_cast<void **>(&s.ctl), 4 * kCtlCount, "d_dsmControl", e));
    if ((kernelPipe & kPhaseTimer) != 0) {
      const size_t pb = 4 * (static_cast<size_t>(C) * 32 * kPhaseIters * kPhases + 2 * kMaxC);
      PR_TRY(devAlloc(reinterpret_cast<void **>(&g.phase), pb, "d_dsmPhases", e));
      PR_CUDA(e, cudaMemset(g.phase, 0, pb), "cudaMemset(d_dsmPhases)");
    }
    s.C = C;
    s.threads = threads;
    s.mode = mode;
    s.kernelPipe = runPipe;
    s.smem = smem;
    s.exchangeFloats = xf;
    return PRLAB_OK;
  }
  s.why = why;
  return PRLAB_OK;
}

int require(Ctx &c, DsmState **out, Err &e) {
  PR_TRY(getState(c, out, e));
  DsmState &s = **out;
  PR_TRY(build(c, s, e));
  if (s.C == 0) return fail(e, PRLAB_ERR_UNAVAILABLE, "gpu-cluster-dsmem unavailable: %s", s.why.c_str());
  return PRLAB_OK;
}

Coef coefOf(const Ctx &c, float d) {
  return Coef{static_cast<float>((1.0 - static_cast<double>(d)) / static_cast<double>(c.n)), d,
              static_cast<float>(1.0 / static_cast<double>(c.n)),
              static_cast<float>(1.0 / static_cast<double>(c.n))};
}

template <bool kInstr>
int launch(const Ctx &c, const DsmState &s, int iters, float d, float tol, float *xOut, Err &e) {
  const void *fn = kernelFor<kInstr>(s.mode, s.kernelPipe);
  PR_CUDA(e, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smem)),
          "cudaFuncSetAttribute(dsmKernel, %zu bytes of dynamic shared memory)", s.smem);
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = clusterConfig(s.C, s.threads, s.smem, attr);
  Args a = s.args;
  Coef co = coefOf(c, d);
  Inst in{c.residHist, c.sumHist, s.ctl, tol};
  void *params[] = {&a, &co, &iters, &xOut, &in};
  PR_CUDA(e, cudaLaunchKernelExC(&cfg, fn, params),
          "cudaLaunchKernelEx(dsmKernel, cluster of %d blocks of %d, %zu bytes, exchange %d)", s.C, s.threads, s.smem,
          s.mode);
  return PRLAB_OK;
}

// The phase timer's table (pipeline bit 32), to stdout: the last timed run's clock() deltas from each
// warp's iteration top (Args::phase), iterations 1 .. min(iterations, kPhaseIters) - 2 (the first and the
// last differ: no sends after the last). Per block and boundary: the median over those iterations of the
// block's slowest warp (max over warps: what a barrier waits for), and the median over every (warp,
// iteration). Cycles of the SM clock (clock(), 32 bits; deltas within one warp only); then each block's
// whole loop in cycles and in ns (%globaltimer), whose ratio is the SM clock the cycles convert with.
int printPhases(const DsmState &s, int iterations, Err &e) {
  const int C = s.C, K = std::min(iterations, kPhaseIters), warps = std::min(32, s.threads / 32);
  std::vector<unsigned> h(static_cast<size_t>(C) * 32 * kPhaseIters * kPhases + 2 * kMaxC);
  PR_CUDA(e, cudaMemcpy(h.data(), s.args.phase, 4 * h.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(phases, device to host)");
  static const char *names[kPhases] = {"packed", "heavy", "D", "barrier", "combine", "dangling", "sends", "cluster"};
  auto at = [&](int q, int w, int k, int b) { return h[((static_cast<size_t>(q) * 32 + w) * kPhaseIters + k) * kPhases + b]; };
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  printf("dsm phases, pipeline %d, ablation %d, %d threads (cycles from each warp's iteration top, iterations 1..%d of the "
         "last timed run; per block: slowest warp's median / all warps' median)\n",
         s.knobPipeline, s.knobAblate, s.threads, K - 2);
  printf("%-5s", "block");
  for (const char *nm : names) printf(" %15s", nm);
  printf("  slowest warp at 'heavy'\n");
  std::vector<double> clusterMax(kPhases, 0.0);
  for (int q = 0; q < C; ++q) {
    printf("%-5d", q);
    int slowW = 0;
    double slowV = -1;
    for (int b = 0; b < kPhases; ++b) {
      std::vector<double> mx, all;
      for (int k = 1; k + 1 < K; ++k) {
        double m = 0;
        for (int w = 0; w < warps; ++w) {
          const double v = at(q, w, k, b);
          m = std::max(m, v);
          all.push_back(v);
        }
        mx.push_back(m);
      }
      const double mm = median(mx);
      clusterMax[static_cast<size_t>(b)] = std::max(clusterMax[static_cast<size_t>(b)], mm);
      printf(" %7.0f/%7.0f", mm, median(all));
    }
    for (int w = 0; w < warps; ++w) {
      std::vector<double> v;
      for (int k = 1; k + 1 < K; ++k) v.push_back(at(q, w, k, 1));
      const double m = median(v);
      if (m > slowV) slowV = m, slowW = w;
    }
    printf("  warp %d (%.0f)\n", slowW, slowV);
  }
  printf("%-5s", "max");
  for (double v : clusterMax) printf(" %15.0f", v);
  printf("\n");
  const unsigned *tail = h.data() + static_cast<size_t>(C) * 32 * kPhaseIters * kPhases;
  printf("dsm phases: loop of %d iterations, per block: cycles / ns (SM clock MHz):", iterations);
  for (int q = 0; q < C; ++q)
    printf(" %u/%u (%.0f)", tail[2 * q], tail[2 * q + 1], tail[2 * q + 1] ? 1e3 * tail[2 * q] / tail[2 * q + 1] : 0.0);
  printf("; block 0: %.3f us per iteration\n", iterations > 0 ? 1e-3 * tail[1] / iterations : 0.0);
  fflush(stdout);
  return PRLAB_OK;
}

} // namespace

bool dsmemImpl(int impl) { return impl >= PRLAB_IMPL_DSMEM_FIRST && impl < PRLAB_IMPL_DSMEM_END; }
bool dsmemKnob(int knob) { return knob >= PRLAB_KNOB_DSM_FIRST && knob < PRLAB_KNOB_DSM_END; }

int dsmemRun(Ctx &c, int impl, float d, int iterations, float tol, float *ranks, float *residuals, double *sums,
             int *done, int *converged, Err &e) {
  if (!dsmemImpl(impl)) return fail(e, PRLAB_ERR_ARG, "design %d is not gpu-cluster-dsmem", impl);
  PR_TRY(checkRunArgs(c, d, iterations, ranks, residuals, sums, done, converged, e));
  DsmState *sp = nullptr;
  PR_TRY(require(c, &sp, e));
  DsmState &s = *sp;
  if (s.args.ablate != 0)
    return fail(e, PRLAB_ERR_ARG, "ablation %d leaves stages out (timing only): no correctness run", s.args.ablate);
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before the run)");
  PR_CUDA(e, cudaMemset(s.ctl, 0, 4 * kCtlCount), "cudaMemset(d_dsmControl)");
  PR_CUDA(e, cudaMemset(c.residHist, 0, 4 * static_cast<size_t>(iterations)), "cudaMemset(d_residuals)");
  PR_CUDA(e, cudaMemset(c.sumHist, 0, 8 * static_cast<size_t>(iterations)), "cudaMemset(d_sums)");
  PR_TRY(launch<true>(c, s, iterations, d, tol > 0.0f ? tol : 0.0f, c.xbuf[0], e));
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (dsmKernel, %d iterations)", iterations);
  int h[kCtlCount] = {0, 0, 0, 0};
  PR_CUDA(e, cudaMemcpy(h, s.ctl, 4 * kCtlCount, cudaMemcpyDeviceToHost), "cudaMemcpy(control words, device to host)");
  const int k = h[kCtlDone];
  if (k < 1 || k > iterations)
    return fail(e, PRLAB_ERR_INTERNAL, "gpu-cluster-dsmem reported %d iterations done (asked %d)", k, iterations);
  *done = k;
  *converged = h[kCtlConverged] != 0;
  return copyRunOut(c, c.xbuf[0], k, ranks, residuals, sums, e);
}

int dsmemBenchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs, float *runsMs, float *ranks,
                   Err &e) {
  if (!dsmemImpl(impl)) return fail(e, PRLAB_ERR_ARG, "design %d is not gpu-cluster-dsmem", impl);
  PR_TRY(checkBenchArgs(d, iterations, warmups, runs, runsMs, e));
  DsmState *sp = nullptr;
  PR_TRY(require(c, &sp, e));
  DsmState &s = *sp;
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (before timing)");
  PR_TRY(timeRuns(EventClock{c.ev0, c.ev1, 0}, warmups, runs, runsMs,
                  [&]() { return launch<false>(c, s, iterations, d, 0.0f, c.xbuf[0], e); }, "dsmKernel", e));
  if ((s.kernelPipe & kPhaseTimer) != 0) PR_TRY(printPhases(s, iterations, e));
  if (ranks)
    PR_CUDA(e, cudaMemcpy(ranks, c.xbuf[0], 4 * static_cast<size_t>(c.n), cudaMemcpyDeviceToHost),
            "cudaMemcpy(ranks, device to host)");
  return PRLAB_OK;
}

int dsmemSetKnob(Ctx &c, int knob, int value, Err &e) {
  DsmState *sp = nullptr;
  PR_TRY(getState(c, &sp, e));
  DsmState &s = *sp;
  if (value < 0) return fail(e, PRLAB_ERR_ARG, "knob %d: value %d must be >= 0 (0 = automatic)", knob, value);
  // the knobs with a range [0, max]: knob, max, field, name, what the values mean
  using Field = int DsmState::*;
  struct Range {
    int knob, max;
    Field field;
    const char *name, *values;
  };
  static const Range ranges[] = {
      {PRLAB_KNOB_DSM_EXCHANGE, 5, &DsmState::knobExchange, "exchange", "auto, stores, bulk, l2, row stores, async stores"},
      {PRLAB_KNOB_DSM_ABLATE, 31, &DsmState::knobAblate, "ablation", "bits: gather, rows, exchange, sync, loop"},
      {PRLAB_KNOB_DSM_CLUSTER, kMaxC, &DsmState::knobCluster, "cluster size", "blocks; 0 auto"},
      {PRLAB_KNOB_DSM_BALANCE, 64, &DsmState::knobBalance, "balance", "sends per row in the row split"},
      {PRLAB_KNOB_DSM_GATHER, 8, &DsmState::knobGather, "gather",
       "auto, staged, direct, pieces of 8, of 4, the same bank-ordered, pieces of 8 bank-ordered and fused, rows packed into warps"},
      {PRLAB_KNOB_DSM_PARTIALS, 31, &DsmState::knobPartials, "partials",
       "bits: pushed, one-barrier sum, warp partials, explicit, warp 0 reduces only"},
      {PRLAB_KNOB_DSM_ASSIGN, 3, &DsmState::knobAssign, "assignment",
       "auto (rows moved to cut the exchange), contiguous ranges, rows moved from the largest senders, rows moved to cut the exchange"},
      {PRLAB_KNOB_DSM_PIPELINE, 768, &DsmState::knobPipeline, "pipeline",
       "bits (rows packed into warps only): split cluster barrier, 16-bit column indices, rows finished in their warp, explicit, "
       "heavy rows split over packed warps, phase timer, packed warps paired by cost, small rows several per lane; "
       "256: none (auto 0: 144 with the stores exchange); 512: the automatic async layout in the generic kernel (auto: the "
       "kernel with its layout's flags as constants)"},
  };
  bool known = false;
  for (const Range &r : ranges)
    if (r.knob == knob) {
      if (value > r.max) return fail(e, PRLAB_ERR_ARG, "%s %d outside [0, %d] (%s)", r.name, value, r.max, r.values);
      s.*r.field = value;
      known = true;
    }
  if (knob == PRLAB_KNOB_DSM_THREADS) {
    if (value != 0 && (value < 128 || value > 1024 || value % 32 != 0))
      return fail(e, PRLAB_ERR_ARG, "threads %d: a multiple of 32 in [128, 1024]", value);
    s.knobThreads = value;
    known = true;
  }
  if (!known)
    return fail(e, PRLAB_ERR_ARG, "knob %d out of range [%d, %d)", knob, PRLAB_KNOB_DSM_FIRST, PRLAB_KNOB_DSM_END);
  cudaDeviceSynchronize();
  freeBuffers(s);
  return PRLAB_OK;
}

int dsmemCheckReduction(Ctx &c, int which, int n, const float *a, const float *b, const unsigned char *mask,
                        int threads, float *slots, float *out, int *grid, Err &e) {
  DsmState *sp = nullptr;
  PR_TRY(getState(c, &sp, e));
  if (sp->ccMajor < 9)
    return fail(e, PRLAB_ERR_UNAVAILABLE, "the cluster reduction needs compute capability 9.0 (thread-block clusters)");
  const void *fn = which == 0 ? reinterpret_cast<const void *>(dsmReduceKernel<0>)
                              : reinterpret_cast<const void *>(dsmReduceKernel<1>);
  cudaFuncAttributes fa;
  PR_CUDA(e, cudaFuncGetAttributes(&fa, fn), "cudaFuncGetAttributes(dsmReduceKernel)");
  if (fa.binaryVersion < 90)
    return fail(e, PRLAB_ERR_UNAVAILABLE, "the library has no sm_90 code for the cluster reduction");
  cudaError_t st = cudaErrorUnknown;
  for (int C : {16, 8}) {
    if (C > 8) PR_CUDA(e, cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                       "cudaFuncSetAttribute(dsmReduceKernel, non-portable cluster size)");
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg = clusterConfig(C, threads, 0, attr);
    void *params[] = {&a, &b, &mask, &n, &slots, &out};
    st = cudaLaunchKernelExC(&cfg, fn, params);
    if (st == cudaSuccess) {
      *grid = C;
      break;
    }
    cudaGetLastError();
  }
  PR_CUDA(e, st, "cudaLaunchKernelEx(dsmReduceKernel, %d threads)", threads);
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (dsmReduceKernel)");
  return PRLAB_OK;
}

void dsmemStateFree(Ctx &c) {
  DsmState *s = stateOf(c);
  if (s == nullptr) return;
  freeBuffers(*s);
  delete s;
  c.dsmem = nullptr;
}

} // namespace prlab
