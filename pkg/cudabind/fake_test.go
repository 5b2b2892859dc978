//go:build cgo

package cudabind

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// buildFake compiles testdata/fake_prlab_cuda.c (a CPU stand-in with the
// same C API) into a shared library with the system C compiler.
func buildFake(t *testing.T, defines ...string) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build the fake library: %v", cc, err)
	}
	out := filepath.Join(t.TempDir(), "libfake.so")
	args := append([]string{"-shared", "-fPIC", "-O1", "-Icsrc", "-o", out, "testdata/fake_prlab_cuda.c", "-lm"}, defines...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	return out
}

// useFake builds the fake library (buildFake) and loads it for the rest of
// the test (useLibrary); a fake that does not load fails the test.
func useFake(t *testing.T) {
	t.Helper()
	if reason := useLibrary(t, buildFake(t)); reason != "" {
		t.Fatalf("fake library unavailable: %s", reason)
	}
}

// The binding end to end against the fake library: availability, device
// info, ranks/residuals/sums marshalling for every implementation in both
// modes, Benchmark's timing and stage rows, the stage table, and errors.
func TestBindingWithFakeLibrary(t *testing.T) {
	useFake(t)
	if ok, reason := Available(); !ok {
		t.Fatalf("Available() = false, %q", reason)
	}
	dev, err := DeviceInfo()
	if err != nil {
		t.Fatal(err)
	}
	if dev.Name != "Fake CPU device" || dev.ComputeCapability() != "9.0" || dev.SMs != 132 || dev.CCCL != "CCCL 3.0.1" ||
		dev.L2Bytes != 62914560 || cudaVersion(dev.DriverVersion) != "13.0" {
		t.Errorf("device info not marshalled: %+v", dev)
	}
	if !strings.Contains(dev.String(), "compute capability 9.0") {
		t.Errorf("Device.String() = %q", dev.String())
	}

	for _, g := range synthetic(t) {
		want, _ := oracle64(g, pagerank.DefaultDamping, 30, 0)
		for _, pi := range stageDesigns() {
			if r := pi.(pagerank.Unavailable).Reason(); r != "" {
				t.Fatalf("%s: Reason() = %q with the fake library loaded", pi.Name(), r)
			}
			res, err := pi.Run(g, pagerank.Fixed(30))
			if err != nil {
				t.Fatalf("%s on %s: %v", pi.Name(), g.Name, err)
			}
			if len(res.Ranks) != g.N || len(res.Residuals) != 30 || len(res.Sums) != 30 || res.Iterations != 30 {
				t.Fatalf("%s on %s: %d ranks, %d residuals, %d sums, %d iterations", pi.Name(), g.Name,
					len(res.Ranks), len(res.Residuals), len(res.Sums), res.Iterations)
			}
			if e := maxRelErr(res.Ranks, want); e > 1e-3 {
				t.Errorf("%s on %s: max relative error %.3g vs float64", pi.Name(), g.Name, e)
			}
			if math.Abs(res.FinalSum()-1) > 4*fltEpsilon*math.Sqrt(float64(g.N)) {
				t.Errorf("%s on %s: sum %v", pi.Name(), g.Name, res.FinalSum())
			}
			if res.BytesPerIteration != designImpl(pi).BytesFormula().Bytes(g.N, g.NNZ) || res.Case != g.Name {
				t.Errorf("%s: result metadata %+v", pi.Name(), res)
			}
		}
	}

	// Tolerance mode stops where the float64 oracle stops (same rule).
	g, _ := pagerank.SyntheticCase("chain")
	_, refIters := oracle64(g, pagerank.DefaultDamping, 1000, 1e-6)
	res, err := stageDesigns()[1].Run(g, pagerank.Converge(1e-6, 1000))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.FinalResidual() >= 1e-6 || absInt(res.Iterations-refIters) > 2 {
		t.Errorf("tolerance run: converged %v after %d iterations (oracle %d), residual %g",
			res.Converged, res.Iterations, refIters, res.FinalResidual())
	}

	// Benchmark: timing from the library, stages with bytes and x DRAM.
	bm := stageDesigns()[2].(pagerank.Benchmarker)
	res, err = bm.Benchmark(g, pagerank.Fixed(50), 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.Timing == nil || len(res.Timing.RunsMs) != 10 || res.Timing.Clock != "cuda-events" ||
		math.Abs(res.Timing.RunsMs[9]-1.09) > 1e-6 || res.Timing.Iterations != 50 {
		t.Fatalf("timing not marshalled: %+v", res.Timing)
	}
	var sum int64
	for _, st := range res.Stages {
		sum += st.Bytes
		// Times and bytes only: the rates are pkg/study's (SetRates).
		if st.Ms <= 0 || st.GBps != 0 || st.XDRAM != 0 || st.Kind != "" {
			t.Errorf("stage %+v", st)
		}
	}
	if len(res.Stages) != 4 || sum != res.BytesPerIteration {
		t.Errorf("%d stages summing to %d bytes, iteration %d", len(res.Stages), sum, res.BytesPerIteration)
	}

	tab, err := MeasureStages(g, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The fake copies at 1000 GB/s: 128 MiB in 0.134 ms.
	if len(tab.Rows()) != 2+stageCount || tab.CopyDRAM.Bytes != 128<<20 || tab.CopyDRAM.Kind != pagerank.StageCopyDRAM ||
		math.Abs(tab.CopyDRAM.Ms-float64(128<<20)/1e9) > 1e-6 || tab.CopyIteration.Bytes != 33*int64(g.N)+8*int64(g.NNZ)+4 ||
		tab.CopyIteration.Kind != pagerank.StageCopyIteration || tab.CopyDRAM.GBps != 0 {
		t.Errorf("stage table: %d rows, DRAM %+v, iteration %+v", len(tab.Rows()), tab.CopyDRAM, tab.CopyIteration)
	}

	// A library error comes back as *Error with the failing call named.
	_, err = stageDesigns()[0].Run(g, pagerank.Fixed(7777))
	var le *Error
	if !errors.As(err, &le) || le.Status != 2 || !strings.Contains(err.Error(), "cudaMalloc(d_colIdx, 379724 bytes)") {
		t.Errorf("error not propagated: %v", err)
	}

	// Reduction hook: the fake writes grid + 1 floats.
	a := []float32{1, 2, 3, 4}
	rc, err := checkReduction(g, reduceTree, 0, a, nil, []uint8{1, 0, 1, 0}, 32)
	if err != nil || rc.Value != 4 || rc.GridBlocks != 1 || rc.FloatsWritten != 2 {
		t.Errorf("checkReduction: %+v, %v", rc, err)
	}

	// Write budgets: two-pass reductions meet gridDim.x + 1, atomics never do,
	// library reductions are not counted.
	wb, err := CheckWriteBudgets(g)
	if err != nil || wb[NameThreadPerRow] != "met" || wb[NameWarpPerRow] != "met" || wb[NameCusparse] != "met" || wb[NameClusterDSMEM] != "met" ||
		!strings.HasPrefix(wb[NameNaive], "not met: one atomicAdd") || !strings.HasPrefix(wb[NameThrustCUB], "not checked") {
		t.Errorf("CheckWriteBudgets: %v, %v", wb, err)
	}
	if err := Release(); err != nil {
		t.Error(err)
	}
}

func TestFakeLibraryFailureReasons(t *testing.T) {
	reason := useLibrary(t, buildFake(t, "-DFAKE_NO_DEVICE"))
	if !strings.Contains(reason, "no usable GPU") || !strings.Contains(reason, "cudaErrorNoDevice") {
		t.Errorf("no-device reason %q", reason)
	}
	if ok, r := Available(); ok || r != reason {
		t.Errorf("Available() = %v, %q", ok, r)
	}
	im := stageDesigns()[0]
	if r := im.(pagerank.Unavailable).Reason(); r != reason {
		t.Errorf("Reason() = %q", r)
	}
	g, _ := pagerank.SyntheticCase("tiny")
	if _, err := im.Run(g, pagerank.Fixed(10)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Run without a device: %v, want ErrUnavailable", err)
	}
	if _, err := MeasureStages(g, StageOptions{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("MeasureStages without a device: %v", err)
	}
}

func TestFakeLibraryABIMismatch(t *testing.T) {
	reason := useLibrary(t, buildFake(t, "-DFAKE_ABI=999"))
	if !strings.Contains(reason, "ABI version 999") {
		t.Errorf("ABI mismatch reason %q", reason)
	}
}

// The layout designs and the relabelled ones end to end on the fake
// library: ranks, the cluster's per-graph availability, Benchmark's stage,
// whole-run and primitive rows, the layout, the primitives and the knobs.
func TestLayoutDesignsWithFakeLibrary(t *testing.T) {
	useFake(t)
	defer ReleaseRelabelled()
	for _, g := range synthetic(t) {
		want, _ := oracle64(g, pagerank.DefaultDamping, 30, 0)
		for _, pi := range append(layoutDesigns(), relabelledDesigns()...) {
			if r := pi.(pagerank.Unavailable).Reason(); r != "" {
				t.Fatalf("%s: Reason() = %q on a compute capability 9.0 device", pi.Name(), r)
			}
			res, err := pi.Run(g, pagerank.Fixed(30))
			if pi.Name() == NameCluster && g.N > 4096 {
				if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "shared memory per block") {
					t.Errorf("cluster on %s (n = %d): %v, want ErrUnavailable with the layout's reason", g.Name, g.N, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s on %s: %v", pi.Name(), g.Name, err)
			}
			if e := maxRelErr(res.Ranks, want); e > 1e-3 || len(res.Residuals) != 30 || res.Implementation != pi.Name() || res.Case != g.Name {
				t.Errorf("%s on %s: max relative error %.3g, %d residuals, %s on %s", pi.Name(), g.Name, e, len(res.Residuals), res.Implementation, res.Case)
			}
			if f := designImpl(pi).BytesFormula(); res.BytesPerIteration != f.Bytes(g.N, g.NNZ) {
				t.Errorf("%s on %s: %d bytes, formula %s", pi.Name(), g.Name, res.BytesPerIteration, f)
			}
		}
	}

	star, _ := pagerank.SyntheticCase("star")
	lay, err := LayoutOf(star)
	if err != nil || lay.Buckets != T4Buckets(star) || lay.ClusterSize != 0 || lay.ClusterReason == "" {
		t.Errorf("layout of star: %+v, %v; Go buckets %+v", lay, err, T4Buckets(star))
	}
	res, err := mustDesign(t, NameT4Bucketed).Benchmark(star, pagerank.Fixed(50), 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	// star: 10000 rows of in-degree 0 (thread bucket), the hub's 10000 edges
	// (block bucket), the combine, the whole run, the empty launch.
	names := []string{"T4 spmv, thread per row (10000 rows, 0 nnz", "T4 spmv, block per row (1 rows, 10000 nnz",
		"T4 combine", "whole run / 50 iterations", "primitive: empty kernel launch"}
	if len(res.Stages) != len(names) {
		t.Fatalf("T4 on star: %d stage rows %+v", len(res.Stages), res.Stages)
	}
	for i, n := range names {
		if !strings.HasPrefix(res.Stages[i].Name, n) {
			t.Errorf("row %d: %q, want %q...", i, res.Stages[i].Name, n)
		}
	}
	if sum := res.Stages[0].Bytes + res.Stages[1].Bytes + res.Stages[2].Bytes; sum != res.BytesPerIteration || res.Stages[3].Bytes != sum {
		t.Errorf("T4 rows: buckets + combine = %d bytes, whole run %d, iteration %d", sum, res.Stages[3].Bytes, res.BytesPerIteration)
	}
	// The fake's runs take 1.00 .. 1.09 ms (median 1.045); an empty launch 1 µs.
	if math.Abs(res.Stages[3].Ms-1.045/50) > 1e-6 || math.Abs(res.Stages[4].Ms-0.001) > 1e-9 || res.Stages[4].Bytes != 0 ||
		res.Stages[3].Kind != pagerank.StageWholeRun || res.Stages[4].Kind != pagerank.StagePrimitive || res.Stages[0].Kind != "" {
		t.Errorf("whole-run row %+v, primitive row %+v", res.Stages[3], res.Stages[4])
	}
	if res.LaunchesPerIteration != (50*3+1)/50.0 || res.HostSyncsPerIteration != 0 {
		t.Errorf("T4 on star: %v launches, %v host syncs per iteration", res.LaunchesPerIteration, res.HostSyncsPerIteration)
	}

	tiny, _ := pagerank.SyntheticCase("tiny")
	res, err = mustDesign(t, NameCluster).Benchmark(tiny, pagerank.Fixed(50), 3, 10)
	if err != nil || len(res.Stages) != 2 || !strings.Contains(res.BytesFormula, "(shared memory)") ||
		!strings.HasPrefix(res.Stages[1].Name, "primitive: cluster.sync()") || !strings.Contains(res.Stages[0].Formula, "(shared memory) (") {
		t.Errorf("cluster on tiny: %v, %+v", err, res)
	}
	res, err = mustDesign(t, NameFusedReordered).Benchmark(tiny, pagerank.Fixed(50), 3, 10)
	if err != nil || len(res.Stages) != 4 || !strings.HasPrefix(res.Stages[0].Name, "fused iteration (") ||
		!strings.HasPrefix(res.Stages[3].Name, "one-time host relabel") || res.Stages[3].Kind != pagerank.StageRelabel || len(res.Ranks) != tiny.N {
		t.Errorf("fused, reordered, on tiny: %v, %+v", err, res)
	}
	for _, c := range []struct {
		g    *pagerank.Graph
		rows int
	}{{tiny, 5}, {star, 4}} {
		if prims, err := MeasurePrimitives(c.g); err != nil || len(prims) != c.rows {
			t.Errorf("primitives on %s: %d rows, %v; want %d", c.g.Name, len(prims), err, c.rows)
		}
	}
	if err := setLayoutKnob(tiny, knobTileEdges, 64); err != nil {
		t.Fatal(err)
	}
	if lay, _ := LayoutOf(tiny); lay.TileEdges != 64 {
		t.Errorf("knob not applied: tile edges %d", lay.TileEdges)
	}
	var le *Error
	if err := setLayoutKnob(tiny, knobCount, 1); !errors.As(err, &le) || le.Status != 1 || le.Op != "prlab_layout_set" {
		t.Errorf("knob out of range: %v", err)
	}
}

// A library without the optional layout entry points still runs the
// stage-by-stage designs; the layout calls fail with ErrUnavailable naming
// the missing symbol.
func TestFakeLibraryWithoutLayoutSymbols(t *testing.T) {
	if reason := useLibrary(t, buildFake(t, "-DFAKE_NO_LAYOUT")); reason != "" {
		t.Fatalf("fake library without layout symbols unavailable: %s", reason)
	}
	g, _ := pagerank.SyntheticCase("tiny")
	if _, err := mustDesign(t, NameWarpPerRow).Run(g, pagerank.Fixed(10)); err != nil {
		t.Errorf("warp per row: %v", err)
	}
	if _, err := LayoutOf(g); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "prlab_layout_info_get") {
		t.Errorf("LayoutOf: %v", err)
	}
	if _, err := mustDesign(t, NameFused).Benchmark(g, pagerank.Fixed(50), 1, 2); !errors.Is(err, ErrUnavailable) {
		t.Errorf("fused Benchmark: %v", err)
	}
	if _, err := mustDesign(t, NameCluster).Run(g, pagerank.Fixed(10)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("cluster Run: %v", err)
	}
	if err := setLayoutKnob(g, knobTileRows, 16); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "prlab_layout_set") {
		t.Errorf("knob: %v", err)
	}
}

// A Session holds one upload: the designs and the stage table on its graph
// use it; another graph replaces it; Close frees the current one only.
func TestSessionWithFakeLibrary(t *testing.T) {
	useFake(t)
	holds := func() *Session {
		mu.Lock()
		defer mu.Unlock()
		return current
	}
	g, _ := pagerank.SyntheticCase("tiny")
	s, err := Open(g)
	if err != nil || s.Graph() != g || holds() != s {
		t.Fatalf("Open: %v, session %+v", err, s)
	}
	for _, name := range []string{NameWarpPerRow, NameFused, NameCluster} {
		if _, err := mustDesign(t, name).Run(g, pagerank.Fixed(5)); err != nil || holds() != s {
			t.Errorf("%s on the session's graph: %v; uploaded again: %v", name, err, holds() != s)
		}
	}
	if _, err := MeasureStages(g, StageOptions{}); err != nil || holds() != s {
		t.Errorf("stage table: %v; uploaded again: %v", err, holds() != s)
	}
	other, _ := pagerank.SyntheticCase("chain")
	if _, err := mustDesign(t, NameNaive).Run(other, pagerank.Fixed(5)); err != nil || holds() == s || holds().Graph() != other {
		t.Errorf("another graph: %v", err)
	}
	if err := s.Close(); err != nil || holds() == nil {
		t.Errorf("closing a replaced session: %v, current %v", err, holds())
	}
	if err := holds().Close(); err != nil || holds() != nil {
		t.Errorf("closing the current session: %v, current %v", err, holds())
	}
	if _, err := Open(&pagerank.Graph{Name: "broken", N: 3}); err == nil || !strings.Contains(err.Error(), "inconsistent") {
		t.Errorf("Open of an inconsistent graph: %v", err)
	}
}
