package cudabind

// Tests of gpu-cluster-dsmem (csrc/cluster_dsmem.cu). The GPU tests skip
// without a GPU. Knobs (environment):
//
//	PRLAB_DSMEM_PROBE=1   TestGPUClusterDSMEMVariants: µs per iteration of every exchange /
//	                      gather / block-size variant and of the ablations on the real graph
//	PRLAB_DSMEM_EXCHANGES=stores,bulk,l2,rows  the exchanges both tests run (default all; bulk needs a
//	                      library built with -DPRLAB_CLUSTER_BULK=1, else it is skipped)
//	PRLAB_DSMEM_SET=pipeline  both tests run only the split-barrier / 16-bit-column / 512-thread
//	                      variants of the packed default (and the default's ablations in the probe)
//	PRLAB_DSMEM_SET=heavy  both tests run only the default and its heavy-row split / paired packed
//	                      warps / phase timer variants (pipeline bits 16, 64, 32; stores), with the
//	                      split's ablations in the probe; the phase timer prints its table to stdout
//	PRLAB_DSMEM_SET=balance  both tests run only the default and the small-rows layout (pipeline 144)
//	                      with the sends weighed into the row split (balance 1, 2) or rows moved from
//	                      the largest senders (assignment 2) or to cut the exchange (3), their phase timers (176) and the
//	                      small-rows layout's stage ablations in the probe
//	PRLAB_DSMEM_CONFIGS=label,...  the correctness test's configurations by label (default all)
//	PRLAB_DSMEM_VARIANTS=name,...  the probe's variants by name (default all of its set; "a, b;c" separates
//	                      on semicolons, for names with commas)
//	PRLAB_DSMEM_LEAN=1    the probe without the primitives, the clocks' warm-up and the reference
//	                      designs (for ncu, which replays every launch)
//	PRLAB_DSMEM_TIMED=default,stores  TestGPUClusterDSMEMTimedKernelAgrees's exchanges (default both)
//	PRLAB_DSMEM_TIMED_ITERS=n  its iteration count (default the correctness cases')
//	PRLAB_LAYOUT_OUT=dir  write dsmem-variants.json there

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// dsmKnobs sets gpu-cluster-dsmem's knobs on g's upload (0 = automatic for
// the ones not named).
func dsmKnobs(t *testing.T, g *pagerank.Graph, knobs map[int]int) {
	t.Helper()
	for k := knobDSMFirst; k < knobDSMEnd; k++ {
		if err := setLayoutKnob(g, k, knobs[k]); err != nil {
			t.Fatalf("gpu-cluster-dsmem knob %d = %d on %s: %v", k, knobs[k], g.Name, err)
		}
	}
}

// Every exchange the library holds, on the six synthetic cases and the real
// graph: 100 fixed iterations against the float64 oracle, the same bits on a
// second run, tolerance mode stopping within 3 iterations of the oracle;
// and a graph too large for one cluster is a skip (ErrUnavailable) naming why.
func TestGPUClusterDSMEM(t *testing.T) {
	frNeedGPU(t)
	im := mustDesign(t, NameClusterDSMEM)
	if r := im.Reason(); r != "" {
		t.Skipf("gpu-cluster-dsmem: %s", r)
	}
	iters, graphs := frCorrectnessCases(t)
	configs := []dsmConfig{{label: "stores", exchange: 1}, {label: "bulk", exchange: 2}, {label: "l2", exchange: 3}, {label: "async", exchange: 5},
		{label: "async contiguous", exchange: 5, assign: 1}, {label: "stores contiguous", exchange: 1, assign: 1},
		{label: "async generic flags", exchange: 5, pipeline: 512}}
	// The default (knobs 0) is rows packed into warps, warp 0 reduces only, the one-barrier sum (gather 8,
	// partials 18); the probe also runs the two defaults before it under their explicit knobs: staged with
	// the two-barrier sum (1, 8) and bank-ordered pieces with the one-barrier sum (5, 2).
	if os.Getenv("PRLAB_DSMEM_SET") == "balance" { // the default, the small-rows layout and its send-balanced splits
		configs = []dsmConfig{{label: "stores", exchange: 1}, {label: "stores small rows", exchange: 1, pipeline: 144},
			{label: "stores rows moved", exchange: 1, assign: 2}, {label: "l2 rows moved", exchange: 3, assign: 2},
			{label: "stores small rows, rows moved", exchange: 1, pipeline: 144, assign: 2},
			{label: "stores packed, none of the pipeline bits", exchange: 1, pipeline: 256},
			{label: "async", exchange: 5}, {label: "async rows moved", exchange: 5, assign: 2},
			{label: "async contiguous", exchange: 5, assign: 1}, {label: "stores contiguous", exchange: 1, assign: 1},
			{label: "async generic flags", exchange: 5, pipeline: 512},
			{label: "async packed, none of the pipeline bits", exchange: 5, pipeline: 256}}
		for _, bal := range dsmBalances {
			configs = append(configs, dsmConfig{label: fmt.Sprintf("stores small rows balance %d", bal), exchange: 1, pipeline: 144, balance: bal})
		}
	} else if os.Getenv("PRLAB_DSMEM_SET") == "heavy" { // the default (stores) and its heavy-row / pairing / timer variants
		configs = []dsmConfig{{label: "stores", exchange: 1}}
		for _, pl := range dsmHeavyPipelines {
			configs = append(configs, dsmConfig{label: "stores " + pl.name, exchange: 1, pipeline: pl.v})
		}
	} else if os.Getenv("PRLAB_DSMEM_SET") == "pipeline" { // the default and the pipeline knob's variants of it
		configs = append(configs, dsmPipelineConfigs()...)
	} else if os.Getenv("PRLAB_DSMEM_PROBE") == "1" { // the variants that are not the default (yet)
		for i, c := range [][3]int{{1, 1, 8}, {1, 3, 0}, {2, 3, 0}, {3, 3, 0}, {4, 0, 0}, {4, 3, 0}, {1, 5, 0}, {1, 6, 0}, {4, 5, 0},
			{1, 0, 1}, {1, 0, 2}, {4, 5, 3}, {1, 5, 3}, {1, 0, 4}, {4, 5, 4}, {1, 5, 2}, {1, 8, 8}, {1, 1, 18}, {1, 7, 0}, {4, 7, 1}, {4, 7, 3}} {
			configs = append(configs, dsmConfig{label: dsmConfigLabels[i], exchange: c[0], gather: c[1], partials: c[2]})
		}
		configs = append(configs, dsmPipelineConfigs()...)
	}
	for _, cf := range configs {
		ex, exName := cf.label, dsmExchanges[cf.exchange-1].name
		if !frSelected("PRLAB_DSMEM_EXCHANGES", exName) || !frSelected("PRLAB_DSMEM_CONFIGS", ex) {
			continue
		}
		knobs := map[int]int{knobDSMExchange: cf.exchange, knobDSMGather: cf.gather, knobDSMPartials: cf.partials,
			knobDSMPipeline: cf.pipeline, knobDSMThreads: cf.threads, knobDSMBalance: cf.balance, knobDSMAssign: cf.assign}
		for _, g := range graphs {
			if !frSelected("PRLAB_GPU_CASES", g.Name) {
				continue
			}
			dsmKnobs(t, g, knobs)
			res, err := im.Run(g, pagerank.Fixed(iters))
			if errors.Is(err, ErrUnavailable) {
				t.Logf("  %-6s %-10s %v", ex, g.Name, err)
				if exName != "bulk" && exName != "async" { // both need a library built for them (CUDA 12 / 12.1)
					t.Errorf("%s exchange on %s unavailable: %v", ex, g.Name, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s exchange on %s: %v", ex, g.Name, err)
				continue
			}
			ref := frOracle(t, g, pagerank.Fixed(iters))
			v := pagerank.Validate(g, res, ref)
			t.Logf("  %-6s %-10s n=%-6d nnz=%-6d err/tol=%6.3f sum-1=%+.2e rho=%.6f residual %.2e pass %v",
				ex, g.Name, g.N, g.NNZ, v.ErrOverTol, v.SumMinus1, v.Spearman, res.FinalResidual(), v.Pass)
			if !v.Pass {
				t.Errorf("%s exchange on %s fails validation: %+v", ex, g.Name, v)
			}
			if len(res.Residuals) != iters || res.Iterations != iters || res.Converged {
				t.Errorf("%s on %s: %d residuals, %d iterations, converged %v", ex, g.Name, len(res.Residuals), res.Iterations, res.Converged)
			}
			if iters >= 100 && g.N > 1 && !(res.FinalResidual() < frFloorOr(g) && res.FinalResidual() < res.Residuals[0]) {
				t.Errorf("%s on %s: residual %g after %d iterations (first %g)", ex, g.Name, res.FinalResidual(), iters, res.Residuals[0])
			}
			if frQuick() {
				continue
			}
			again, err := im.Run(g, pagerank.Fixed(iters))
			if err != nil {
				t.Errorf("%s on %s, second run: %v", ex, g.Name, err)
			} else {
				for i := range res.Ranks {
					if res.Ranks[i] != again.Ranks[i] {
						t.Errorf("%s on %s: rank %d differs between two runs (%v, %v)", ex, g.Name, i, res.Ranks[i], again.Ranks[i])
						break
					}
				}
			}
			conv, err := im.Run(g, pagerank.Converge(pagerank.FloatTolerance, 1000))
			refc := frOracle(t, g, pagerank.Converge(pagerank.FloatTolerance, 1000))
			if err != nil {
				t.Errorf("%s on %s, tolerance run: %v", ex, g.Name, err)
			} else if frAbs(conv.Iterations-refc.Iterations) > 3 && conv.FinalResidual() > frFloorOr(g) {
				t.Errorf("%s on %s: tolerance run stopped after %d iterations (oracle %d), residual %g", ex, g.Name, conv.Iterations, refc.Iterations, conv.FinalResidual())
			}
		}
	}
	for _, g := range graphs {
		dsmKnobs(t, g, nil)
	}
	if frQuick() {
		return
	}
	big := courseLikeGraph(t, "too-large", 400000, 2000000)
	_, err := im.Run(big, pagerank.Fixed(10))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "graph too large for one cluster") {
		t.Errorf("gpu-cluster-dsmem on n = %d: %v; want ErrUnavailable, graph too large for one cluster", big.N, err)
	}
}

// The exchanges move the same contributions and sum every partial in the
// same fixed order, so stores and async stores give the same bits: ranks
// and residual history, fixed iterations and a tolerance run. A library
// without st.async skips async.
func TestGPUClusterDSMEMExchangesAgree(t *testing.T) {
	frNeedGPU(t)
	im := mustDesign(t, NameClusterDSMEM)
	if r := im.Reason(); r != "" {
		t.Skipf("gpu-cluster-dsmem: %s", r)
	}
	iters, graphs := frCorrectnessCases(t)
	defer func() {
		for _, g := range graphs {
			dsmKnobs(t, g, nil)
		}
	}()
	for _, g := range graphs {
		if !frSelected("PRLAB_GPU_CASES", g.Name) { // e.g. tiny alone, under racecheck
			continue
		}
		for _, term := range []pagerank.Params{pagerank.Fixed(iters), pagerank.Converge(pagerank.FloatTolerance, 1000)} {
			dsmKnobs(t, g, map[int]int{knobDSMExchange: 1})
			want, err := im.Run(g, term)
			if err != nil {
				t.Fatalf("stores on %s: %v", g.Name, err)
			}
			for _, ex := range []struct {
				name  string
				knobs map[int]int
			}{{"async", map[int]int{knobDSMExchange: 5}}, {"async generic flags", map[int]int{knobDSMExchange: 5, knobDSMPipeline: 512}}} {
				dsmKnobs(t, g, ex.knobs)
				got, err := im.Run(g, term)
				if errors.Is(err, ErrUnavailable) {
					t.Logf("%s on %s: %v", ex.name, g.Name, err)
					continue
				}
				if err != nil {
					t.Errorf("%s on %s: %v", ex.name, g.Name, err)
					continue
				}
				if got.Iterations != want.Iterations || len(got.Residuals) != len(want.Residuals) {
					t.Errorf("%s on %s (%v): %d iterations, stores %d", ex.name, g.Name, term, got.Iterations, want.Iterations)
					continue
				}
				for i := range want.Ranks {
					if got.Ranks[i] != want.Ranks[i] {
						t.Errorf("%s on %s (%v): rank %d = %v, stores %v", ex.name, g.Name, term, i, got.Ranks[i], want.Ranks[i])
						break
					}
				}
				for i := range want.Residuals {
					if got.Residuals[i] != want.Residuals[i] {
						t.Errorf("%s on %s (%v): residual %d = %v, stores %v", ex.name, g.Name, term, i, got.Residuals[i], want.Residuals[i])
						break
					}
				}
			}
		}
	}
}

// The timed kernel (Benchmark: no residuals, and in the fixed-shape kernel
// the cluster barrier waited for after the gather) gives the same ranks as
// the run of fixed iterations, bit for bit, for the default and for stores.
// Small enough for racecheck on tiny (PRLAB_GPU_CASES) with one exchange
// (PRLAB_DSMEM_TIMED: default, stores).
func TestGPUClusterDSMEMTimedKernelAgrees(t *testing.T) {
	frNeedGPU(t)
	im := mustDesign(t, NameClusterDSMEM)
	if r := im.Reason(); r != "" {
		t.Skipf("gpu-cluster-dsmem: %s", r)
	}
	iters, graphs := frCorrectnessCases(t)
	defer func() {
		for _, g := range graphs {
			dsmKnobs(t, g, nil)
		}
	}()
	if v := os.Getenv("PRLAB_DSMEM_TIMED_ITERS"); v != "" { // a shorter run under a sanitizer
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PRLAB_DSMEM_TIMED_ITERS=%q: want an iteration count >= 1", v)
		}
		iters = n
	}
	term := pagerank.Fixed(iters)
	for _, g := range graphs {
		if !frSelected("PRLAB_GPU_CASES", g.Name) {
			continue
		}
		for _, ex := range []struct {
			name  string
			knobs map[int]int
		}{{"default", nil}, {"stores", map[int]int{knobDSMExchange: 1}}} {
			if !frSelected("PRLAB_DSMEM_TIMED", ex.name) { // e.g. PRLAB_DSMEM_TIMED=default under racecheck
				continue
			}
			dsmKnobs(t, g, ex.knobs)
			want, err := im.Run(g, term)
			if errors.Is(err, ErrUnavailable) {
				t.Logf("%s on %s: %v", ex.name, g.Name, err)
				continue
			}
			if err != nil {
				t.Errorf("%s on %s: %v", ex.name, g.Name, err)
				continue
			}
			timed, err := dsmTimedRanks(im, g, term)
			if err != nil {
				t.Errorf("%s timed on %s: %v", ex.name, g.Name, err)
				continue
			}
			for i := range want.Ranks {
				if timed[i] != want.Ranks[i] {
					t.Errorf("%s timed on %s: rank %d = %v, its fixed-iteration run %v", ex.name, g.Name, i, timed[i], want.Ranks[i])
					break
				}
			}
		}
	}
}

// dsmTimedRanks: the ranks (n, in g's order) after one timed run of
// p.Iterations iterations (the library's benchmark call, no warm-up), without
// Benchmark's stage and primitive rows: those are hundreds of launches more,
// which under racecheck took longer than the test's limit (2026-12-04: 130 s
// even at one iteration), while the timed kernel is one launch.
func dsmTimedRanks(d *gpuDesign, g *pagerank.Graph, p pagerank.Params) ([]float64, error) {
	var ranks []float32
	perm, err := d.onDevice(g, func(s *Session) error {
		var err error
		_, ranks, err = s.lib.benchmark(s.h, d.id, float32(p.Damping), p.Iterations, 0, 1, s.g.N)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := widen(ranks)
	if perm != nil {
		out = pagerank.UnpermuteRanks(out, perm)
	}
	if len(out) != g.N {
		return nil, fmt.Errorf("%d ranks for %d nodes", len(out), g.N)
	}
	return out, nil
}

// frFloorOr is the residual a converged float run reaches: the rounding
// floor of the longest row, or 1e-5.
func frFloorOr(g *pagerank.Graph) float64 { return max(1e-5, frFloor(g)) }

// dsmConfig is one configuration of the correctness test: its label, the
// exchange, gather, partials, pipeline, threads, balance and assignment knobs' values (0: auto).
type dsmConfig struct {
	label                                                          string
	exchange, gather, partials, pipeline, threads, balance, assign int
}

// dsmBalances are PRLAB_KNOB_DSM_BALANCE's values the balance set runs: each
// row weighs 1 + in-degree + balance x min(out-degree, C - 1) in the row split,
// so the blocks whose rows are sent to the most others get fewer rows (4 does
// not fit one cluster on the real graph: measured on the H200, 2026-12-02).
var dsmBalances = []int{1, 2}

// dsmBalanceVariants is the probe's list for PRLAB_DSMEM_SET=balance: the
// default, the small-rows layout (pipeline 144: small rows several per lane +
// heavy rows split) alone, with each balance and with rows moved from the
// largest senders (assignment 2), their phase timers (176), and the stage
// ablations of the small-rows layout with and without the moved rows.
func dsmBalanceVariants() []dsmVariant {
	small := func(extra map[int]int) map[int]int {
		k := map[int]int{knobDSMExchange: 1, knobDSMPipeline: 144}
		for key, v := range extra {
			k[key] = v
		}
		return k
	}
	out := []dsmVariant{{"stores auto 1024 threads", map[int]int{knobDSMExchange: 1}},
		{"stores auto 1024 threads, balance 1", map[int]int{knobDSMExchange: 1, knobDSMBalance: 1}},
		{"stores auto 1024 threads, rows moved", map[int]int{knobDSMExchange: 1, knobDSMAssign: 2}},
		{"stores small rows", small(nil)}, {"stores small rows, rows moved", small(map[int]int{knobDSMAssign: 2})},
		{"stores packed, none of the pipeline bits (the layout before)", map[int]int{knobDSMExchange: 1, knobDSMPipeline: 256}},
		{"async small rows", map[int]int{knobDSMExchange: 5}}, {"async small rows, rows moved", map[int]int{knobDSMExchange: 5, knobDSMAssign: 2}},
		{"async small rows, contiguous", map[int]int{knobDSMExchange: 5, knobDSMAssign: 1}},
		{"stores small rows, contiguous", map[int]int{knobDSMExchange: 1, knobDSMAssign: 1}},
		{"async small rows, generic flags", map[int]int{knobDSMExchange: 5, knobDSMPipeline: 512}},
		{"async packed, none of the pipeline bits", map[int]int{knobDSMExchange: 5, knobDSMPipeline: 256}}}
	for _, bal := range dsmBalances {
		out = append(out, dsmVariant{fmt.Sprintf("stores small rows, balance %d", bal), small(map[int]int{knobDSMBalance: bal})})
	}
	out = append(out, dsmVariant{"stores small rows, phase timer", small(map[int]int{knobDSMPipeline: 176})},
		dsmVariant{"stores small rows, rows moved, phase timer", small(map[int]int{knobDSMPipeline: 176, knobDSMAssign: 2})})
	for _, ab := range dsmAblations {
		if ab.v == 1 || ab.v == 2 || ab.v == 4 || ab.v == 7 || ab.v == 16 {
			if ab.v != 7 { // the async exchange's ablations (with no exchange: the same skeleton as stores)
				out = append(out, dsmVariant{"async small rows, ablation: " + ab.name, map[int]int{knobDSMExchange: 5, knobDSMAblate: ab.v}},
					dsmVariant{"async small rows, contiguous, ablation: " + ab.name, map[int]int{knobDSMExchange: 5, knobDSMAssign: 1, knobDSMAblate: ab.v}},
					dsmVariant{"async small rows, generic flags, ablation: " + ab.name, map[int]int{knobDSMExchange: 5, knobDSMPipeline: 512, knobDSMAblate: ab.v}})
			}
			out = append(out, dsmVariant{"stores small rows, ablation: " + ab.name, small(map[int]int{knobDSMAblate: ab.v})},
				dsmVariant{"stores small rows, rows moved, ablation: " + ab.name, small(map[int]int{knobDSMAblate: ab.v, knobDSMAssign: 2})})
		}
	}
	return out
}

// dsmConfigLabels name the probe's older correctness configurations, in order.
var dsmConfigLabels = []string{"stores staged twobar", "stores pieces", "bulk pieces", "l2 pieces", "rows", "rows pieces",
	"stores bank", "stores bank4", "rows bank", "stores push", "stores onebar", "rows bank push onebar",
	"stores bank push onebar", "stores warp", "rows bank warp", "stores bank onebar", "stores packed twobar",
	"stores staged lean", "stores fused", "rows fused push", "rows fused push onebar"}

// dsmPipelines are PRLAB_KNOB_DSM_PIPELINE's values (bits, packed rows
// only): the split cluster barrier, 16-bit column indices, rows finished in
// their packed warp (no row pass), and combinations.
var dsmPipelines = []namedValue{{"split barrier", 1}, {"16-bit columns", 2}, {"split barrier + 16-bit columns", 3},
	{"row finish", 4}, {"split barrier + 16-bit columns + row finish", 7},
	{"every bit off in the knob's kernel (the default as timed on 2026-12-02 05:00)", 8}}

// dsmHeavyPipelines are PRLAB_KNOB_DSM_PIPELINE's bits 16, 32, 64, 128
// (packed rows and the stores exchange only, each in its own kernel
// instantiation or host layout): heavy rows (in-degree > 256) split into
// chunks of 256 edges packed like light rows (no warp-per-row loop) and rows
// of in-degree 0 left out of the packing; the packed warps permuted so that
// each warp's share balances an estimated cost; small rows (in-degree 1..8)
// summed several to a lane (runs of consecutive rows of <= 8 edges, each
// row's sum stored at its last slot; implies 16); the phase timer (clock() at
// each phase boundary of every warp, a table per block on stdout after each
// timed run).
var dsmHeavyPipelines = []namedValue{{"heavy rows split", 16}, {"packed warps paired", 64},
	{"heavy rows split + packed warps paired", 80}, {"small rows several per lane + heavy rows split", 144},
	{"small rows several per lane + heavy rows split + packed warps paired", 208}, {"phase timer", 32},
	{"heavy rows split, phase timer", 48}, {"small rows several per lane + heavy rows split, phase timer", 176}}

// dsmHeavyVariants is the probe's list for PRLAB_DSMEM_SET=heavy: the
// default, its heavy-row variants, and the ablations of the default and of
// the split (the stage costs after the change).
func dsmHeavyVariants() []dsmVariant {
	out := []dsmVariant{{"stores auto 1024 threads", map[int]int{knobDSMExchange: 1}}}
	for _, pl := range dsmHeavyPipelines {
		out = append(out, dsmVariant{"stores packed 1024 threads, " + pl.name, map[int]int{knobDSMExchange: 1, knobDSMPipeline: pl.v}})
	}
	for _, ab := range dsmAblations {
		if ab.v == 3 {
			continue
		}
		out = append(out, dsmVariant{"stores packed default, ablation: " + ab.name, map[int]int{knobDSMExchange: 1, knobDSMAblate: ab.v}},
			dsmVariant{"stores packed, heavy rows split, ablation: " + ab.name, map[int]int{knobDSMExchange: 1, knobDSMPipeline: 16, knobDSMAblate: ab.v}},
			dsmVariant{"stores packed, small rows per lane + heavy rows split, ablation: " + ab.name,
				map[int]int{knobDSMExchange: 1, knobDSMPipeline: 144, knobDSMAblate: ab.v}})
		if ab.v == 7 || ab.v == 15 { // the skeleton's phases
			out = append(out, dsmVariant{"stores packed, phase timer, ablation: " + ab.name, map[int]int{knobDSMExchange: 1, knobDSMPipeline: 32, knobDSMAblate: ab.v}})
		}
	}
	return out
}

// dsmPipelineConfigs: the default (packed rows, warp 0 reduces only, the
// one-barrier sum) with each pipeline value on the three exchanges, and at
// 512 threads per block with and without both bits.
func dsmPipelineConfigs() []dsmConfig {
	var out []dsmConfig
	for _, ex := range dsmExchanges[:3] {
		for _, pl := range dsmPipelines {
			out = append(out, dsmConfig{label: ex.name + " " + pl.name, exchange: ex.v, pipeline: pl.v})
		}
	}
	return append(out, dsmConfig{label: "stores 512 threads", exchange: 1, threads: 512},
		dsmConfig{label: "stores 512 threads split barrier + 16-bit columns + row finish", exchange: 1, pipeline: 7, threads: 512})
}

// dsmPipelineVariants is the probe's short list (PRLAB_DSMEM_SET=pipeline):
// the default, its pipeline variants at 1024 and 512 threads, and the
// ablations of the default and of both pipeline bits (the stage costs).
func dsmPipelineVariants() []dsmVariant {
	out := []dsmVariant{{"stores auto 1024 threads", map[int]int{knobDSMExchange: 1}}}
	for _, pl := range dsmPipelines {
		out = append(out, dsmVariant{"stores packed 1024 threads, " + pl.name, map[int]int{knobDSMExchange: 1, knobDSMPipeline: pl.v}})
	}
	out = append(out, dsmVariant{"stores packed 512 threads", map[int]int{knobDSMExchange: 1, knobDSMThreads: 512}},
		dsmVariant{"stores packed 512 threads, split barrier + 16-bit columns + row finish", map[int]int{knobDSMExchange: 1, knobDSMThreads: 512, knobDSMPipeline: 7}})
	for _, ab := range dsmAblations {
		out = append(out, dsmVariant{"stores packed (the default), ablation: " + ab.name, map[int]int{knobDSMExchange: 1, knobDSMAblate: ab.v}})
		if ab.v == 1 || ab.v == 2 || ab.v == 4 || ab.v == 7 {
			out = append(out, dsmVariant{"stores packed, split barrier + 16-bit columns, ablation: " + ab.name,
				map[int]int{knobDSMExchange: 1, knobDSMPipeline: 3, knobDSMAblate: ab.v}})
		}
		if ab.v == 4 || ab.v == 8 {
			out = append(out, dsmVariant{"stores packed, split barrier + 16-bit columns + row finish, ablation: " + ab.name,
				map[int]int{knobDSMExchange: 1, knobDSMPipeline: 7, knobDSMAblate: ab.v}})
		}
	}
	return out
}

// dsmAblations are PRLAB_KNOB_DSM_ABLATE's values the probe times.
var dsmAblations = []namedValue{{"no gather", 1}, {"no row sums", 2}, {"no exchange", 4}, {"no gather, no row sums", 3},
	{"skeleton (partials, reductions, cluster.sync)", 7}, {"no cluster.sync", 8}, {"loop alone (skeleton without cluster.sync)", 15},
	{"no iterations (launch, one-time load, write)", 16}}

// dsmVariant is one configuration of gpu-cluster-dsmem's knobs.
type dsmVariant struct {
	name  string
	knobs map[int]int
}

// namedValue is one value of a knob and its name in a variant's label.
type namedValue struct {
	name string
	v    int
}

// dsmExchanges are PRLAB_KNOB_DSM_EXCHANGE's values: 16-byte DSMEM stores,
// cp.async.bulk + mbarrier, through L2, 4-byte stores of each row at its combine.
var dsmExchanges = []namedValue{{"stores", 1}, {"bulk", 2}, {"l2", 3}, {"rows", 4}, {"async", 5}}

// dsmGathers are PRLAB_KNOB_DSM_GATHER's values: staged, direct, pieces of
// <= 8 / 4 edges, the same with each piece's columns bank-ordered, and the
// bank-ordered pieces of 8 with each row of one piece finished by its thread,
// and the rows packed into warps (a row's pieces on adjacent lanes, summed by
// shuffles).
var dsmGathers = []namedValue{{"staged", 1}, {"direct", 2}, {"pieces", 3}, {"pieces of 4", 4},
	{"pieces bank-ordered", 5}, {"pieces of 4 bank-ordered", 6}, {"pieces bank-ordered fused", 7}, {"rows packed into warps", 8}}

func dsmVariants() []dsmVariant {
	var out []dsmVariant
	out = append(out, dsmVariant{"stores auto 1024 threads", map[int]int{knobDSMExchange: 1}})
	for _, ex := range dsmExchanges {
		for _, ga := range dsmGathers {
			for _, th := range []int{1024, 512} {
				if th == 512 && ga.v != 1 && ga.v != 3 {
					continue
				}
				out = append(out, dsmVariant{fmt.Sprintf("%s %s %d threads", ex.name, ga.name, th),
					map[int]int{knobDSMExchange: ex.v, knobDSMGather: ga.v, knobDSMThreads: th}})
			}
		}
	}
	for _, ex := range []namedValue{dsmExchanges[0], dsmExchanges[3]} {
		for _, ga := range []namedValue{dsmGathers[0], dsmGathers[2], dsmGathers[4], dsmGathers[6], dsmGathers[7]} {
			for _, pa := range []namedValue{{"partials pushed", 1}, {"one-barrier dangling sum", 2}, {"partials pushed + one-barrier sum", 3}, {"warp partials pushed", 4},
				{"two-barrier block sum (the first default)", 8}, {"warp 0 reduces only", 18}, {"warp 0 reduces only, two-barrier sum", 24}} {
				out = append(out, dsmVariant{fmt.Sprintf("%s %s 1024 threads, %s", ex.name, ga.name, pa.name),
					map[int]int{knobDSMExchange: ex.v, knobDSMGather: ga.v, knobDSMPartials: pa.v}})
			}
		}
	}
	out = append(out, dsmVariant{"stores staged 1024 threads, cluster of 8", map[int]int{knobDSMExchange: 1, knobDSMGather: 1, knobDSMCluster: 8}})
	for _, bal := range []int{1, 2, 4} {
		for _, ex := range dsmExchanges[:2] {
			out = append(out, dsmVariant{fmt.Sprintf("%s staged 1024 threads, balance %d (sends in the row split)", ex.name, bal),
				map[int]int{knobDSMExchange: ex.v, knobDSMGather: 1, knobDSMBalance: bal}})
		}
	}
	for _, ex := range dsmExchanges {
		for _, ab := range dsmAblations {
			out = append(out, dsmVariant{fmt.Sprintf("%s staged, ablation: %s", ex.name, ab.name),
				map[int]int{knobDSMExchange: ex.v, knobDSMGather: 1, knobDSMAblate: ab.v}})
			if ab.v == 7 || ab.v == 15 { // the skeleton with the pushed partials (+ one-barrier sum), with the warp partials
				for _, pa := range []namedValue{{"partials pushed + one-barrier sum", 3}, {"warp partials pushed", 4}} {
					out = append(out, dsmVariant{fmt.Sprintf("%s staged, %s, ablation: %s", ex.name, pa.name, ab.name),
						map[int]int{knobDSMExchange: ex.v, knobDSMGather: 1, knobDSMPartials: pa.v, knobDSMAblate: ab.v}})
				}
			}
			if ab.v <= 3 { // the piece sums are the gather, the rows adding them the row sums
				for _, ga := range []namedValue{dsmGathers[2], dsmGathers[4], dsmGathers[7]} {
					out = append(out, dsmVariant{fmt.Sprintf("%s %s, ablation: %s", ex.name, ga.name, ab.name),
						map[int]int{knobDSMExchange: ex.v, knobDSMGather: ga.v, knobDSMAblate: ab.v}})
				}
			}
		}
	}
	return out
}

// The probe of gpu-cluster-dsmem on the real graph (PRLAB_DSMEM_PROBE=1):
// each variant timed like the report (50 iterations, 3 warm-ups, 10 runs),
// validated against the oracle unless it is an ablation; the references
// (gpu-persistent, gpu-cluster) and cluster.sync() in the same process.
func TestGPUClusterDSMEMVariants(t *testing.T) {
	g := frProbeGraph(t, "PRLAB_DSMEM_PROBE", "the gpu-cluster-dsmem variants")
	im := mustDesign(t, NameClusterDSMEM)
	if r := im.Reason(); r != "" {
		t.Skipf("gpu-cluster-dsmem: %s", r)
	}
	// PRLAB_DSMEM_LEAN=1 (for a profiler, which replays every launch): no primitives, no warm-up of the
	// clocks, no reference designs: only the selected variants' launches
	lean := os.Getenv("PRLAB_DSMEM_LEAN") == "1"
	var prims []pagerank.Stage
	if !lean {
		var err error
		if prims, err = MeasurePrimitives(g); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for _, p := range prims {
		fmt.Fprintf(&b, "%-62s %8.3f us\n", p.Name, 1000*p.Ms)
	}
	ref := frOracle(t, g, pagerank.Fixed(pagerank.TimingIterations))
	dram := frDRAM(t, g)
	warm := mustDesign(t, NamePersistent)
	for i := 0; i < 200 && !lean; i++ { // clocks up from idle (~0.1 s)
		if _, err := warm.Benchmark(g, pagerank.Fixed(pagerank.TimingIterations), 0, 10); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Fprintf(&b, "DRAM copy row %.1f GB/s; gold (0.28 x) needs <= %.3f us per iteration, silver (0.15 x) <= %.3f us, at %d bytes\n",
		dram, float64(im.BytesFormula().Bytes(g.N, g.NNZ))/(0.28*dram*1e3), float64(im.BytesFormula().Bytes(g.N, g.NNZ))/(0.15*dram*1e3), im.BytesFormula().Bytes(g.N, g.NNZ))
	fmt.Fprintf(&b, "%-60s %9s %8s %7s %5s\n", "variant", "us/iter", "x DRAM", "CV", "pass")
	var rows []map[string]any
	for _, name := range []string{NamePersistent, NameCluster} {
		if lean {
			break
		}
		r, _, err := frBench(t, mustDesign(t, name), g, ref, dram)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fmt.Fprintf(&b, "%-60s %9.3f %8.3f %7.4f %5v\n", name, r.USPerIter, r.XDRAM, r.CV, r.Pass)
		rows = append(rows, map[string]any{"variant": name, "row": r})
	}
	variants := dsmVariants()
	if os.Getenv("PRLAB_DSMEM_SET") == "balance" {
		variants = dsmBalanceVariants()
	} else if os.Getenv("PRLAB_DSMEM_SET") == "heavy" {
		variants = dsmHeavyVariants()
	} else if os.Getenv("PRLAB_DSMEM_SET") == "pipeline" {
		variants = dsmPipelineVariants()
	} else {
		variants = append(variants, dsmPipelineVariants()[1:len(dsmPipelines)+3]...)
	}
	for round := 1; round <= 2; round++ {
		for _, v := range variants {
			if (round == 2 && v.knobs[knobDSMAblate] != 0) || !frSelected("PRLAB_DSMEM_EXCHANGES", dsmExchanges[v.knobs[knobDSMExchange]-1].name) ||
				!frSelected("PRLAB_DSMEM_VARIANTS", v.name) {
				continue
			}
			dsmKnobs(t, g, v.knobs)
			check := ref
			if v.knobs[knobDSMAblate] != 0 {
				check = nil
			}
			r, _, err := frBench(t, im, g, check, dram)
			label := fmt.Sprintf("%s (round %d)", v.name, round)
			if err != nil {
				fmt.Fprintf(&b, "%-60s %v\n", label, err)
				if !errors.Is(err, ErrUnavailable) {
					t.Errorf("%s: %v", label, err)
				}
				continue
			}
			if check != nil && !r.Pass {
				t.Errorf("%s: ranks after the timed runs fail validation (err/tol %.3f)", label, r.ErrOverTol)
			}
			fmt.Fprintf(&b, "%-60s %9.3f %8.3f %7.4f %5v\n", label, r.USPerIter, r.XDRAM, r.CV, r.Pass || check == nil)
			rows = append(rows, map[string]any{"variant": v.name, "round": round, "knobs": v.knobs, "row": r})
		}
	}
	dsmKnobs(t, g, nil)
	t.Log("\n" + b.String())
	writeResults(t, "PRLAB_LAYOUT_OUT", "dsmem-variants.json", map[string]any{"primitives": prims, "dram_gbps": dram, "rows": rows})
}

// The write budget of gpu-cluster-dsmem's reductions on the device: its
// cluster reduction (one partial per block in shared memory, read by block 0
// through distributed shared memory) writes gridDim.x + 1 floats and returns
// the float64 sum within 1e-5, on the real graph's mask (or chain's).
func TestGPUClusterDSMEMWriteBudget(t *testing.T) {
	frNeedGPU(t)
	if r := mustDesign(t, NameClusterDSMEM).Reason(); r != "" {
		t.Skipf("gpu-cluster-dsmem: %s", r)
	}
	g := frRealGraph(t)
	if g == nil {
		g, _ = pagerank.SyntheticCase("chain")
	}
	for which := 0; which < 2; which++ {
		a := make([]float32, g.N)
		b := make([]float32, g.N)
		for i := range a {
			a[i] = float32(1+i%7) / float32(4*g.N)
			b[i] = a[i] * (1 + float32(i%3)/8)
		}
		rc, err := checkReduction(g, reduceCluster, which, a, b, g.Dangling, budgetThreads)
		if err != nil {
			t.Fatalf("cluster reduction %d: %v", which, err)
		}
		t.Logf("cluster reduction (which %d): %d blocks, %d floats written, value %.9g", which, rc.GridBlocks, rc.FloatsWritten, rc.Value)
		if rc.GridBlocks < 1 || rc.FloatsWritten != rc.GridBlocks+1 {
			t.Errorf("which %d: %d floats written by %d blocks, want gridDim.x + 1", which, rc.FloatsWritten, rc.GridBlocks)
		}
	}
	wb, err := CheckWriteBudgets(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("write budgets: %v", wb)
	if wb[NameClusterDSMEM] != "met" {
		t.Errorf("gpu-cluster-dsmem write budget %q, want met", wb[NameClusterDSMEM])
	}
}

// TestDumpCSRForLayoutCheck writes the six synthetic cases and the real
// graph as binary CSR files (n, nnz int32; rowPtr [n+1], colIdx [nnz] int32,
// little endian) into $PRLAB_DSM_LAYOUT_DUMP, for the host-only layout check
// testdata/cluster_dsmem_layout_check.cu (see its header).
func TestDumpCSRForLayoutCheck(t *testing.T) {
	dir := os.Getenv("PRLAB_DSM_LAYOUT_DUMP")
	if dir == "" {
		t.Skip("set PRLAB_DSM_LAYOUT_DUMP=dir to write the CSR files of the layout check")
	}
	graphs := pagerank.SyntheticCases()
	if g := frRealGraph(t); g != nil {
		graphs = append(graphs, g)
	}
	for _, g := range graphs {
		b := binary.LittleEndian.AppendUint32(nil, uint32(g.N))
		b = binary.LittleEndian.AppendUint32(b, uint32(g.NNZ))
		for _, v := range g.InRowPtr {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		for _, v := range g.InColIdx {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		if err := os.WriteFile(filepath.Join(dir, g.Name+".bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The probe's variants name valid knob values (an exchange the tables know,
// a gather in [0, 8], partials in [0, 31], pipeline in [0, 768]) under distinct names, and each
// correctness config names its exchange.
func TestDSMVariantsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range append(append(append(dsmVariants(), dsmPipelineVariants()[1:]...), dsmHeavyVariants()[1:]...), dsmBalanceVariants()[3:]...) {
		ex, ga, pa, pl := v.knobs[knobDSMExchange], v.knobs[knobDSMGather], v.knobs[knobDSMPartials], v.knobs[knobDSMPipeline]
		if ex < 1 || ex > len(dsmExchanges) || ga < 0 || ga > len(dsmGathers) || pa < 0 || pa > 31 || pl < 0 || pl > 768 || v.knobs[knobDSMBalance] > 64 || v.knobs[knobDSMAssign] > 3 {
			t.Errorf("variant %q: knobs %v out of range", v.name, v.knobs)
		}
		if seen[v.name] {
			t.Errorf("variant %q twice", v.name)
		}
		seen[v.name] = true
	}
	if len(seen) < 40 {
		t.Errorf("%d variants, want the exchanges x gathers x threads, partials and ablations (>= 40)", len(seen))
	}
}
