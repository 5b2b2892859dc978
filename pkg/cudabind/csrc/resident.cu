// resident.cu — resident sessions (prlab_session_*, see prlab_cuda.h): a
// graph uploaded once and kept on the device while batches of edge
// insertions and deletions are applied there, and PageRank iterated on it
// warm from given ranks with a stage-by-stage design's kernels (api.cu's
// runFrom).
//
// The update (NOTES.md, "The GPU side: design of the device-resident
// update"): the batch's edges become 64-bit keys dst<<s | src (s = the bits
// of n'), each list sorted with cub::DeviceRadixSort::SortKeys over 2s
// bits; one kernel per list classifies every key by binary search in its
// in-row of the old CSR (deletions: present or absent, repeated ones absent;
// insertions: duplicate when present after the deletions or repeated,
// self-loops dropped); cub::DeviceSelect::Flagged compacts the effective
// changes (still sorted); the new row lengths are scanned
// (cub::DeviceScan::ExclusiveSum) into the new row pointer, and one warp per
// row writes the new in-edge CSR into the second column buffer (a copy for
// an untouched row; for a touched row every kept entry and every insertion
// finds its place by binary searches in the row's changes). Out-degrees
// change by atomics per effective edge, then 1/outdeg and the dangling mask
// of every touched source are rewritten. Nothing is rebuilt on the host and
// the graph is never uploaded again; the host reads back once (the counts,
// to size the new column buffer) and at the end (the touched rows).
//
// CUB calls used (present in CUB 1.17 / CUDA 11.8 and CCCL 3.0 / CUDA 13):
// DeviceRadixSort::SortKeys, DeviceSelect::Flagged, DeviceScan::ExclusiveSum.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "common.cuh"

namespace prlab {
namespace {

typedef unsigned long long Key;

// Counter slots (device ints, prlab_batch_stats order where they match).
enum {
  kSelfLoops = 0,
  kAbsentDeletes,
  kDuplicateInserts,
  kDeleted,
  kInserted,
  kTouchedRows,
  kBadEntries,
  kFirstBad, // smallest bad position (insertions 0..I-1, deletions I..I+D-1)
  kSelectedDel,
  kSelectedIns,
  kCounters
};

// Resident is one session: the Ctx the designs iterate on (its rowPtr,
// colIdx, invOut, dangling and n-sized work buffers are replaced here when
// the graph grows) and the update's own buffers. Capacities in elements.
struct Resident {
  Ctx *c = nullptr;
  int impl = 0;
  bool broken = false; // an update failed half way: the graph is no longer trusted
  size_t nCap = 0;     // capacity of the n-sized buffers (Ctx's and ours)
  size_t rowCap[2] = {0, 0}, colCap[2] = {0, 0}; // [0]: Ctx's rowPtr/colIdx, [1]: the alternates
  int *rowPtrAlt = nullptr, *colIdxAlt = nullptr;
  int *outDeg = nullptr;       // [nCap]
  int *delCnt = nullptr;       // [nCap] effective deletions per in-row
  int *insCnt = nullptr;       // [nCap] effective insertions per in-row
  int *lens = nullptr;         // [nCap+1] new row lengths
  unsigned *mark = nullptr;    // [nCap] touched-source marks, all 0 between updates
  size_t bCap = 0;             // capacity of the batch buffers (edges)
  int2 *edges = nullptr;       // [2 bCap]: insertions then deletions, (src, dst) pairs
  Key *keys = nullptr, *sorted = nullptr, *eff = nullptr; // [2 bCap] each: insertions then deletions
  unsigned char *flags = nullptr; // [2 bCap]
  int *cnt = nullptr;          // [kCounters]
  void *temp = nullptr;        // CUB temporary storage
  size_t tempBytes = 0;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr;
  cudaEvent_t phase[4] = {nullptr, nullptr, nullptr, nullptr}; // ends of the update's first four phases
};

int bitsFor(long long v) { // bits to hold 0..v
  int b = 1;
  while ((1LL << b) <= v) ++b;
  return b;
}

__device__ __forceinline__ int lowerBoundInt(const int *a, int lo, int hi, int x) {
  while (lo < hi) {
    int mid = lo + ((hi - lo) >> 1);
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ long long lowerBoundKey(const Key *a, long long lo, long long hi, Key x) {
  while (lo < hi) {
    long long mid = lo + ((hi - lo) >> 1);
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The first index in a[lo, hi) whose source (low bits) is >= x (keys of one row).
__device__ __forceinline__ int lowerBoundSrc(const Key *a, int lo, int hi, Key srcMask, unsigned x) {
  while (lo < hi) {
    int mid = lo + ((hi - lo) >> 1);
    if (static_cast<unsigned>(a[mid] & srcMask) < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Block-wide count of pred added to *slot (one atomic per block).
__device__ __forceinline__ void countBlock(int pred, int *slot) {
  int n = __syncthreads_count(pred);
  if (threadIdx.x == 0 && n) atomicAdd(slot, n);
}

// keys[i] = dst << shift | src, or the sentinel nNew << shift (sorted last)
// for a self-loop (counted in cnt[selfSlot]) or an index outside [0, nNew).
__global__ void makeKeysKernel(const int2 *edges, int m, int nNew, int shift, Key *keys, int *cnt, int selfSlot,
                               int badBase) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int self = 0, bad = 0;
  if (i < m) {
    const int2 ed = edges[i];
    const int s = ed.x, d = ed.y;
    Key k = static_cast<Key>(nNew) << shift;
    if (s < 0 || s >= nNew || d < 0 || d >= nNew) {
      bad = 1;
      atomicMin(&cnt[kFirstBad], badBase + i);
    } else if (s == d) {
      self = 1;
    } else {
      k = (static_cast<Key>(d) << shift) | static_cast<Key>(s);
    }
    keys[i] = k;
  }
  countBlock(self, &cnt[selfSlot]);
  countBlock(bad, &cnt[kBadEntries]);
}

__device__ __forceinline__ bool inOldRow(const int *rowPtr, const int *colIdx, int nOld, int v, int s) {
  if (v >= nOld) return false;
  const int lo = rowPtr[v], hi = rowPtr[v + 1];
  const int j = lowerBoundInt(colIdx, lo, hi, s);
  return j < hi && colIdx[j] == s;
}

// The skeleton of both classifications of a sorted batch keys[m]: thread i
// decodes its key (dst v, src s; the sentinel is a dropped entry) and
// effective(k, v, s, repeat) decides it (repeat: keys[i-1] == k) and records
// an effective entry; flag[i] = 1 for an effective entry, and the block
// counts the other real entries into *otherSlot, the effective ones into
// *effSlot.
template <class Effective>
__device__ __forceinline__ void classifyBatch(const Key *keys, int m, Key sentinel, int shift, unsigned char *flag,
                                              int *otherSlot, int *effSlot, Effective effective) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int eff = 0, other = 0;
  if (i < m) {
    const Key k = keys[i];
    if (k < sentinel) {
      const int v = static_cast<int>(k >> shift), s = static_cast<int>(k & ((1ull << shift) - 1));
      eff = effective(k, v, s, i > 0 && keys[i - 1] == k) ? 1 : 0;
      other = 1 - eff;
    }
    flag[i] = static_cast<unsigned char>(eff);
  }
  countBlock(other, otherSlot);
  countBlock(eff, effSlot);
}

// Deletions, sorted: flag the first copy of each key present in the old CSR.
__global__ void classifyDeletesKernel(const Key *dk, int m, Key sentinel, int shift, const int *rowPtr,
                                      const int *colIdx, int nOld, unsigned char *flag, int *delCnt, int *cnt) {
  classifyBatch(dk, m, sentinel, shift, flag, &cnt[kAbsentDeletes], &cnt[kDeleted],
                [&](Key, int v, int s, bool repeat) {
                  if (repeat || !inOldRow(rowPtr, colIdx, nOld, v, s)) return false;
                  atomicAdd(&delCnt[v], 1);
                  return true;
                });
}

// Insertions, sorted: an insertion is effective unless repeated or present
// after the deletions (present in the old CSR and not deleted by the batch).
__global__ void classifyInsertsKernel(const Key *ik, int m, const Key *dk, int md, Key sentinel, int shift,
                                      const int *rowPtr, const int *colIdx, int nOld, unsigned char *flag,
                                      int *insCnt, int *cnt) {
  classifyBatch(ik, m, sentinel, shift, flag, &cnt[kDuplicateInserts], &cnt[kInserted],
                [&](Key k, int v, int s, bool repeat) {
                  if (repeat) return false;
                  if (inOldRow(rowPtr, colIdx, nOld, v, s)) {
                    const long long j = lowerBoundKey(dk, 0, md, k);
                    if (!(j < md && dk[j] == k)) return false; // present (deleted first, then re-inserted: effective)
                  }
                  atomicAdd(&insCnt[v], 1);
                  return true;
                });
}

// lens[v] = the new length of in-row v; lens[nNew] = 0 (the scan's total).
__global__ void rowLengthsKernel(const int *rowPtr, int nOld, int nNew, const int *delCnt, const int *insCnt,
                                 int *lens) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nNew) {
    const int old = v < nOld ? rowPtr[v + 1] - rowPtr[v] : 0;
    lens[v] = old - delCnt[v] + insCnt[v];
  } else if (v == nNew) {
    lens[v] = 0;
  }
}

// One warp per new in-row v: writes row v of the new CSR.
__global__ void mergeRowsKernel(const int *__restrict__ rowPtr, const int *__restrict__ colIdx, int nOld, int nNew,
                                const int *__restrict__ newRowPtr, int *__restrict__ newColIdx,
                                const int *__restrict__ delCnt, const int *__restrict__ insCnt,
                                const Key *__restrict__ effDel, int nDel, const Key *__restrict__ effIns, int nIns,
                                int shift) {
  const long long gtid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int v = static_cast<int>(gtid >> 5), lane = threadIdx.x & 31;
  if (v >= nNew) return;
  const int os = v < nOld ? rowPtr[v] : 0, len = v < nOld ? rowPtr[v + 1] - os : 0;
  const int ns = newRowPtr[v];
  const int dc = delCnt[v], ic = insCnt[v];
  if (dc == 0 && ic == 0) {
    for (int j = lane; j < len; j += 32) newColIdx[ns + j] = colIdx[os + j];
    return;
  }
  const Key rowKey = static_cast<Key>(v) << shift, srcMask = (1ull << shift) - 1;
  int d0 = 0, i0 = 0;
  if (lane == 0) {
    d0 = dc ? static_cast<int>(lowerBoundKey(effDel, 0, nDel, rowKey)) : 0;
    i0 = ic ? static_cast<int>(lowerBoundKey(effIns, 0, nIns, rowKey)) : 0;
  }
  d0 = __shfl_sync(0xffffffffu, d0, 0);
  i0 = __shfl_sync(0xffffffffu, i0, 0);
  for (int j = lane; j < len; j += 32) { // kept old entries
    const int s = colIdx[os + j];
    const int db = lowerBoundSrc(effDel, d0, d0 + dc, srcMask, static_cast<unsigned>(s)) - d0;
    if (db < dc && static_cast<int>(effDel[d0 + db] & srcMask) == s) continue; // deleted
    const int ib = lowerBoundSrc(effIns, i0, i0 + ic, srcMask, static_cast<unsigned>(s)) - i0;
    newColIdx[ns + j - db + ib] = s;
  }
  for (int t = lane; t < ic; t += 32) { // insertions
    const int s = static_cast<int>(effIns[i0 + t] & srcMask);
    const int ob = lowerBoundInt(colIdx, os, os + len, s) - os;
    const int db = lowerBoundSrc(effDel, d0, d0 + dc, srcMask, static_cast<unsigned>(s)) - d0;
    newColIdx[ns + ob - db + t] = s;
  }
}

// outDeg[src] += delta for every effective change.
__global__ void outDegreeKernel(const Key *eff, int m, Key srcMask, int delta, int *outDeg) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) atomicAdd(&outDeg[static_cast<int>(eff[i] & srcMask)], delta);
}

// 1/outdeg and the dangling mask of every touched source (as the host
// computes them: float(1.0 / outdeg) in double); counts distinct sources.
__global__ void touchSourcesKernel(const Key *eff, int m, Key srcMask, const int *outDeg, float *invOut,
                                   unsigned char *dangling, unsigned *mark, int *cnt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = 0;
  if (i < m) {
    const int u = static_cast<int>(eff[i] & srcMask);
    const int deg = outDeg[u];
    invOut[u] = deg > 0 ? static_cast<float>(1.0 / static_cast<double>(deg)) : 0.0f;
    dangling[u] = deg > 0 ? 0 : 1;
    first = atomicExch(&mark[u], 1u) == 0u;
  }
  countBlock(first, &cnt[kTouchedRows]);
}

__global__ void clearMarksKernel(const Key *eff, int m, Key srcMask, unsigned *mark) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) mark[static_cast<int>(eff[i] & srcMask)] = 0u;
}

// Grows *p to hold `need` elements of T (capacity *cap), keeping the first
// `keep` elements; the new capacity leaves room for growth.
template <class T>
int grow(T **p, size_t *cap, size_t need, size_t keep, const char *name, Err &e) {
  if (need <= *cap && *p) return PRLAB_OK;
  const size_t nc = std::max(need, *cap + *cap / 4);
  T *q = nullptr;
  PR_TRY(devAlloc(reinterpret_cast<void **>(&q), sizeof(T) * nc, name, e));
  if (keep > 0 && *p) {
    cudaError_t st = cudaMemcpy(q, *p, sizeof(T) * keep, cudaMemcpyDeviceToDevice);
    if (st != cudaSuccess) {
      cudaFree(q);
      return fail(e, st, "cudaMemcpy(%s, %zu bytes, device to device)", name, sizeof(T) * keep);
    }
  }
  if (*p) cudaFree(*p);
  *p = q;
  *cap = nc;
  return PRLAB_OK;
}

void freeResident(Resident *r) {
  if (r == nullptr) return;
  if (r->c) {
    cudaSetDevice(r->c->device);
    char msg[8];
    prlab_graph_free(r->c, msg, sizeof msg);
  }
  freeDevice(r->rowPtrAlt, r->colIdxAlt, r->outDeg, r->delCnt, r->insCnt, r->lens, r->mark, r->edges, r->keys,
             r->sorted, r->eff, r->flags, r->cnt, r->temp);
  if (r->ev0) cudaEventDestroy(r->ev0);
  if (r->ev1) cudaEventDestroy(r->ev1);
  for (cudaEvent_t ev : r->phase)
    if (ev) cudaEventDestroy(ev);
  delete r;
}

bool residentDesign(int impl) {
  return impl == PRLAB_IMPL_NAIVE || impl == PRLAB_IMPL_THREAD_PER_ROW || impl == PRLAB_IMPL_WARP_PER_ROW ||
         impl == PRLAB_IMPL_CUSPARSE;
}

int temp(Resident &r, size_t bytes, Err &e);
int reserveBatch(Resident &r, size_t cap, Err &e);

int openSession(int device, int impl, int n, int nnz, const int *rowPtr, const int *colIdx, const int *outDeg,
         int maxIter, void **out, Err &e) {
  if (out == nullptr) return fail(e, PRLAB_ERR_ARG, "session output pointer is NULL");
  *out = nullptr;
  if (!residentDesign(impl))
    return fail(e, PRLAB_ERR_ARG,
                "implementation %d cannot run a resident session (naive, thread per row, warp per row, cuSPARSE can)",
                impl);
  if (n < 1 || !outDeg) return fail(e, PRLAB_ERR_ARG, "n = %d must be >= 1 and out_degree non-NULL", n);
  std::vector<float> inv(static_cast<size_t>(n));
  std::vector<unsigned char> dm(static_cast<size_t>(n));
  for (int u = 0; u < n; ++u) {
    if (outDeg[u] < 0) return fail(e, PRLAB_ERR_ARG, "out-degree %d of node %d is negative", outDeg[u], u);
    inv[u] = outDeg[u] > 0 ? static_cast<float>(1.0 / static_cast<double>(outDeg[u])) : 0.0f;
    dm[u] = outDeg[u] > 0 ? 0 : 1;
  }
  Resident *r = new (std::nothrow) Resident();
  if (r == nullptr) return fail(e, PRLAB_ERR_INTERNAL, "host allocation of the session failed");
  void *h = nullptr;
  int rc = prlab_graph_create(device, n, nnz, rowPtr, colIdx, inv.data(), dm.data(), maxIter, &h, e.buf, e.len);
  if (rc != PRLAB_OK) {
    delete r;
    return rc;
  }
  r->c = static_cast<Ctx *>(h);
  r->impl = impl;
  r->nCap = static_cast<size_t>(n);
  r->rowCap[0] = static_cast<size_t>(n) + 1;
  r->colCap[0] = static_cast<size_t>(nnz);
  const size_t N = r->nCap;
  rc = devAlloc(reinterpret_cast<void **>(&r->outDeg), 4 * N, "d_outDeg", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&r->delCnt), 4 * N, "d_delCnt", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&r->insCnt), 4 * N, "d_insCnt", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&r->lens), 4 * (N + 1), "d_rowLengths", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&r->mark), 4 * N, "d_marks", e);
  if (rc == PRLAB_OK) rc = devAlloc(reinterpret_cast<void **>(&r->cnt), 4 * kCounters, "d_counters", e);
  // The second CSR (the merge's target) with room for 1/8 more edges, so
  // that a timed update allocates nothing of the graph's size.
  if (rc == PRLAB_OK) rc = grow(&r->rowPtrAlt, &r->rowCap[1], N + 1, 0, "d_rowPtrAlt", e);
  if (rc == PRLAB_OK)
    rc = grow(&r->colIdxAlt, &r->colCap[1], std::max<size_t>(1, nnz + static_cast<size_t>(nnz) / 8), 0,
              "d_colIdxAlt", e);
  if (rc == PRLAB_OK) {
    cudaError_t st = cudaMemcpy(r->outDeg, outDeg, 4 * N, cudaMemcpyHostToDevice);
    if (st == cudaSuccess) st = cudaMemset(r->mark, 0, 4 * N);
    if (st == cudaSuccess) st = cudaEventCreate(&r->ev0);
    if (st == cudaSuccess) st = cudaEventCreate(&r->ev1);
    for (int i = 0; i < 4 && st == cudaSuccess; ++i) st = cudaEventCreate(&r->phase[i]);
    if (st != cudaSuccess) rc = fail(e, st, "session setup (out-degrees upload, marks, events)");
  }
  // Batch buffers for batches of up to nnz/256 edges per list (0.4 %; larger
  // ones grow them) and CUB's temporary storage for them and for the scan of
  // the row lengths, so that a timed update of that size allocates nothing.
  if (rc == PRLAB_OK) rc = reserveBatch(*r, std::max<size_t>(4096, static_cast<size_t>(nnz) / 256), e);
  if (rc == PRLAB_OK) {
    const int m = static_cast<int>(r->bCap);
    size_t a = 0, b = 0, s2 = 0;
    cudaError_t st = cub::DeviceRadixSort::SortKeys(nullptr, a, r->keys, r->sorted, m, 0, 62);
    if (st == cudaSuccess) st = cub::DeviceSelect::Flagged(nullptr, b, r->keys, r->flags, r->eff, r->cnt, m);
    if (st == cudaSuccess) st = cub::DeviceScan::ExclusiveSum(nullptr, s2, r->lens, r->rowPtrAlt, n + 1);
    if (st != cudaSuccess) rc = fail(e, st, "CUB temporary storage sizes (session open)");
    if (rc == PRLAB_OK) rc = temp(*r, std::max(std::max(a, b), s2 + s2 / 8), e);
  }
  // cuSPARSE's handle, matrix and P values now, so that neither the first
  // update nor the first run pays the handle's creation.
  if (rc == PRLAB_OK && impl == PRLAB_IMPL_CUSPARSE) rc = cusparseInit(*r->c, e);
  if (rc != PRLAB_OK) {
    freeResident(r);
    return rc;
  }
  *out = r;
  return PRLAB_OK;
}

int checkSession(void *s, Err &e) {
  if (s == nullptr) return fail(e, PRLAB_ERR_ARG, "session handle is NULL");
  Resident &r = *static_cast<Resident *>(s);
  if (r.broken)
    return fail(e, PRLAB_ERR_ARG, "session is unusable: an earlier update failed after it had begun changing the graph");
  PR_CUDA(e, cudaSetDevice(r.c->device), "cudaSetDevice(%d)", r.c->device);
  return PRLAB_OK;
}

int temp(Resident &r, size_t bytes, Err &e) {
  if (bytes <= r.tempBytes && r.temp) return PRLAB_OK;
  if (r.temp) cudaFree(r.temp);
  r.temp = nullptr;
  r.tempBytes = 0;
  PR_TRY(devAlloc(&r.temp, bytes, "d_sessionCubTemp", e));
  r.tempBytes = bytes;
  return PRLAB_OK;
}

// The grid of `items` threads in blocks of kThreadsPerBlock.
inline int grid(long long items) { return blocksFor(items, kThreadsPerBlock); }

// Sorts keys [0, m) into sorted (2*shift bits).
int sortKeys(Resident &r, const Key *in, Key *out, int m, int endBit, const char *what, Err &e) {
  if (m == 0) return PRLAB_OK;
  size_t bytes = 0;
  PR_CUDA(e, cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, m, 0, endBit),
          "cub::DeviceRadixSort::SortKeys(temp storage size, %s, %d keys)", what, m);
  PR_TRY(temp(r, bytes, e));
  bytes = r.tempBytes;
  PR_CUDA(e, cub::DeviceRadixSort::SortKeys(r.temp, bytes, in, out, m, 0, endBit),
          "cub::DeviceRadixSort::SortKeys(%s, %d keys, %d bits)", what, m, endBit);
  return PRLAB_OK;
}

int selectFlagged(Resident &r, const Key *in, const unsigned char *flags, Key *out, int m, int *count, const char *what,
           Err &e) {
  if (m == 0) {
    PR_CUDA(e, cudaMemsetAsync(count, 0, 4), "cudaMemsetAsync(%s count)", what);
    return PRLAB_OK;
  }
  size_t bytes = 0;
  PR_CUDA(e, cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, count, m),
          "cub::DeviceSelect::Flagged(temp storage size, %s, %d keys)", what, m);
  PR_TRY(temp(r, bytes, e));
  bytes = r.tempBytes;
  PR_CUDA(e, cub::DeviceSelect::Flagged(r.temp, bytes, in, flags, out, count, m),
          "cub::DeviceSelect::Flagged(%s, %d keys)", what, m);
  return PRLAB_OK;
}

// Allocates the batch buffers for `cap` edges per list (insertions, deletions).
int reserveBatch(Resident &r, size_t cap, Err &e) {
  void *bufs[] = {r.edges, r.keys, r.sorted, r.eff, r.flags};
  for (void *p : bufs)
    if (p) cudaFree(p);
  r.edges = nullptr;
  r.keys = r.sorted = r.eff = nullptr;
  r.flags = nullptr;
  r.bCap = 0;
  PR_TRY(devAlloc(reinterpret_cast<void **>(&r.edges), 16 * cap, "d_batchEdges", e));
  PR_TRY(devAlloc(reinterpret_cast<void **>(&r.keys), 16 * cap, "d_batchKeys", e));
  PR_TRY(devAlloc(reinterpret_cast<void **>(&r.sorted), 16 * cap, "d_batchSorted", e));
  PR_TRY(devAlloc(reinterpret_cast<void **>(&r.eff), 16 * cap, "d_batchEffective", e));
  PR_TRY(devAlloc(reinterpret_cast<void **>(&r.flags), 2 * cap, "d_batchFlags", e));
  r.bCap = cap;
  return PRLAB_OK;
}

int apply(Resident &r, int newNodes, const int *ins, int nIns, const int *del, int nDel, prlab_batch_stats *st,
          Err &e) {
  Ctx &c = *r.c;
  if (!st) return fail(e, PRLAB_ERR_ARG, "stats output pointer is NULL");
  if (newNodes < 0 || nIns < 0 || nDel < 0)
    return fail(e, PRLAB_ERR_ARG, "new nodes %d, insertions %d, deletions %d: need >= 0", newNodes, nIns, nDel);
  if ((nIns > 0 && !ins) || (nDel > 0 && !del))
    return fail(e, PRLAB_ERR_ARG, "a batch array is NULL");
  const long long nNewL = static_cast<long long>(c.n) + newNodes;
  if (nNewL > 0x7fffffffLL - 1) return fail(e, PRLAB_ERR_ARG, "%lld nodes after the batch exceed the int32 limit", nNewL);
  std::memset(st, 0, sizeof(*st));
  const int nOld = c.n, nNew = static_cast<int>(nNewL);
  const int shift = bitsFor(nNew), endBit = 2 * shift;
  const Key sentinel = static_cast<Key>(nNew) << shift, srcMask = (1ull << shift) - 1;
  const size_t I = static_cast<size_t>(nIns), D = static_cast<size_t>(nDel), B = std::max(I, D);

  PR_CUDA(e, cudaEventRecord(r.ev0), "cudaEventRecord(update start)");
  // Batch buffers (scratch: nothing of the graph changes before the second read-back).
  if (B > r.bCap || !r.edges) PR_TRY(reserveBatch(r, std::max(B, r.bCap + r.bCap / 4), e));
  int2 *dIns = r.edges, *dDel = r.edges + r.bCap;
  Key *insKeys = r.keys, *delKeys = r.keys + r.bCap;
  Key *insSorted = r.sorted, *delSorted = r.sorted + r.bCap;
  Key *insEff = r.eff, *delEff = r.eff + r.bCap;
  unsigned char *insFlag = r.flags, *delFlag = r.flags + r.bCap;
  if (I > 0)
    PR_CUDA(e, cudaMemcpy(dIns, ins, 8 * I, cudaMemcpyHostToDevice), "cudaMemcpy(insertions, %zu bytes)", 8 * I);
  if (D > 0)
    PR_CUDA(e, cudaMemcpy(dDel, del, 8 * D, cudaMemcpyHostToDevice), "cudaMemcpy(deletions, %zu bytes)", 8 * D);
  // Per-row counts for nNew rows: grow the n-sized scratch first.
  const size_t NN = static_cast<size_t>(nNew);
  if (NN > r.nCap) {
    size_t dcap = r.nCap, icap = r.nCap, lcap = r.nCap + 1, mcap = r.nCap;
    PR_TRY(grow(&r.delCnt, &dcap, NN, 0, "d_delCnt", e));
    PR_TRY(grow(&r.insCnt, &icap, NN, 0, "d_insCnt", e));
    PR_TRY(grow(&r.lens, &lcap, NN + 1, 0, "d_rowLengths", e));
    PR_TRY(grow(&r.mark, &mcap, NN, 0, "d_marks", e));
    PR_CUDA(e, cudaMemset(r.mark, 0, 4 * mcap), "cudaMemset(d_marks)");
  }
  PR_CUDA(e, cudaMemsetAsync(r.delCnt, 0, 4 * NN), "cudaMemsetAsync(d_delCnt)");
  PR_CUDA(e, cudaMemsetAsync(r.insCnt, 0, 4 * NN), "cudaMemsetAsync(d_insCnt)");
  int init[kCounters] = {0};
  init[kFirstBad] = 0x7fffffff;
  PR_CUDA(e, cudaMemcpy(r.cnt, init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy(counters)");
  PR_CUDA(e, cudaEventRecord(r.phase[0]), "cudaEventRecord(update phase 1)");

  if (I > 0) {
    makeKeysKernel<<<grid(nIns), kThreadsPerBlock>>>(dIns, nIns, nNew, shift, insKeys, r.cnt, kSelfLoops, 0);
    PR_LAUNCH(e, "makeKeysKernel(insertions, %d)", nIns);
  }
  if (D > 0) {
    makeKeysKernel<<<grid(nDel), kThreadsPerBlock>>>(dDel, nDel, nNew, shift, delKeys, r.cnt, kAbsentDeletes, nIns);
    PR_LAUNCH(e, "makeKeysKernel(deletions, %d)", nDel);
  }
  PR_TRY(sortKeys(r, insKeys, insSorted, nIns, endBit, "insertions", e));
  PR_TRY(sortKeys(r, delKeys, delSorted, nDel, endBit, "deletions", e));
  PR_CUDA(e, cudaEventRecord(r.phase[1]), "cudaEventRecord(update phase 2)");
  if (D > 0) {
    classifyDeletesKernel<<<grid(nDel), kThreadsPerBlock>>>(delSorted, nDel, sentinel, shift, c.rowPtr, c.colIdx,
                                                            nOld, delFlag, r.delCnt, r.cnt);
    PR_LAUNCH(e, "classifyDeletesKernel(%d)", nDel);
  }
  if (I > 0) {
    classifyInsertsKernel<<<grid(nIns), kThreadsPerBlock>>>(insSorted, nIns, delSorted, nDel, sentinel, shift,
                                                            c.rowPtr, c.colIdx, nOld, insFlag, r.insCnt, r.cnt);
    PR_LAUNCH(e, "classifyInsertsKernel(%d)", nIns);
  }
  PR_TRY(selectFlagged(r, delSorted, delFlag, delEff, nDel, r.cnt + kSelectedDel, "effective deletions", e));
  PR_TRY(selectFlagged(r, insSorted, insFlag, insEff, nIns, r.cnt + kSelectedIns, "effective insertions", e));
  int h[kCounters];
  PR_CUDA(e, cudaMemcpy(h, r.cnt, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy(counters, device to host)");
  PR_CUDA(e, cudaEventRecord(r.phase[2]), "cudaEventRecord(update phase 3)");
  if (h[kBadEntries] > 0) {
    const int p = h[kFirstBad];
    return fail(e, PRLAB_ERR_ARG, "%d batch edges have an index outside [0, %d); the first is %s %d",
                h[kBadEntries], nNew, p < nIns ? "insertion" : "deletion", p < nIns ? p : p - nIns);
  }
  if (h[kSelectedDel] != h[kDeleted] || h[kSelectedIns] != h[kInserted])
    return fail(e, PRLAB_ERR_INTERNAL, "selected %d/%d effective deletions/insertions, counted %d/%d",
                h[kSelectedDel], h[kSelectedIns], h[kDeleted], h[kInserted]);
  const long long nnzNewL = static_cast<long long>(c.nnz) - h[kDeleted] + h[kInserted];
  if (nnzNewL > 0x7fffffffLL)
    return fail(e, PRLAB_ERR_ARG, "%lld edges after the batch exceed the int32 limit", nnzNewL);
  const size_t NNZ = static_cast<size_t>(nnzNewL);

  // From here on the graph changes: a failure leaves the session broken.
  r.broken = true;
  PR_TRY(grow(&r.rowPtrAlt, &r.rowCap[1], NN + 1, 0, "d_rowPtrAlt", e));
  PR_TRY(grow(&r.colIdxAlt, &r.colCap[1], std::max<size_t>(NNZ, 1), 0, "d_colIdxAlt", e));
  rowLengthsKernel<<<grid(nNew + 1), kThreadsPerBlock>>>(c.rowPtr, nOld, nNew, r.delCnt, r.insCnt, r.lens);
  PR_LAUNCH(e, "rowLengthsKernel(%d)", nNew);
  {
    size_t bytes = 0;
    PR_CUDA(e, cub::DeviceScan::ExclusiveSum(nullptr, bytes, r.lens, r.rowPtrAlt, nNew + 1),
            "cub::DeviceScan::ExclusiveSum(temp storage size, %d)", nNew + 1);
    PR_TRY(temp(r, bytes, e));
    bytes = r.tempBytes;
    PR_CUDA(e, cub::DeviceScan::ExclusiveSum(r.temp, bytes, r.lens, r.rowPtrAlt, nNew + 1),
            "cub::DeviceScan::ExclusiveSum(row lengths, %d)", nNew + 1);
  }
  {
    const long long threads = 32LL * nNew;
    mergeRowsKernel<<<grid(threads), kThreadsPerBlock>>>(c.rowPtr, c.colIdx, nOld, nNew, r.rowPtrAlt, r.colIdxAlt,
                                                         r.delCnt, r.insCnt, delEff, h[kDeleted], insEff,
                                                         h[kInserted], shift);
    PR_LAUNCH(e, "mergeRowsKernel(%d rows)", nNew);
  }
  PR_CUDA(e, cudaEventRecord(r.phase[3]), "cudaEventRecord(update phase 4)");
  // Node-sized arrays: grow (keeping the old nodes), new nodes dangling.
  if (NN > r.nCap) {
    size_t a = r.nCap, b = r.nCap, d = r.nCap;
    PR_TRY(grow(&c.invOut, &a, NN, static_cast<size_t>(nOld), "d_invOut", e));
    PR_TRY(grow(&c.dangling, &b, NN, static_cast<size_t>(nOld), "d_dangling", e));
    PR_TRY(grow(&r.outDeg, &d, NN, static_cast<size_t>(nOld), "d_outDeg", e));
    float **work[] = {&c.xbuf[0], &c.xbuf[1], &c.contrib, &c.y, &c.diff};
    const char *names[] = {"d_x0", "d_x1", "d_contrib", "d_y", "d_diff"};
    for (int i = 0; i < 5; ++i) {
      size_t w = r.nCap;
      PR_TRY(grow(work[i], &w, NN, 0, names[i], e));
    }
    r.nCap = std::min(std::min(a, b), d);
  }
  if (nNew > nOld) {
    const size_t k = static_cast<size_t>(nNew - nOld);
    PR_CUDA(e, cudaMemsetAsync(r.outDeg + nOld, 0, 4 * k), "cudaMemsetAsync(new out-degrees)");
    PR_CUDA(e, cudaMemsetAsync(c.invOut + nOld, 0, 4 * k), "cudaMemsetAsync(new 1/outdeg)");
    PR_CUDA(e, cudaMemsetAsync(c.dangling + nOld, 1, k), "cudaMemsetAsync(new dangling mask)");
  }
  if (h[kDeleted] > 0) {
    outDegreeKernel<<<grid(h[kDeleted]), kThreadsPerBlock>>>(delEff, h[kDeleted], srcMask, -1, r.outDeg);
    PR_LAUNCH(e, "outDegreeKernel(deletions)");
  }
  if (h[kInserted] > 0) {
    outDegreeKernel<<<grid(h[kInserted]), kThreadsPerBlock>>>(insEff, h[kInserted], srcMask, 1, r.outDeg);
    PR_LAUNCH(e, "outDegreeKernel(insertions)");
  }
  const Key *lists[] = {delEff, insEff};
  const int counts[] = {h[kDeleted], h[kInserted]};
  for (int l = 0; l < 2; ++l)
    if (counts[l] > 0) {
      touchSourcesKernel<<<grid(counts[l]), kThreadsPerBlock>>>(lists[l], counts[l], srcMask, r.outDeg, c.invOut,
                                                                 c.dangling, r.mark, r.cnt);
      PR_LAUNCH(e, "touchSourcesKernel");
    }
  for (int l = 0; l < 2; ++l)
    if (counts[l] > 0) {
      clearMarksKernel<<<grid(counts[l]), kThreadsPerBlock>>>(lists[l], counts[l], srcMask, r.mark);
      PR_LAUNCH(e, "clearMarksKernel");
    }
  // The new CSR becomes the Ctx's; the old buffers become the alternates.
  std::swap(c.rowPtr, r.rowPtrAlt);
  std::swap(r.rowCap[0], r.rowCap[1]);
  std::swap(c.colIdx, r.colIdxAlt);
  std::swap(r.colCap[0], r.colCap[1]);
  c.n = nNew;
  c.nnz = static_cast<int>(NNZ);
  // Library state built on the old graph (cuSPARSE's matrix, P values,
  // buffers sized for n) is rebuilt now, inside the update's time.
  PR_TRY(libraryGraphChanged(c, e));
  if (r.impl == PRLAB_IMPL_CUSPARSE) PR_TRY(cusparseInit(c, e));
  PR_CUDA(e, cudaMemcpy(h, r.cnt, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy(counters, device to host)");
  PR_CUDA(e, cudaEventRecord(r.ev1), "cudaEventRecord(update stop)");
  PR_CUDA(e, cudaEventSynchronize(r.ev1), "cudaEventSynchronize(update stop)");
  float ms = 0.0f;
  PR_CUDA(e, cudaEventElapsedTime(&ms, r.ev0, r.ev1), "cudaEventElapsedTime(update)");
  const cudaEvent_t marks[6] = {r.ev0, r.phase[0], r.phase[1], r.phase[2], r.phase[3], r.ev1};
  for (int i = 0; i < 5; ++i)
    PR_CUDA(e, cudaEventElapsedTime(&st->phase_ms[i], marks[i], marks[i + 1]), "cudaEventElapsedTime(update phase %d)", i + 1);
  r.broken = false;
  st->new_nodes = newNodes;
  st->inserted = h[kInserted];
  st->deleted = h[kDeleted];
  st->duplicate_inserts = h[kDuplicateInserts];
  st->absent_deletes = h[kAbsentDeletes];
  st->self_loops = h[kSelfLoops];
  st->touched_rows = h[kTouchedRows];
  st->n = nNew;
  st->nnz = c.nnz;
  st->update_ms = ms;
  return PRLAB_OK;
}

int runSession(Resident &r, float d, int iterations, float tol, const float *start, float *ranks, float *residuals,
               double *sums, int *done, int *converged, float *runMs, Err &e) {
  float ms = 0.0f;
  PR_TRY(timeRuns(EventClock{r.ev0, r.ev1, 0}, 0, 1, &ms, [&]() {
    return runFrom(*r.c, r.impl, d, iterations, tol, start, ranks, residuals, sums, done, converged, e);
  }, "session run", e));
  if (runMs) *runMs = ms;
  return PRLAB_OK;
}

int download(Resident &r, int *n, int *nnz, int *rowPtr, int *colIdx, int *outDeg, unsigned char *dangling,
             float *invOut, Err &e) {
  const Ctx &c = *r.c;
  if (n) *n = c.n;
  if (nnz) *nnz = c.nnz;
  const size_t N = static_cast<size_t>(c.n), NNZ = static_cast<size_t>(c.nnz);
  if (rowPtr) PR_CUDA(e, cudaMemcpy(rowPtr, c.rowPtr, 4 * (N + 1), cudaMemcpyDeviceToHost), "cudaMemcpy(rowPtr)");
  if (colIdx && NNZ) PR_CUDA(e, cudaMemcpy(colIdx, c.colIdx, 4 * NNZ, cudaMemcpyDeviceToHost), "cudaMemcpy(colIdx)");
  if (outDeg) PR_CUDA(e, cudaMemcpy(outDeg, r.outDeg, 4 * N, cudaMemcpyDeviceToHost), "cudaMemcpy(outDeg)");
  if (dangling) PR_CUDA(e, cudaMemcpy(dangling, c.dangling, N, cudaMemcpyDeviceToHost), "cudaMemcpy(dangling)");
  if (invOut) PR_CUDA(e, cudaMemcpy(invOut, c.invOut, 4 * N, cudaMemcpyDeviceToHost), "cudaMemcpy(invOut)");
  return PRLAB_OK;
}

} // namespace
} // namespace prlab

using prlab::entry;
using prlab::Err;
using prlab::Resident;

extern "C" {

int prlab_session_open(int device, int impl, int n, int nnz, const int *row_ptr, const int *col_idx,
                       const int *out_degree, int max_iterations, void **session, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    return prlab::openSession(device, impl, n, nnz, row_ptr, col_idx, out_degree, max_iterations, session, e);
  });
}

int prlab_session_apply(void *session, int new_nodes, const int *ins, int n_ins, const int *del, int n_del,
                        prlab_batch_stats *stats, char *msg, int msg_len) {
  return prlab::entryOn<Resident>(session, prlab::checkSession, msg, msg_len, [&](Resident &r, Err &e) -> int {
    return prlab::apply(r, new_nodes, ins, n_ins, del, n_del, stats, e);
  });
}

int prlab_session_run(void *session, float damping, int iterations, float tolerance, const float *start,
                      float *ranks, float *residuals, double *sums, int *iterations_done, int *converged,
                      float *run_ms, char *msg, int msg_len) {
  return prlab::entryOn<Resident>(session, prlab::checkSession, msg, msg_len, [&](Resident &r, Err &e) -> int {
    return prlab::runSession(r, damping, iterations, tolerance, start, ranks,
                             residuals, sums, iterations_done, converged, run_ms, e);
  });
}

int prlab_session_graph(void *session, int *n, int *nnz, int *row_ptr, int *col_idx, int *out_degree,
                        unsigned char *dangling, float *inv_out, char *msg, int msg_len) {
  return prlab::entryOn<Resident>(session, prlab::checkSession, msg, msg_len, [&](Resident &r, Err &e) -> int {
    return prlab::download(r, n, nnz, row_ptr, col_idx, out_degree, dangling, inv_out, e);
  });
}

int prlab_session_close(void *session, char *msg, int msg_len) {
  return entry(msg, msg_len, [&](Err &e) -> int {
    (void)e;
    prlab::freeResident(static_cast<Resident *>(session));
    return PRLAB_OK;
  });
}

} // extern "C"
