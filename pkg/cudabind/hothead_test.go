package cudabind

// Tests of the hot-head design (gpu-hothead, csrc/hothead.cu). The
// TestGPUHotHead* tests need a GPU and libprlab_cuda.so and skip with the
// reason otherwise. Knobs (environment):
//
//	PRLAB_GPU_QUICK=1            short runs for compute-sanitizer (10 iterations, synthetic cases only)
//	PRLAB_HOTHEAD_RMAT=20,22,24  TestGPUHotHeadSweep: on R-MAT graphs of these scales, every kernel
//	                             shape and hot-head size of hotHeadConfigs against gpu-t4-bucketed-reordered
//	                             and gpu-cusparse (validation of 20 iterations against t1-multicore-f64,
//	                             then 50 iterations x 5 timed runs); the table is logged and written to
//	                             $PRLAB_GPU_OUT/hothead-sweep.json
//	PRLAB_HOTHEAD_CONFIGS=a,b    TestGPUHotHeadSweep: only these settings of hotHeadConfigs (default all)
//	PRLAB_PROPBLOCK_CONFIGS=a,b  TestGPUHotHeadSweep: only these settings of propBlockConfigs (propblock_test.go;
//	                             default all, "none": not one), timed after the hot-head settings

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/reference"
)

// hotHeadConfig is one setting of the hot-head knobs (0 = automatic; a
// hot size below 4 stages nothing; tile 1 the row loops, 2 the row loops in
// two column passes, 8 or 16 the two-phase gather).
type hotHeadConfig struct {
	name                                                        string
	hot, threads, occ, blocksPerSM, group, stream, unroll, tile int
}

var hotHeadConfigs = []hotHeadConfig{
	{"auto", 0, 0, 0, 0, 0, 0, 0, 0},
	// Measured in the first H200 probe (read-only path): 2048 threads per SM beat 1024 at every size.
	{"none-x2-nc", 1, 1024, 2, 0, 0, 1, 2, 1},
	{"24k-x2-nc", 24576, 1024, 2, 0, 0, 1, 2, 1},
	// The once-read streams without L1 allocation, or evict-first.
	{"none-x2-na", 1, 1024, 2, 0, 0, 2, 2, 1},
	{"12k-x2-na", 12288, 1024, 2, 0, 0, 2, 2, 1},
	{"24k-x2-na", 24576, 1024, 2, 0, 0, 2, 2, 1},
	{"24k-x2-na-u4", 24576, 1024, 2, 0, 0, 2, 4, 1},
	{"24k-x2-nc-u4", 24576, 1024, 2, 0, 0, 1, 4, 1},
	{"24k-x2-na-u8", 24576, 1024, 2, 0, 0, 2, 8, 1},
	{"24k-x2-nc-u8", 24576, 1024, 2, 0, 0, 1, 8, 1},
	{"24k-x2-cs", 24576, 1024, 2, 0, 0, 3, 2, 1},
	// The row loops in two column passes (each gathers one half of the contributions).
	{"24k-x2-nc-u4-seg", 24576, 1024, 2, 0, 0, 1, 4, 2},
	{"24k-x2-nc-seg", 24576, 1024, 2, 0, 0, 1, 2, 2},
	{"none-x2-nc-u4-seg", 1, 1024, 2, 0, 0, 1, 4, 2},
	{"24k-x2-na-u4-seg", 24576, 1024, 2, 0, 0, 2, 4, 2},
	{"24k-x2-g256-nc-u4", 24576, 1024, 2, 0, 256, 1, 4, 1},
	{"24k-x2-g512-nc-u4", 24576, 1024, 2, 0, 512, 1, 4, 1},
	{"24k-x2-g128-nc-u4", 24576, 1024, 2, 0, 128, 1, 4, 1},
	// The two-phase gather: 8 or 16 edges per thread and tile.
	{"none-x2-nc-t8", 1, 1024, 2, 0, 0, 1, 0, 8},
	{"none-x2-na-t8", 1, 1024, 2, 0, 0, 2, 0, 8},
	{"none-x2-cs-t8", 1, 1024, 2, 0, 0, 3, 0, 8},
	{"12k-x2-na-t8", 12288, 1024, 2, 0, 0, 2, 0, 8},
	{"none-x2-nc-t16", 1, 1024, 2, 0, 0, 1, 0, 16},
	{"none-x2-na-t16", 1, 1024, 2, 0, 0, 2, 0, 16},
	{"none-x2-cs-t16", 1, 1024, 2, 0, 0, 3, 0, 16},
	{"none-512x2-na-t16", 1, 512, 2, 0, 0, 2, 0, 16},
	{"none-512x2-na-t8", 1, 512, 2, 0, 0, 2, 0, 8},
	{"none-256x2-na-t16", 1, 256, 2, 0, 0, 2, 0, 16},
	{"none-256x2-na-t8", 1, 256, 2, 0, 0, 2, 0, 8},
	// Other shapes (correctness; measured in the first probe).
	{"24k-x2-g256-na", 24576, 1024, 2, 0, 256, 2, 2, 1},
	{"24k-512x2-na", 24576, 512, 2, 0, 0, 2, 2, 1},
	{"24k-x1-na", 24576, 1024, 1, 0, 0, 2, 2, 1},
	{"48k-x1-na", 49152, 1024, 1, 0, 0, 2, 2, 1},
	{"12k-256x2-nc", 12288, 256, 2, 0, 0, 1, 2, 1},
	{"4-256x2-cs-t16", 4, 256, 2, 1, 0, 3, 0, 16},
}

// setHotHead applies c to the session of the graph gpu-hothead runs on (g
// relabelled), which the next Run or Benchmark of g reuses.
func setHotHead(t *testing.T, g *pagerank.Graph, c hotHeadConfig) {
	t.Helper()
	setRelabelledKnobs(t, g, "hot-head", map[int]int{knobHotFloats: c.hot, knobHotThreads: c.threads, knobHotOccupancy: c.occ, knobHotBlocksPerSM: c.blocksPerSM, knobHotGroup: c.group, knobHotStream: c.stream, knobHotUnroll: c.unroll, knobHotTile: c.tile})
}

func TestHotHeadDesignRows(t *testing.T) {
	g := pagerank.SyntheticCases()[0]
	for _, c := range []struct {
		name          string
		id            int
		perN, perEdge int64
	}{
		// row id, rowPtr[v], rowPtr[v+1], invOut, x', contrib' per row; colIdx 4, contrib[col] 4 per edge.
		{NameHotHead, implHotHead, 24, 8},
		// + the escape offset per row; the 2-byte code instead of colIdx.
		{NameHotHeadPacked, implHotHeadPacked, 28, 6},
	} {
		d := mustDesign(t, c.name)
		if d.id != c.id || d.order != LocalityOrder || d.kernelsOf != "" || d.family != familyLayout {
			t.Errorf("%s: code %d, order %q, kernels of %q, family %d", c.name, d.id, d.order, d.kernelsOf, d.family)
		}
		if got, want := d.BytesFormula().Bytes(g.N, g.NNZ), c.perN*int64(g.N)+c.perEdge*int64(g.NNZ); got != want {
			t.Errorf("%s bytes on %s: %d, want %d", c.name, g.Name, got, want)
		}
		if cs := d.Costs(g, 50); math.Abs(cs.HostLaunches-51.0/50) > 1e-12 || cs.DeviceBarriers != 0 || cs.ToleranceReads != 1 {
			t.Errorf("%s costs: %+v", c.name, cs)
		}
		res := d.newResult(g, pagerank.FixedIterations, 50)
		if !strings.Contains(res.BytesFormula, "relabelled by "+string(LocalityOrder)) || strings.Contains(res.BytesFormula, "'s kernels") {
			t.Errorf("%s formula %q", c.name, res.BytesFormula)
		}
	}
}

// Eighteen knob settings of hotHeadConfigs on the six synthetic cases, the
// real graph and R-MAT 2^16 against the float64 oracle; a second run gives
// the same bits; the row loops' settings of one grid give the same bits
// whatever the head, load mode and loads per step, the two column passes'
// theirs, the two-phase gather's of one tile size theirs; a tolerance run converges like the oracle.
func TestGPUHotHeadCorrectness(t *testing.T) {
	frNeedGPU(t)
	iters := pagerank.CorrectnessIterations
	graphs := pagerank.SyntheticCases()
	// Every kernel shape, the largest head, none, groups and the evict-first loads.
	var configs []hotHeadConfig
	for _, c := range hotHeadConfigs {
		switch c.name {
		case "auto", "none-x2-nc", "24k-x2-cs", "24k-x2-na-u4", "24k-x2-nc-u8", "24k-x2-g256-na", "24k-512x2-na", "48k-x1-na", "12k-256x2-nc",
			"none-x2-nc-t8", "12k-x2-na-t8", "none-x2-na-t16", "none-x2-cs-t16", "none-512x2-na-t16", "4-256x2-cs-t16",
			"24k-x2-nc-u4-seg", "none-x2-nc-u4-seg", "24k-x2-na-u4-seg":
			configs = append(configs, c)
		}
	}
	if frQuick() {
		// auto's tuning also runs every row-loop candidate of the 1024-thread shape once.
		iters, configs = 10, []hotHeadConfig{hotHeadConfigs[0], {"4-256x2-g64-cs-u4-seg", 4, 256, 2, 1, 64, 3, 4, 2},
			{"4-256x2-cs-t16", 4, 256, 2, 1, 0, 3, 0, 16}}
	} else {
		if g := frRealGraph(t); g != nil {
			graphs = append(graphs, g)
		}
		rm := rmat(t, 16, 1)
		graphs = append(graphs, rm)
	}
	for _, g := range graphs {
		ref := frOracle(t, g, pagerank.Fixed(iters))
		for _, im := range hotHeadDesigns() {
			family := map[int][]float64{} // by tile knob: the ranks of the first setting with the default grid and groups
			for _, c := range configs {
				setHotHead(t, g, c)
				res, again := runFixedChecked(t, im, c.name, g, ref, iters)
				if res == nil {
					continue
				}
				// Head size, load mode and loads per step (what the tuning picks among)
				// leave the grid and the summation order alone: the same bits (the
				// packed design has no two-phase gather: every setting runs its rows).
				key := c.tile
				if im.Name() == NameHotHeadPacked {
					key = 1
				}
				if key != 0 && c.threads == 1024 && c.occ == 2 && c.group == 0 && c.blocksPerSM == 0 && c.hot <= 24576 {
					if f, ok := family[key]; !ok {
						family[key] = res.Ranks
					} else if !slices.Equal(f, res.Ranks) {
						t.Errorf("%s (%s) on %s: ranks differ from the first setting's of tile knob %d (head size, load mode and loads per step must not change the bits)", im.Name(), c.name, g.Name, key)
					}
				}
				for i := range res.Ranks {
					if res.Ranks[i] != again.Ranks[i] {
						t.Errorf("%s (%s) on %s: node %d rank %v, then %v (fixed-order sums must give the same bits)", im.Name(), c.name, g.Name, i, res.Ranks[i], again.Ranks[i])
						break
					}
				}
			}
		}
		if frQuick() {
			continue
		}
		// Tolerance mode: stops when the device's L1 residual falls below pagerank.FloatTolerance.
		setHotHead(t, g, hotHeadConfigs[0])
		checkToleranceRun(t, mustDesign(t, NameHotHead), g)
	}
	ReleaseRelabelled()
}

// hotHeadRow is one line of the sweep table.
type hotHeadRow struct {
	Graph      string  `json:"graph"`
	Name       string  `json:"name"`
	Config     string  `json:"config,omitempty"`
	MsPerIter  float64 `json:"ms_per_iteration"`
	CV         float64 `json:"cv"`
	Bytes      int64   `json:"bytes_per_iteration"`
	GBps       float64 `json:"gbps"`
	ErrOverTol float64 `json:"err_over_tol"`
	Spearman   float64 `json:"spearman"`
	Pass       bool    `json:"pass"`
	Error      string  `json:"error,omitempty"`
	Setup      string  `json:"setup,omitempty"` // the hot-head designs' one-time setup (tuned size and load mode), gpu-prop-blocking's layout and its build time
}

func TestGPUHotHeadSweep(t *testing.T) {
	frNeedGPU(t)
	spec := os.Getenv("PRLAB_HOTHEAD_RMAT")
	if spec == "" || frQuick() {
		t.Skip("set PRLAB_HOTHEAD_RMAT=20,22,24 for the hot-head sweep")
	}
	var rows []hotHeadRow
	for _, f := range strings.Split(spec, ",") {
		scale, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || scale < 10 || scale > 26 {
			t.Fatalf("PRLAB_HOTHEAD_RMAT=%q: %q is not a scale in [10, 26]", spec, f)
		}
		g := rmat(t, scale, 1)
		ref, err := reference.Multicore(pagerank.Float64, 0).Run(g, pagerank.Fixed(20))
		if err != nil {
			t.Fatal(err)
		}
		one := func(im pagerank.Implementation, config string) {
			r := hotHeadRow{Graph: g.Name, Name: im.Name(), Config: config}
			defer func() {
				rows = append(rows, r)
				t.Logf("  %-10s %-27s %-12s %.4f ms/iter, CV %.4f, err/tol %.3f, pass %v %s %s", r.Graph, r.Name, r.Config, r.MsPerIter, r.CV, r.ErrOverTol, r.Pass, r.Error, r.Setup)
			}()
			res, err := im.Run(g, pagerank.Fixed(20))
			if err != nil {
				r.Error = err.Error()
				t.Errorf("%s (%s) on %s: %v", im.Name(), config, g.Name, err)
				return
			}
			v := pagerank.Validate(g, res, ref)
			r.Pass, r.ErrOverTol, r.Spearman = v.Pass, v.ErrOverTol, v.Spearman
			if !v.Pass {
				t.Errorf("%s (%s) on %s fails validation: %+v", im.Name(), config, g.Name, v)
			}
			b, err := im.(pagerank.Benchmarker).Benchmark(g, pagerank.Fixed(pagerank.TimingIterations), pagerank.TimingWarmups, 5)
			if err != nil {
				r.Error = err.Error()
				t.Errorf("%s (%s) on %s: %v", im.Name(), config, g.Name, err)
				return
			}
			r.MsPerIter, r.CV, r.Bytes = b.Timing.MsPerIteration(), b.Timing.CV, b.BytesPerIteration
			for _, st := range b.Stages {
				if strings.HasPrefix(st.Name, "one-time setup of the hot head") || strings.HasPrefix(st.Name, "one-time propagation-blocking layout") {
					r.Setup = fmt.Sprintf("%s (tuned in %.1f ms)", st.Formula, st.Ms)
				}
			}
			r.GBps = float64(r.Bytes) / (r.MsPerIter * 1e6)
		}
		for _, name := range []string{NameT4BucketedReordered, NameCusparse} {
			one(mustDesign(t, name), "")
		}
		only := strings.Split(os.Getenv("PRLAB_HOTHEAD_CONFIGS"), ",")
		for _, name := range only {
			if name != "" && !slices.ContainsFunc(hotHeadConfigs, func(c hotHeadConfig) bool { return c.name == name }) {
				t.Fatalf("PRLAB_HOTHEAD_CONFIGS: %q is not a setting of hotHeadConfigs", name)
			}
		}
		pbOnly := strings.Split(os.Getenv("PRLAB_PROPBLOCK_CONFIGS"), ",")
		for _, name := range pbOnly {
			if name != "" && name != "none" && !slices.ContainsFunc(propBlockConfigs, func(c propBlockConfig) bool { return c.name == name }) {
				t.Fatalf("PRLAB_PROPBLOCK_CONFIGS: %q is not a setting of propBlockConfigs", name)
			}
		}
		for _, im := range hotHeadDesigns() {
			for _, c := range hotHeadConfigs {
				if only[0] != "" && !slices.Contains(only, c.name) {
					continue
				}
				if im.Name() == NameHotHeadPacked && (!strings.HasPrefix(c.name, "auto") && !strings.HasPrefix(c.name, "24k-x2") || c.unroll > 2) {
					continue // the packed code at the promising settings only
				}
				setHotHead(t, g, c)
				one(im, c.name)
			}
		}
		for _, c := range propBlockConfigs {
			if pbOnly[0] == "none" || pbOnly[0] != "" && !slices.Contains(pbOnly, c.name) || strings.HasPrefix(c.name, "pb-tiny") {
				continue
			}
			setPropBlock(t, g, c)
			one(mustDesign(t, NamePropBlock), c.name)
		}
		ReleaseRelabelled()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %-27s %-14s %10s %7s %9s %8s %5s\n", "graph", "design", "config", "ms/iter", "CV", "GB/s", "err/tol", "pass")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-10s %-27s %-14s %10.4f %7.4f %9.1f %8.3f %5v %s\n", r.Graph, r.Name, r.Config, r.MsPerIter, r.CV, r.GBps, r.ErrOverTol, r.Pass, r.Error)
	}
	t.Log("\n" + b.String())
	writeResults(t, "PRLAB_GPU_OUT", "hothead-sweep.json", rows)
}

func TestHotHeadSetupString(t *testing.T) {
	h := HotHeadSetup{HotFloats: 24576, LoadMode: 2, LoadsPerStep: 4, Grid: 264, Threads: 1024, Group: 1024, TuneMs: 12.5}
	want := "24576 floats (96 KiB) of contributions staged per block, once-read streams by ld.global.nc.L1::no_allocate, 4 loads per thread and step, 264 blocks x 1024 threads, 1024 threads per row above 1,024 edges"
	if got := h.String(); got != want {
		t.Errorf("setup %q,\nwant %q", got, want)
	}
	h = HotHeadSetup{HotFloats: 0, LoadMode: 1, LoadsPerStep: 16, Grid: 264, Threads: 1024, Group: 0}
	want = "0 floats (0 KiB) of contributions staged per block, once-read streams by ld.global.nc, two-phase gather: tiles of consecutive rows (at most 1024 rows, 16384 edges) gathered into shared memory with 16 loads in flight per thread, then summed from it, 264 blocks x 1024 threads"
	if got := h.String(); got != want {
		t.Errorf("two-phase setup %q,\nwant %q", got, want)
	}
	for mode := 1; mode <= 3; mode++ { // PRLAB_KNOB_HOT_STREAM's values
		if loadModes[mode] == "" {
			t.Errorf("load mode %d has no name", mode)
		}
	}
}
