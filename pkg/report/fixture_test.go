package report

import (
	"math"

	"github.com/prlab/prlab/pkg/pagerank"
)

// fixtureRun is a hand-made Run shaped like a real one: six synthetic cases
// and the real graph, two CPU implementations, the exercise variant, and
// (withGPU) a GPU context with copy rows, three GPU implementations with
// stages, and tiers. Numbers are chosen so each tier rule has one case.
func fixtureRun(withGPU bool) *Run {
	run := &Run{
		Schema: Schema,
		Name:   "fixture",
		Env: Environment{Date: "2026-03-01T12:00:00Z", Commit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8",
			OS: "linux/amd64", CPUModel: "Test CPU", CPUCores: 2, GOMAXPROCS: 2,
			Datasets: []Checksum{{File: "data/aan/acl.txt", Bytes: 1899485, SHA256: "ad409b91a9f3c7e185ec380f5f08251949d61fc0cbe9a9845d13695f28b5880b"}}},
		Protocol: Protocol{Damping: 0.85, Iterations: 100, TimingIterations: 50, Warmups: 3, Runs: 10,
			FloatTolerance: 1e-6, OracleTolerance: 1e-12, MaxIterations: 1000, Oracle: "t0-oracle", SpearmanTopK: 100, SpearmanGate: 0.999},
		Graph: GraphSummary{Name: "aan", Path: "data/aan/acl.txt", Nodes: 16589, Edges: 94931, SelfLoops: 42, Dangling: 1525,
			Line: "loaded 16589 nodes and 94931 edges (dropped 42 self-loops, 0 duplicates); 1525 dangling", MetadataPath: "data/aan/papers.tsv", WithMetadata: 16589},
		Cases: []CaseSummary{{"tiny", 6, 9, 1, false}, {"single", 1, 0, 1, false}, {"nodangling", 4096, 8192, 0, false},
			{"dangling", 4096, 7392, 410, false}, {"star", 10001, 10000, 1, false}, {"chain", 8192, 8191, 1, false}, {"aan", 16589, 94931, 1525, true}},
		Implementations: []Impl{
			{Name: "t0-oracle", Label: "CPU reference, float64", Kind: KindCPU, Precision: pagerank.Float64, Available: true},
			{Name: "t1-multicore-f32", Label: "multi-core CPU, float32", Kind: KindCPU, Precision: pagerank.Float32, Available: true},
			{Name: "t0-nodangling", Label: "no dangling redistribution", Kind: KindExercise, Precision: pagerank.Float64, Available: true},
		},
		Top: []TopRow{
			{Rank: 1, Score: 0.0123, InDegree: 847, OutDegree: 0, ID: "J93-2004", Year: 1993, Title: "Building A Large Annotated Corpus Of English: The Penn Treebank", Known: true},
			{Rank: 2, Score: 0.0101, InDegree: 500, OutDegree: 3, ID: "P02-1040", Year: 2002, Title: "Bleu: a Method for Automatic Evaluation of Machine Translation", Known: true},
			{Rank: 3, Score: 0.0090, InDegree: 12, OutDegree: 1, ID: "X99-9999", Known: false},
		},
	}
	add := func(cse, impl, label, kind string, prec pagerank.Precision, status string) {
		c := Check{Case: cse, Identity: Identity{Implementation: impl, Label: label, Kind: kind, Precision: prec}, Iterations: 100, Outcome: Outcome{Status: status},
			ErrOverTol: 0.01, MaxRelErr: 1e-9, SumAndSpearman: SumAndSpearman{SumMinus1: 2e-8, SumAllowed: 1e-6, Spearman: 1}, SumPass: true, SpearmanPass: true, ErrPass: true}
		for _, k := range run.Cases {
			if k.Name == cse {
				c.N, c.NNZ = k.N, k.NNZ
			}
		}
		switch status {
		case StatusFail:
			c.SumMinus1, c.SumPass, c.ErrOverTol, c.ErrPass = -0.12, false, 4000, false
		case StatusFailed:
			c.Reason = "panic: index out of range [7] with length 6"
			c.ErrOverTol, c.MaxRelErr, c.SumMinus1, c.Spearman = NaN, NaN, NaN, NaN
		case StatusSkipped:
			c.Reason = "no CUDA library"
			c.ErrOverTol, c.MaxRelErr, c.SumMinus1, c.Spearman = NaN, NaN, NaN, NaN
		}
		run.Correctness = append(run.Correctness, c)
	}
	geometric := func(r0, q float64, tol float64) []float64 {
		var out []float64
		for x := r0; ; x *= q {
			out = append(out, x)
			if x < tol {
				return out
			}
		}
	}
	for _, im := range run.Implementations {
		for _, k := range run.Cases {
			status := StatusPass
			if im.Kind == KindExercise && k.Name != "nodangling" {
				status = StatusFail
			}
			add(k.Name, im.Name, im.Label, im.Kind, im.Precision, status)
		}
		tol := 1e-12
		if im.Precision == pagerank.Float32 {
			tol = 1e-6
		}
		res := geometric(0.9, 0.78, tol)
		run.Convergence = append(run.Convergence, Convergence{Identity: Identity{Implementation: im.Name, Label: im.Label, Kind: im.Kind, Precision: im.Precision},
			Tolerance: tol, Iterations: len(res), Converged: true, FinalResidual: F(res[len(res)-1]), SumAndSpearman: SumAndSpearman{SumMinus1: 2e-7, SumAllowed: 7.985e-5, Spearman: 1}, Outcome: Outcome{Status: StatusPass}})
		sums := make([]float64, len(res))
		for i := range sums {
			sums[i] = 1
		}
		run.Results = append(run.Results, pagerank.Result{Implementation: im.Name, Case: "aan", Precision: im.Precision, N: 16589, NNZ: 94931,
			Mode: pagerank.Tolerance, Iterations: len(res), Converged: true, Residuals: res, Sums: sums})
		if im.Kind != KindExercise {
			tm := pagerank.NewTiming(50, 3, []float64{20, 21, 19, 20, 20.5, 19.5, 20, 20, 21, 19}, "wall")
			run.Timings = append(run.Timings, TimingRow{Identity: Identity{Implementation: im.Name, Label: im.Label, Kind: im.Kind, Precision: im.Precision},
				Case: "aan", Outcome: Outcome{Status: StatusPass}, Timing: tm, GBps: NaN, XDRAM: NaN})
		}
	}
	if !withGPU {
		run.GPUSkipped = "CUDA library libprlab_cuda.so not found (set PRLAB_CUDA_LIB)"
		return run
	}
	run.GPU = &GPUContext{Name: "NVIDIA H200", ComputeCapability: "9.0", SMs: 132, L2Bytes: 62914560, MaxThreadsPerBlock: 1024,
		Driver: "570.00", Runtime: "12.8", CCCL: "CCCL 2.8.0"}
	dram := 4000.0
	run.CopyRows = []pagerank.Stage{
		{Name: "copy, 128 MiB (DRAM)", Ms: 0.0671, Bytes: 268435456, GBps: dram, XDRAM: 1},
		{Name: "copy, one iteration's bytes", Ms: 0.0012, Bytes: 1200000, GBps: 1000, XDRAM: 0.25},
	}
	run.Stages = []pagerank.Stage{
		{Name: "scale by out-degree", Ms: 0.0028, Bytes: 199068, GBps: 71.1, XDRAM: 71.1 / dram, Formula: "12n"},
		{Name: "spmv, thread per row", Ms: 0.0332, Bytes: 1200000, GBps: 36.1, XDRAM: 36.1 / dram, Formula: "4(n+1) + 8nnz + 4n"},
		{Name: "spmv, warp per row", Ms: 0.0273, Bytes: 1200000, GBps: 43.9, XDRAM: 43.9 / dram, Formula: "4(n+1) + 8nnz + 4n"},
	}
	gpu := []struct {
		name, label string
		medianMs    float64 // for 50 iterations
		bytes       int64
		cv          float64
		fail        bool
	}{
		{"gpu-thread-per-row", "thread per row", 2.0, 1200000, 0.01, false},
		{"gpu-warp-per-row", "warp per row", 0.05, 1200000, 0.01, false},    // 1.2e6*50/0.05e-3 = 1200 GB/s = 0.30 x DRAM
		{"gpu-jittery", "jittery warp per row", 0.05, 1200000, 0.08, false}, // same speed, CV 8 %
		{"gpu-thrust-cub", "Thrust + CUB", 1.0, 2400000, 0.02, false},       // 120 GB/s = 0.03 x DRAM
		{"gpu-broken", "broken kernel", 0.04, 1200000, 0.01, true},
	}
	for _, g := range gpu {
		run.Implementations = append(run.Implementations, Impl{Name: g.name, Label: g.label, Kind: KindGPU, Precision: pagerank.Float32, Available: true})
		for _, k := range run.Cases {
			status := StatusPass
			if g.fail && k.Name == "tiny" {
				status = StatusFailed
			}
			add(k.Name, g.name, g.label, KindGPU, pagerank.Float32, status)
		}
		// CV-controlled runs around the median: ±a, mean = median.
		runs := make([]float64, 10)
		a := g.cv * g.medianMs * math.Sqrt(9.0/10.0)
		for i := range runs {
			if i%2 == 0 {
				runs[i] = g.medianMs - a
			} else {
				runs[i] = g.medianMs + a
			}
		}
		tm := pagerank.NewTiming(50, 3, runs, "cuda-events")
		gbps := float64(g.bytes) * 50 / (tm.MedianMs * 1e6)
		stages := []pagerank.Stage{
			{Name: "scale by out-degree", Ms: 0.0028, Bytes: 3 * 4 * 16589, GBps: 71.1, XDRAM: 71.1 / dram, Formula: "4n + 4n + 4n"},
			{Name: "spmv", Ms: 0.02, Bytes: 800000, GBps: 40, XDRAM: 40 / dram, Formula: "4(n+1) + 4nnz + 4nnz + 4n"},
		}
		run.Timings = append(run.Timings, TimingRow{Identity: Identity{Implementation: g.name, Label: g.label, Kind: KindGPU, Precision: pagerank.Float32}, Case: "aan",
			Outcome: Outcome{Status: StatusPass}, Timing: tm, BytesPerIteration: g.bytes, GBps: F(gbps), XDRAM: F(gbps / dram),
			LaunchesPerIteration: 5, HostSyncsPerIteration: 0, Stages: stages})
	}
	run.Tiers = ComputeTiers(run, TierInput{Baseline: "gpu-thread-per-row", WriteBudget: map[string]string{
		"gpu-thread-per-row": "met", "gpu-warp-per-row": "met", "gpu-jittery": "met", "gpu-broken": "met"}})
	return run
}
