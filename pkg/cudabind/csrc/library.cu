// library.cu — the library implementations: Thrust + CUB (no custom kernel)
// and cuSPARSE's generic SpMV.
//
// Only APIs present in both CCCL 2.x (CUDA 11.8 ships Thrust/CUB 1.17) and
// CCCL 3.0 (CUDA 13) are used: thrust::transform, thrust::gather,
// cub::DeviceSegmentedReduce::Sum, cub::DeviceReduce::Sum. No
// cub::DeviceSpmv (removed in CCCL 3.0; its migration guide points to
// cuSPARSE, which is the fifth implementation here).
#if defined(__has_include)
#if __has_include(<cuda/version>)
#include <cuda/version> // CCCL_VERSION (CCCL 2.3 and later)
#endif
#endif
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/transform.h>
#include <thrust/version.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>

#include <cstdio>
#include <exception>

#include "common.cuh"

namespace prlab {

// ---------------------------------------------------------------- functors

struct MaskedValue { // x * mask: the rank of a dangling node, 0 elsewhere
  __host__ __device__ float operator()(float x, unsigned char m) const {
    return x * static_cast<float>(m);
  }
};

struct AbsDiff { // |xn - x|
  __host__ __device__ float operator()(float x, float xn) const { return fabsf(xn - x); }
};

struct Combine { // x' = (1-d)/n + d (y + D/n), D read through a device pointer
  const float *scalars;
  float teleport, d, invN;
  __host__ __device__ float operator()(float y) const {
    return teleport + d * (y + scalars[0] * invN);
  }
};

// ---------------------------------------------------------------- Thrust + CUB

int thrustCubInit(Ctx &c, Err &e) {
  if (c.cubReady) return PRLAB_OK;
  size_t segBytes = 0, redBytes = 0;
  PR_CUDA(e,
          cub::DeviceSegmentedReduce::Sum(nullptr, segBytes, c.gathered, c.y, c.n, c.rowPtr,
                                          c.rowPtr + 1),
          "cub::DeviceSegmentedReduce::Sum(temp storage size, %d segments)", c.n);
  PR_CUDA(e, cub::DeviceReduce::Sum(nullptr, redBytes, c.diff, c.scalars, c.n),
          "cub::DeviceReduce::Sum(temp storage size, %d items)", c.n);
  c.cubTempBytes = segBytes > redBytes ? segBytes : redBytes;
  PR_TRY(devAlloc(&c.cubTemp, c.cubTempBytes, "d_cubTemp", e));
  c.cubReady = true;
  return PRLAB_OK;
}

// Runs body(policy) with thrust::device or thrust::cuda::par_nosync and turns
// a Thrust exception into a PRLAB_ERR_LIBRARY message naming the call.
template <class Body>
static int withPolicy(bool nosync, const char *what, Err &e, Body body) {
  try {
    if (nosync)
      body(thrust::cuda::par_nosync);
    else
      body(thrust::device);
  } catch (const std::exception &ex) {
    return fail(e, PRLAB_ERR_LIBRARY, "%s: %s", what, ex.what());
  } catch (...) {
    return fail(e, PRLAB_ERR_INTERNAL, "%s: unknown exception", what);
  }
  PR_CUDA(e, cudaGetLastError(), "%s", what);
  return PRLAB_OK;
}

int thrustScale(Ctx &c, const float *x, bool nosync, Err &e) {
  return withPolicy(nosync, "thrust::transform(x * invOut)", e, [&](const auto &pol) {
    thrust::transform(pol, x, x + c.n, c.invOut, c.contrib, thrust::multiplies<float>());
  });
}

int thrustSpmvGatherCub(Ctx &c, bool nosync, Err &e) {
  PR_TRY(withPolicy(nosync, "thrust::gather(contrib[colIdx])", e, [&](const auto &pol) {
    thrust::gather(pol, c.colIdx, c.colIdx + c.nnz, c.contrib, c.gathered);
  }));
  size_t bytes = c.cubTempBytes;
  PR_CUDA(e,
          cub::DeviceSegmentedReduce::Sum(c.cubTemp, bytes, c.gathered, c.y, c.n, c.rowPtr,
                                          c.rowPtr + 1),
          "cub::DeviceSegmentedReduce::Sum(%d segments, %d items)", c.n, c.nnz);
  return PRLAB_OK;
}

int thrustDangling(Ctx &c, const float *x, bool nosync, Err &e) {
  PR_TRY(withPolicy(nosync, "thrust::transform(x * dangling)", e, [&](const auto &pol) {
    thrust::transform(pol, x, x + c.n, c.dangling, c.diff, MaskedValue());
  }));
  size_t bytes = c.cubTempBytes;
  PR_CUDA(e, cub::DeviceReduce::Sum(c.cubTemp, bytes, c.diff, c.scalars, c.n),
          "cub::DeviceReduce::Sum(dangling mass, %d items)", c.n);
  return PRLAB_OK;
}

int thrustResidual(Ctx &c, const float *x, const float *xn, float *out, bool nosync, Err &e) {
  PR_TRY(withPolicy(nosync, "thrust::transform(|x' - x|)", e, [&](const auto &pol) {
    thrust::transform(pol, x, x + c.n, xn, c.diff, AbsDiff());
  }));
  size_t bytes = c.cubTempBytes;
  PR_CUDA(e, cub::DeviceReduce::Sum(c.cubTemp, bytes, c.diff, out, c.n),
          "cub::DeviceReduce::Sum(residual, %d items)", c.n);
  return PRLAB_OK;
}

int thrustCombine(Ctx &c, float *xn, float d, bool nosync, Err &e) {
  const Combine op{c.scalars, teleportOf(d, c.n), d, invNOf(c.n)};
  return withPolicy(nosync, "thrust::transform(Combine)", e,
                    [&](const auto &pol) { thrust::transform(pol, c.y, c.y + c.n, xn, op); });
}

// ---------------------------------------------------------------- cuSPARSE

// The cuSPARSE SpMV algorithm. CSR_ALG1 is the default (fastest here);
// building with -DPRLAB_CUSPARSE_ALG=CUSPARSE_SPMV_CSR_ALG2 selects the
// deterministic algorithm, which scripts/gpu-run.sh uses to check whether
// racecheck's hazards inside cuSPARSE's csrmv kernel belong to ALG1 alone.
#ifndef PRLAB_CUSPARSE_ALG
#define PRLAB_CUSPARSE_ALG CUSPARSE_SPMV_CSR_ALG1
#endif
#define PRLAB_STR2(x) #x
#define PRLAB_STR(x) PRLAB_STR2(x)

int cusparseInit(Ctx &c, Err &e) {
  if (c.spReady) return PRLAB_OK;
  const size_t pBytes = sizeof(float) * static_cast<size_t>(c.nnz);
  if (c.pVals == nullptr || c.pValsBytes < pBytes) { // kept across resident updates while it fits
    if (c.pVals) cudaFree(c.pVals);
    c.pVals = nullptr;
    c.pValsBytes = 0;
    PR_TRY(devAlloc(reinterpret_cast<void **>(&c.pVals), pBytes + pBytes / 8, "d_pVals", e));
    c.pValsBytes = pBytes + pBytes / 8;
  }
  PR_TRY(buildPValues(c, e));
  if (c.sp == nullptr) PR_CUSPARSE(e, cusparseCreate(&c.sp), "cusparseCreate");
  if (c.nnz > 0) {
    PR_CUSPARSE(e,
                cusparseCreateCsr(&c.spA, c.n, c.n, c.nnz, c.rowPtr, c.colIdx, c.pVals,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  CUDA_R_32F),
                "cusparseCreateCsr(%d x %d, nnz %d)", c.n, c.n, c.nnz);
    for (int i = 0; i < 2; ++i)
      PR_CUSPARSE(e, cusparseCreateDnVec(&c.spX[i], c.n, c.xbuf[i], CUDA_R_32F),
                  "cusparseCreateDnVec(x%d, %d)", i, c.n);
    PR_CUSPARSE(e, cusparseCreateDnVec(&c.spY, c.n, c.y, CUDA_R_32F), "cusparseCreateDnVec(y, %d)",
                c.n);
    const float alpha = 1.0f, beta = 0.0f;
    size_t need = 0;
    PR_CUSPARSE(e,
                cusparseSpMV_bufferSize(c.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, c.spA,
                                        c.spX[0], &beta, c.spY, CUDA_R_32F,
                                        PRLAB_CUSPARSE_ALG, &need),
                "cusparseSpMV_bufferSize(%s)", PRLAB_STR(PRLAB_CUSPARSE_ALG));
    if (c.spBuf == nullptr || need > c.spBufBytes) { // kept across resident updates while it fits
      if (c.spBuf) cudaFree(c.spBuf);
      c.spBuf = nullptr;
      c.spBufBytes = 0;
      PR_TRY(devAlloc(&c.spBuf, need, "d_cusparseBuffer", e));
      c.spBufBytes = need;
    }
  }
  c.spReady = true;
  return PRLAB_OK;
}

int cusparseSpmv(Ctx &c, int in, Err &e) {
  if (c.nnz == 0) { // no edges: y = 0 (cuSPARSE is not called on an empty matrix)
    PR_CUDA(e, cudaMemsetAsync(c.y, 0, sizeof(float) * static_cast<size_t>(c.n)),
            "cudaMemsetAsync(d_y, %zu bytes)", sizeof(float) * static_cast<size_t>(c.n));
    return PRLAB_OK;
  }
  const float alpha = 1.0f, beta = 0.0f;
  PR_CUSPARSE(e,
              cusparseSpMV(c.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, c.spA, c.spX[in], &beta,
                           c.spY, CUDA_R_32F, PRLAB_CUSPARSE_ALG, c.spBuf),
              "cusparseSpMV(%s, n %d, nnz %d)", PRLAB_STR(PRLAB_CUSPARSE_ALG), c.n, c.nnz);
  PR_CUDA(e, cudaGetLastError(), "cusparseSpMV launch");
  return PRLAB_OK;
}

// Drops what is built on the graph's arrays: cuSPARSE's matrix and vector
// descriptors and CUB's temporary storage.
static void dropGraphState(Ctx &c) {
  if (c.spY) cusparseDestroyDnVec(c.spY);
  for (int i = 0; i < 2; ++i)
    if (c.spX[i]) cusparseDestroyDnVec(c.spX[i]);
  if (c.spA) cusparseDestroySpMat(c.spA);
  c.spY = nullptr;
  c.spX[0] = c.spX[1] = nullptr;
  c.spA = nullptr;
  freeDevice(c.cubTemp);
  c.cubTempBytes = 0;
  c.spReady = c.cubReady = false;
}

void libraryFree(Ctx &c) {
  dropGraphState(c);
  if (c.sp) cusparseDestroy(c.sp);
  c.sp = nullptr;
  freeDevice(c.spBuf, c.pVals);
}

int libraryGraphChanged(Ctx &c, Err &e) {
  (void)e;
  dropGraphState(c); // pVals and the SpMV buffer are reused while they fit
  return PRLAB_OK;
}

void cclVersion(char *buf, int len) {
#if defined(CCCL_VERSION)
  snprintf(buf, static_cast<size_t>(len), "CCCL %d.%d.%d", CCCL_VERSION / 1000000,
           (CCCL_VERSION / 1000) % 1000, CCCL_VERSION % 1000);
#else
  snprintf(buf, static_cast<size_t>(len), "Thrust %d.%d.%d / CUB %d.%d.%d", THRUST_VERSION / 100000,
           (THRUST_VERSION / 100) % 1000, THRUST_VERSION % 100, CUB_VERSION / 100000,
           (CUB_VERSION / 100) % 1000, CUB_VERSION % 100);
#endif
}

int cusparseVersion() {
  int major = 0, minor = 0, patch = 0;
  cusparseGetProperty(MAJOR_VERSION, &major);
  cusparseGetProperty(MINOR_VERSION, &minor);
  cusparseGetProperty(PATCH_LEVEL, &patch);
  return major * 1000 + minor * 100 + patch;
}

} // namespace prlab
