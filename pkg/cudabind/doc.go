// Package cudabind runs prlab's GPU PageRank implementations through
// libprlab_cuda.so, a CUDA shared library built from csrc/ with nvcc and
// opened at run time (cgo + dlopen/dlsym, only dlfcn.h at build time). The
// module therefore builds and tests on machines with no GPU and no CUDA:
// there, Available reports why, every GPU design's Reason() says the same,
// and their Run/Benchmark return errors wrapping ErrUnavailable.
//
// What lives where: designs.go, the one table of GPU designs and the one
// type that runs them; session.go, the graph on the device (Session), the
// copy rows and the stage table; layout.go, the layout designs' layout,
// knobs and primitives; relabel.go, the one-time host relabel; bytes.go,
// the stage catalogue and byte formulas; lib_cgo.go, the one file of C
// symbols (required and optional) and their trampolines; csrc/, the CUDA
// sources; testdata/fake_prlab_cuda.c, a CPU stand-in for the library that
// tests every Go path here without CUDA.
//
// # Building the library
//
// On a CUDA host, from the module root:
//
//	make cuda-lib                    # sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX
//	make cuda-lib CUDA_ARCHS=90      # sm_90 only (fast, for an H100/H200)
//
// It writes build/libprlab_cuda.so. LibraryCandidates lists where the Go
// side looks: $PRLAB_CUDA_LIB first, then build/libprlab_cuda.so under the
// module root, the working directory and the executable's directory (not
// when that is go run's or go test's temporary build directory), then the
// dynamic loader's path. With none there, the reason is NotBuiltReason.
// $PRLAB_CUDA_DEVICE picks the device (default 0).
//
// # What the runner calls
//
//	ok, reason := cudabind.Available()           // reason: library not found (paths tried), dlopen error, no driver, no device
//	dev, err := cudabind.DeviceInfo()            // GPU context: name, CC, SMs, L2 bytes, versions, CCCL
//	impls := cudabind.Designs()                  // []pagerank.Implementation, also Benchmarker + Unavailable
//	res, err := impl.Run(g, pagerank.Fixed(100)) // correctness: ranks, residual and sum per iteration
//	res, err := impl.Run(g, pagerank.Converge(1e-6, 10000))
//	res, err := impl.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(50), 3, 10)
//	                                             // Timing (CUDA events) + Stages (ms, bytes, formula)
//	tab, err := cudabind.MeasureStages(g, cudabind.StageOptions{})
//	                                             // the course's stage table: copy rows + every stage
//	s, err := cudabind.Open(g)                   // upload g once: the designs above then run on it
//	_ = s.Close()                                // free it (Release frees whatever graph is current)
//
// Every Result carries BytesPerIteration and BytesFormula (from the
// iteration's stage formulas, see ByteFormula), LaunchesPerIteration and
// HostSyncsPerIteration of the timed loop.
//
// # Designs (d = 0.85, x0 = 1/n, float, dangling mass on the device)
//
// Stage by stage (one kernel or library call per stage; csrc/api.cu,
// kernels.cu, library.cu):
//
//	gpu-naive              T2: memset D; D by one atomicAdd per thread; fused pull + combine, thread per row   13n + 12nnz + 4 bytes
//	gpu-thread-per-row     T3: scale; scalar CSR SpMV; dangling tree reduction (2 passes); combine           33n + 8nnz + 4
//	gpu-warp-per-row       scale; warp-per-row SpMV; dangling shuffle reduction (2 passes); combine         33n + 8nnz + 4
//	gpu-thrust-cub         thrust::transform, thrust::gather, cub::DeviceSegmentedReduce::Sum,
//	                       thrust::transform (mask), cub::DeviceReduce::Sum, thrust::transform               41n + 16nnz + 4
//	gpu-thrust-cub-nosync  the same with thrust::cuda::par_nosync (0 host syncs instead of 4)               41n + 16nnz + 4
//	gpu-cusparse           cusparseSpMV on P = A D^-1 (values invOut[col]); dangling shuffle; combine       21n + 12nnz + 4
//
// Layout designs (csrc/layout.cu; built on a layout computed once per
// uploaded graph: T4 in-degree buckets, CSR-Adaptive tiles, the persistent
// and cluster grids; LayoutOf, MeasurePrimitives):
//
//	gpu-t4-bucketed   in-degree buckets (thread / warp / block per row), fused combine          32n + 8nnz
//	gpu-fused         one launch per iteration: tiles + combine + next dangling partials       16n + 8nnz + 4
//	gpu-graph         gpu-fused in a CUDA Graph, one graph launch per timed run                 16n + 8nnz + 4
//	gpu-persistent    one cooperative launch, one grid.sync() per iteration                     16n + 8nnz + 4
//	gpu-cluster       one thread-block cluster, graph and ranks in distributed shared memory    16n + 8nnz + 4 (shared memory)
//
// Relabelled designs (NOTES.md, section "locality"): a design's kernels run
// unchanged on the graph relabelled once on the host by out-degree
// descending (hot gather sources contiguous), ranks permuted back to the
// graph's order; the relabel is timed and reported apart from the
// iterations (LastRelabelling, SetRelabelLog, a stage row):
//
//	gpu-cusparse-reordered     gpu-cusparse on the relabelled graph                                 21n + 12nnz + 4
//	gpu-fused-reordered        gpu-fused on the relabelled graph                                    16n + 8nnz + 4
//	gpu-t4-bucketed-reordered  gpu-t4-bucketed on the relabelled graph                              32n + 8nnz
//
// The hot-head design (csrc/hothead.cu) has its own kernel and runs only on
// the relabelled graph: one launch per iteration over the T4 buckets with
// the combine fused, contrib[0, H) staged in every block's shared memory,
// 2048 threads per SM; H (0, 12K or 24K floats) and the load mode of the
// once-read streams are tuned once per graph on a few timed iterations
// (every choice gives the same bits; HotHeadSetup, a Benchmark row; knobs
// PRLAB_KNOB_HOT_*):
//
//	gpu-hothead                one launch per iteration, hot contributions from shared memory      24n + 8nnz
//	gpu-hothead-packed         the same on the 16-bit column code (EncodeColumns)                  28n + 6nnz + 4 escapes
//
// Propagation blocking (csrc/propblock.cu; Beamer, Asanovic, Patterson,
// IPDPS 2017) also runs only on the relabelled graph: a one-time layout on
// the GPU (edges by destination bin and source chunk, 16-bit local indices;
// PropBlockSetup, a Benchmark row with its build time), then two launches
// of streams per iteration: phase 1 writes every cold edge's contribution
// into its bin's segment, phase 2 adds a bin's values in shared memory
// (64-bit fixed point by integer atomics, one per run of a destination: the
// same bits every run), the hot head's edges from a staged contrib[0, H),
// and combines (knobs PRLAB_KNOB_PB_*):
//
//	gpu-prop-blocking          two streamed phases per iteration, bins added in shared memory     16n + 12nnz - 8 hot edges
//
// The hand-written iteration's 33n + 8nnz + 4 and the library's 41n + 16nnz + 4
// reproduce the course's 3,437,470 and 6,173,886 bytes for n = 28042,
// nnz = 314010 (see bytes_test.go). The dangling mass D stays on the device:
// the combine kernel (or functor) reads it through a device pointer, so the
// timed loop has no host copy (HostSyncsPerIteration = 0, except Thrust's own
// stream synchronisations under thrust::device).
//
// # Measurement protocol
//
// Copy rows: a device-to-device cudaMemcpy moving B bytes reads B/2 and
// writes B/2 (B = 128 MiB for the DRAM row, and one hand-written
// iteration's bytes; kinds pagerank.StageCopyDRAM, StageCopyIteration).
// Stage rows: each stage alone between two CUDA events, median of
// StageRepeats after 3 warm-ups. The package returns bytes and times only:
// GB/s = bytes / ms / 1e6 and x DRAM = GB/s over the DRAM copy row's GB/s
// are computed once, in pkg/study (rates.go).
package cudabind
