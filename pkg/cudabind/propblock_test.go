package cudabind

// GPU tests of gpu-prop-blocking (csrc/propblock.cu); they need a GPU and
// libprlab_cuda.so and skip with the reason otherwise. Its settings are
// also timed by TestGPUHotHeadSweep (PRLAB_PROPBLOCK_CONFIGS=a,b: only these
// of propBlockConfigs; "none": not one; the pb-tiny settings never).

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// propBlockConfig is one setting of the propagation-blocking knobs (0
// automatic; hot 1: no head; replicate 1: never per-lane replicas; runs and
// fixed 0 or 1 on, 2 off: segments by destination with one atomic per run
// of a destination, and 64-bit fixed-point row sums, the same bits every run).
type propBlockConfig struct {
	name                                                                 string
	hot, binRows, chunkRows, binEdges, itemEdges, replicate, runs, fixed int
}

var propBlockConfigs = []propBlockConfig{
	// In the order the sweep times them (most telling first). pb-auto: head
	// 12288, 8192 rows per bin, 16384 per chunk, 2^18 edges per bin and item,
	// destination runs, fixed-point sums (the probe's pb-runs-fixed).
	{"pb-auto", 0, 0, 0, 0, 0, 0, 0, 0},
	{"pb-runs", 0, 0, 0, 0, 0, 0, 1, 2},                 // float sums: 16384-row bins (the probe's fastest)
	{"pb-auto-w16k", 0, 16384, 0, 0, 0, 0, 0, 0},        // 176 KiB per accumulate block: one per SM, half the bins
	{"pb-auto-h8k-w10k", 8192, 10240, 0, 0, 0, 0, 0, 0}, // 112 KiB: two per SM, a quarter fewer bins
	{"pb-auto-s32k", 0, 0, 32768, 0, 0, 0, 0, 0},        // longer segments, one scatter block per SM
	{"pb-auto-e1m", 0, 0, 0, 1 << 20, 0, 0, 0, 0},       // bins of more edges
	{"pb-auto-none", 1, 0, 0, 0, 0, 0, 0, 0},            // every edge through the bins
	{"pb-float", 0, 0, 0, 0, 0, 0, 2, 2},                // the probe's first default: by source, float atomics
	{"pb-fixed", 0, 0, 0, 0, 0, 0, 2, 0},                // by source, fixed-point sums
	{"pb-runs-h24k", 24576, 0, 0, 0, 0, 0, 1, 2},
	{"pb-float-none", 1, 0, 0, 0, 0, 0, 2, 2},
	{"pb-float-h24k", 24576, 0, 0, 0, 0, 0, 2, 2},
	{"pb-float-w8k", 0, 8192, 0, 0, 0, 0, 2, 2},
	{"pb-float-e64k", 0, 0, 0, 1 << 16, 0, 0, 2, 2},
	{"pb-float-norep", 0, 0, 0, 0, 0, 1, 2, 2}, // short bins without per-lane replicas (5x slower at 2^24)
	// Small tables on small graphs (correctness: many bins, chunks, items and short bins).
	{"pb-tiny-h64", 64, 256, 128, 1024, 512, 0, 2, 2},
	{"pb-tiny-none", 1, 64, 64, 256, 64, 0, 2, 2},
	{"pb-tiny-norep", 1000, 256, 512, 2048, 2048, 1, 2, 2},
	{"pb-tiny-runs", 64, 256, 128, 1024, 512, 0, 1, 2},
	{"pb-tiny-fixed", 64, 256, 128, 1024, 512, 0, 0, 0},
	{"pb-tiny-fixed-none", 1, 64, 64, 256, 64, 0, 2, 0},
}

// setPropBlock applies c to the session of the graph gpu-prop-blocking runs
// on (g relabelled).
func setPropBlock(t *testing.T, g *pagerank.Graph, c propBlockConfig) {
	t.Helper()
	setRelabelledKnobs(t, g, "propagation-blocking", map[int]int{knobPBHot: c.hot, knobPBBinRows: c.binRows, knobPBChunkRows: c.chunkRows, knobPBBinEdges: c.binEdges, knobPBItemEdges: c.itemEdges, knobPBReplicate: c.replicate, knobPBRuns: c.runs, knobPBFixed: c.fixed})
}

// Every setting of propBlockConfigs on the six synthetic cases, the real
// graph and R-MAT 2^16 and 2^18 against the float64 oracle; a second run
// passes too and differs from the first by at most 1e-5 relative (the
// shared-memory float atomics' order varies, the bits may), by nothing with
// the fixed-point sums; a tolerance run converges like the oracle.
func TestGPUPropBlockCorrectness(t *testing.T) {
	frNeedGPU(t)
	defer ReleaseRelabelled()
	iters := pagerank.CorrectnessIterations
	graphs := pagerank.SyntheticCases()
	configs := propBlockConfigs
	if frQuick() {
		iters, configs = 10, nil
		for _, c := range propBlockConfigs { // all hot, mixed, all cold, destination runs
			if c.name == "pb-auto" || c.name == "pb-tiny-h64" || c.name == "pb-tiny-none" || c.name == "pb-tiny-runs" || c.name == "pb-tiny-fixed" || c.name == "pb-tiny-fixed-none" {
				configs = append(configs, c)
			}
		}
	} else {
		if g := frRealGraph(t); g != nil {
			graphs = append(graphs, g)
		}
		graphs = append(graphs, rmat(t, 16, 1), rmat(t, 18, 1))
	}
	im := mustDesign(t, NamePropBlock)
	for _, g := range graphs {
		ref := frOracle(t, g, pagerank.Fixed(iters))
		for _, c := range configs {
			if strings.HasPrefix(c.name, "pb-tiny") && g.N > 1<<17 {
				continue // tables of (bins x chunks) segments grow as n^2 / (64 x 64)
			}
			setPropBlock(t, g, c)
			res, again := runFixedChecked(t, im, c.name, g, ref, iters)
			if res == nil {
				continue
			}
			if want := 16*int64(g.N) + 12*int64(g.NNZ); res.BytesPerIteration > want || res.BytesPerIteration < want-8*int64(g.NNZ) {
				t.Errorf("%s (%s) on %s: %d bytes per iteration outside [16n + 4nnz, 16n + 12nnz]", im.Name(), c.name, g.Name, res.BytesPerIteration)
			}
			if c.fixed != 2 && !slices.Equal(again.Ranks, res.Ranks) {
				t.Errorf("%s (%s) on %s: a rerun gives other bits (integer row sums must not depend on the order)", im.Name(), c.name, g.Name)
			}
			if e := maxRelErr(again.Ranks, res.Ranks); e > 1e-5 || math.IsNaN(e) {
				t.Errorf("%s (%s) on %s: a rerun differs by %.3g relative (only the atomics' order may change)", im.Name(), c.name, g.Name, e)
			}
		}
		if frQuick() {
			continue
		}
		setPropBlock(t, g, propBlockConfigs[0])
		checkToleranceRun(t, im, g)
	}
}
