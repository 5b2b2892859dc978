//go:build cgo

package cudabind

// The binding to libprlab_cuda.so through dlopen/dlsym: the library is
// opened at run time, so neither the build nor the tests need CUDA. The only
// system header is dlfcn.h; csrc/prlab_cuda.h is our own plain-C header and
// includes no CUDA header. Each call goes through a small C trampoline that
// casts the dlsym'd pointer to the prototype declared in prlab_cuda.h
// (__typeof__), so a signature change there is a compile error here.
//
// Symbols are resolved once, at open, from one table (as NVIDIA's go-nvml
// does in pkg/nvml/lib.go): a required symbol that is missing makes the
// library unusable; an optional one (the layout designs' entry points) that
// is missing leaves its pointer nil, and the calls that need it return an
// error wrapping ErrUnavailable that names the symbol.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "csrc/prlab_cuda.h"

static void *pr_open(const char *path, char *err, int errlen) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		snprintf(err, (size_t)errlen, "%s", e ? e : "dlopen failed");
	}
	return h;
}

static void *pr_sym(void *h, const char *name, char *err, int errlen) {
	dlerror();
	void *p = dlsym(h, name);
	const char *e = dlerror();
	if (e != NULL || p == NULL) {
		snprintf(err, (size_t)errlen, "%s", e ? e : "symbol is NULL");
		return NULL;
	}
	return p;
}

static void pr_close(void *h) { if (h) dlclose(h); }

static int pr_abi(void *f) { return ((__typeof__(&prlab_abi_version))f)(); }
static int pr_count(void *f, int *count, char *msg, int len) {
	return ((__typeof__(&prlab_device_count))f)(count, msg, len);
}
static int pr_info(void *f, int dev, prlab_device_info *out, char *msg, int len) {
	return ((__typeof__(&prlab_device_info_get))f)(dev, out, msg, len);
}
static int pr_create(void *f, int dev, int n, int nnz, const int *rp, const int *ci, const float *inv,
                     const unsigned char *dm, int maxIter, void **h, char *msg, int len) {
	return ((__typeof__(&prlab_graph_create))f)(dev, n, nnz, rp, ci, inv, dm, maxIter, h, msg, len);
}
static int pr_free(void *f, void *h, char *msg, int len) {
	return ((__typeof__(&prlab_graph_free))f)(h, msg, len);
}
static int pr_run(void *f, void *h, int impl, float d, int iters, float tol, float *ranks, float *res,
                  double *sums, int *done, int *conv, char *msg, int len) {
	return ((__typeof__(&prlab_run))f)(h, impl, d, iters, tol, ranks, res, sums, done, conv, msg, len);
}
static int pr_bench(void *f, void *h, int impl, float d, int iters, int warm, int runs, float *ms,
                    float *ranks, char *msg, int len) {
	return ((__typeof__(&prlab_benchmark))f)(h, impl, d, iters, warm, runs, ms, ranks, msg, len);
}
static int pr_stage(void *f, void *h, int stage, float d, int warm, int reps, float *med, char *msg,
                    int len) {
	return ((__typeof__(&prlab_time_stage))f)(h, stage, d, warm, reps, med, msg, len);
}
static int pr_copy(void *f, void *h, long long bytes, int warm, int reps, float *med, char *msg,
                   int len) {
	return ((__typeof__(&prlab_time_copy))f)(h, bytes, warm, reps, med, msg, len);
}
static int pr_check(void *f, void *h, int kind, int which, int n, const float *a, const float *b,
                    const unsigned char *mask, int threads, double *value, int *written, int *grid,
                    char *msg, int len) {
	return ((__typeof__(&prlab_check_reduction))f)(h, kind, which, n, a, b, mask, threads, value,
	                                               written, grid, msg, len);
}
static const prlab_design *pr_design(int i) {
	return i >= 0 && i < PRLAB_DESIGN_COUNT ? &prlab_designs[i] : NULL;
}
static int pr_layout(void *f, void *h, prlab_layout_info *out, char *msg, int len) {
	return ((__typeof__(&prlab_layout_info_get))f)(h, out, msg, len);
}
static int pr_knob(void *f, void *h, int knob, int value, char *msg, int len) {
	return ((__typeof__(&prlab_layout_set))f)(h, knob, value, msg, len);
}
static int pr_prim(void *f, void *h, int which, int count, int warm, int reps, float *med, char *msg, int len) {
	return ((__typeof__(&prlab_time_primitive))f)(h, which, count, warm, reps, med, msg, len);
}
static int pr_codes(void *f, void *h, const unsigned short *codes, const int *xp, const int *x, int nx, char *msg,
                    int len) {
	return ((__typeof__(&prlab_hothead_codes))f)(h, codes, xp, x, nx, msg, len);
}
static int pr_hhinfo(void *f, void *h, int impl, float d, int *hot, int *mode, int *step, int *grid, int *thr,
                     int *grp, float *ms, char *msg, int len) {
	return ((__typeof__(&prlab_hothead_info))f)(h, impl, d, hot, mode, step, grid, thr, grp, ms, msg, len);
}
static int pr_pbinfo(void *f, void *h, float d, int *hot, int *w, int *s, int *bins, int *chunks, int *items,
                     long long *hotEdges, float *ms, float *phaseMs, int *mode, char *msg, int len) {
	return ((__typeof__(&prlab_propblock_info))f)(h, d, hot, w, s, bins, chunks, items, hotEdges, ms, phaseMs, mode, msg, len);
}
static int pr_sopen(void *f, int dev, int impl, int n, int nnz, const int *rp, const int *ci, const int *od,
                    int maxIter, void **s, char *msg, int len) {
	return ((__typeof__(&prlab_session_open))f)(dev, impl, n, nnz, rp, ci, od, maxIter, s, msg, len);
}
static int pr_sapply(void *f, void *s, int nn, const int *ins, int ni, const int *del, int nd, prlab_batch_stats *st,
                     char *msg, int len) {
	return ((__typeof__(&prlab_session_apply))f)(s, nn, ins, ni, del, nd, st, msg, len);
}
static int pr_srun(void *f, void *s, float d, int iters, float tol, const float *start, float *ranks, float *res,
                   double *sums, int *done, int *conv, float *ms, char *msg, int len) {
	return ((__typeof__(&prlab_session_run))f)(s, d, iters, tol, start, ranks, res, sums, done, conv, ms, msg, len);
}
static int pr_sgraph(void *f, void *s, int *n, int *nnz, int *rp, int *ci, int *od, unsigned char *dm, float *inv,
                     char *msg, int len) {
	return ((__typeof__(&prlab_session_graph))f)(s, n, nnz, rp, ci, od, dm, inv, msg, len);
}
static int pr_sclose(void *f, void *s, char *msg, int len) {
	return ((__typeof__(&prlab_session_close))f)(s, msg, len);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/prlab/prlab/pkg/pagerank"
)

const msgLen = 2048

const cgoEnabled = true

// library is an opened libprlab_cuda.so and its resolved entry points.
type library struct {
	path                                                         string
	h                                                            unsafe.Pointer
	abi, count, info, create, free, run, bench, stage, copy, chk unsafe.Pointer
	layout, knob, prim                                           unsafe.Pointer // optional: nil when absent
	codes, hhInfo                                                unsafe.Pointer // optional: the hot-head designs' column code and setup
	pbInfo                                                       unsafe.Pointer // optional: gpu-prop-blocking's layout
	sOpen, sApply, sRun, sGraph, sClose                          unsafe.Pointer // optional: resident sessions
}

// symbol is one entry point of the library: its C name, where its address
// goes, and whether the library is unusable without it.
type symbol struct {
	name     string
	dst      *unsafe.Pointer
	required bool
}

// symbols is the table of every prlab_* entry point the binding calls.
func (l *library) symbols() []symbol {
	return []symbol{
		{"prlab_abi_version", &l.abi, true}, {"prlab_device_count", &l.count, true},
		{"prlab_device_info_get", &l.info, true}, {"prlab_graph_create", &l.create, true},
		{"prlab_graph_free", &l.free, true}, {"prlab_run", &l.run, true}, {"prlab_benchmark", &l.bench, true},
		{"prlab_time_stage", &l.stage, true}, {"prlab_time_copy", &l.copy, true},
		{"prlab_check_reduction", &l.chk, true},
		{"prlab_layout_info_get", &l.layout, false}, {"prlab_layout_set", &l.knob, false},
		{"prlab_time_primitive", &l.prim, false}, {"prlab_hothead_codes", &l.codes, false},
		{"prlab_hothead_info", &l.hhInfo, false}, {"prlab_propblock_info", &l.pbInfo, false},
		{"prlab_session_open", &l.sOpen, false}, {"prlab_session_apply", &l.sApply, false},
		{"prlab_session_run", &l.sRun, false}, {"prlab_session_graph", &l.sGraph, false},
		{"prlab_session_close", &l.sClose, false},
	}
}

// openLibrary dlopens path (RTLD_NOW | RTLD_LOCAL) and resolves the symbol
// table. The error carries dlerror()'s text for the library or for the
// first missing required symbol.
func openLibrary(path string) (*library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errBuf [msgLen]C.char
	h := C.pr_open(cpath, &errBuf[0], msgLen)
	if h == nil {
		return nil, fmt.Errorf("dlopen: %s", C.GoString(&errBuf[0]))
	}
	l := &library{path: path, h: h}
	for _, s := range l.symbols() {
		cname := C.CString(s.name)
		p := C.pr_sym(h, cname, &errBuf[0], msgLen)
		C.free(unsafe.Pointer(cname))
		if p == nil && s.required {
			C.pr_close(h)
			return nil, fmt.Errorf("dlsym(%s): %s", s.name, C.GoString(&errBuf[0]))
		}
		*s.dst = p
	}
	return l, nil
}

// optional returns an error wrapping ErrUnavailable when the optional entry
// point p (C name `name`) is absent from the library.
func (l *library) optional(p unsafe.Pointer, name string) error {
	if p == nil {
		return fmt.Errorf("%w: %s has no %s (a library built before the layout designs: rebuild it with make cuda-lib)",
			ErrUnavailable, shortPath(l.path), name)
	}
	return nil
}

func (l *library) close() { C.pr_close(l.h) }

// status turns a return code and message buffer into an *Error (nil on PRLAB_OK).
func status(op string, rc C.int, msg *[msgLen]C.char) error {
	if rc == 0 {
		return nil
	}
	return &Error{Op: op, Status: int(rc), Message: C.GoString(&msg[0])}
}

// call runs one entry point of the library through f, which passes it the
// message buffer every prlab_* function takes last (msg, size: msgLen
// bytes), and turns the status code it returns and that message into an
// *Error (status; nil on PRLAB_OK).
func call(op string, f func(msg *C.char, size C.int) C.int) error {
	var msg [msgLen]C.char
	return status(op, f(&msg[0], msgLen), &msg)
}

// open is call of a library function that creates a handle
// (prlab_graph_create, prlab_session_open): f passes h on as the function's
// out-parameter; open returns the handle it wrote, nil with the error.
func open(op string, f func(h *unsafe.Pointer, msg *C.char, size C.int) C.int) (unsafe.Pointer, error) {
	var h unsafe.Pointer
	if err := call(op, func(msg *C.char, size C.int) C.int { return f(&h, msg, size) }); err != nil {
		return nil, err
	}
	return h, nil
}

func (l *library) abiVersion() int { return int(C.pr_abi(l.abi)) }

func (l *library) deviceCount() (int, error) {
	var n C.int
	err := call("prlab_device_count", func(msg *C.char, size C.int) C.int {
		return C.pr_count(l.count, &n, msg, size)
	})
	return int(n), err
}

func (l *library) deviceInfo(dev int) (Device, error) {
	var di C.prlab_device_info
	if err := call("prlab_device_info_get", func(msg *C.char, size C.int) C.int {
		return C.pr_info(l.info, C.int(dev), &di, msg, size)
	}); err != nil {
		return Device{}, err
	}
	return Device{
		Index:               dev,
		Name:                C.GoString(&di.name[0]),
		CCMajor:             int(di.cc_major),
		CCMinor:             int(di.cc_minor),
		SMs:                 int(di.sm_count),
		L2Bytes:             int(di.l2_bytes),
		MaxThreadsPerBlock:  int(di.max_threads_per_block),
		WarpSize:            int(di.warp_size),
		GlobalMemBytes:      int64(di.global_mem_bytes),
		DriverVersion:       int(di.driver_version),
		RuntimeVersion:      int(di.runtime_version),
		CusparseVersion:     int(di.cusparse_version),
		KernelBinaryVersion: int(di.kernel_binary_version),
		KernelPTXVersion:    int(di.kernel_ptx_version),
		DeviceCount:         int(di.device_count),
		CCCL:                C.GoString(&di.cccl_version[0]),
		CompiledArchs:       C.GoString(&di.compiled_archs[0]),
		Library:             l.path,
	}, nil
}

// graphCreate uploads g's in-edge CSR (float inverse out-degree, uint8
// dangling mask); the caller has checked the slice lengths.
func (l *library) graphCreate(dev int, g *pagerank.Graph, maxIter int) (unsafe.Pointer, error) {
	inv := make([]float32, g.N)
	for i, v := range g.InvOutDegree {
		inv[i] = float32(v)
	}
	return open("prlab_graph_create", func(h *unsafe.Pointer, msg *C.char, size C.int) C.int {
		return C.pr_create(l.create, C.int(dev), C.int(g.N), C.int(g.NNZ), intPtr(g.InRowPtr), intPtr(g.InColIdx),
			floatPtr(inv), cPtr[C.uchar](g.Dangling), C.int(maxIter), h, msg, size)
	})
}

func (l *library) graphFree(h unsafe.Pointer) error {
	return call("prlab_graph_free", func(msg *C.char, size C.int) C.int {
		return C.pr_free(l.free, h, msg, size)
	})
}

func (l *library) runImpl(h unsafe.Pointer, impl int, d float32, iters int, tol float32, n int) (runOut, error) {
	out := newRunOut(n, iters)
	var done, conv C.int
	ranks, res, sums := out.outPtrs()
	if err := call("prlab_run", func(msg *C.char, size C.int) C.int {
		return C.pr_run(l.run, h, C.int(impl), C.float(d), C.int(iters), C.float(tol), ranks, res, sums, &done, &conv,
			msg, size)
	}); err != nil {
		return runOut{}, err
	}
	out.finish(done, conv)
	return out, nil
}

func (l *library) benchmark(h unsafe.Pointer, impl int, d float32, iters, warmups, runs, n int) ([]float32, []float32, error) {
	ms := make([]float32, runs)
	ranks := make([]float32, n)
	if err := call("prlab_benchmark", func(msg *C.char, size C.int) C.int {
		return C.pr_bench(l.bench, h, C.int(impl), C.float(d), C.int(iters), C.int(warmups), C.int(runs), floatPtr(ms),
			floatPtr(ranks), msg, size)
	}); err != nil {
		return nil, nil, err
	}
	return ms, ranks, nil
}

func (l *library) timeStage(h unsafe.Pointer, stage int, d float32, warmups, repeats int) (float64, error) {
	var med C.float
	err := call(fmt.Sprintf("prlab_time_stage(%s)", stageName(stage)), func(msg *C.char, size C.int) C.int {
		return C.pr_stage(l.stage, h, C.int(stage), C.float(d), C.int(warmups), C.int(repeats), &med, msg, size)
	})
	return float64(med), err
}

func (l *library) timeCopy(h unsafe.Pointer, bytes int64, warmups, repeats int) (float64, error) {
	var med C.float
	err := call("prlab_time_copy", func(msg *C.char, size C.int) C.int {
		return C.pr_copy(l.copy, h, C.longlong(bytes), C.int(warmups), C.int(repeats), &med, msg, size)
	})
	return float64(med), err
}

// checkReduction runs one reduction kind on host arrays (a test hook; see
// prlab_check_reduction). b may be nil for which = 0, mask nil for which = 1.
func (l *library) checkReduction(h unsafe.Pointer, kind, which int, a, b []float32, mask []uint8, threads int) (value float64, written, grid int, err error) {
	var v C.double
	var w, gr C.int
	if err := call("prlab_check_reduction", func(msg *C.char, size C.int) C.int {
		return C.pr_check(l.chk, h, C.int(kind), C.int(which), C.int(len(a)), floatPtr(a), floatPtr(b), cPtr[C.uchar](mask),
			C.int(threads), &v, &w, &gr, msg, size)
	}); err != nil {
		return 0, 0, 0, err
	}
	return float64(v), int(w), int(gr), nil
}

// layoutInfo is prlab_layout_info_get: the layout the library built for the graph.
func (l *library) layoutInfo(h unsafe.Pointer) (Layout, error) {
	if err := l.optional(l.layout, "prlab_layout_info_get"); err != nil {
		return Layout{}, err
	}
	var fi C.prlab_layout_info
	if err := call("prlab_layout_info_get", func(msg *C.char, size C.int) C.int {
		return C.pr_layout(l.layout, h, &fi, msg, size)
	}); err != nil {
		return Layout{}, err
	}
	out := Layout{
		Tiles: int(fi.tiles), TileEdges: int(fi.tile_edges), TileRows: int(fi.tile_rows),
		HeavyRows: int(fi.heavy_rows), BlockTiles: int(fi.block_tiles),
		GridFused: int(fi.grid_fused), GridT4: int(fi.grid_t4), GridCoop: int(fi.grid_coop),
		CoopBlocksPerSM: int(fi.coop_blocks_per_sm), ThreadsPerBlock: int(fi.threads_per_block),
		PersistentResident: fi.persistent_resident != 0,
		ClusterReplicated:  fi.cluster_replicated != 0,
		ClusterSize:        int(fi.cluster_size), ClusterThreads: int(fi.cluster_threads),
		ClusterSmemBytes: int64(fi.cluster_smem_bytes), SMs: int(fi.sms), GraphK: int(fi.graph_k),
		MaxInDegree: int(fi.max_in_degree), ClusterReason: C.GoString(&fi.cluster_reason[0]),
	}
	for b := 0; b < 3; b++ {
		out.Buckets[b] = Bucket{Name: bucketNames[b], MinDegree: bucketBounds[b][0], MaxDegree: bucketBounds[b][1],
			Rows: int(fi.bucket_rows[b]), NNZ: int64(fi.bucket_nnz[b]), MaxSeen: int(fi.bucket_max_degree[b])}
	}
	return out, nil
}

// setKnob is prlab_layout_set.
func (l *library) setKnob(h unsafe.Pointer, knob, value int) error {
	if err := l.optional(l.knob, "prlab_layout_set"); err != nil {
		return err
	}
	return call("prlab_layout_set", func(msg *C.char, size C.int) C.int {
		return C.pr_knob(l.knob, h, C.int(knob), C.int(value), msg, size)
	})
}

// hotHeadCodes is prlab_hothead_codes: uploads c for gpu-hothead-packed.
func (l *library) hotHeadCodes(h unsafe.Pointer, c ColumnCode) error {
	if err := l.optional(l.codes, "prlab_hothead_codes"); err != nil {
		return err
	}
	var none [1]int32 // a valid pointer for an empty array
	codes, exc := cPtr[C.ushort](c.Codes), intPtr(c.Exc)
	if codes == nil {
		codes = cPtr[C.ushort](none[:])
	}
	if exc == nil {
		exc = intPtr(none[:])
	}
	return call("prlab_hothead_codes", func(msg *C.char, size C.int) C.int {
		return C.pr_codes(l.codes, h, codes, intPtr(c.ExcPtr), exc, C.int(len(c.Exc)), msg, size)
	})
}

// hotHeadInfo is prlab_hothead_info: the setup of hot-head design impl.
func (l *library) hotHeadInfo(h unsafe.Pointer, impl int, damping float32) (HotHeadSetup, error) {
	if err := l.optional(l.hhInfo, "prlab_hothead_info"); err != nil {
		return HotHeadSetup{}, err
	}
	var hot, mode, step, grid, thr, grp C.int
	var ms C.float
	err := call("prlab_hothead_info", func(msg *C.char, size C.int) C.int {
		return C.pr_hhinfo(l.hhInfo, h, C.int(impl), C.float(damping), &hot, &mode, &step, &grid, &thr, &grp, &ms, msg, size)
	})
	return HotHeadSetup{HotFloats: int(hot), LoadMode: int(mode), LoadsPerStep: int(step), Grid: int(grid), Threads: int(thr),
		Group: int(grp), TuneMs: float64(ms)}, err
}

// propBlockInfo is prlab_propblock_info: gpu-prop-blocking's layout on
// the session's graph (built on first use).
func (l *library) propBlockInfo(h unsafe.Pointer, damping float32) (PropBlockSetup, error) {
	if err := l.optional(l.pbInfo, "prlab_propblock_info"); err != nil {
		return PropBlockSetup{}, err
	}
	var hot, w, sz, bins, chunks, items, mode C.int
	var hotEdges C.longlong
	var ms C.float
	var phase [2]C.float
	err := call("prlab_propblock_info", func(msg *C.char, size C.int) C.int {
		return C.pr_pbinfo(l.pbInfo, h, C.float(damping), &hot, &w, &sz, &bins, &chunks, &items, &hotEdges, &ms, &phase[0], &mode, msg, size)
	})
	return PropBlockSetup{HotFloats: int(hot), BinRows: int(w), ChunkRows: int(sz), Bins: int(bins), Chunks: int(chunks),
		Items: int(items), HotEdges: int64(hotEdges), BuildMs: float64(ms), ScatterMs: float64(phase[0]), AccumulateMs: float64(phase[1]),
		Runs: mode&1 != 0, Fixed: mode&2 != 0}, err
}

// timePrimitive is prlab_time_primitive: the median ms of `count` operations.
func (l *library) timePrimitive(h unsafe.Pointer, which, count, warmups, repeats int) (float64, error) {
	if err := l.optional(l.prim, "prlab_time_primitive"); err != nil {
		return 0, err
	}
	var med C.float
	err := call(fmt.Sprintf("prlab_time_primitive(%d)", which), func(msg *C.char, size C.int) C.int {
		return C.pr_prim(l.prim, h, C.int(which), C.int(count), C.int(warmups), C.int(repeats), &med, msg, size)
	})
	return float64(med), err
}

// designStages returns the stages of design code impl from the C table of
// designs (prlab_designs in csrc/prlab_cuda.h, compiled in through cgo:
// the list api.cu runs), nil for a code the table does not hold.
func designStages(impl int) []int {
	for i := 0; i < C.PRLAB_DESIGN_COUNT; i++ {
		row := C.pr_design(C.int(i))
		if int(row.impl) != impl {
			continue
		}
		var out []int
		for _, s := range row.stages {
			if s >= 0 {
				out = append(out, int(s))
			}
		}
		return out
	}
	return nil
}

// designFamily returns the family of design code impl in the C table (-1 if absent).
func designFamily(impl int) int {
	for i := 0; i < C.PRLAB_DESIGN_COUNT; i++ {
		if row := C.pr_design(C.int(i)); int(row.impl) == impl {
			return int(row.family)
		}
	}
	return -1
}

// hasSessions reports whether the library has the resident-session entry
// points (an error wrapping ErrUnavailable naming the first missing one if not).
func (l *library) hasSessions() error {
	for _, s := range []struct {
		p    unsafe.Pointer
		name string
	}{{l.sOpen, "prlab_session_open"}, {l.sApply, "prlab_session_apply"}, {l.sRun, "prlab_session_run"},
		{l.sGraph, "prlab_session_graph"}, {l.sClose, "prlab_session_close"}} {
		if err := l.optional(s.p, s.name); err != nil {
			return err
		}
	}
	return nil
}

// cPtr is &v[0] as a pointer to the C element type E of the same size
// (nil for an empty slice): the library reads or writes v in place.
func cPtr[E, T any](v []T) *E {
	if len(v) == 0 {
		return nil
	}
	return (*E)(unsafe.Pointer(&v[0]))
}

func intPtr(v []int32) *C.int       { return cPtr[C.int](v) }
func floatPtr(v []float32) *C.float { return cPtr[C.float](v) }

// newRunOut holds the outputs of a run of at most iters iterations on n nodes.
func newRunOut(n, iters int) runOut {
	return runOut{ranks: make([]float32, n), residuals: make([]float32, iters), sums: make([]float64, iters)}
}

// outPtrs are its ranks, residuals and sums for the C call.
func (o *runOut) outPtrs() (*C.float, *C.float, *C.double) {
	return floatPtr(o.ranks), floatPtr(o.residuals), cPtr[C.double](o.sums)
}

// finish records how many iterations ran and whether they converged, and
// cuts the histories to them.
func (o *runOut) finish(done, converged C.int) {
	o.done = int(done)
	o.converged = converged != 0
	o.residuals = o.residuals[:o.done]
	o.sums = o.sums[:o.done]
}

// sessionOpen is prlab_session_open on g's in-edge CSR and outDeg [n].
func (l *library) sessionOpen(dev, impl int, g *pagerank.Graph, outDeg []int32, maxIter int) (unsafe.Pointer, error) {
	if err := l.hasSessions(); err != nil {
		return nil, err
	}
	return open("prlab_session_open", func(h *unsafe.Pointer, msg *C.char, size C.int) C.int {
		return C.pr_sopen(l.sOpen, C.int(dev), C.int(impl), C.int(g.N), C.int(g.NNZ), intPtr(g.InRowPtr), intPtr(g.InColIdx),
			intPtr(outDeg), C.int(maxIter), h, msg, size)
	})
}

// The library reads []pagerank.Edge as int pairs: an Edge must be 8 bytes.
var _ [8]struct{} = [unsafe.Sizeof(pagerank.Edge{})]struct{}{}

// edgePtr is &es[0] as (src, dst) int pairs (pagerank.Edge is two int32s,
// no padding), nil for an empty slice: the library reads the batch in place.
func edgePtr(es []pagerank.Edge) *C.int { return cPtr[C.int](es) }

// sessionApply is prlab_session_apply of one batch.
func (l *library) sessionApply(h unsafe.Pointer, newNodes int, ins, del []pagerank.Edge) (deviceStats, error) {
	var st C.prlab_batch_stats
	if err := call("prlab_session_apply", func(msg *C.char, size C.int) C.int {
		return C.pr_sapply(l.sApply, h, C.int(newNodes), edgePtr(ins), C.int(len(ins)), edgePtr(del), C.int(len(del)),
			&st, msg, size)
	}); err != nil {
		return deviceStats{}, err
	}
	return deviceStats{
		BatchStats: pagerank.BatchStats{NewNodes: int(st.new_nodes), Inserted: int(st.inserted), Deleted: int(st.deleted),
			DuplicateInserts: int(st.duplicate_inserts), AbsentDeletes: int(st.absent_deletes), SelfLoops: int(st.self_loops),
			TouchedRows: int(st.touched_rows)},
		N: int(st.n), NNZ: int(st.nnz), UpdateMs: float64(st.update_ms),
		PhasesMs: [5]float64{float64(st.phase_ms[0]), float64(st.phase_ms[1]), float64(st.phase_ms[2]),
			float64(st.phase_ms[3]), float64(st.phase_ms[4])},
	}, nil
}

// sessionRun is prlab_session_run from start [n] (nil: 1/n).
func (l *library) sessionRun(h unsafe.Pointer, d float32, iters int, tol float32, start []float32, n int) (runOut, float64, error) {
	out := newRunOut(n, iters)
	var done, conv C.int
	var ms C.float
	ranks, res, sums := out.outPtrs()
	if err := call("prlab_session_run", func(msg *C.char, size C.int) C.int {
		return C.pr_srun(l.sRun, h, C.float(d), C.int(iters), C.float(tol), floatPtr(start), ranks, res, sums, &done, &conv,
			&ms, msg, size)
	}); err != nil {
		return runOut{}, 0, err
	}
	out.finish(done, conv)
	return out, float64(ms), nil
}

// sessionGraph is prlab_session_graph: the resident graph, copied to the host.
func (l *library) sessionGraph(h unsafe.Pointer) (*residentGraph, error) {
	var n, nnz C.int
	if err := call("prlab_session_graph", func(msg *C.char, size C.int) C.int {
		return C.pr_sgraph(l.sGraph, h, &n, &nnz, nil, nil, nil, nil, nil, msg, size)
	}); err != nil {
		return nil, err
	}
	g := &residentGraph{RowPtr: make([]int32, int(n)+1), ColIdx: make([]int32, int(nnz)), OutDegree: make([]int32, int(n)),
		Dangling: make([]uint8, int(n)), InvOut: make([]float32, int(n))}
	if err := call("prlab_session_graph", func(msg *C.char, size C.int) C.int {
		return C.pr_sgraph(l.sGraph, h, &n, &nnz, intPtr(g.RowPtr), intPtr(g.ColIdx), intPtr(g.OutDegree),
			cPtr[C.uchar](g.Dangling), floatPtr(g.InvOut), msg, size)
	}); err != nil {
		return nil, err
	}
	return g, nil
}

// sessionClose is prlab_session_close.
func (l *library) sessionClose(h unsafe.Pointer) error {
	return call("prlab_session_close", func(msg *C.char, size C.int) C.int {
		return C.pr_sclose(l.sClose, h, msg, size)
	})
}
