// api.cu — the extern "C" API of libprlab_cuda.so (see prlab_cuda.h): device
// info, graph upload, the iteration of every stage-by-stage design (from the
// table of designs, prlab_designs), correctness
// runs, CUDA-event timing of whole runs, of single stages and of copy rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cluster_dsmem.cuh"
#include "common.cuh"
#include "family.cuh"
#include "layout.cuh"

#define PRLAB_STR2(...) #__VA_ARGS__
#define PRLAB_STR(...) PRLAB_STR2(__VA_ARGS__)

namespace prlab {

int checkHandle(void *h, Err &e) {
  if (h == nullptr) return fail(e, PRLAB_ERR_ARG, "graph handle is NULL");
  Ctx &c = *static_cast<Ctx *>(h);
  PR_CUDA(e, cudaSetDevice(c.device), "cudaSetDevice(%d)", c.device);
  return PRLAB_OK;
}

// The row of design impl in the table of designs (prlab_cuda.h), or NULL.
static const prlab_design *designOf(int impl) {
  for (const prlab_design &d : prlab_designs)
    if (d.impl == impl) return &d;
  return nullptr;
}

static int checkDesign(int impl, const prlab_design **out, Err &e) {
  *out = designOf(impl);
  if (*out == nullptr)
    return fail(e, PRLAB_ERR_ARG, "implementation %d is not a design of this library (prlab_designs)", impl);
  return PRLAB_OK;
}

// The family of the designs that list stage s (PRLAB_FAMILY_STAGES for the
// stage catalogue 0 .. PRLAB_STAGE_COUNT-1), or -1.
static int stageFamily(int s) {
  if (s >= 0 && s < PRLAB_STAGE_COUNT) return PRLAB_FAMILY_STAGES;
  for (const prlab_design &d : prlab_designs)
    for (int st : d.stages)
      if (st >= 0 && st == s) return d.family;
  return -1;
}

int checkDamping(float d, Err &e) {
  if (!(d > 0.0f && d < 1.0f))
    return fail(e, PRLAB_ERR_ARG, "damping factor %g out of range (0, 1)", static_cast<double>(d));
  return PRLAB_OK;
}

int checkRunArgs(const Ctx &c, float d, int iterations, const float *ranks, const float *residuals,
                 const double *sums, const int *done, const int *converged, Err &e) {
  PR_TRY(checkDamping(d, e));
  if (iterations < 1 || iterations > c.maxIter)
    return fail(e, PRLAB_ERR_ARG, "iterations %d out of range [1, %d] (max_iterations at upload)",
                iterations, c.maxIter);
  if (!ranks || !residuals || !sums || !done || !converged)
    return fail(e, PRLAB_ERR_ARG, "an output pointer is NULL");
  return PRLAB_OK;
}

int checkBenchArgs(float d, int iterations, int warmups, int runs, const float *runsMs, Err &e) {
  PR_TRY(checkDamping(d, e));
  if (iterations < 1 || warmups < 0 || runs < 1 || !runsMs)
    return fail(e, PRLAB_ERR_ARG, "iterations %d, warmups %d, runs %d: need >= 1, >= 0, >= 1",
                iterations, warmups, runs);
  return PRLAB_OK;
}

int residualBelow(const Ctx &c, int k, float tol, bool *below, Err &e) {
  float r = 0.0f;
  PR_CUDA(e, cudaMemcpy(&r, c.residHist + k - 1, 4, cudaMemcpyDeviceToHost),
          "cudaMemcpy(residual %d, 4 bytes, device to host)", k);
  *below = r < tol;
  return PRLAB_OK;
}

int copyRunOut(const Ctx &c, const float *x, int k, float *ranks, float *residuals, double *sums, Err &e) {
  const size_t N = static_cast<size_t>(c.n), K = static_cast<size_t>(k);
  PR_CUDA(e, cudaMemcpy(ranks, x, 4 * N, cudaMemcpyDeviceToHost),
          "cudaMemcpy(ranks, %zu bytes, device to host)", 4 * N);
  PR_CUDA(e, cudaMemcpy(residuals, c.residHist, 4 * K, cudaMemcpyDeviceToHost),
          "cudaMemcpy(residuals, %zu bytes, device to host)", 4 * K);
  PR_CUDA(e, cudaMemcpy(sums, c.sumHist, 8 * K, cudaMemcpyDeviceToHost),
          "cudaMemcpy(sums, %zu bytes, device to host)", 8 * K);
  return PRLAB_OK;
}

bool clusterSchedulable(const void *fn, const char *name, int C, int threads, size_t smem, std::string *why) {
  cudaError_t st = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (st == cudaSuccess && C > 8) st = cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (st != cudaSuccess) {
    *why = std::string("cudaFuncSetAttribute(") + name + "): " + cudaGetErrorString(st);
    cudaGetLastError();
    return false;
  }
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = clusterConfig(C, threads, smem, attr);
  int clusters = 0;
  st = cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg);
  if (st != cudaSuccess || clusters < 1) {
    *why = "a cluster of " + std::to_string(C) + " blocks of " + std::to_string(threads) + " threads with " +
           std::to_string(smem) + " bytes of shared memory cannot be scheduled (" +
           (st != cudaSuccess ? cudaGetErrorString(st) : "0 active clusters") + ")";
    cudaGetLastError();
    return false;
  }
  return true;
}

int deviceLimits(int device, int *sms, int *smemOptin, int *ccMajor, Err &e) {
  if (sms)
    PR_CUDA(e, cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device),
            "cudaDeviceGetAttribute(multiProcessorCount)");
  if (smemOptin)
    PR_CUDA(e, cudaDeviceGetAttribute(smemOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            "cudaDeviceGetAttribute(maxSharedMemoryPerBlockOptin)");
  if (ccMajor)
    PR_CUDA(e, cudaDeviceGetAttribute(ccMajor, cudaDevAttrComputeCapabilityMajor, device),
            "cudaDeviceGetAttribute(computeCapabilityMajor)");
  return PRLAB_OK;
}

// Creates the library state stage s needs (outside any timed region).
static int prepareStage(Ctx &c, int s, Err &e) {
  switch (s) {
  case PRLAB_STAGE_SPMV_GATHER_CUB:
  case PRLAB_STAGE_DANGLING_THRUST_CUB:
  case PRLAB_STAGE_RESIDUAL_THRUST_CUB:
  case PRLAB_STAGE_SCALE_THRUST:
  case PRLAB_STAGE_COMBINE_THRUST:
    return thrustCubInit(c, e);
  case PRLAB_STAGE_SPMV_CUSPARSE:
    return cusparseInit(c, e);
  }
  return PRLAB_OK;
}

// Creates the library state a stage-by-stage design needs: that of its stages.
static int prepareDesign(Ctx &c, const prlab_design &D, Err &e) {
  for (int s : D.stages)
    if (s >= 0) PR_TRY(prepareStage(c, s, e));
  return prepareStage(c, D.residual_stage, e);
}

// One execution of stage s on x = xbuf[in], x' = xbuf[1-in]; Thrust calls
// with thrust::cuda::par_nosync when nosync; a residual stage writes the L1
// residual to *resid (a device pointer). No host synchronization except
// inside thrust::device algorithms.
static int stage(Ctx &c, int s, int in, float d, bool nosync, float *resid, Err &e) {
  const float *x = c.xbuf[in];
  float *xn = c.xbuf[1 - in];
  switch (s) {
  case PRLAB_STAGE_SCALE: return stageScale(c, x, e);
  case PRLAB_STAGE_SPMV_SCALAR: return stageSpmvScalar(c, e);
  case PRLAB_STAGE_SPMV_WARP: return stageSpmvWarp(c, e);
  case PRLAB_STAGE_SPMV_GATHER_CUB: return thrustSpmvGatherCub(c, nosync, e);
  case PRLAB_STAGE_SPMV_CUSPARSE: return cusparseSpmv(c, in, e);
  case PRLAB_STAGE_NAIVE_PULL_COMBINE: return stageNaivePullCombine(c, x, xn, d, e);
  case PRLAB_STAGE_DANGLING_ATOMIC: return stageDangling(c, PRLAB_REDUCE_ATOMIC, x, e);
  case PRLAB_STAGE_DANGLING_TREE: return stageDangling(c, PRLAB_REDUCE_TREE, x, e);
  case PRLAB_STAGE_DANGLING_SHUFFLE: return stageDangling(c, PRLAB_REDUCE_SHUFFLE, x, e);
  case PRLAB_STAGE_DANGLING_THRUST_CUB: return thrustDangling(c, x, nosync, e);
  case PRLAB_STAGE_RESIDUAL_ATOMIC: return stageResidual(c, PRLAB_REDUCE_ATOMIC, x, xn, resid, e);
  case PRLAB_STAGE_RESIDUAL_TREE: return stageResidual(c, PRLAB_REDUCE_TREE, x, xn, resid, e);
  case PRLAB_STAGE_RESIDUAL_SHUFFLE: return stageResidual(c, PRLAB_REDUCE_SHUFFLE, x, xn, resid, e);
  case PRLAB_STAGE_RESIDUAL_THRUST_CUB: return thrustResidual(c, x, xn, resid, nosync, e);
  case PRLAB_STAGE_COMBINE: return stageCombine(c, xn, d, e);
  case PRLAB_STAGE_SCALE_THRUST: return thrustScale(c, x, nosync, e);
  case PRLAB_STAGE_COMBINE_THRUST: return thrustCombine(c, xn, d, nosync, e);
  }
  return fail(e, PRLAB_ERR_ARG, "stage %d out of range [0, %d)", s, PRLAB_STAGE_COUNT);
}

// One PageRank iteration of stage-by-stage design D: xbuf[in] -> xbuf[1-in],
// its stages in the table's order (the timed loop's work), e.g.
//   naive:          memset D, D by one atomicAdd per thread, fused pull + combine
//   thread per row: scale, scalar SpMV, dangling tree (2 passes), combine
//   Thrust + CUB:   transform, gather, segmented reduce, transform, reduce, transform
static int iterate(Ctx &c, const prlab_design &D, int in, float d, Err &e) {
  for (int s : D.stages)
    if (s >= 0) PR_TRY(stage(c, s, in, d, D.nosync != 0, nullptr, e));
  return PRLAB_OK;
}

// D's own L1 residual of iteration xbuf[in] -> xbuf[1-in], into *out.
static int residual(Ctx &c, const prlab_design &D, int in, float *out, Err &e) {
  return stage(c, D.residual_stage, in, 0.0f, D.nosync != 0, out, e);
}

static void destroy(Ctx *c) {
  if (c == nullptr) return;
  cudaSetDevice(c->device);
  layoutStateFree(*c);
  for (const DesignFamily *f : kFamilies) f->stateFree(*c);
  dsmemStateFree(*c);
  libraryFree(*c);
  freeDevice(c->rowPtr, c->colIdx, c->invOut, c->dangling, c->xbuf[0], c->xbuf[1], c->contrib, c->y,
             c->gathered, c->diff, c->partials, c->scalars, c->residHist, c->sumHist);
  if (c->ev0) cudaEventDestroy(c->ev0);
  if (c->ev1) cudaEventDestroy(c->ev1);
  delete c;
}

static int create(int device, int n, int nnz, const int *rowPtr, const int *colIdx,
                  const float *invOut, const unsigned char *dangling, int maxIter, void **handle,
                  Err &e) {
  if (handle == nullptr) return fail(e, PRLAB_ERR_ARG, "handle output pointer is NULL");
  *handle = nullptr;
  if (n < 1) return fail(e, PRLAB_ERR_ARG, "node count n = %d must be >= 1", n);
  if (nnz < 0) return fail(e, PRLAB_ERR_ARG, "edge count nnz = %d must be >= 0", nnz);
  if (maxIter < 1) return fail(e, PRLAB_ERR_ARG, "max_iterations = %d must be >= 1", maxIter);
  if (!rowPtr || (nnz > 0 && !colIdx) || !invOut || !dangling)
    return fail(e, PRLAB_ERR_ARG, "a graph array is NULL");
  if (rowPtr[0] != 0 || rowPtr[n] != nnz)
    return fail(e, PRLAB_ERR_ARG, "row pointer must start at 0 and end at nnz = %d (got %d .. %d)",
                nnz, rowPtr[0], rowPtr[n]);
  for (int v = 0; v < n; ++v)
    if (rowPtr[v + 1] < rowPtr[v])
      return fail(e, PRLAB_ERR_ARG, "row pointer decreases at row %d (%d > %d)", v, rowPtr[v],
                  rowPtr[v + 1]);
  for (int k = 0; k < nnz; ++k)
    if (colIdx[k] < 0 || colIdx[k] >= n)
      return fail(e, PRLAB_ERR_ARG, "column index %d at position %d outside [0, %d)", colIdx[k], k,
                  n);

  int count = 0;
  PR_CUDA(e, cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (device < 0 || device >= count)
    return fail(e, PRLAB_ERR_ARG, "device %d out of range [0, %d)", device, count);
  PR_CUDA(e, cudaSetDevice(device), "cudaSetDevice(%d)", device);

  Ctx *c = new (std::nothrow) Ctx();
  if (c == nullptr) return fail(e, PRLAB_ERR_INTERNAL, "host allocation of the context failed");
  c->device = device;
  c->n = n;
  c->nnz = nnz;
  c->maxIter = maxIter;
  const size_t N = static_cast<size_t>(n), NNZ = static_cast<size_t>(nnz);
  int rc = PRLAB_OK;
  auto alloc = [&](void *pp, size_t bytes, const char *name) {
    if (rc == PRLAB_OK) rc = devAlloc(static_cast<void **>(pp), bytes, name, e);
  };
  alloc(&c->rowPtr, 4 * (N + 1), "d_rowPtr");
  alloc(&c->colIdx, 4 * NNZ, "d_colIdx");
  alloc(&c->invOut, 4 * N, "d_invOut");
  alloc(&c->dangling, N, "d_dangling");
  alloc(&c->xbuf[0], 4 * N, "d_x0");
  alloc(&c->xbuf[1], 4 * N, "d_x1");
  alloc(&c->contrib, 4 * N, "d_contrib");
  alloc(&c->y, 4 * N, "d_y");
  alloc(&c->gathered, 4 * NNZ, "d_gathered");
  alloc(&c->diff, 4 * N, "d_diff");
  alloc(&c->partials, 4 * static_cast<size_t>(kPartialsCapacity), "d_partials");
  alloc(&c->scalars, 4 * 4, "d_scalars");
  alloc(&c->residHist, 4 * static_cast<size_t>(maxIter), "d_residuals");
  alloc(&c->sumHist, 8 * static_cast<size_t>(maxIter), "d_sums");
  if (rc != PRLAB_OK) {
    destroy(c);
    return rc;
  }
  auto up = [&](void *dst, const void *src, size_t bytes, const char *name) -> int {
    if (bytes == 0) return PRLAB_OK;
    PR_CUDA(e, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
            "cudaMemcpy(%s, %zu bytes, host to device)", name, bytes);
    return PRLAB_OK;
  };
  if ((rc = up(c->rowPtr, rowPtr, 4 * (N + 1), "d_rowPtr")) != PRLAB_OK ||
      (rc = up(c->colIdx, colIdx, 4 * NNZ, "d_colIdx")) != PRLAB_OK ||
      (rc = up(c->invOut, invOut, 4 * N, "d_invOut")) != PRLAB_OK ||
      (rc = up(c->dangling, dangling, N, "d_dangling")) != PRLAB_OK) {
    destroy(c);
    return rc;
  }
  cudaError_t st = cudaMemset(c->scalars, 0, 16);
  if (st == cudaSuccess) st = cudaEventCreate(&c->ev0);
  if (st == cudaSuccess) st = cudaEventCreate(&c->ev1);
  if (st != cudaSuccess) {
    rc = fail(e, st, "cudaMemset/cudaEventCreate (context setup)");
    destroy(c);
    return rc;
  }
  *handle = c;
  return PRLAB_OK;
}

int runFrom(Ctx &c, int impl, float d, int iterations, float tol, const float *start, float *ranks,
            float *residuals, double *sums, int *done, int *converged, Err &e) {
  const prlab_design *D = nullptr;
  PR_TRY(checkDesign(impl, &D, e));
  if (D->family == PRLAB_FAMILY_LAYOUT && start != nullptr)
    return fail(e, PRLAB_ERR_ARG, "layout design %d cannot start from given ranks", impl);
  if (const DesignFamily *f = familyOfImpl(impl))
    return f->run(c, impl, d, iterations, tol, ranks, residuals, sums, done, converged, e);
  if (dsmemImpl(impl)) return dsmemRun(c, impl, d, iterations, tol, ranks, residuals, sums, done, converged, e);
  if (D->family == PRLAB_FAMILY_LAYOUT)
    return layoutRun(c, impl, d, iterations, tol, ranks, residuals, sums, done, converged, e);
  PR_TRY(checkRunArgs(c, d, iterations, ranks, residuals, sums, done, converged, e));
  PR_TRY(prepareDesign(c, *D, e));
  if (start != nullptr)
    PR_CUDA(e, cudaMemcpy(c.xbuf[0], start, 4 * static_cast<size_t>(c.n), cudaMemcpyHostToDevice),
            "cudaMemcpy(start ranks, %zu bytes, host to device)", 4 * static_cast<size_t>(c.n));
  else
    PR_TRY(fillRanks(c.xbuf[0], c.n, static_cast<float>(1.0 / c.n), e));
  return runIterations(
      c, iterations, tol,
      [&](int k) -> int {
        PR_TRY(iterate(c, *D, k & 1, d, e));
        return residual(c, *D, k & 1, c.residHist + k, e);
      },
      ranks, residuals, sums, done, converged, "", e);
}

static int benchmark(Ctx &c, int impl, float d, int iterations, int warmups, int runs,
                     float *runsMs, float *ranks, Err &e) {
  const prlab_design *D = nullptr;
  PR_TRY(checkDesign(impl, &D, e));
  if (const DesignFamily *f = familyOfImpl(impl)) return f->benchmark(c, impl, d, iterations, warmups, runs, runsMs, ranks, e);
  if (dsmemImpl(impl)) return dsmemBenchmark(c, impl, d, iterations, warmups, runs, runsMs, ranks, e);
  if (D->family == PRLAB_FAMILY_LAYOUT)
    return layoutBenchmark(c, impl, d, iterations, warmups, runs, runsMs, ranks, e);
  PR_TRY(checkBenchArgs(d, iterations, warmups, runs, runsMs, e));
  PR_TRY(prepareDesign(c, *D, e));
  int in = 0;
  PR_TRY(timeRuns(
      EventClock{c.ev0, c.ev1, 0}, warmups, runs, runsMs,
      [&]() {
        in = 0;
        return fillRanks(c.xbuf[0], c.n, static_cast<float>(1.0 / c.n), e); // outside the events
      },
      [&]() -> int {
        for (int k = 0; k < iterations; ++k) {
          PR_TRY(iterate(c, *D, in, d, e));
          in = 1 - in;
        }
        return PRLAB_OK;
      },
      "benchmark", e));
  if (ranks)
    PR_CUDA(e, cudaMemcpy(ranks, c.xbuf[in], 4 * static_cast<size_t>(c.n), cudaMemcpyDeviceToHost),
            "cudaMemcpy(ranks, %zu bytes, device to host)", 4 * static_cast<size_t>(c.n));
  return PRLAB_OK;
}

float medianOf(std::vector<float> v) {
  if (v.empty()) return 0.0f;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5f * (v[m - 1] + v[m]);
}

static int timeStage(Ctx &c, int s, float d, int warmups, int repeats, float *med, Err &e) {
  const int family = stageFamily(s);
  if (family == PRLAB_FAMILY_LAYOUT) return layoutTimeStage(c, s, d, warmups, repeats, med, e);
  if (family != PRLAB_FAMILY_STAGES)
    return fail(e, PRLAB_ERR_ARG, "stage %d out of range [0, %d) and not a layout design's stage", s, PRLAB_STAGE_COUNT);
  PR_TRY(checkDamping(d, e));
  if (warmups < 0 || repeats < 1 || !med)
    return fail(e, PRLAB_ERR_ARG, "warmups %d, repeats %d: need >= 0 and >= 1", warmups, repeats);
  // Library state for the library stages, then one full iteration so that
  // contrib, y, the gathered values and D hold the values of a real iteration.
  PR_TRY(prepareStage(c, s, e));
  PR_TRY(fillRanks(c.xbuf[0], c.n, static_cast<float>(1.0 / c.n), e));
  PR_TRY(iterate(c, *designOf(PRLAB_IMPL_WARP_PER_ROW), 0, d, e));
  std::vector<float> times(static_cast<size_t>(repeats));
  char what[32];
  snprintf(what, sizeof what, "stage %d", s);
  PR_TRY(timeRuns(EventClock{c.ev0, c.ev1, 0}, warmups, repeats, times.data(),
                  [&]() { return stage(c, s, 0, d, false, c.scalars + 1, e); }, what, e));
  *med = medianOf(times);
  return PRLAB_OK;
}

static int timeCopy(Ctx &c, long long bytesMoved, int warmups, int repeats, float *med, Err &e) {
  if (bytesMoved < 8 || warmups < 0 || repeats < 1 || !med)
    return fail(e, PRLAB_ERR_ARG, "copy of %lld bytes, warmups %d, repeats %d: need >= 8, >= 0, >= 1",
                bytesMoved, warmups, repeats);
  const size_t half = static_cast<size_t>(bytesMoved / 2);
  void *src = nullptr, *dst = nullptr;
  int rc = devAlloc(&src, half, "d_copySrc", e);
  if (rc == PRLAB_OK) rc = devAlloc(&dst, half, "d_copyDst", e);
  std::vector<float> times(static_cast<size_t>(repeats));
  if (rc == PRLAB_OK) {
    cudaError_t st = cudaMemset(src, 0x3f, half);
    if (st != cudaSuccess) rc = fail(e, st, "cudaMemset(d_copySrc, %zu bytes)", half);
  }
  if (rc == PRLAB_OK)
    rc = timeRuns(EventClock{c.ev0, c.ev1, 0}, warmups, repeats, times.data(), [&]() -> int {
      PR_CUDA(e, cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice),
              "cudaMemcpyAsync(device to device, %zu bytes)", half);
      return PRLAB_OK;
    }, "copy", e);
  freeDevice(src, dst);
  if (rc == PRLAB_OK) *med = medianOf(times);
  return rc;
}

static int checkReduction(Ctx &c, int kind, int which, int n, const float *a, const float *b,
                          const unsigned char *mask, int threads, double *value, int *written,
                          int *grid, Err &e) {
  // the context selects the device (checkHandle); buffers are the call's own
  if (kind < 0 || kind > PRLAB_REDUCE_CLUSTER || which < 0 || which > 1)
    return fail(e, PRLAB_ERR_ARG, "reduction kind %d / which %d out of range", kind, which);
  if (n < 1 || !a || (which == 1 && !b) || (which == 0 && !mask) || !value || !written || !grid)
    return fail(e, PRLAB_ERR_ARG, "n = %d must be >= 1 and the arrays non-NULL", n);
  if (threads < 32 || threads > 1024 || threads % 32 != 0 ||
      (kind == PRLAB_REDUCE_TREE && (threads & (threads - 1)) != 0))
    return fail(e, PRLAB_ERR_ARG,
                "threads per block %d: need a multiple of 32 in [32, 1024] (a power of two for the tree)",
                threads);
  const size_t N = static_cast<size_t>(n);
  const int scratchFloats = kPartialsCapacity + 1; // partials, then the result
  float *da = nullptr, *db = nullptr, *scratch = nullptr;
  unsigned char *dm = nullptr;
  int rc = devAlloc(reinterpret_cast<void **>(&da), 4 * N, "d_checkA", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&db), 4 * N, "d_checkB", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&dm), N, "d_checkMask", e);
  if (rc == PRLAB_OK)
    rc = devAlloc(reinterpret_cast<void **>(&scratch), 4 * scratchFloats, "d_checkScratch", e);
  std::vector<unsigned int> host(scratchFloats);
  cudaError_t st = cudaSuccess;
  if (rc == PRLAB_OK) {
    st = cudaMemcpy(da, a, 4 * N, cudaMemcpyHostToDevice);
    if (st == cudaSuccess && which == 1) st = cudaMemcpy(db, b, 4 * N, cudaMemcpyHostToDevice);
    if (st == cudaSuccess && which == 0) st = cudaMemcpy(dm, mask, N, cudaMemcpyHostToDevice);
    // Poison every scratch float with 0xFFFFFFFF (a NaN no sum produces).
    if (st == cudaSuccess) st = cudaMemset(scratch, 0xFF, 4 * scratchFloats);
    if (st != cudaSuccess) rc = fail(e, st, "check_reduction setup copies");
  }
  if (rc == PRLAB_OK)
    rc = kind == PRLAB_REDUCE_CLUSTER
             ? dsmemCheckReduction(c, which, n, da, db, dm, threads, scratch, scratch + kPartialsCapacity, grid, e)
             : reduceWith(kind, which, n, da, db, dm, threads, scratch, scratch + kPartialsCapacity, grid, e);
  if (rc == PRLAB_OK) {
    st = cudaMemcpy(host.data(), scratch, 4 * scratchFloats, cudaMemcpyDeviceToHost);
    if (st != cudaSuccess) rc = fail(e, st, "cudaMemcpy(check scratch, device to host)");
  }
  if (rc == PRLAB_OK) {
    int changed = 0;
    for (unsigned int w : host)
      if (w != 0xFFFFFFFFu) ++changed;
    *written = changed;
    float r;
    std::memcpy(&r, &host[kPartialsCapacity], 4);
    *value = r;
  }
  freeDevice(da, db, dm, scratch);
  return rc;
}

} // namespace prlab

using prlab::Ctx;
using prlab::Err;

using prlab::entry;

static void archList(char *buf, size_t len) {
#if defined(__CUDA_ARCH_LIST__)
  snprintf(buf, len, "%s", PRLAB_STR(__CUDA_ARCH_LIST__));
#else
  snprintf(buf, len, "unknown");
#endif
}

extern "C" {

int prlab_abi_version(void) { return PRLAB_ABI_VERSION; }

int prlab_device_count(int *count, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    if (!count) return prlab::fail(e, PRLAB_ERR_ARG, "count pointer is NULL");
    *count = 0;
    PR_CUDA(e, cudaGetDeviceCount(count), "cudaGetDeviceCount");
    if (*count == 0) return prlab::fail(e, PRLAB_ERR_NO_DEVICE, "cudaGetDeviceCount: 0 devices");
    return PRLAB_OK;
  });
}

int prlab_device_info_get(int device, prlab_device_info *out, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    if (!out) return prlab::fail(e, PRLAB_ERR_ARG, "output pointer is NULL");
    std::memset(out, 0, sizeof(*out));
    PR_CUDA(e, cudaGetDeviceCount(&out->device_count), "cudaGetDeviceCount");
    if (device < 0 || device >= out->device_count)
      return prlab::fail(e, PRLAB_ERR_ARG, "device %d out of range [0, %d)", device,
                         out->device_count);
    PR_CUDA(e, cudaSetDevice(device), "cudaSetDevice(%d)", device);
    cudaDeviceProp p;
    PR_CUDA(e, cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties(%d)", device);
    snprintf(out->name, sizeof(out->name), "%s", p.name);
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->sm_count = p.multiProcessorCount;
    out->l2_bytes = p.l2CacheSize;
    out->max_threads_per_block = p.maxThreadsPerBlock;
    out->warp_size = p.warpSize;
    out->global_mem_bytes = static_cast<long long>(p.totalGlobalMem);
    PR_CUDA(e, cudaDriverGetVersion(&out->driver_version), "cudaDriverGetVersion");
    PR_CUDA(e, cudaRuntimeGetVersion(&out->runtime_version), "cudaRuntimeGetVersion");
    out->cusparse_version = prlab::cusparseVersion();
    PR_TRY(prlab::kernelVersions(&out->kernel_binary_version, &out->kernel_ptx_version, e));
    prlab::cclVersion(out->cccl_version, sizeof(out->cccl_version));
    archList(out->compiled_archs, sizeof(out->compiled_archs));
    return PRLAB_OK;
  });
}

int prlab_graph_create(int device, int n, int nnz, const int *row_ptr, const int *col_idx,
                       const float *inv_out, const unsigned char *dangling, int max_iterations,
                       void **handle, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    return prlab::create(device, n, nnz, row_ptr, col_idx, inv_out, dangling, max_iterations, handle, e);
  });
}

int prlab_graph_free(void *handle, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    (void)e;
    prlab::destroy(static_cast<Ctx *>(handle));
    return PRLAB_OK;
  });
}

int prlab_run(void *handle, int impl, float damping, int iterations, float tolerance, float *ranks,
              float *residuals, double *sums, int *iterations_done, int *converged, char *msg,
              int msg_len) {
  return prlab::graphEntry(handle, msg, msg_len, [&](Ctx &c, Err &e) -> int {
    return prlab::runFrom(c, impl, damping, iterations, tolerance,
                          nullptr, ranks, residuals, sums, iterations_done, converged, e);
  });
}

int prlab_benchmark(void *handle, int impl, float damping, int iterations, int warmups, int runs,
                    float *runs_ms, float *ranks, char *msg, int msg_len) {
  return prlab::graphEntry(handle, msg, msg_len, [&](Ctx &c, Err &e) -> int {
    return prlab::benchmark(c, impl, damping, iterations, warmups, runs, runs_ms, ranks, e);
  });
}

int prlab_time_stage(void *handle, int stage, float damping, int warmups, int repeats,
                     float *median_ms, char *msg, int msg_len) {
  return prlab::graphEntry(handle, msg, msg_len, [&](Ctx &c, Err &e) -> int {
    return prlab::timeStage(c, stage, damping, warmups, repeats, median_ms, e);
  });
}

int prlab_time_copy(void *handle, long long bytes_moved, int warmups, int repeats, float *median_ms,
                    char *msg, int msg_len) {
  return prlab::graphEntry(handle, msg, msg_len, [&](Ctx &c, Err &e) -> int {
    return prlab::timeCopy(c, bytes_moved, warmups, repeats, median_ms, e);
  });
}

int prlab_check_reduction(void *handle, int kind, int which, int n, const float *a, const float *b,
                          const unsigned char *mask, int threads_per_block, double *value,
                          int *floats_written, int *grid_blocks, char *msg, int msg_len) {
  return prlab::graphEntry(handle, msg, msg_len, [&](Ctx &c, Err &e) -> int {
    return prlab::checkReduction(c, kind, which, n, a, b, mask,
                                 threads_per_block, value, floats_written, grid_blocks, e);
  });
}

} // extern "C"
