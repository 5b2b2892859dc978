/*
 * prlab_cuda.h — the C API of libprlab_cuda.so, the GPU half of prlab.
 *
 * Plain C types only: ints, floats, doubles, pointers to host arrays, and
 * one opaque handle (void*) per uploaded graph. No CUDA type crosses this
 * API, so the Go side (pkg/cudabind, cgo + dlopen) never includes a CUDA
 * header and builds on machines without CUDA.
 *
 * Every function returns a status code (PRLAB_OK = 0 on success) and, on
 * failure, writes a NUL-terminated message naming the failing call into the
 * caller's buffer msg[0..msg_len), e.g.
 *   "cudaMalloc(d_colIdx, 379724 bytes): out of memory (cudaErrorMemoryAllocation)".
 * The library never calls exit() or abort(), and no C++ exception escapes.
 *
 * Shapes: n nodes, nnz edges of the in-edge CSR (row v lists the nodes that
 * cite v). Times are milliseconds, byte counts are bytes.
 */
#ifndef PRLAB_CUDA_H
#define PRLAB_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden; only these functions are exported. */
#if defined(__GNUC__)
#define PRLAB_API __attribute__((visibility("default")))
#else
#define PRLAB_API
#endif

/* Bumped whenever a signature or a struct below changes; the Go side refuses
 * a library whose prlab_abi_version() differs from the one it was built for.
 * 2: the layout designs, their stages, primitives and knobs.
 * 3: prlab_layout_* and prlab_time_primitive (were prlab_frontier_*), the
 *    table of designs prlab_designs. */
#define PRLAB_ABI_VERSION 3

/* Status codes. */
#define PRLAB_OK 0
#define PRLAB_ERR_ARG 1       /* bad argument (message says which) */
#define PRLAB_ERR_CUDA 2      /* a CUDA runtime call or a kernel launch failed */
#define PRLAB_ERR_NO_DEVICE 3 /* no CUDA device, or no/old driver */
#define PRLAB_ERR_LIBRARY 4   /* cuSPARSE, CUB or Thrust reported an error */
#define PRLAB_ERR_INTERNAL 5  /* anything else (an unexpected C++ exception) */
#define PRLAB_ERR_UNAVAILABLE 6 /* the design cannot run on this graph or device (message says why,
                                   e.g. "graph too large for one cluster"); a skip, not a failure */

/* Implementations (the `impl` argument). */
#define PRLAB_IMPL_NAIVE 0          /* T2: thread per row, fused pull + combine, atomics */
#define PRLAB_IMPL_THREAD_PER_ROW 1 /* T3: scale, scalar CSR SpMV, tree reductions, combine */
#define PRLAB_IMPL_WARP_PER_ROW 2   /* warp per row SpMV, shuffle reductions */
#define PRLAB_IMPL_THRUST_CUB 3     /* thrust::transform/gather + CUB, no custom kernel */
#define PRLAB_IMPL_CUSPARSE 4       /* cusparseSpMV on P = A D^-1, shuffle reductions */
#define PRLAB_IMPL_THRUST_CUB_NOSYNC 5 /* as THRUST_CUB with thrust::cuda::par_nosync */
#define PRLAB_IMPL_COUNT 6

/* Stages timed alone by prlab_time_stage (each is one stage of some
 * implementation's iteration; bytes per stage are documented in
 * pkg/cudabind/bytes.go and in the kernels). */
#define PRLAB_STAGE_SCALE 0                 /* contrib = x * invOut (kernel) */
#define PRLAB_STAGE_SPMV_SCALAR 1           /* y = A contrib, thread per row */
#define PRLAB_STAGE_SPMV_WARP 2             /* y = A contrib, warp per row */
#define PRLAB_STAGE_SPMV_GATHER_CUB 3       /* thrust::gather + cub::DeviceSegmentedReduce::Sum */
#define PRLAB_STAGE_SPMV_CUSPARSE 4         /* cusparseSpMV, y = P x */
#define PRLAB_STAGE_NAIVE_PULL_COMBINE 5    /* naive fused pull + combine, thread per row */
#define PRLAB_STAGE_DANGLING_ATOMIC 6       /* memset + one atomicAdd per thread */
#define PRLAB_STAGE_DANGLING_TREE 7         /* two-pass shared-memory tree reduction */
#define PRLAB_STAGE_DANGLING_SHUFFLE 8      /* two-pass warp-shuffle reduction */
#define PRLAB_STAGE_DANGLING_THRUST_CUB 9   /* thrust::transform (mask) + cub::DeviceReduce::Sum */
#define PRLAB_STAGE_RESIDUAL_ATOMIC 10      /* memset + one atomicAdd per thread */
#define PRLAB_STAGE_RESIDUAL_TREE 11        /* two-pass tree reduction of |x' - x| */
#define PRLAB_STAGE_RESIDUAL_SHUFFLE 12     /* two-pass shuffle reduction of |x' - x| */
#define PRLAB_STAGE_RESIDUAL_THRUST_CUB 13  /* thrust::transform (|x'-x|) + cub::DeviceReduce::Sum */
#define PRLAB_STAGE_COMBINE 14              /* x' = (1-d)/n + d (y + D/n) (kernel) */
#define PRLAB_STAGE_SCALE_THRUST 15         /* thrust::transform, x * invOut */
#define PRLAB_STAGE_COMBINE_THRUST 16       /* thrust::transform, Combine functor */
#define PRLAB_STAGE_COUNT 17

/* Reductions checked by prlab_check_reduction. */
#define PRLAB_REDUCE_TREE 0    /* shared-memory tree, two passes */
#define PRLAB_REDUCE_SHUFFLE 1 /* warp shuffle, two passes */
#define PRLAB_REDUCE_ATOMIC 2  /* one atomicAdd per thread */
#define PRLAB_REDUCE_CLUSTER 3 /* gpu-cluster-dsmem's: one cluster, one partial per block in its shared
                                  memory, read by block 0 through distributed shared memory */

/* GPU context. Strings are NUL-terminated. */
typedef struct prlab_device_info {
  char name[256];
  int cc_major, cc_minor;     /* compute capability */
  int sm_count;               /* multiprocessors */
  int l2_bytes;               /* L2 cache size, bytes */
  int max_threads_per_block;
  int warp_size;
  long long global_mem_bytes; /* device memory, bytes */
  int driver_version;         /* cudaDriverGetVersion, e.g. 13000 */
  int runtime_version;        /* cudaRuntimeGetVersion of the runtime linked in */
  int cusparse_version;       /* cusparseGetProperty: major*1000 + minor*100 + patch */
  int kernel_binary_version;  /* SASS version of our kernels on this device, e.g. 90 */
  int kernel_ptx_version;     /* PTX version they were built from, e.g. 90 */
  int device_count;
  char cccl_version[64];      /* e.g. "CCCL 3.0.1" or "Thrust 1.15.1 / CUB 1.15.0" */
  char compiled_archs[128];   /* __CUDA_ARCH_LIST__ of the build, e.g. "750,800,860,890,900" */
} prlab_device_info;

/* ABI version of the loaded library (PRLAB_ABI_VERSION when it was built). */
PRLAB_API int prlab_abi_version(void);

/* Number of CUDA devices. Fails with PRLAB_ERR_NO_DEVICE when there is none
 * or the driver is missing/too old (the message says which). */
PRLAB_API int prlab_device_count(int *count, char *msg, int msg_len);

/* Fills *out for device `device`. */
PRLAB_API int prlab_device_info_get(int device, prlab_device_info *out, char *msg, int msg_len);

/*
 * Uploads the in-edge CSR once and allocates every work buffer.
 *   row_ptr   [n+1] int32, row_ptr[0] = 0, row_ptr[n] = nnz
 *   col_idx   [nnz] int32 in [0, n) (citing node of each in-edge)
 *   inv_out   [n]   float, 1/outdeg(u), 0 for a dangling node
 *   dangling  [n]   uint8, 1 where outdeg(u) == 0
 * max_iterations sizes the per-iteration residual/sum history (>= any later
 * `iterations`). *handle receives the context; free it with prlab_graph_free.
 */
PRLAB_API int prlab_graph_create(int device, int n, int nnz, const int *row_ptr, const int *col_idx,
                       const float *inv_out, const unsigned char *dangling, int max_iterations,
                       void **handle, char *msg, int msg_len);

/* Frees every device buffer and library handle of the context (NULL is a no-op). */
PRLAB_API int prlab_graph_free(void *handle, char *msg, int msg_len);

/*
 * Correctness / convergence run of implementation `impl` from x = 1/n with
 * damping factor `damping`.
 *   tolerance <= 0: exactly `iterations` iterations, no host copy inside the
 *     loop (residual and sum of each iteration stay on the device until the end).
 *   tolerance  > 0: stop after the first iteration whose L1 residual is below
 *     tolerance (one 4-byte device-to-host copy per iteration), or at `iterations`.
 * Outputs: ranks[n] (float), residuals[iterations] (the implementation's own
 * float L1 residual ||x' - x||_1), sums[iterations] (sum of x' accumulated in
 * double by an instrumentation kernel), *iterations_done, *converged.
 * The residual and sum reductions run only here, never in prlab_benchmark.
 */
PRLAB_API int prlab_run(void *handle, int impl, float damping, int iterations, float tolerance, float *ranks,
              float *residuals, double *sums, int *iterations_done, int *converged, char *msg,
              int msg_len);

/*
 * Timed mode: `warmups` untimed runs, then `runs` timed runs, each resetting
 * x = 1/n (outside the timed region) and doing `iterations` iterations with
 * no convergence test. Each run is timed with CUDA events recorded around
 * the iterations only; no host copy happens inside. runs_ms[runs] receives
 * the milliseconds of each timed run; ranks[n] (may be NULL) receives the
 * ranks after the last run.
 */
PRLAB_API int prlab_benchmark(void *handle, int impl, float damping, int iterations, int warmups, int runs,
                    float *runs_ms, float *ranks, char *msg, int msg_len);

/*
 * Times one stage (PRLAB_STAGE_*) alone: inputs are prepared by one full
 * iteration first, then `warmups` untimed and `repeats` timed executions,
 * each between its own pair of CUDA events. *median_ms receives the median.
 */
PRLAB_API int prlab_time_stage(void *handle, int stage, float damping, int warmups, int repeats,
                     float *median_ms, char *msg, int msg_len);

/*
 * Copy row: a device-to-device cudaMemcpyAsync of bytes_moved/2 bytes (so
 * bytes_moved counts bytes read plus bytes written), timed like a stage.
 * Buffers are allocated for the call and freed after it.
 */
PRLAB_API int prlab_time_copy(void *handle, long long bytes_moved, int warmups, int repeats, float *median_ms,
                    char *msg, int msg_len);

/*
 * Checks one two-pass reduction in isolation (a test hook).
 *   which = 0: dangling mass,  sum of a[i] where mask[i] != 0
 *   which = 1: L1 residual,    sum of |b[i] - a[i]|
 * a, b are host arrays of n floats, mask n uint8 (b unused for which = 0,
 * mask unused for which = 1); n is independent of the graph's n (buffers are
 * allocated for the call).
 * kind is PRLAB_REDUCE_*, threads_per_block a multiple of 32 in [32, 1024]
 * (a power of two for the tree). Every float of the reduction's scratch
 * (partials and result) is poisoned first; *floats_written counts those that
 * changed, *grid_blocks is the first pass's gridDim.x, *value the result.
 */
PRLAB_API int prlab_check_reduction(void *handle, int kind, int which, int n, const float *a, const float *b,
                          const unsigned char *mask, int threads_per_block, double *value, int *floats_written,
                          int *grid_blocks, char *msg, int msg_len);

/* ---- Layout designs (csrc/layout.cu) ----
 * Designs built on a layout computed once per uploaded graph (T4 in-degree
 * buckets, CSR-Adaptive tiles, the persistent and cluster grids). A separate
 * code range, so that PRLAB_IMPL_COUNT and PRLAB_STAGE_COUNT keep counting
 * the stage-by-stage designs and their stages; prlab_run, prlab_benchmark
 * and prlab_time_stage accept these codes as well. Timed runs of a layout
 * design include its prologue (x = 1/n, contrib = x/outdeg, the dangling
 * partials of x) inside the events. */
#define PRLAB_IMPL_LAYOUT_FIRST 16
#define PRLAB_IMPL_T4_BUCKETED 16 /* T4: in-degree buckets (thread <= 32, warp <= 1024, block), fused combine */
#define PRLAB_IMPL_FUSED 17       /* one launch per iteration: CSR-Adaptive tiles + combine + next dangling partials */
#define PRLAB_IMPL_GRAPH 18       /* PRLAB_IMPL_FUSED in a CUDA Graph: one graph launch per timed run */
#define PRLAB_IMPL_PERSISTENT 19  /* one cooperative launch for all iterations, one grid.sync() per iteration */
#define PRLAB_IMPL_CLUSTER 20     /* one thread-block cluster, graph and ranks in distributed shared memory (sm_90) */
#define PRLAB_IMPL_LAYOUT_END 21

/* The hot-head design (csrc/hothead.cu): one launch per iteration, the
 * hottest contributions staged in every block's shared memory (run on the
 * graph relabelled by out-degree). Its own code range. */
#define PRLAB_IMPL_HOTHEAD_FIRST 24
#define PRLAB_IMPL_HOTHEAD 24 /* T4 buckets in one launch + combine, contrib[0, H) from shared memory */
#define PRLAB_IMPL_HOTHEAD_PACKED 25 /* the same with the 16-bit column code of prlab_hothead_codes */
#define PRLAB_IMPL_HOTHEAD_END 26
#define PRLAB_HOT_SEGMENT 1024 /* edges per segment of the column code (a block's warps decode one segment each) */

/* Uploads the graph's 16-bit column code for PRLAB_IMPL_HOTHEAD_PACKED
 * (pkg/cudabind ColumnCode): codes [nnz] at the edges' CSR positions, each
 * the gap from the previous column of its row's segment (PRLAB_HOT_SEGMENT
 * edges; a segment's first edge codes its column from 0), or 0xFFFF when
 * the gap is the next of the row's escapes; exc_ptr [n+1] (row
 * v's escapes are exc[exc_ptr[v] .. exc_ptr[v+1])), exc [n_exc]. Replaces an
 * earlier upload; the packed design fails until one was made. */
PRLAB_API int prlab_hothead_codes(void *handle, const unsigned short *codes, const int *exc_ptr, const int *exc,
                                  int n_exc, char *msg, int msg_len);

/* The configuration a hot-head design (impl) runs with on this graph,
 * after its one-time setup (row lists, and the tuning of the hot-head size
 * and kernel variant whose knobs are 0: the fastest of a few timed iterations
 * per candidate, outside any timed region; the row-loop candidates give the
 * same bits, the two-phase gather's of one tile size theirs): contributions
 * staged per block (*hot_floats), load mode of the once-read streams
 * (*load_mode, PRLAB_KNOB_HOT_STREAM's values 1-3), loads in flight per thread
 * and step (*loads_per_step, PRLAB_KNOB_HOT_UNROLL's; for the two-phase gather
 * the edges per thread and tile, 8 or 16), blocks and threads per block,
 * threads per heavy row (*group; 0: the two-phase gather, which has no row
 * loops), and the tuning's ms. */
PRLAB_API int prlab_hothead_info(void *handle, int impl, float damping, int *hot_floats, int *load_mode,
                                 int *loads_per_step, int *grid, int *threads, int *group, float *tune_ms, char *msg,
                                 int msg_len);
/* The single-cluster design with needed-only exchanges (csrc/cluster_dsmem.cu):
 * the whole graph in the shared memory of one thread-block cluster, one
 * cluster.sync() per iteration (sm_90). Its own code range. */
#define PRLAB_IMPL_DSMEM_FIRST 28
#define PRLAB_IMPL_CLUSTER_DSMEM 28
#define PRLAB_IMPL_DSMEM_END 29

/* Propagation blocking (csrc/propblock.cu; Beamer, Asanovic, Patterson,
 * IPDPS 2017): two launches of streams per iteration on the graph
 * relabelled by out-degree, phase 1 writing every cold edge's contribution
 * into its destination bin's segment, phase 2 adding them in shared memory
 * (and the hot head's edges from a staged contrib[0, H)) and combining.
 * By default the bins' row sums are 64-bit fixed point added by integer
 * atomics: the same bits every run (PRLAB_KNOB_PB_FIXED). */
#define PRLAB_IMPL_PROPBLOCK_FIRST 32
#define PRLAB_IMPL_PROPBLOCK 32
#define PRLAB_IMPL_PROPBLOCK_END 33

/* The layout gpu-prop-blocking runs with on this graph, after its one-time
 * build (on the GPU: keys, one radix sort, the tables; not timed): head
 * floats gathered from shared memory in phase 2 (*hot_floats), rows per
 * bin (*bin_rows, at most) and per source chunk (*chunk_rows), bins,
 * chunks, phase-1 work items, the edges whose source is in the head
 * (*hot_edges: 4 bytes per iteration each instead of a cold edge's 12), and
 * the build's wall time in ms (host and device), and each phase alone
 * (phase_ms[0] the scatter, [1] the accumulate + combine: ms per launch, the
 * mean of 10 after one warm-up, measured once per layout, outside any timed
 * region), and *mode: bit 1 destination runs (PRLAB_KNOB_PB_RUNS), bit 2
 * fixed-point row sums (PRLAB_KNOB_PB_FIXED). */
PRLAB_API int prlab_propblock_info(void *handle, float damping, int *hot_floats, int *bin_rows, int *chunk_rows,
                                   int *bins, int *chunks, int *items, long long *hot_edges, float *build_ms,
                                   float *phase_ms, int *mode, char *msg, int msg_len);

#define PRLAB_STAGE_LAYOUT_FIRST 64
#define PRLAB_STAGE_T4_SPMV_THREAD 64  /* T4 bucket in-degree <= 32, thread per row */
#define PRLAB_STAGE_T4_SPMV_WARP 65    /* T4 bucket in-degree 33..1024, warp per row */
#define PRLAB_STAGE_T4_SPMV_BLOCK 66   /* T4 bucket in-degree > 1024, block per row */
#define PRLAB_STAGE_T4_COMBINE 67      /* T4 combine + next contrib + next dangling partials */
#define PRLAB_STAGE_FUSED_ITERATION 68 /* one launch of the fused iteration kernel */
#define PRLAB_STAGE_LAYOUT_END 69

/* ---- The table of designs ----
 * One row per design: its family, the stages of its iteration, the residual
 * stage of its tolerance runs, and whether its Thrust calls use
 * thrust::cuda::par_nosync. api.cu runs a stage-by-stage design by running
 * its stages in this order; pkg/cudabind (cgo) reads the same rows for the
 * bytes and launches it reports, so the stage list is written once, here.
 * A layout design's stages are those prlab_time_stage can time alone (its
 * iteration is its own kernel in csrc/layout.cu). Unused entries are -1. */
#define PRLAB_FAMILY_STAGES 0 /* one kernel or library call per stage (api.cu, kernels.cu, library.cu) */
#define PRLAB_FAMILY_LAYOUT 1 /* built on the per-graph layout (layout.cu) */
#define PRLAB_MAX_DESIGN_STAGES 4
#define PRLAB_DESIGN_COUNT 15

typedef struct prlab_design {
  int impl;           /* PRLAB_IMPL_* */
  int family;         /* PRLAB_FAMILY_* */
  int stages[PRLAB_MAX_DESIGN_STAGES]; /* PRLAB_STAGE_*, in launch order */
  int residual_stage; /* PRLAB_FAMILY_STAGES: the L1 residual of tolerance runs */
  int nosync;         /* 1: Thrust stages run with thrust::cuda::par_nosync */
} prlab_design;

#if defined(__GNUC__)
__attribute__((unused))
#endif
static const prlab_design prlab_designs[PRLAB_DESIGN_COUNT] = {
    {PRLAB_IMPL_NAIVE, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_DANGLING_ATOMIC, PRLAB_STAGE_NAIVE_PULL_COMBINE, -1, -1}, PRLAB_STAGE_RESIDUAL_ATOMIC, 0},
    {PRLAB_IMPL_THREAD_PER_ROW, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_SCALE, PRLAB_STAGE_SPMV_SCALAR, PRLAB_STAGE_DANGLING_TREE, PRLAB_STAGE_COMBINE},
     PRLAB_STAGE_RESIDUAL_TREE, 0},
    {PRLAB_IMPL_WARP_PER_ROW, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_SCALE, PRLAB_STAGE_SPMV_WARP, PRLAB_STAGE_DANGLING_SHUFFLE, PRLAB_STAGE_COMBINE},
     PRLAB_STAGE_RESIDUAL_SHUFFLE, 0},
    {PRLAB_IMPL_THRUST_CUB, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_SCALE_THRUST, PRLAB_STAGE_SPMV_GATHER_CUB, PRLAB_STAGE_DANGLING_THRUST_CUB, PRLAB_STAGE_COMBINE_THRUST},
     PRLAB_STAGE_RESIDUAL_THRUST_CUB, 0},
    {PRLAB_IMPL_CUSPARSE, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_SPMV_CUSPARSE, PRLAB_STAGE_DANGLING_SHUFFLE, PRLAB_STAGE_COMBINE, -1},
     PRLAB_STAGE_RESIDUAL_SHUFFLE, 0},
    {PRLAB_IMPL_THRUST_CUB_NOSYNC, PRLAB_FAMILY_STAGES,
     {PRLAB_STAGE_SCALE_THRUST, PRLAB_STAGE_SPMV_GATHER_CUB, PRLAB_STAGE_DANGLING_THRUST_CUB, PRLAB_STAGE_COMBINE_THRUST},
     PRLAB_STAGE_RESIDUAL_THRUST_CUB, 1},
    {PRLAB_IMPL_T4_BUCKETED, PRLAB_FAMILY_LAYOUT,
     {PRLAB_STAGE_T4_SPMV_THREAD, PRLAB_STAGE_T4_SPMV_WARP, PRLAB_STAGE_T4_SPMV_BLOCK, PRLAB_STAGE_T4_COMBINE}, -1, 0},
    {PRLAB_IMPL_FUSED, PRLAB_FAMILY_LAYOUT, {PRLAB_STAGE_FUSED_ITERATION, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_GRAPH, PRLAB_FAMILY_LAYOUT, {PRLAB_STAGE_FUSED_ITERATION, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_PERSISTENT, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_CLUSTER, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_HOTHEAD, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_HOTHEAD_PACKED, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_CLUSTER_DSMEM, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
    {PRLAB_IMPL_PROPBLOCK, PRLAB_FAMILY_LAYOUT, {-1, -1, -1, -1}, -1, 0},
};

/* Primitives timed by prlab_time_primitive (*median_ms is for all `count`). */
#define PRLAB_PRIM_EMPTY_LAUNCH 0 /* `count` back-to-back launches of an empty kernel <<<1, 32>>> */
#define PRLAB_PRIM_GRAPH_NODE 1   /* one replay of a CUDA graph of `count` empty-kernel nodes */
#define PRLAB_PRIM_GRID_SYNC 2    /* cooperative kernel with `count` grid.sync() minus one with none */
#define PRLAB_PRIM_CLUSTER_SYNC 3 /* one-cluster kernel with `count` cluster.sync() minus one with none */
#define PRLAB_PRIM_COOP_LAUNCH 4  /* `count` back-to-back cooperative launches (persistent grid, no sync) */
#define PRLAB_PRIM_COUNT 5

/* Knobs of prlab_layout_set (value 0 = automatic); a change rebuilds the layout. */
#define PRLAB_KNOB_TILE_EDGES 0    /* edges per CSR-Adaptive tile (auto: ~nnz / (2 SMs), 256..4096) */
#define PRLAB_KNOB_TILE_ROWS 1     /* rows per tile (auto: ~n / (2 SMs), 32..256) */
#define PRLAB_KNOB_BLOCKS_PER_SM 2 /* persistent grid: at most this many blocks per SM (auto: occupancy) */
#define PRLAB_KNOB_GRAPH_K 3       /* iterations per graph replay in correctness runs (auto: 10) */
#define PRLAB_KNOB_CLUSTER_SIZE 4  /* blocks in the cluster (auto: 16, else 8) */
#define PRLAB_KNOB_RESIDENT 5      /* persistent kernel: 0 keeps each block's tile in shared memory when
                                       every block owns one tile, 1 re-reads the CSR every iteration */
#define PRLAB_KNOB_CLUSTER_MODE 6  /* cluster kernel: 0 replicated contributions if they fit, else
                                       distributed; 1 distributed (gather through DSMEM); 2 replicated */
#define PRLAB_KNOB_COUNT 7
/* Knobs of the hot-head design (prlab_layout_set routes them to csrc/hothead.cu). */
#define PRLAB_KNOB_HOT_FIRST 16
#define PRLAB_KNOB_HOT_FLOATS 16        /* contributions staged in shared memory per block (auto: tuned among 0, 12288, 24576; <= 57344; below 4: none) */
#define PRLAB_KNOB_HOT_THREADS 17       /* threads per block: 256, 512 or 1024 (auto: 1024) */
#define PRLAB_KNOB_HOT_OCCUPANCY 18     /* 1: kernel built for 1024 threads per SM (<= 64 registers), 2: 2048 (auto: 2) */
#define PRLAB_KNOB_HOT_BLOCKS_PER_SM 19 /* at most this many blocks per SM (auto: occupancy) */
#define PRLAB_KNOB_HOT_GROUP 20         /* threads per heavy row (in-degree > 1024; auto: the block) */
#define PRLAB_KNOB_HOT_STREAM 21        /* load mode of the once-read streams (colIdx or the code, row lists, rowPtr,
                                           invOut): 1 read-only path (ld.global.nc), 2 ld.global.nc.L1::no_allocate
                                           (a thread-per-row row's own indices keep ld.global.nc),
                                           3 evict-first (ld.global.cs); 2 and 3 store x' streaming (auto: tuned) */
#define PRLAB_KNOB_HOT_UNROLL 22        /* loads in flight per thread and step of the unpacked rows: 2, 4 or 8 (auto: tuned;
                                           the same accumulators in the same order, the same bits) */
#define PRLAB_KNOB_HOT_TILE 23         /* 1: the row loops; 2: the row loops in two column passes (columns below n/2,
                                           then the rest, partial sums in between); 8 or 16: the two-phase gather, tiles of consecutive rows
                                           (at most threads rows and threads x 8 or 16 edges) gathered into shared
                                           memory with 8 or 16 loads in flight per thread, then summed from it
                                           (other bits than the row loops', unpacked only; auto 0: the row loops,
                                           measured faster on the H200) */
#define PRLAB_KNOB_HOT_END 24
/* Knobs of gpu-cluster-dsmem (prlab_layout_set routes them to csrc/cluster_dsmem.cu). */
#define PRLAB_KNOB_DSM_FIRST 24
#define PRLAB_KNOB_DSM_EXCHANGE 24 /* 0 auto (5 where built with CUDA >= 12.1, else 1), 1 16-byte DSMEM stores, 2 cp.async.bulk + mbarrier
                                      (built with -DPRLAB_CLUSTER_BULK=1), 3 through L2, 4 4-byte DSMEM stores
                                      of each row's contribution at its combine (per-row send lists), 5 the 16-byte
                                      groups of 1 as st.async completing on the receiver's mbarrier, the cluster
                                      barrier's arrive relaxed but for warp 0 (CUDA >= 12.1) */
#define PRLAB_KNOB_DSM_ABLATE 25   /* timing only, bits: 1 no gather, 2 no row sums + combine, 4 no exchange,
                                      8 no per-iteration cluster.sync(), 16 no iterations (launch + one-time load) */
#define PRLAB_KNOB_DSM_THREADS 26  /* threads per block, a multiple of 32 in [128, 1024] (auto: 1024) */
#define PRLAB_KNOB_DSM_CLUSTER 27  /* blocks in the cluster (auto: 16, else 8) */
#define PRLAB_KNOB_DSM_GATHER 28   /* 0 auto (8), 1 gathered values staged in shared memory, then row
                                      sums; 2 row sums read the ghost vector directly; 3 pieces of <= 8 edges
                                      summed by one thread each (jagged-diagonal columns), then rows add them;
                                      4 the same with pieces of <= 4 edges; 5, 6: 3, 4 with each piece's
                                      columns ordered so a warp's lanes read distinct banks per step; 7: 5 with
                                      each row of one piece finished by that piece's thread; 8: rows packed into
                                      warps, a row's pieces of 8 on adjacent lanes summed by shuffles */
#define PRLAB_KNOB_DSM_BALANCE 29  /* rows split by 1 + in-degree + this x min(out-degree, C - 1) per row (the
                                      sends it causes; auto 0: rows + edges) */
#define PRLAB_KNOB_DSM_PARTIALS 30 /* bits: 1 each block's dangling partial stored by lanes 0..C-1 into every
                                      block's shared memory before the barrier (local reads after it; auto 0:
                                      read remotely after it), 2 the dangling block sum with one block barrier,
                                      4 no block sum: every warp's partial stored into every block, 8 explicit
                                      (8 alone: the two-barrier block sum), 16 warp 0 only reduces (D and the
                                      dangling sum) while the other warps gather and send; auto 0 = 18 */
#define PRLAB_KNOB_DSM_PIPELINE 31 /* bits (rows packed into warps only): 1 split cluster barrier: arrive
                                      (release) after the sends, wait (acquire) at the top of the next
                                      iteration after each warp's first packed warp has loaded its column
                                      indices and summed its own-row (local) columns; 2 16-bit ghost column
                                      indices, a lane's 8 in one 16-byte load; 4 each row finished by its
                                      packed warp's head lane (heavy rows by their warp) right after its
                                      sum, D published by warp 0 through a shared-memory word: no row pass,
                                      no block barrier between gather and combine; 8 explicit (8 alone:
                                      none); auto 0: none, but 144 with the stores and async exchanges; 256 none
                                      explicitly. With the stores exchange and none of 1, 2, 4:
                                      16 rows of in-degree > 256 cut into chunks of 256 edges packed like
                                      light rows (one sum per chunk, added in order by the combine), rows
                                      of in-degree 0 not packed; 32 phase timer (clock() per warp at each
                                      phase boundary, a table per block on stdout after timed runs); 64
                                      packed warps permuted to balance each warp's share; 128 (with 16)
                                      runs of consecutive rows of in-degree 1..8 summed by one lane, each
                                      row's sum stored at its last slot */
#define PRLAB_KNOB_DSM_ASSIGN 32   /* rows to blocks: 0 auto (1), 1 contiguous ranges (split by
                                      PRLAB_KNOB_DSM_BALANCE's cost), 2 those ranges with rows then moved from
                                      the blocks that send the most to blocks that send less (edges and combine
                                      rounds capped; the graph relabelled inside the design, the ranks written
                                      back in the graph's order), 3 rows moved to cut the exchange (greedy
                                      passes lowering the needed-only floats, rows + edges and combine rounds
                                      capped; relabelled as 2); 1 where those layouts do not fit */
#define PRLAB_KNOB_DSM_END 33
/* Knobs of gpu-prop-blocking (prlab_layout_set routes them to csrc/propblock.cu; 0 = automatic). */
#define PRLAB_KNOB_PB_FIRST 40
#define PRLAB_KNOB_PB_HOT 40         /* head floats gathered in phase 2 from shared memory (auto 12288; 1: none) */
#define PRLAB_KNOB_PB_BIN_ROWS 41    /* rows per bin at most, [32, 65536] (auto 8192 with fixed-point sums, else 16384) */
#define PRLAB_KNOB_PB_CHUNK_ROWS 42  /* source rows per chunk, [32, 65536] (auto 16384) */
#define PRLAB_KNOB_PB_BIN_EDGES 43   /* edges per bin at most, a longer row alone (auto 262144) */
#define PRLAB_KNOB_PB_ITEM_EDGES 44  /* edges per phase-1 work item (auto 262144) */
#define PRLAB_KNOB_PB_REPLICATE 45   /* 1: never keep 32 per-lane replicas of a short bin's sums (auto: when rows <= bin rows / 32) */
#define PRLAB_KNOB_PB_RUNS 46        /* 0 (auto) or 1: segments ordered by destination, phase 2 takes 8 consecutive edges
                                       per lane and adds each run of one destination with one atomic; 2: by source,
                                       one atomic per edge */
#define PRLAB_KNOB_PB_FIXED 47       /* 0 (auto) or 1: row sums in 64-bit fixed point (2^-60) by 32-bit integer atomics:
                                       the same bits every run, 8 bytes of shared memory per bin row; 2: float atomics
                                       (compare-and-swap loops; reruns differ in the last bits) */
#define PRLAB_KNOB_PB_END 48

/* The layout of one uploaded graph. */
typedef struct prlab_layout_info {
  long long bucket_rows[3];  /* T4 buckets: in-degree <= 32, 33..1024, > 1024 */
  long long bucket_nnz[3];
  int bucket_max_degree[3];
  int tiles, tile_edges, tile_rows;
  int heavy_rows;            /* rows of in-degree > 32 inside tiles (warp per row) */
  int block_tiles;           /* tiles of one row longer than a tile (block per row) */
  int grid_fused, grid_t4, grid_coop, coop_blocks_per_sm, threads_per_block;
  int persistent_resident;   /* 1: the persistent kernel keeps its tiles in shared memory */
  int cluster_size;          /* 0: the cluster implementation cannot run here (see cluster_reason) */
  int cluster_replicated;    /* 1: every block holds the whole contribution vector */
  int cluster_threads;
  long long cluster_smem_bytes; /* dynamic shared memory per cluster block */
  int sms, graph_k, max_in_degree;
  char cluster_reason[256];
} prlab_layout_info;

/* Builds (once) and describes the layout of the graph. */
PRLAB_API int prlab_layout_info_get(void *handle, prlab_layout_info *out, char *msg, int msg_len);

/* Sets a knob (PRLAB_KNOB_*) for later layout-design calls on this graph. */
PRLAB_API int prlab_layout_set(void *handle, int knob, int value, char *msg, int msg_len);

/* Times primitive `which` (PRLAB_PRIM_*) `count` times per timed execution:
 * `warmups` untimed, `repeats` timed (CUDA events); *median_ms is the median
 * time of `count` operations. */
PRLAB_API int prlab_time_primitive(void *handle, int which, int count, int warmups, int repeats,
                                       float *median_ms, char *msg, int msg_len);

/* ---- Resident sessions (csrc/resident.cu; optional symbols) ----
 * A graph uploaded once and kept on the device while batches of edge
 * updates are applied there (no host rebuild, no re-upload), iterated warm
 * with a stage-by-stage design: PRLAB_IMPL_NAIVE, _THREAD_PER_ROW,
 * _WARP_PER_ROW or _CUSPARSE. The batch semantics are pkg/pagerank's
 * ApplyBatch: new_nodes nodes appended (dangling), then the deletions, then
 * the insertions; self-loops dropped, duplicate insertions and deletions of
 * absent edges counted, never errors. An index outside [0, n + new_nodes)
 * is PRLAB_ERR_ARG and leaves the graph unchanged. */
typedef struct prlab_batch_stats {
  int new_nodes, inserted, deleted, duplicate_inserts, absent_deletes, self_loops;
  int touched_rows; /* sources (out-CSR rows) with an edge really inserted or deleted */
  int n, nnz;       /* the graph after the batch */
  float update_ms;  /* CUDA events around the whole update (batch upload and read-backs included) */
  float phase_ms[5]; /* its parts: batch upload and scratch reset; keys + radix sorts; classification +
                        select + read-back 1; row lengths + scan + merge; out-degrees, growth, library
                        state, read-back 2 (they sum to update_ms) */
} prlab_batch_stats;

/* Uploads the in-edge CSR (row_ptr [n+1], col_idx [nnz], rows sorted by
 * source) and out_degree [n]; 1/outdeg and the dangling mask are derived
 * from it. *session receives the handle; free it with prlab_session_close. */
PRLAB_API int prlab_session_open(int device, int impl, int n, int nnz, const int *row_ptr, const int *col_idx,
                                 const int *out_degree, int max_iterations, void **session, char *msg,
                                 int msg_len);

/* Applies one batch: n_ins insertions ins[2i] -> ins[2i+1] and n_del
 * deletions del[2i] -> del[2i+1] (host arrays of (src, dst) pairs, the
 * layout of pkg/pagerank's []Edge). */
PRLAB_API int prlab_session_apply(void *session, int new_nodes, const int *ins, int n_ins, const int *del,
                                  int n_del, prlab_batch_stats *stats, char *msg, int msg_len);

/* prlab_run on the session's graph from start[n] (host floats; NULL: 1/n);
 * *run_ms (may be NULL) receives the CUDA-event time of the whole call. */
PRLAB_API int prlab_session_run(void *session, float damping, int iterations, float tolerance,
                                const float *start, float *ranks, float *residuals, double *sums,
                                int *iterations_done, int *converged, float *run_ms, char *msg,
                                int msg_len);

/* Copies the session's graph to the host (any output may be NULL):
 * *n, *nnz, row_ptr [n+1], col_idx [nnz], out_degree [n], dangling [n],
 * inv_out [n]. Call with NULL arrays first to learn n and nnz. */
PRLAB_API int prlab_session_graph(void *session, int *n, int *nnz, int *row_ptr, int *col_idx,
                                  int *out_degree, unsigned char *dangling, float *inv_out, char *msg,
                                  int msg_len);

/* Frees the session (NULL is a no-op). */
PRLAB_API int prlab_session_close(void *session, char *msg, int msg_len);

#ifdef __cplusplus
}
#endif

#endif /* PRLAB_CUDA_H */
