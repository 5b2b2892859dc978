// kernels.cu — the hand-written PageRank kernels and their host launchers.
//
// Byte counts: each launcher's comment in common.cuh states the bytes one
// execution moves through device memory, counted from the loads and stores
// below (each element of an array touched once counts once; the broadcast
// read of the dangling mass and the O(gridDim) partials are not counted,
// as in the course). pkg/cudabind/bytes.go holds the same formulas.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "block_reduce.cuh"
#include "common.cuh"

namespace prlab {

// ---------------------------------------------------------------- errors

Failure::Failure(cudaError_t st)
    : code(st == cudaErrorNoDevice || st == cudaErrorInsufficientDriver ? PRLAB_ERR_NO_DEVICE : PRLAB_ERR_CUDA), status{} {
  snprintf(status, sizeof(status), ": %s (%s)", cudaGetErrorString(st), cudaGetErrorName(st));
}

Failure::Failure(cusparseStatus_t st) : code(PRLAB_ERR_LIBRARY), status{} {
  snprintf(status, sizeof(status), ": %s (cuSPARSE status %d)", cusparseGetErrorString(st), static_cast<int>(st));
}

int fail(Err &e, Failure f, const char *fmt, ...) {
  if (e.buf == nullptr || e.len <= 0) return f.code;
  const size_t len = static_cast<size_t>(e.len);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.buf, len, fmt, ap);
  va_end(ap);
  const size_t used = strnlen(e.buf, len);
  if (f.status[0] != '\0' && used + 1 < len) snprintf(e.buf + used, len - used, "%s", f.status);
  return f.code;
}

int devAlloc(void **p, size_t bytes, const char *name, Err &e) {
  size_t b = bytes < 16 ? 16 : bytes;
  PR_CUDA(e, cudaMalloc(p, b), "cudaMalloc(%s, %zu bytes)", name, b);
  return PRLAB_OK;
}

// ---------------------------------------------------------------- device helpers

// The warp's sum in lane 0 (shuffle down; block_reduce.cuh).
template <class T> __device__ __forceinline__ T warpSum(T v) { return dev::warpTreeSum<false>(v); }

// Block sum by warp shuffles: each warp reduces in registers, lane 0 of each
// warp stores one float to shared memory, warp 0 reduces those. The result is
// valid in thread 0. Works for any blockDim.x that is a multiple of 32,
// including a single-warp block (then warp 0 reduces one value).
template <class T> __device__ T blockSumShuffle(T v) {
  __shared__ T warpSums[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  v = warpSum(v);
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warpSums[lane] : T(0);
    v = warpSum(v);
  }
  return v;
}

// Block sum by a shared-memory tree (blockDim.x floats of dynamic shared
// memory; blockDim.x a power of two). The result is valid in every thread.
__device__ float blockSumTree(float v) {
  extern __shared__ float tree[];
  const int t = threadIdx.x;
  tree[t] = v;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) tree[t] += tree[t + s];
    __syncthreads();
  }
  return tree[0];
}

// Element loaders for the reductions.
struct DanglingLoad { // x[i] * mask[i]: reads 4 + 1 bytes per element (5n)
  const float *x;
  const unsigned char *mask;
  __device__ float operator()(long long i) const { return x[i] * static_cast<float>(mask[i]); }
};
struct AbsDiffLoad { // |xn[i] - x[i]|: reads 8 bytes per element (8n)
  const float *x;
  const float *xn;
  __device__ float operator()(long long i) const { return fabsf(xn[i] - x[i]); }
};
struct PartialsLoad { // second pass: one float per first-pass block
  const float *p;
  __device__ float operator()(long long i) const { return p[i]; }
};

// One pass of a two-pass reduction: a grid-stride loop accumulates in a
// register, the block reduces, thread 0 writes out[blockIdx.x]. So the pass
// writes exactly gridDim.x floats.
template <class Load, bool Shuffle>
__global__ void reducePassKernel(Load load, long long n, float *out) {
  float v = 0.0f;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v += load(i);
  v = Shuffle ? blockSumShuffle(v) : blockSumTree(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// The naive reduction: every thread adds its element to *out with one
// atomicAdd (contention on one address; *out must be zeroed first).
template <class Load>
__global__ void reduceAtomicKernel(Load load, long long n, float *out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, load(i));
}

// ---------------------------------------------------------------- kernels

__global__ void fillKernel(float *x, int n, float value) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

// contrib[u] = x[u] / outdeg(u): loads x, invOut; stores contrib (12n bytes).
__global__ void scaleByOutDegreeKernel(const float *__restrict__ x,
                                       const float *__restrict__ invOut,
                                       float *__restrict__ contrib, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) contrib[i] = x[i] * invOut[i];
}

// Scalar CSR SpMV, one thread per row v: y[v] = sum of contrib[u] over the
// in-edges u -> v. Loads rowPtr[v], rowPtr[v+1] (4(n+1) bytes over the
// grid), colIdx (4nnz), gathers contrib (4nnz), stores y (4n).
__global__ void spmvCsrScalarKernel(const int *__restrict__ rowPtr,
                                    const int *__restrict__ colIdx,
                                    const float *__restrict__ contrib, float *__restrict__ y,
                                    int n) {
  const long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const int end = rowPtr[v + 1];
  float s = 0.0f;
  for (int e = rowPtr[v]; e < end; ++e) s += contrib[colIdx[e]];
  y[v] = s;
}

// Warp-per-row CSR SpMV: warp w owns row w; its lanes read consecutive
// column indices (one coalesced span per 32 edges), gather contrib, and
// reduce by shuffles; lane 0 stores y[w]. Same bytes as the scalar SpMV.
__global__ void spmvCsrWarpKernel(const int *__restrict__ rowPtr, const int *__restrict__ colIdx,
                                  const float *__restrict__ contrib, float *__restrict__ y,
                                  int n) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= n) return; // uniform across the warp
  const int begin = rowPtr[row];
  const int end = rowPtr[row + 1];
  float s = 0.0f;
  for (int e = begin + lane; e < end; e += 32) s += contrib[colIdx[e]];
  s = warpSum(s);
  if (lane == 0) y[row] = s;
}

// Naive T2 kernel: one thread per row computes the whole update from x,
// dividing by the out-degree per edge: loads rowPtr (4(n+1)), colIdx (4nnz),
// x[u] (4nnz), invOut[u] (4nnz), the mass (broadcast); stores xn (4n).
__global__ void naivePullCombineKernel(const int *__restrict__ rowPtr,
                                       const int *__restrict__ colIdx,
                                       const float *__restrict__ x,
                                       const float *__restrict__ invOut,
                                       const float *__restrict__ mass, float *__restrict__ xn,
                                       int n, float teleport, float d, float invN) {
  const long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const int end = rowPtr[v + 1];
  float s = 0.0f;
  for (int e = rowPtr[v]; e < end; ++e) {
    const int u = colIdx[e];
    s += x[u] * invOut[u];
  }
  xn[v] = teleport + d * (s + mass[0] * invN);
}

// x'[v] = (1-d)/n + d (y[v] + D/n), D read through a device pointer that
// every thread loads (a warp-wide broadcast). Loads y (4n), stores xn (4n).
__global__ void combineRanksKernel(const float *__restrict__ y, const float *__restrict__ scalars,
                                   float *__restrict__ xn, int n, float teleport, float d,
                                   float invN) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) xn[i] = teleport + d * (y[i] + scalars[0] * invN);
}

// Instrumentation: *out += sum of x, accumulated in double (correctness runs).
__global__ void sumF64Kernel(const float *__restrict__ x, long long n, double *out) {
  double v = 0.0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    v += static_cast<double>(x[i]);
  v = blockSumShuffle(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

// pVals[e] = invOut[colIdx[e]]: the values of P = A D^-1 for cuSPARSE.
__global__ void buildPValuesKernel(const int *__restrict__ colIdx,
                                   const float *__restrict__ invOut, float *__restrict__ pVals,
                                   int nnz) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < nnz) pVals[e] = invOut[colIdx[e]];
}

// ---------------------------------------------------------------- launchers

int fillRanks(float *x, int n, float value, Err &e) {
  const int g = blocksFor(n, kThreadsPerBlock);
  fillKernel<<<g, kThreadsPerBlock>>>(x, n, value);
  PR_LAUNCH(e, "fillKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int stageScale(Ctx &c, const float *x, Err &e) {
  const int g = blocksFor(c.n, kThreadsPerBlock);
  scaleByOutDegreeKernel<<<g, kThreadsPerBlock>>>(x, c.invOut, c.contrib, c.n);
  PR_LAUNCH(e, "scaleByOutDegreeKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int stageSpmvScalar(Ctx &c, Err &e) {
  const int g = blocksFor(c.n, kThreadsPerBlock);
  spmvCsrScalarKernel<<<g, kThreadsPerBlock>>>(c.rowPtr, c.colIdx, c.contrib, c.y, c.n);
  PR_LAUNCH(e, "spmvCsrScalarKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int stageSpmvWarp(Ctx &c, Err &e) {
  const int g = blocksFor(static_cast<long long>(c.n) * 32, kThreadsPerBlock);
  spmvCsrWarpKernel<<<g, kThreadsPerBlock>>>(c.rowPtr, c.colIdx, c.contrib, c.y, c.n);
  PR_LAUNCH(e, "spmvCsrWarpKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int stageNaivePullCombine(Ctx &c, const float *x, float *xn, float d, Err &e) {
  const int g = blocksFor(c.n, kThreadsPerBlock);
  naivePullCombineKernel<<<g, kThreadsPerBlock>>>(c.rowPtr, c.colIdx, x, c.invOut, c.scalars, xn,
                                                  c.n, teleportOf(d, c.n), d, invNOf(c.n));
  PR_LAUNCH(e, "naivePullCombineKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int stageCombine(Ctx &c, float *xn, float d, Err &e) {
  const int g = blocksFor(c.n, kThreadsPerBlock);
  combineRanksKernel<<<g, kThreadsPerBlock>>>(c.y, c.scalars, xn, c.n, teleportOf(d, c.n), d,
                                              invNOf(c.n));
  PR_LAUNCH(e, "combineRanksKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

// Two passes: the first launches grid = min(kReduceBlocks, ceil(n/threads))
// blocks that each write one partial; the second is one block that writes
// *out. Total floats written: grid + 1.
template <class Load>
static int twoPass(bool shuffle, Load load, long long n, int threads, float *partials, float *out,
                   int *gridBlocks, const char *what, Err &e) {
  int grid = blocksFor(n, threads);
  if (grid > kReduceBlocks) grid = kReduceBlocks;
  if (gridBlocks) *gridBlocks = grid;
  const size_t shmem = shuffle ? 0 : static_cast<size_t>(threads) * sizeof(float);
  if (shuffle)
    reducePassKernel<Load, true><<<grid, threads, shmem>>>(load, n, partials);
  else
    reducePassKernel<Load, false><<<grid, threads, shmem>>>(load, n, partials);
  PR_LAUNCH(e, "%s pass 1 (%s) <<<%d, %d>>>", what, shuffle ? "shuffle" : "tree", grid, threads);
  PartialsLoad second{partials};
  if (shuffle)
    reducePassKernel<PartialsLoad, true><<<1, threads, shmem>>>(second, grid, out);
  else
    reducePassKernel<PartialsLoad, false><<<1, threads, shmem>>>(second, grid, out);
  PR_LAUNCH(e, "%s pass 2 (%s) <<<1, %d>>>", what, shuffle ? "shuffle" : "tree", threads);
  return PRLAB_OK;
}

template <class Load>
static int atomicReduce(Load load, long long n, int threads, float *out, int *gridBlocks,
                        const char *what, Err &e) {
  PR_CUDA(e, cudaMemsetAsync(out, 0, sizeof(float)), "cudaMemsetAsync(%s accumulator, 4 bytes)",
          what);
  const int grid = blocksFor(n, threads);
  if (gridBlocks) *gridBlocks = grid;
  reduceAtomicKernel<Load><<<grid, threads>>>(load, n, out);
  PR_LAUNCH(e, "%s (one atomicAdd per thread) <<<%d, %d>>>", what, grid, threads);
  return PRLAB_OK;
}

static int reduceDispatch(int kind, int which, long long n, const float *a, const float *b,
                          const unsigned char *mask, int threads, float *partials, float *out,
                          int *gridBlocks, Err &e) {
  const char *what = which == 0 ? "dangling mass" : "residual";
  if (which == 0) {
    DanglingLoad L{a, mask};
    if (kind == PRLAB_REDUCE_ATOMIC) return atomicReduce(L, n, threads, out, gridBlocks, what, e);
    return twoPass(kind == PRLAB_REDUCE_SHUFFLE, L, n, threads, partials, out, gridBlocks, what, e);
  }
  AbsDiffLoad L{a, b};
  if (kind == PRLAB_REDUCE_ATOMIC) return atomicReduce(L, n, threads, out, gridBlocks, what, e);
  return twoPass(kind == PRLAB_REDUCE_SHUFFLE, L, n, threads, partials, out, gridBlocks, what, e);
}

int stageDangling(Ctx &c, int kind, const float *x, Err &e) {
  return reduceDispatch(kind, 0, c.n, x, nullptr, c.dangling, kThreadsPerBlock, c.partials,
                        c.scalars, nullptr, e);
}

int stageResidual(Ctx &c, int kind, const float *x, const float *xn, float *out, Err &e) {
  return reduceDispatch(kind, 1, c.n, x, xn, nullptr, kThreadsPerBlock, c.partials, out, nullptr,
                        e);
}

int reduceWith(int kind, int which, int n, const float *a, const float *b,
               const unsigned char *mask, int threads, float *partials, float *out,
               int *gridBlocks, Err &e) {
  return reduceDispatch(kind, which, n, a, b, mask, threads, partials, out, gridBlocks, e);
}

int instrumentSum(const float *x, int n, double *out, Err &e) {
  int g = blocksFor(n, kThreadsPerBlock);
  if (g > kReduceBlocks) g = kReduceBlocks;
  sumF64Kernel<<<g, kThreadsPerBlock>>>(x, n, out);
  PR_LAUNCH(e, "sumF64Kernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int buildPValues(Ctx &c, Err &e) {
  if (c.nnz == 0) return PRLAB_OK;
  const int g = blocksFor(c.nnz, kThreadsPerBlock);
  buildPValuesKernel<<<g, kThreadsPerBlock>>>(c.colIdx, c.invOut, c.pVals, c.nnz);
  PR_LAUNCH(e, "buildPValuesKernel<<<%d, %d>>>", g, kThreadsPerBlock);
  return PRLAB_OK;
}

int kernelVersions(int *binary, int *ptx, Err &e) {
  cudaFuncAttributes a;
  PR_CUDA(e, cudaFuncGetAttributes(&a, spmvCsrWarpKernel),
          "cudaFuncGetAttributes(spmvCsrWarpKernel)");
  *binary = a.binaryVersion;
  *ptx = a.ptxVersion;
  return PRLAB_OK;
}

} // namespace prlab
