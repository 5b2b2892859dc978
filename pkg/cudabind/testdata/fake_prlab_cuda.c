/*
 * A CPU stand-in for libprlab_cuda.so, built by fake_test.go with the
 * system C compiler, so the cgo/dlopen binding (argument order, shapes,
 * status codes, messages) is tested on machines without CUDA. It implements
 * the same C API (prlab_cuda.h) with a sequential float PageRank.
 *
 * Triggers for error paths: iterations == 7777 makes prlab_run fail with a
 * CUDA-style message; FAKE_ABI overrides the ABI version; FAKE_NO_DEVICE
 * makes prlab_device_count report no device; FAKE_NO_LAYOUT leaves out the
 * optional layout entry points (a library built before the layout designs).
 * The layout designs run the same sequential PageRank; their layout has the
 * T4 buckets of the graph, and the cluster holds graphs of n <= 4096 only;
 * gpu-cluster-dsmem holds graphs of n <= 16384 (beyond: PRLAB_ERR_UNAVAILABLE,
 * "graph too large for one cluster") and takes its knobs (PRLAB_KNOB_DSM_*).
 * Resident sessions (prlab_session_*) keep a host CSR and apply batches by
 * the device's rules (sorted keys, classification, merge); FAKE_NO_SESSION
 * leaves them out (a library built before them); an update_ms of
 * 0.5 + 0.001 x (batch edges).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prlab_cuda.h"

#ifndef FAKE_ABI
#define FAKE_ABI PRLAB_ABI_VERSION
#endif

typedef struct {
  int n, nnz, max_iter;
  int *row_ptr, *col_idx;
  float *inv_out;
  unsigned char *dangling;
  int knobs[PRLAB_KNOB_COUNT];
  int codes_uploaded; /* prlab_hothead_codes was called */
  int pb_hot;         /* PRLAB_KNOB_PB_HOT */
} fake_ctx;

/* A code the library runs: one of the table of designs (prlab_cuda.h). */
static int is_design(int impl) {
  for (int i = 0; i < PRLAB_DESIGN_COUNT; ++i)
    if (prlab_designs[i].impl == impl) return 1;
  return 0;
}

static int say(char *msg, int len, int code, const char *text) {
  if (msg && len > 0) snprintf(msg, (size_t)len, "%s", text);
  return code;
}

int prlab_abi_version(void) { return FAKE_ABI; }

int prlab_device_count(int *count, char *msg, int msg_len) {
#ifdef FAKE_NO_DEVICE
  *count = 0;
  return say(msg, msg_len, PRLAB_ERR_NO_DEVICE,
             "cudaGetDeviceCount: no CUDA-capable device is detected (cudaErrorNoDevice)");
#else
  *count = 1;
  return PRLAB_OK;
#endif
}

/* The one fake device: an H200-like sm_90 part with a CUDA 13.0 driver. */
static const prlab_device_info fake_device = {
    /* the device */
    .name = "Fake CPU device", .cc_major = 9, .cc_minor = 0, .sm_count = 132, .l2_bytes = 62914560,
    .max_threads_per_block = 1024, .warp_size = 32, .global_mem_bytes = 1LL << 30, .device_count = 1,
    /* the software it runs */
    .driver_version = 13000, .runtime_version = 13000, .cusparse_version = 12600, .cccl_version = "CCCL 3.0.1",
    /* the build of the kernels */
    .kernel_binary_version = 90, .kernel_ptx_version = 90, .compiled_archs = "900",
};

int prlab_device_info_get(int device, prlab_device_info *out, char *msg, int msg_len) {
  if (device != 0) return say(msg, msg_len, PRLAB_ERR_ARG, "device out of range");
  *out = fake_device;
  return PRLAB_OK;
}

int prlab_graph_create(int device, int n, int nnz, const int *row_ptr, const int *col_idx,
                       const float *inv_out, const unsigned char *dangling, int max_iterations,
                       void **handle, char *msg, int msg_len) {
  (void)device;
  if (n < 1 || row_ptr[n] != nnz) return say(msg, msg_len, PRLAB_ERR_ARG, "bad shape");
  fake_ctx *c = calloc(1, sizeof(*c));
  c->n = n;
  c->nnz = nnz;
  c->max_iter = max_iterations;
  c->row_ptr = malloc(sizeof(int) * (size_t)(n + 1));
  c->col_idx = malloc(sizeof(int) * (size_t)(nnz + 1));
  c->inv_out = malloc(sizeof(float) * (size_t)n);
  c->dangling = malloc((size_t)n);
  memcpy(c->row_ptr, row_ptr, sizeof(int) * (size_t)(n + 1));
  if (nnz > 0) memcpy(c->col_idx, col_idx, sizeof(int) * (size_t)nnz);
  memcpy(c->inv_out, inv_out, sizeof(float) * (size_t)n);
  memcpy(c->dangling, dangling, (size_t)n);
  *handle = c;
  return PRLAB_OK;
}

int prlab_graph_free(void *handle, char *msg, int msg_len) {
  (void)msg;
  (void)msg_len;
  fake_ctx *c = handle;
  if (!c) return PRLAB_OK;
  free(c->row_ptr);
  free(c->col_idx);
  free(c->inv_out);
  free(c->dangling);
  free(c);
  return PRLAB_OK;
}

static void step(const fake_ctx *c, float d, const float *x, float *xn) {
  float mass = 0.0f;
  for (int u = 0; u < c->n; ++u) mass += c->dangling[u] ? x[u] : 0.0f;
  for (int v = 0; v < c->n; ++v) {
    float s = 0.0f;
    for (int e = c->row_ptr[v]; e < c->row_ptr[v + 1]; ++e) s += x[c->col_idx[e]] * c->inv_out[c->col_idx[e]];
    xn[v] = (1.0f - d) / (float)c->n + d * (s + mass / (float)c->n);
  }
}

/* prlab_run from start[n] (NULL: 1/n). */
static int run_from(void *handle, int impl, float damping, int iterations, float tolerance, const float *start,
                    float *ranks, float *residuals, double *sums, int *iterations_done, int *converged,
                    char *msg, int msg_len) {
  fake_ctx *c = handle;
  if (!is_design(impl)) return say(msg, msg_len, PRLAB_ERR_ARG, "bad impl");
  if (impl == PRLAB_IMPL_HOTHEAD_PACKED && !c->codes_uploaded)
    return say(msg, msg_len, PRLAB_ERR_ARG, "packed hot-head design: no column code uploaded (prlab_hothead_codes)");
  if (iterations == 7777)
    return say(msg, msg_len, PRLAB_ERR_CUDA,
               "cudaMalloc(d_colIdx, 379724 bytes): out of memory (cudaErrorMemoryAllocation)");
  if (iterations > c->max_iter) return say(msg, msg_len, PRLAB_ERR_ARG, "too many iterations");
  if (impl == PRLAB_IMPL_CLUSTER_DSMEM && c->n > 16384)
    return say(msg, msg_len, PRLAB_ERR_UNAVAILABLE,
               "gpu-cluster-dsmem unavailable: graph too large for one cluster: it needs 240000 bytes of shared "
               "memory per block in a cluster of 16 (the device allows 232448)");
  float *x = malloc(sizeof(float) * (size_t)c->n), *xn = malloc(sizeof(float) * (size_t)c->n);
  for (int i = 0; i < c->n; ++i) x[i] = start ? start[i] : 1.0f / (float)c->n;
  int k = 0;
  *converged = 0;
  while (k < iterations) {
    step(c, damping, x, xn);
    float r = 0.0f;
    double s = 0.0;
    for (int i = 0; i < c->n; ++i) {
      r += fabsf(xn[i] - x[i]);
      s += xn[i];
    }
    residuals[k] = r;
    sums[k] = s;
    float *t = x;
    x = xn;
    xn = t;
    ++k;
    if (tolerance > 0.0f && r < tolerance) {
      *converged = 1;
      break;
    }
  }
  *iterations_done = k;
  memcpy(ranks, x, sizeof(float) * (size_t)c->n);
  free(x);
  free(xn);
  return PRLAB_OK;
}

int prlab_run(void *handle, int impl, float damping, int iterations, float tolerance, float *ranks,
              float *residuals, double *sums, int *iterations_done, int *converged, char *msg,
              int msg_len) {
  return run_from(handle, impl, damping, iterations, tolerance, NULL, ranks, residuals, sums, iterations_done,
                  converged, msg, msg_len);
}

int prlab_benchmark(void *handle, int impl, float damping, int iterations, int warmups, int runs,
                    float *runs_ms, float *ranks, char *msg, int msg_len) {
  (void)warmups;
  float res[1];
  double sum[1];
  int done, conv;
  for (int r = 0; r < runs; ++r) runs_ms[r] = 1.0f + 0.01f * (float)r;
  fake_ctx *c = handle;
  float *x = malloc(sizeof(float) * (size_t)c->n);
  float *hist = malloc(sizeof(float) * (size_t)iterations);
  double *sums = malloc(sizeof(double) * (size_t)iterations);
  int rc = prlab_run(handle, impl, damping, iterations, 0.0f, x, hist, sums, &done, &conv, msg,
                     msg_len);
  if (rc == PRLAB_OK && ranks) memcpy(ranks, x, sizeof(float) * (size_t)c->n);
  (void)res;
  (void)sum;
  free(x);
  free(hist);
  free(sums);
  return rc;
}

int prlab_time_stage(void *handle, int stage, float damping, int warmups, int repeats,
                     float *median_ms, char *msg, int msg_len) {
  (void)handle;
  (void)damping;
  (void)warmups;
  (void)repeats;
  if ((stage < 0 || stage >= PRLAB_STAGE_COUNT) && (stage < PRLAB_STAGE_LAYOUT_FIRST || stage >= PRLAB_STAGE_LAYOUT_END))
    return say(msg, msg_len, PRLAB_ERR_ARG, "bad stage");
  *median_ms = 0.001f * (float)(stage + 1);
  return PRLAB_OK;
}

/* A 1000 GB/s copy: ms = bytes / 1e9. */
int prlab_time_copy(void *handle, long long bytes_moved, int warmups, int repeats, float *median_ms,
                    char *msg, int msg_len) {
  (void)handle;
  (void)warmups;
  (void)repeats;
  (void)msg;
  (void)msg_len;
  *median_ms = (float)((double)bytes_moved / 1e9);
  return PRLAB_OK;
}

int prlab_check_reduction(void *handle, int kind, int which, int n, const float *a, const float *b,
                          const unsigned char *mask, int threads_per_block, double *value,
                          int *floats_written, int *grid_blocks, char *msg, int msg_len) {
  (void)handle;
  (void)msg;
  (void)msg_len;
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += which == 0 ? (mask[i] ? a[i] : 0.0f) : fabsf(b[i] - a[i]);
  int grid = (n + threads_per_block - 1) / threads_per_block;
  if (grid > 256) grid = 256;
  if (kind == PRLAB_REDUCE_CLUSTER) grid = 16; /* one cluster of 16 blocks, one partial each */
  *grid_blocks = grid;
  *floats_written = kind == PRLAB_REDUCE_ATOMIC ? 1 : grid + 1;
  *value = (float)s;
  return PRLAB_OK;
}

#ifndef FAKE_NO_LAYOUT
int prlab_layout_info_get(void *handle, prlab_layout_info *out, char *msg, int msg_len) {
  (void)msg;
  (void)msg_len;
  fake_ctx *c = handle;
  memset(out, 0, sizeof(*out));
  for (int v = 0; v < c->n; ++v) {
    int d = c->row_ptr[v + 1] - c->row_ptr[v];
    int b = d <= 32 ? 0 : d <= 1024 ? 1 : 2;
    out->bucket_rows[b]++;
    out->bucket_nnz[b] += d;
    if (d > out->bucket_max_degree[b]) out->bucket_max_degree[b] = d;
    if (d > out->max_in_degree) out->max_in_degree = d;
  }
  out->tile_edges = c->knobs[PRLAB_KNOB_TILE_EDGES] ? c->knobs[PRLAB_KNOB_TILE_EDGES] : 1024;
  out->tile_rows = c->knobs[PRLAB_KNOB_TILE_ROWS] ? c->knobs[PRLAB_KNOB_TILE_ROWS] : 128;
  out->tiles = 1 + c->nnz / out->tile_edges;
  out->grid_fused = out->tiles;
  out->grid_t4 = 1 + c->n / 256;
  out->coop_blocks_per_sm = 2;
  out->grid_coop = 264;
  out->threads_per_block = 256;
  out->persistent_resident = c->knobs[PRLAB_KNOB_RESIDENT] == 0 && out->tiles <= out->grid_coop;
  out->sms = 132;
  out->graph_k = c->knobs[PRLAB_KNOB_GRAPH_K] ? c->knobs[PRLAB_KNOB_GRAPH_K] : 10;
  if (c->n <= 4096) {
    out->cluster_size = c->knobs[PRLAB_KNOB_CLUSTER_SIZE] ? c->knobs[PRLAB_KNOB_CLUSTER_SIZE] : 16;
    out->cluster_replicated = c->knobs[PRLAB_KNOB_CLUSTER_MODE] != 1;
    out->cluster_threads = 1024;
    out->cluster_smem_bytes = 4LL * c->n;
  } else {
    snprintf(out->cluster_reason, sizeof(out->cluster_reason),
             "the graph needs %lld bytes of shared memory per block, the cluster has 232448", 8LL * c->n);
  }
  return PRLAB_OK;
}

int prlab_layout_set(void *handle, int knob, int value, char *msg, int msg_len) {
  fake_ctx *c = handle;
  if (knob >= PRLAB_KNOB_HOT_FIRST && knob < PRLAB_KNOB_HOT_END) { /* the hot-head knobs change no fake result */
    if (value < 0) return say(msg, msg_len, PRLAB_ERR_ARG, "knob value must be >= 0");
    return PRLAB_OK;
  }
  if (knob >= PRLAB_KNOB_DSM_FIRST && knob < PRLAB_KNOB_DSM_END)
    return value < 0 ? say(msg, msg_len, PRLAB_ERR_ARG, "knob value must be >= 0") : PRLAB_OK;
  if (knob >= PRLAB_KNOB_PB_FIRST && knob < PRLAB_KNOB_PB_END) { /* only the head size changes a fake result (its hot edges) */
    if (value < 0) return say(msg, msg_len, PRLAB_ERR_ARG, "knob value must be >= 0");
    if (knob == PRLAB_KNOB_PB_HOT) c->pb_hot = value;
    return PRLAB_OK;
  }
  if (knob < 0 || knob >= PRLAB_KNOB_COUNT) return say(msg, msg_len, PRLAB_ERR_ARG, "knob out of range");
  if (value < 0) return say(msg, msg_len, PRLAB_ERR_ARG, "knob value must be >= 0");
  c->knobs[knob] = value;
  return PRLAB_OK;
}

/* Primitive `which` costs (which + 1) microseconds per operation. */
int prlab_time_primitive(void *handle, int which, int count, int warmups, int repeats, float *median_ms,
                         char *msg, int msg_len) {
  (void)handle;
  (void)warmups;
  (void)repeats;
  if (which < 0 || which >= PRLAB_PRIM_COUNT) return say(msg, msg_len, PRLAB_ERR_ARG, "primitive out of range");
  *median_ms = 0.001f * (float)(which + 1) * (float)count;
  return PRLAB_OK;
}
#endif

#ifndef FAKE_NO_SESSION
typedef struct {
  fake_ctx g;
  int *out_deg;
  int impl;
} fake_session;

typedef unsigned long long fkey;

static int cmp_key(const void *a, const void *b) {
  fkey x = *(const fkey *)a, y = *(const fkey *)b;
  return x < y ? -1 : x > y;
}

static int in_row(const fake_ctx *c, int v, int s) {
  if (v >= c->n) return 0;
  int lo = c->row_ptr[v], hi = c->row_ptr[v + 1];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (c->col_idx[mid] < s) lo = mid + 1; else hi = mid;
  }
  return lo < c->row_ptr[v + 1] && c->col_idx[lo] == s;
}

static int has_key(const fkey *k, int m, fkey x) {
  int lo = 0, hi = m;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (k[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo < m && k[lo] == x;
}

static void derive(fake_session *f) {
  for (int u = 0; u < f->g.n; ++u) {
    f->g.inv_out[u] = f->out_deg[u] > 0 ? (float)(1.0 / (double)f->out_deg[u]) : 0.0f;
    f->g.dangling[u] = f->out_deg[u] == 0;
  }
}

int prlab_session_open(int device, int impl, int n, int nnz, const int *row_ptr, const int *col_idx,
                       const int *out_degree, int max_iterations, void **session, char *msg, int msg_len) {
  (void)device;
  if (impl != PRLAB_IMPL_NAIVE && impl != PRLAB_IMPL_THREAD_PER_ROW && impl != PRLAB_IMPL_WARP_PER_ROW &&
      impl != PRLAB_IMPL_CUSPARSE)
    return say(msg, msg_len, PRLAB_ERR_ARG, "implementation cannot run a resident session");
  if (n < 1 || row_ptr[n] != nnz || !out_degree) return say(msg, msg_len, PRLAB_ERR_ARG, "bad shape");
  fake_session *f = calloc(1, sizeof(*f));
  f->impl = impl;
  f->g.n = n;
  f->g.nnz = nnz;
  f->g.max_iter = max_iterations;
  f->g.row_ptr = malloc(sizeof(int) * (size_t)(n + 1));
  f->g.col_idx = malloc(sizeof(int) * (size_t)(nnz + 1));
  f->g.inv_out = malloc(sizeof(float) * (size_t)n);
  f->g.dangling = malloc((size_t)n);
  f->out_deg = malloc(sizeof(int) * (size_t)n);
  memcpy(f->g.row_ptr, row_ptr, sizeof(int) * (size_t)(n + 1));
  if (nnz > 0) memcpy(f->g.col_idx, col_idx, sizeof(int) * (size_t)nnz);
  memcpy(f->out_deg, out_degree, sizeof(int) * (size_t)n);
  derive(f);
  *session = f;
  return PRLAB_OK;
}

int prlab_session_apply(void *session, int new_nodes, const int *ins, int n_ins, const int *del, int n_del,
                        prlab_batch_stats *st, char *msg, int msg_len) {
  fake_session *f = session;
  if (!f || !st || new_nodes < 0 || n_ins < 0 || n_del < 0) return say(msg, msg_len, PRLAB_ERR_ARG, "bad argument");
  fake_ctx *c = &f->g;
  const int n_old = c->n, n_new = c->n + new_nodes;
  for (int i = 0; i < n_ins + n_del; ++i) {
    int s = i < n_ins ? ins[2 * i] : del[2 * (i - n_ins)], d = i < n_ins ? ins[2 * i + 1] : del[2 * (i - n_ins) + 1];
    if (s < 0 || s >= n_new || d < 0 || d >= n_new) {
      if (msg && msg_len > 0)
        snprintf(msg, (size_t)msg_len, "batch edges have an index outside [0, %d); the first is %s %d", n_new,
                 i < n_ins ? "insertion" : "deletion", i < n_ins ? i : i - n_ins);
      return PRLAB_ERR_ARG;
    }
  }
  memset(st, 0, sizeof(*st));
  fkey *ik = malloc(sizeof(fkey) * (size_t)(n_ins + 1)), *dk = malloc(sizeof(fkey) * (size_t)(n_del + 1));
  int ni = 0, nd = 0;
  for (int i = 0; i < n_ins; ++i) {
    if (ins[2 * i] == ins[2 * i + 1]) st->self_loops++;
    else ik[ni++] = (fkey)ins[2 * i + 1] << 32 | (fkey)(unsigned)ins[2 * i];
  }
  for (int i = 0; i < n_del; ++i) {
    if (del[2 * i] == del[2 * i + 1]) st->absent_deletes++;
    else dk[nd++] = (fkey)del[2 * i + 1] << 32 | (fkey)(unsigned)del[2 * i];
  }
  qsort(ik, (size_t)ni, sizeof(fkey), cmp_key);
  qsort(dk, (size_t)nd, sizeof(fkey), cmp_key);
  fkey *ed = malloc(sizeof(fkey) * (size_t)(nd + 1)), *ei = malloc(sizeof(fkey) * (size_t)(ni + 1));
  int ned = 0, nei = 0;
  for (int i = 0; i < nd; ++i) {
    int v = (int)(dk[i] >> 32), s = (int)(unsigned)dk[i];
    if ((i > 0 && dk[i - 1] == dk[i]) || !in_row(c, v, s)) st->absent_deletes++;
    else ed[ned++] = dk[i];
  }
  for (int i = 0; i < ni; ++i) {
    int v = (int)(ik[i] >> 32), s = (int)(unsigned)ik[i];
    if ((i > 0 && ik[i - 1] == ik[i]) || (in_row(c, v, s) && !has_key(ed, ned, ik[i]))) st->duplicate_inserts++;
    else ei[nei++] = ik[i];
  }
  /* The new CSR: each row's kept entries merged with its insertions. */
  const int nnz_new = c->nnz - ned + nei;
  int *rp = malloc(sizeof(int) * (size_t)(n_new + 1)), *ci = malloc(sizeof(int) * (size_t)(nnz_new + 1));
  int w = 0, a = 0, b = 0;
  for (int v = 0; v < n_new; ++v) {
    rp[v] = w;
    int j = v < n_old ? c->row_ptr[v] : 0, end = v < n_old ? c->row_ptr[v + 1] : 0;
    for (;;) {
      while (j < end && b < ned && (int)(ed[b] >> 32) == v && (int)(unsigned)ed[b] == c->col_idx[j]) { ++j; ++b; }
      int has_old = j < end, has_ins = a < nei && (int)(ei[a] >> 32) == v;
      if (!has_old && !has_ins) break;
      if (has_old && (!has_ins || c->col_idx[j] < (int)(unsigned)ei[a])) ci[w++] = c->col_idx[j++];
      else ci[w++] = (int)(unsigned)ei[a++];
    }
  }
  rp[n_new] = w;
  free(c->row_ptr);
  free(c->col_idx);
  c->row_ptr = rp;
  c->col_idx = ci;
  c->n = n_new;
  c->nnz = w;
  f->out_deg = realloc(f->out_deg, sizeof(int) * (size_t)n_new);
  for (int u = n_old; u < n_new; ++u) f->out_deg[u] = 0;
  unsigned char *touched = calloc((size_t)n_new, 1);
  for (int i = 0; i < ned; ++i) {
    int u = (int)(unsigned)ed[i];
    f->out_deg[u]--;
    st->touched_rows += !touched[u];
    touched[u] = 1;
  }
  for (int i = 0; i < nei; ++i) {
    int u = (int)(unsigned)ei[i];
    f->out_deg[u]++;
    st->touched_rows += !touched[u];
    touched[u] = 1;
  }
  c->inv_out = realloc(c->inv_out, sizeof(float) * (size_t)n_new);
  c->dangling = realloc(c->dangling, (size_t)n_new);
  derive(f);
  st->new_nodes = new_nodes;
  st->inserted = nei;
  st->deleted = ned;
  st->n = n_new;
  st->nnz = w;
  st->update_ms = 0.5f + 0.001f * (float)(n_ins + n_del);
  for (int i = 0; i < 5; ++i) st->phase_ms[i] = st->update_ms / 5.0f;
  free(touched);
  free(ik);
  free(dk);
  free(ed);
  free(ei);
  return PRLAB_OK;
}

int prlab_session_run(void *session, float damping, int iterations, float tolerance, const float *start,
                      float *ranks, float *residuals, double *sums, int *iterations_done, int *converged,
                      float *run_ms, char *msg, int msg_len) {
  fake_session *f = session;
  if (!f) return say(msg, msg_len, PRLAB_ERR_ARG, "session handle is NULL");
  int rc = run_from(&f->g, f->impl, damping, iterations, tolerance, start, ranks, residuals, sums, iterations_done,
                    converged, msg, msg_len);
  if (rc == PRLAB_OK && run_ms) *run_ms = 0.25f * (float)*iterations_done;
  return rc;
}

int prlab_session_graph(void *session, int *n, int *nnz, int *row_ptr, int *col_idx, int *out_degree,
                        unsigned char *dangling, float *inv_out, char *msg, int msg_len) {
  fake_session *f = session;
  if (!f) return say(msg, msg_len, PRLAB_ERR_ARG, "session handle is NULL");
  const fake_ctx *c = &f->g;
  if (n) *n = c->n;
  if (nnz) *nnz = c->nnz;
  if (row_ptr) memcpy(row_ptr, c->row_ptr, sizeof(int) * (size_t)(c->n + 1));
  if (col_idx && c->nnz) memcpy(col_idx, c->col_idx, sizeof(int) * (size_t)c->nnz);
  if (out_degree) memcpy(out_degree, f->out_deg, sizeof(int) * (size_t)c->n);
  if (dangling) memcpy(dangling, c->dangling, (size_t)c->n);
  if (inv_out) memcpy(inv_out, c->inv_out, sizeof(float) * (size_t)c->n);
  return PRLAB_OK;
}

int prlab_session_close(void *session, char *msg, int msg_len) {
  fake_session *f = session;
  if (!f) return PRLAB_OK;
  free(f->out_deg);
  return prlab_graph_free(&f->g, msg, msg_len) == PRLAB_OK ? PRLAB_OK : PRLAB_ERR_INTERNAL;
}
#endif

/* The packed hot-head design's column code: decoded and compared with the
 * uploaded columns, so the Go encoder's output is checked through the C ABI. */
int prlab_hothead_codes(void *handle, const unsigned short *codes, const int *exc_ptr, const int *exc, int n_exc,
                        char *msg, int msg_len) {
  fake_ctx *c = handle;
  if (!c || !codes || !exc_ptr || (n_exc > 0 && !exc)) return say(msg, msg_len, PRLAB_ERR_ARG, "NULL argument");
  if (exc_ptr[0] != 0 || exc_ptr[c->n] != n_exc) return say(msg, msg_len, PRLAB_ERR_ARG, "exc_ptr does not span the escapes");
  for (int v = 0; v < c->n; ++v) {
    int col = 0, x = exc_ptr[v];
    for (int e = c->row_ptr[v]; e < c->row_ptr[v + 1]; ++e) {
      if ((e - c->row_ptr[v]) % PRLAB_HOT_SEGMENT == 0) col = 0;
      if (codes[e] == 0xFFFF) {
        if (x >= exc_ptr[v + 1]) return say(msg, msg_len, PRLAB_ERR_ARG, "more escape codes than escapes in a row");
        col += exc[x++];
      } else {
        col += codes[e];
      }
      if (col != c->col_idx[e]) return say(msg, msg_len, PRLAB_ERR_ARG, "the code does not decode to the uploaded columns");
    }
  }
  c->codes_uploaded = 1;
  return PRLAB_OK;
}

/* The hot-head setup: fixed values (no tuning without a GPU). */
int prlab_hothead_info(void *handle, int impl, float damping, int *hot_floats, int *load_mode, int *loads_per_step,
                       int *grid, int *threads, int *group, float *tune_ms, char *msg, int msg_len) {
  (void)handle;
  (void)damping;
  if (impl != PRLAB_IMPL_HOTHEAD && impl != PRLAB_IMPL_HOTHEAD_PACKED)
    return say(msg, msg_len, PRLAB_ERR_ARG, "not a hot-head design");
  *hot_floats = 24576;
  *load_mode = 2;
  *loads_per_step = 4;
  *grid = 264;
  *threads = 1024;
  *group = 1024;
  *tune_ms = 1.5f;
  return PRLAB_OK;
}

/* The propagation-blocking layout: the head (knob, default 12288, 1 none)
 * and its hot edges counted from the uploaded columns; the rest fixed. */
int prlab_propblock_info(void *handle, float damping, int *hot_floats, int *bin_rows, int *chunk_rows, int *bins,
                         int *chunks, int *items, long long *hot_edges, float *build_ms, float *phase_ms, int *mode,
                         char *msg, int msg_len) {
  (void)damping;
  fake_ctx *c = handle;
  if (!c || !hot_floats || !bin_rows || !chunk_rows || !bins || !chunks || !items || !hot_edges || !build_ms || !phase_ms || !mode)
    return say(msg, msg_len, PRLAB_ERR_ARG, "NULL argument");
  int hot = c->pb_hot == 1 ? 0 : (c->pb_hot ? c->pb_hot : 12288);
  if (hot > c->n) hot = c->n;
  long long he = 0;
  for (int e = 0; e < c->nnz; ++e) he += c->col_idx[e] < hot;
  *hot_floats = hot;
  *bin_rows = 8192;
  *chunk_rows = 16384;
  *bins = (c->n + 8191) / 8192;
  *chunks = c->n > hot ? (c->n - hot + 16383) / 16384 : 0;
  *items = *chunks;
  *hot_edges = he;
  *build_ms = 2.5f;
  phase_ms[0] = 0.5f;
  phase_ms[1] = 0.75f;
  *mode = 3;
  return PRLAB_OK;
}
