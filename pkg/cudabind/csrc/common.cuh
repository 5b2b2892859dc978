// common.cuh — shared by the translation units of libprlab_cuda.so: the
// per-graph context, error reporting, launch constants, the host-side
// stage functions each .cu file provides to the others, and the host steps
// every family of designs takes (upload, the family's state, the CUDA-event
// timing loop, argument checks, copying a run out, one-cluster launches,
// entry points on a handle), written once here.
//
// Error convention: every function that can fail returns an int status
// (PRLAB_OK or a PRLAB_ERR_* code) and writes a message naming the failing
// call into an Err. Nothing here throws; library.cu catches Thrust's
// exceptions and converts them.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "prlab_cuda.h"

namespace prlab {

// The damping step's two constants for n nodes and damping factor d, as
// every design's host code passes them to its kernels: the teleport term
// (1 - d)/n and 1/n (the dangling mass's share), computed in double and
// rounded once to float.
inline float teleportOf(float d, int n) {
  return static_cast<float>((1.0 - static_cast<double>(d)) / static_cast<double>(n));
}
inline float invNOf(int n) { return static_cast<float>(1.0 / static_cast<double>(n)); }

// Launch shape shared by every hand-written kernel.
constexpr int kThreadsPerBlock = 256;
// Most blocks a first reduction pass launches; the second pass is one block
// that sums their partials, so a two-pass reduction writes at most
// kReduceBlocks + 1 floats (the course's gridDim.x + 1 budget).
constexpr int kReduceBlocks = 256;
// Capacity of the partials buffer (first-pass grids never exceed kReduceBlocks).
constexpr int kPartialsCapacity = kReduceBlocks;

// Err is the caller's message buffer.
struct Err {
  char *buf;
  int len;
};

// Failure is why a call fails: the status code returned (PRLAB_ERR_*) and,
// from a CUDA or cuSPARSE status, the text that follows the message. A CUDA
// status gives ": <cudaGetErrorString> (<cudaGetErrorName>)" and
// PRLAB_ERR_NO_DEVICE for a missing device or driver, else PRLAB_ERR_CUDA;
// a cuSPARSE status ": <cusparseGetErrorString> (cuSPARSE status N)" and
// PRLAB_ERR_LIBRARY.
struct Failure {
  int code;
  char status[160];
  // Implicit on purpose: fail takes a PRLAB_ERR_* code or a status as it is.
  Failure(int c) : code(c), status{} {}
  Failure(cudaError_t st);
  Failure(cusparseStatus_t st);
};

// fail formats the message (printf) into e, followed by f's status text,
// and returns f's code: fail(e, PRLAB_ERR_ARG, ...), fail(e, cudaStatus, ...).
int fail(Err &e, Failure f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

// PR_CUDA(E, call, fmt, ...) returns from the enclosing function when call fails.
#define PR_CUDA(E, call, ...)                                                                      \
  do {                                                                                             \
    cudaError_t pr_st_ = (call);                                                                   \
    if (pr_st_ != cudaSuccess) return ::prlab::fail((E), pr_st_, __VA_ARGS__);                     \
  } while (0)

// PR_LAUNCH(E, fmt, ...) checks the launch just made (cudaGetLastError).
#define PR_LAUNCH(E, ...)                                                                          \
  do {                                                                                             \
    cudaError_t pr_st_ = cudaGetLastError();                                                       \
    if (pr_st_ != cudaSuccess) return ::prlab::fail((E), pr_st_, __VA_ARGS__);                     \
  } while (0)

#define PR_CUSPARSE(E, call, ...)                                                                  \
  do {                                                                                             \
    cusparseStatus_t pr_sp_ = (call);                                                              \
    if (pr_sp_ != CUSPARSE_STATUS_SUCCESS) return ::prlab::fail((E), pr_sp_, __VA_ARGS__);         \
  } while (0)

#define PR_TRY(call)                                                                               \
  do {                                                                                             \
    int pr_rc_ = (call);                                                                           \
    if (pr_rc_ != PRLAB_OK) return pr_rc_;                                                         \
  } while (0)

// Ctx is one uploaded graph and every buffer its iterations use. All device
// pointers; shapes in brackets.
struct Ctx {
  int device = 0;
  int n = 0, nnz = 0, maxIter = 0;

  // The float in-edge CSR, uploaded once.
  int *rowPtr = nullptr;             // [n+1]
  int *colIdx = nullptr;             // [nnz]
  float *invOut = nullptr;           // [n]  1/outdeg, 0 for dangling nodes
  unsigned char *dangling = nullptr; // [n]  1 where outdeg == 0

  // Work buffers.
  float *xbuf[2] = {nullptr, nullptr}; // [n] ranks, ping-pong
  float *contrib = nullptr;            // [n] x * invOut
  float *y = nullptr;                  // [n] SpMV result
  float *gathered = nullptr;           // [nnz] Thrust + CUB: contrib[colIdx[e]]
  float *diff = nullptr;               // [n] Thrust + CUB: masked x or |x' - x|
  float *partials = nullptr;           // [kPartialsCapacity] first-pass partial sums
  float *scalars = nullptr;            // [4] [0] dangling mass D, [1] scratch residual
  float *residHist = nullptr;          // [maxIter] L1 residual of each iteration
  double *sumHist = nullptr;           // [maxIter] sum of ranks after each iteration
  cudaEvent_t ev0 = nullptr, ev1 = nullptr;

  // Thrust + CUB (library.cu), created on first use.
  bool cubReady = false;
  void *cubTemp = nullptr;
  size_t cubTempBytes = 0;

  // cuSPARSE (library.cu), created on first use.
  bool spReady = false;
  cusparseHandle_t sp = nullptr;
  cusparseSpMatDescr_t spA = nullptr;
  cusparseDnVecDescr_t spX[2] = {nullptr, nullptr};
  cusparseDnVecDescr_t spY = nullptr;
  void *spBuf = nullptr;
  size_t spBufBytes = 0;
  float *pVals = nullptr; // [nnz] P = A D^-1: pVals[e] = invOut[colIdx[e]]
  size_t pValsBytes = 0;  // its capacity

  // Layout designs (layout.cu): their state, created on first use, freed by layoutStateFree.
  void *layout = nullptr;
  // The hot-head design (hothead.cu): its state, created on first use, freed by hotheadStateFree.
  void *hothead = nullptr;
  // gpu-cluster-dsmem (cluster_dsmem.cu): its state, created on first use, freed by dsmemStateFree.
  void *dsmem = nullptr;
  // gpu-prop-blocking (propblock.cu): its state, created on first use, freed by propblockStateFree.
  void *propblock = nullptr;
};

// Allocates max(bytes, 16) bytes so that empty arrays (nnz = 0) still get a
// valid pointer; the message names the buffer and size.
int devAlloc(void **p, size_t bytes, const char *name, Err &e);

// upload allocates *dst (devAlloc: max(bytes, 16)) for src.size() elements
// of T and copies src into it; name is the buffer's name in messages. The
// pointer may be a read-only view (P = const T): a kernel's argument struct
// can own its device arrays.
template <class P, class T> int upload(P **dst, const std::vector<T> &src, const char *name, Err &e) {
  static_assert(std::is_same<typename std::remove_const<P>::type, T>::value, "upload: element types differ");
  void *p = nullptr;
  PR_TRY(devAlloc(&p, sizeof(T) * src.size(), name, e));
  *dst = static_cast<P *>(p);
  if (!src.empty())
    PR_CUDA(e, cudaMemcpy(p, src.data(), sizeof(T) * src.size(), cudaMemcpyHostToDevice),
            "cudaMemcpy(%s, %zu bytes, host to device)", name, sizeof(T) * src.size());
  return PRLAB_OK;
}

// freeDevice frees each device buffer that is set (cudaFree) and sets its
// pointer to nullptr, so that a freed state can be built again (a pointer
// to const is the owner's read-only view of its buffer).
template <class... T> void freeDevice(T *&...p) {
  auto one = [](auto *&q) {
    if (q) cudaFree(const_cast<void *>(static_cast<const void *>(q)));
    q = nullptr;
  };
  (one(p), ...);
}

// stateIn hands out the state a family of designs keeps in slot (a void *
// field of Ctx): on first use it creates a T (the message names `what`)
// and runs init(T &) on it (a failure keeps the state; it is freed with the
// context).
template <class T, class Init> int stateIn(void *&slot, T **out, const char *what, Init init, Err &e) {
  if (slot == nullptr) {
    T *s = new (std::nothrow) T();
    if (s == nullptr) return fail(e, PRLAB_ERR_INTERNAL, "host allocation of the %s state failed", what);
    slot = s;
    PR_TRY(init(*s));
  }
  *out = static_cast<T *>(slot);
  return PRLAB_OK;
}

// deviceLimits reads the device attributes the designs size their launches
// by: the SM count, the opt-in shared memory per block (bytes) and the
// compute capability's major number; a NULL output is not read.
int deviceLimits(int device, int *sms, int *smemOptin, int *ccMajor, Err &e);

// A start and a stop event and the stream they are recorded on.
struct EventClock {
  cudaEvent_t start, stop;
  cudaStream_t stream;
};

// timeRuns is the CUDA-event timing loop of every timed row: warmups +
// repeats runs, each before() (outside the events), then body() between the
// start and the stop event; it waits for the stop event and writes run r's
// milliseconds (cudaEventElapsedTime) to ms[r - warmups] for r >= warmups
// (ms holds repeats floats). `what` names the timed work in messages.
template <class Before, class Body>
int timeRuns(const EventClock &t, int warmups, int repeats, float *ms, Before before, Body body, const char *what,
             Err &e) {
  for (int r = 0; r < warmups + repeats; ++r) {
    PR_TRY(before());
    PR_CUDA(e, cudaEventRecord(t.start, t.stream), "cudaEventRecord(%s start, run %d)", what, r);
    PR_TRY(body());
    PR_CUDA(e, cudaEventRecord(t.stop, t.stream), "cudaEventRecord(%s stop, run %d)", what, r);
    PR_CUDA(e, cudaEventSynchronize(t.stop), "cudaEventSynchronize(%s, run %d)", what, r);
    float v = 0.0f;
    PR_CUDA(e, cudaEventElapsedTime(&v, t.start, t.stop), "cudaEventElapsedTime(%s, run %d)", what, r);
    if (r >= warmups) ms[r - warmups] = v;
  }
  return PRLAB_OK;
}
template <class Body>
int timeRuns(const EventClock &t, int warmups, int repeats, float *ms, Body body, const char *what, Err &e) {
  return timeRuns(t, warmups, repeats, ms, [] { return PRLAB_OK; }, body, what, e);
}

// The launch configuration of one thread-block cluster of C blocks of
// `threads` with `smem` bytes of dynamic shared memory on `stream` (a grid
// of exactly one cluster; attr must outlive the launch).
inline cudaLaunchConfig_t clusterConfig(int C, int threads, size_t smem, cudaLaunchAttribute *attr,
                                        cudaStream_t stream = 0) {
  cudaLaunchConfig_t cfg = {};
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(C);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(C));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// clusterSchedulable gives kernel fn (named `name` in the reason) `smem`
// bytes of dynamic shared memory, allows a non-portable cluster size when
// C > 8, and asks the device whether one cluster of C blocks of `threads`
// can be resident (cudaOccupancyMaxActiveClusters >= 1). False, with the
// reason in *why and the CUDA error cleared, when it cannot.
bool clusterSchedulable(const void *fn, const char *name, int C, int threads, size_t smem, std::string *why);

// Number of blocks of `threads` covering `items` (at least 1).
inline int blocksFor(long long items, int threads) {
  long long b = (items + threads - 1) / threads;
  return b < 1 ? 1 : static_cast<int>(b);
}

// ---- stages provided by kernels.cu (hand-written kernels) ----
// Each launches on the default stream, checks the launch, and never syncs.

int fillRanks(float *x, int n, float value, Err &e);
// contrib = x * invOut. Bytes: 4n (x) + 4n (invOut) + 4n (contrib) = 12n.
int stageScale(Ctx &c, const float *x, Err &e);
// y = A contrib, one thread per row. Bytes: 4(n+1) rowPtr + 4nnz colIdx + 4nnz contrib + 4n y.
int stageSpmvScalar(Ctx &c, Err &e);
// y = A contrib, one warp per row. Same bytes as the scalar SpMV.
int stageSpmvWarp(Ctx &c, Err &e);
// Naive fused pull + combine, thread per row: xn[v] = (1-d)/n + d (sum x[u] invOut[u] + D/n).
// Bytes: 4(n+1) rowPtr + 4nnz colIdx + 4nnz x[u] + 4nnz invOut[u] + 4n xn.
int stageNaivePullCombine(Ctx &c, const float *x, float *xn, float d, Err &e);
// Dangling mass D -> c.scalars[0]. Bytes: 4n (x) + 1n (mask) = 5n (+ partials, O(grid)).
int stageDangling(Ctx &c, int kind, const float *x, Err &e);
// L1 residual ||xn - x||_1 -> *out (a device float). Bytes: 8n.
int stageResidual(Ctx &c, int kind, const float *x, const float *xn, float *out, Err &e);
// xn = (1-d)/n + d (y + D/n). Bytes: 4n (y) + 4n (xn) (+ the broadcast D).
int stageCombine(Ctx &c, float *xn, float d, Err &e);
// Instrumentation (correctness runs only): *out += sum of x in double.
int instrumentSum(const float *x, int n, double *out, Err &e);
// P values for cuSPARSE: pVals[e] = invOut[colIdx[e]].
int buildPValues(Ctx &c, Err &e);
// Two-pass (tree, shuffle) or atomic reduction of the dangling mass (which = 0)
// or residual (which = 1) with a chosen block size, writing partials then *out.
int reduceWith(int kind, int which, int n, const float *a, const float *b,
               const unsigned char *mask, int threads, float *partials, float *out,
               int *gridBlocks, Err &e);
// SASS/PTX version of our kernels on the current device.
int kernelVersions(int *binary, int *ptx, Err &e);

// ---- stages provided by library.cu (Thrust, CUB, cuSPARSE) ----

int thrustCubInit(Ctx &c, Err &e);
// thrust::transform(x, invOut) -> contrib. Bytes 12n.
// nosync selects thrust::cuda::par_nosync instead of thrust::device (which
// synchronizes the stream after every transform and gather).
int thrustScale(Ctx &c, const float *x, bool nosync, Err &e);
// thrust::gather + cub::DeviceSegmentedReduce::Sum. Bytes 12nnz + (4nnz + 4(n+1) + 4n).
int thrustSpmvGatherCub(Ctx &c, bool nosync, Err &e);
// thrust::transform (masked x -> diff) + cub::DeviceReduce::Sum -> scalars[0]. Bytes 9n + 4n.
int thrustDangling(Ctx &c, const float *x, bool nosync, Err &e);
// thrust::transform (|xn - x| -> diff) + cub::DeviceReduce::Sum -> *out. Bytes 12n + 4n.
int thrustResidual(Ctx &c, const float *x, const float *xn, float *out, bool nosync, Err &e);
// thrust::transform(y) with the Combine functor -> xn. Bytes 8n.
int thrustCombine(Ctx &c, float *xn, float d, bool nosync, Err &e);
int cusparseInit(Ctx &c, Err &e);
// y = P x[in] with cusparseSpMV (CSR, float, ALG1). Bytes 4(n+1) + 4nnz + 4nnz + 4nnz + 4n.
int cusparseSpmv(Ctx &c, int in, Err &e);
void libraryFree(Ctx &c);
// Drops the library state built on c's graph (cuSPARSE's matrix and vector
// descriptors, CUB temporary storage) after the graph changed in place
// (resident.cu); the cuSPARSE handle, P values and SpMV buffer are kept
// (cusparseInit reuses them while they are large enough).
int libraryGraphChanged(Ctx &c, Err &e);
void cclVersion(char *buf, int len);
int cusparseVersion();

// ---- shared by the entry points of api.cu and layout.cu (defined in api.cu)

// checkHandle fails with PRLAB_ERR_ARG for a NULL graph handle, else makes
// the handle's device current.
int checkHandle(void *h, Err &e);
// checkDamping fails with PRLAB_ERR_ARG unless 0 < d < 1.
int checkDamping(float d, Err &e);
// runFrom is prlab_run from the host ranks start[n] (NULL: x = 1/n; a
// layout design accepts NULL only).
int runFrom(Ctx &c, int impl, float d, int iterations, float tol, const float *start, float *ranks,
            float *residuals, double *sums, int *done, int *converged, Err &e);
// checkRunArgs is prlab_run's argument check: 0 < d < 1, 1 <= iterations
// <= c.maxIter (max_iterations at upload), and no NULL output pointer.
int checkRunArgs(const Ctx &c, float d, int iterations, const float *ranks, const float *residuals,
                 const double *sums, const int *done, const int *converged, Err &e);
// checkBenchArgs is prlab_benchmark's: 0 < d < 1, iterations >= 1,
// warmups >= 0, runs >= 1 and runsMs set.
int checkBenchArgs(float d, int iterations, int warmups, int runs, const float *runsMs, Err &e);
// residualBelow reads the L1 residual of iteration k (c.residHist[k-1], one
// 4-byte copy) and sets *below when it is under tol: the host's convergence
// test of the designs that launch once per iteration.
int residualBelow(const Ctx &c, int k, float tol, bool *below, Err &e);
// copyRunOut copies a run of k iterations to the host: ranks[n] from the
// device vector x, residuals[k] and sums[k] from c.residHist and c.sumHist
// (4n + 4k + 8k bytes).
int copyRunOut(const Ctx &c, const float *x, int k, float *ranks, float *residuals, double *sums, Err &e);
// runIterations is the loop of a correctness run whose iteration k reads
// c.xbuf[k % 2] and writes c.xbuf[1 - k % 2] (x_0 already in c.xbuf[0]):
// it zeroes c.residHist and c.sumHist, then for k = 0, 1, ..: step(k) (the
// iteration and its L1 residual into c.residHist[k]), the rank sum
// (instrumentSum) and the host's convergence test (residualBelow, tol > 0);
// then *done = k, *converged, copyRunOut and a device synchronisation
// (`what`, e.g. "hot-head ", names the iterations in its message).
template <class Step>
int runIterations(Ctx &c, int iterations, float tol, Step step, float *ranks, float *residuals, double *sums,
                  int *done, int *converged, const char *what, Err &e) {
  PR_CUDA(e, cudaMemsetAsync(c.residHist, 0, 4 * static_cast<size_t>(iterations)), "cudaMemsetAsync(d_residuals)");
  PR_CUDA(e, cudaMemsetAsync(c.sumHist, 0, 8 * static_cast<size_t>(iterations)), "cudaMemsetAsync(d_sums)");
  int k = 0;
  *converged = 0;
  while (k < iterations) {
    PR_TRY(step(k));
    PR_TRY(instrumentSum(c.xbuf[1 - (k & 1)], c.n, c.sumHist + k, e));
    ++k;
    bool below = false; // the host decides whether to stop: one 4-byte copy
    if (tol > 0.0f) PR_TRY(residualBelow(c, k, tol, &below, e));
    if (below) {
      *converged = 1;
      break;
    }
  }
  *done = k;
  PR_TRY(copyRunOut(c, c.xbuf[k & 1], k, ranks, residuals, sums, e));
  PR_CUDA(e, cudaDeviceSynchronize(), "cudaDeviceSynchronize (after %d %siterations)", k, what);
  return PRLAB_OK;
}

// runLaunched is prlab_run of a design that launches once per iteration
// (the pair of timeIterations): prologue() writes x_0 into c.xbuf[0], then
// runIterations with iteration(k) followed by the shuffle reduction of the
// L1 residual |x_{k+1} - x_k| into c.residHist[k] (stageResidual, 8n bytes).
template <class Prologue, class Iteration>
int runLaunched(Ctx &c, int iterations, float tol, Prologue prologue, Iteration iteration, float *ranks,
                float *residuals, double *sums, int *done, int *converged, const char *what, Err &e) {
  PR_TRY(prologue());
  return runIterations(
      c, iterations, tol,
      [&](int k) -> int {
        PR_TRY(iteration(k));
        return stageResidual(c, PRLAB_REDUCE_SHUFFLE, c.xbuf[k & 1], c.xbuf[1 - (k & 1)], c.residHist + k, e);
      },
      ranks, residuals, sums, done, converged, what, e);
}

// setStepOut fills the damping step and the outputs of iteration k in a
// kernel's argument struct A (fields tele, d, invN, xOut, cOut, dOut) for a
// design that keeps double-buffered contributions contrib[2] and dangling
// partials dPart[2] beside c.xbuf: p = k % 2 is read, 1 - p written.
template <class A>
void setStepOut(A &a, const Ctx &c, float d, float *const contrib[2], float *const dPart[2], int p) {
  a.tele = teleportOf(d, c.n);
  a.d = d;
  a.invN = invNOf(c.n);
  a.xOut = c.xbuf[1 - p];
  a.cOut = contrib[1 - p];
  a.dOut = dPart[1 - p];
}

// timeIterations is prlab_benchmark of a design that launches once per
// iteration: timeRuns (c's events, the default stream) of prologue() then
// iteration(k) for k < iterations, `what` naming it in messages; then the
// last run's ranks c.xbuf[iterations % 2] into ranks[n] (when set).
template <class Prologue, class Iteration>
int timeIterations(Ctx &c, int iterations, int warmups, int runs, float *runsMs, Prologue prologue,
                   Iteration iteration, float *ranks, const char *what, Err &e) {
  PR_TRY(timeRuns(EventClock{c.ev0, c.ev1, 0}, warmups, runs, runsMs, [&]() -> int {
    PR_TRY(prologue());
    for (int k = 0; k < iterations; ++k) PR_TRY(iteration(k));
    return PRLAB_OK;
  }, what, e));
  if (ranks)
    PR_CUDA(e, cudaMemcpy(ranks, c.xbuf[iterations & 1], 4 * static_cast<size_t>(c.n), cudaMemcpyDeviceToHost),
            "cudaMemcpy(ranks, %zu bytes, device to host)", 4 * static_cast<size_t>(c.n));
  return PRLAB_OK;
}

// medianOf is the median of v (the mean of the two middle values for an
// even count; 0 for none): every timed row reports it.
float medianOf(std::vector<float> v);

// Every extern "C" entry point runs its body through entry(): it clears the
// message, and turns any C++ exception into PRLAB_ERR_INTERNAL with its text.
template <class F> int entry(char *msg, int msg_len, F body) {
  Err e{msg, msg_len};
  if (msg && msg_len > 0) msg[0] = '\0';
  try {
    return body(e);
  } catch (const std::exception &ex) {
    return fail(e, PRLAB_ERR_INTERNAL, "unexpected C++ exception: %s", ex.what());
  } catch (...) {
    return fail(e, PRLAB_ERR_INTERNAL, "unexpected C++ exception");
  }
}

// entryOn is entry() for an entry point on a handle h: check(h, e) first
// (a NULL or unusable handle fails there; it also makes h's device
// current), then body(*static_cast<H *>(h), e).
template <class H, class F> int entryOn(void *h, int (*check)(void *, Err &), char *msg, int msg_len, F body) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    PR_TRY(check(h, e));
    return body(*static_cast<H *>(h), e);
  });
}
// graphEntry is entryOn for a graph handle (checkHandle, a Ctx).
template <class F> int graphEntry(void *h, char *msg, int msg_len, F body) {
  return entryOn<Ctx>(h, checkHandle, msg, msg_len, body);
}

} // namespace prlab
