//go:build cgo

package cudabind

import (
	"strings"
	"testing"

	"github.com/prlab/prlab/pkg/pagerank"
)

// The locality glue end to end on the CPU stand-in library: ranks in the
// graph's own order (against a float64 PageRank of the unrelabelled graph,
// and against the inner implementation on the relabelled graph permuted
// back), metadata, Benchmark's relabel row, the relabel log.
func TestReorderedWithFakeLibrary(t *testing.T) {
	useFake(t)
	var log strings.Builder
	SetRelabelLog(&log)
	defer SetRelabelLog(nil)
	defer ReleaseRelabelled()
	im, ok := DesignByName(NameCusparseReordered)
	if !ok {
		t.Fatal("no " + NameCusparseReordered)
	}
	if r := im.(pagerank.Unavailable).Reason(); r != "" {
		t.Fatalf("Reason() = %q with the fake library loaded", r)
	}
	rm := rmat(t, 9, 5)
	for _, g := range append(synthetic(t), rm) {
		want, _ := oracle64(g, pagerank.DefaultDamping, 30, 0)
		res, err := im.Run(g, pagerank.Fixed(30))
		if err != nil {
			t.Fatalf("%s on %s: %v", im.Name(), g.Name, err)
		}
		if e := maxRelErr(res.Ranks, want); e > 1e-3 {
			t.Errorf("%s on %s: max relative error %.3g vs float64 on the original labels", im.Name(), g.Name, e)
		}
		if res.Implementation != im.Name() || res.Case != g.Name || len(res.Residuals) != 30 ||
			res.BytesPerIteration != 21*int64(g.N)+12*int64(g.NNZ)+4 || !strings.Contains(res.BytesFormula, "gpu-cusparse's kernels and bytes") {
			t.Errorf("%s on %s: metadata %s %s %d residuals, %d bytes %q", im.Name(), g.Name, res.Implementation, res.Case, len(res.Residuals), res.BytesPerIteration, res.BytesFormula)
		}
		rg, perm, _, _ := relabelled(g)
		inner, err := stageDesigns()[implCusparse].Run(rg, pagerank.Fixed(30))
		if err != nil {
			t.Fatal(err)
		}
		for old, nw := range perm {
			if res.Ranks[old] != inner.Ranks[nw] {
				t.Fatalf("%s: node %d: %v, inner run's new label %d: %v", g.Name, old, res.Ranks[old], nw, inner.Ranks[nw])
			}
		}
	}
	if n := strings.Count(log.String(), "relabel "); n != 7 {
		t.Errorf("%d relabel log lines for 7 graphs:\n%s", n, log.String())
	}
	res, err := im.(pagerank.Benchmarker).Benchmark(rm, pagerank.Fixed(50), 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Stages[len(res.Stages)-1]
	if res.Timing == nil || len(res.Timing.RunsMs) != 10 || res.Case != rm.Name || len(res.Ranks) != rm.N ||
		!strings.HasPrefix(last.Name, "one-time host relabel by out-degree") || !strings.Contains(last.Formula, "relabel rmat9 by out-degree") {
		t.Errorf("Benchmark: timing %+v, case %s, last stage %+v", res.Timing, res.Case, last)
	}
	if strings.Count(log.String(), "relabel rmat9") != 1 {
		t.Errorf("rmat9 relabelled more than once:\n%s", log.String())
	}
}
