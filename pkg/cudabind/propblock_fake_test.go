//go:build cgo

package cudabind

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// hotEdgesOf counts the edges of g relabelled by LocalityOrder whose source
// is below hot (the fake's and the design's hot edges).
func hotEdgesOf(t *testing.T, g *pagerank.Graph, hot int) int64 {
	t.Helper()
	rg, _, _, err := relabelled(g)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range rg.InColIdx {
		if int(c) < min(hot, g.N) {
			n++
		}
	}
	return n
}

// gpu-prop-blocking through the fake library: the bytes per iteration are
// the formula less 8 per hot edge (counted from the relabelled graph, for
// the default head and for none), the ranks are the fake's gpu-hothead ranks
// in the graph's order, and Benchmark reports the one-time layout beside the
// relabel, outside the timed iterations.
func TestPropBlockWithFakeLibrary(t *testing.T) {
	useFake(t)
	defer ReleaseRelabelled()
	rm := rmat(t, 17, 1)
	im := mustDesign(t, NamePropBlock)
	if im.order != LocalityOrder || im.kernelsOf != "" || im.family != familyLayout {
		t.Fatalf("%s: order %q, kernels of %q, family %d", im.Name(), im.order, im.kernelsOf, im.family)
	}
	for _, g := range append(pagerank.SyntheticCases(), rm) {
		for _, hot := range []struct{ knob, floats int }{{0, 12288}, {1, 0}} {
			rg, _, _, err := relabelled(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := setLayoutKnob(rg, knobPBHot, hot.knob); err != nil {
				t.Fatal(err)
			}
			res, err := im.Run(g, pagerank.Fixed(20))
			if err != nil {
				t.Fatalf("%s on %s: %v", im.Name(), g.Name, err)
			}
			he := hotEdgesOf(t, g, hot.floats)
			if want := 16*int64(g.N) + 12*int64(g.NNZ) - 8*he; res.BytesPerIteration != want ||
				!strings.Contains(res.BytesFormula, fmt.Sprintf("- 8 x %d hot edges", he)) {
				t.Errorf("%s on %s, head %d: %d bytes (%s), want %d with %d hot edges", im.Name(), g.Name, hot.floats, res.BytesPerIteration, res.BytesFormula, want, he)
			}
			if g == rm && hot.floats > 0 && (he == 0 || he == int64(g.NNZ)) {
				t.Errorf("R-MAT 2^17 with a %d-float head: %d of %d edges hot (both kinds must occur)", hot.floats, he, g.NNZ)
			}
			plain, err := mustDesign(t, NameHotHead).Run(g, pagerank.Fixed(20))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Ranks, plain.Ranks) || len(res.Ranks) != g.N {
				t.Errorf("%s on %s: the fake's ranks differ from gpu-hothead's", im.Name(), g.Name)
			}
		}
	}
	if cs := im.Costs(rm, 50); cs.HostLaunches != 101.0/50 || cs.Kernels != 101.0/50 || cs.DeviceBarriers != 0 {
		t.Errorf("costs: %+v (two launches per iteration + the prologue)", cs)
	}
	for _, st := range oneTimeRows(t, im, rm, "one-time propagation-blocking layout", "one-time host relabel") {
		if strings.HasPrefix(st.Name, "one-time propagation-blocking layout") && (st.Ms != 2.5 || !strings.Contains(st.Formula, "alone: scatter 0.5000 ms, accumulate + combine 0.7500 ms")) {
			t.Errorf("layout row %+v", st)
		}
	}
}

func TestPropBlockSetupString(t *testing.T) {
	p := PropBlockSetup{HotFloats: 12288, BinRows: 16384, ChunkRows: 16384, Bins: 1100, Chunks: 1024, Items: 900, HotEdges: 12345, BuildMs: 90, ScatterMs: 0.5, AccumulateMs: 0.625}
	want := "1100 bins of <= 16384 rows, 1024 source chunks of 16384 rows, 900 phase-1 items; head 12288 floats (48 KiB), 12345 hot edges; one float atomic per edge, float row sums (order varies); alone: scatter 0.5000 ms, accumulate + combine 0.6250 ms"
	if got := p.String(); got != want {
		t.Errorf("setup %q,\nwant %q", got, want)
	}
	p.Runs, p.Fixed = true, true
	want = "1100 bins of <= 16384 rows, 1024 source chunks of 16384 rows, 900 phase-1 items; head 12288 floats (48 KiB), 12345 hot edges; one atomic per run of a destination, 64-bit fixed-point row sums (the same bits every run); alone: scatter 0.5000 ms, accumulate + combine 0.6250 ms"
	if got := p.String(); got != want {
		t.Errorf("setup %q,\nwant %q", got, want)
	}
}
