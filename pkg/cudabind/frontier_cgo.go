//go:build cgo

package cudabind

// cgo trampolines for the frontier entry points of libprlab_cuda.so
// (prlab_frontier_info_get, prlab_frontier_set, prlab_frontier_primitive)
// and for prlab_time_stage with a frontier stage code. The symbols are looked
// up on first use in the library lib_cgo.go opened, so a library without
// them (an older build, or the CPU fake) still loads for everything else.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include "csrc/prlab_cuda.h"

static void *fr_sym(void *h, const char *name) {
	dlerror();
	void *p = dlsym(h, name);
	if (dlerror() != NULL) return NULL;
	return p;
}
static int fr_info(void *f, void *h, prlab_frontier_info *out, char *msg, int len) {
	return ((__typeof__(&prlab_frontier_info_get))f)(h, out, msg, len);
}
static int fr_set(void *f, void *h, int knob, int value, char *msg, int len) {
	return ((__typeof__(&prlab_frontier_set))f)(h, knob, value, msg, len);
}
static int fr_prim(void *f, void *h, int which, int count, int warm, int reps, float *med, char *msg, int len) {
	return ((__typeof__(&prlab_frontier_primitive))f)(h, which, count, warm, reps, med, msg, len);
}
static int fr_stage(void *f, void *h, int stage, float d, int warm, int reps, float *med, char *msg, int len) {
	return ((__typeof__(&prlab_time_stage))f)(h, stage, d, warm, reps, med, msg, len);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// frontierSyms are the resolved frontier entry points of one opened library.
type frontierSyms struct {
	info, set, prim unsafe.Pointer
	err             error
}

var frontierSymCache = map[*library]*frontierSyms{} // guarded by mu

// frontierSymbols resolves (once per library) the frontier entry points. mu held.
func frontierSymbols(l *library) (*frontierSyms, error) {
	if fs, ok := frontierSymCache[l]; ok {
		return fs, fs.err
	}
	fs := &frontierSyms{}
	for _, s := range []struct {
		name string
		dst  *unsafe.Pointer
	}{{"prlab_frontier_info_get", &fs.info}, {"prlab_frontier_set", &fs.set}, {"prlab_frontier_primitive", &fs.prim}} {
		cname := C.CString(s.name)
		p := C.fr_sym(l.h, cname)
		C.free(unsafe.Pointer(cname))
		if p == nil {
			fs.err = fmt.Errorf("%w: %s has no %s (a library built before the frontier implementations: rebuild with make cuda-lib)",
				ErrUnavailable, l.path, s.name)
			break
		}
		*s.dst = p
	}
	frontierSymCache[l] = fs
	return fs, fs.err
}

func (l *library) frontierInfo(h unsafe.Pointer) (FrontierInfo, error) {
	fs, err := frontierSymbols(l)
	if err != nil {
		return FrontierInfo{}, err
	}
	var msg [msgLen]C.char
	var fi C.prlab_frontier_info
	rc := C.fr_info(fs.info, h, &fi, &msg[0], msgLen)
	if err := status("prlab_frontier_info_get", rc, &msg); err != nil {
		return FrontierInfo{}, err
	}
	out := FrontierInfo{
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

func (l *library) frontierSet(h unsafe.Pointer, knob, value int) error {
	fs, err := frontierSymbols(l)
	if err != nil {
		return err
	}
	var msg [msgLen]C.char
	rc := C.fr_set(fs.set, h, C.int(knob), C.int(value), &msg[0], msgLen)
	return status("prlab_frontier_set", rc, &msg)
}

func (l *library) frontierPrimitive(h unsafe.Pointer, which, count, warmups, repeats int) (float64, error) {
	fs, err := frontierSymbols(l)
	if err != nil {
		return 0, err
	}
	var msg [msgLen]C.char
	var med C.float
	rc := C.fr_prim(fs.prim, h, C.int(which), C.int(count), C.int(warmups), C.int(repeats), &med, &msg[0], msgLen)
	return float64(med), status(fmt.Sprintf("prlab_frontier_primitive(%d)", which), rc, &msg)
}

// frontierTimeStage is prlab_time_stage for a frontier stage code (the
// binding's timeStage names stages from the course catalogue only).
func (l *library) frontierTimeStage(h unsafe.Pointer, stage int, d float32, warmups, repeats int) (float64, error) {
	var msg [msgLen]C.char
	var med C.float
	rc := C.fr_stage(l.stage, h, C.int(stage), C.float(d), C.int(warmups), C.int(repeats), &med, &msg[0], msgLen)
	return float64(med), status(fmt.Sprintf("prlab_time_stage(frontier stage %d)", stage), rc, &msg)
}
